//! Long-polling GetTask (A2A 1.1, `currentGeneration`): the task once its
//! generation passes the one the caller has seen, or as it stands when the
//! wait ends.
//!
//! The wait is a subscription to the task like any stream's, so it is woken
//! by the commit that moves the task on, on this agent or, on a shared
//! store, on any other (through the engine's notices of other agents'
//! appends). It ends at the server's limit or a little before the caller's
//! own (`Prefer: wait=N`, a gRPC deadline), whichever comes first, and at
//! once for a task that can change no more.

use super::engine::TaskEngine;
use super::stream::ends_stream;
use crate::lifecycle::is_terminal;
use crate::store::{generation, TaskRow};
use a2a::rpc::{CallContext, Error};
use std::time::Duration;

/// How long a long-polling GetTask is held when the configuration names no limit.
pub const DEFAULT_LONG_POLL_MAX: Duration = Duration::from_secs(30);

/// The part of the caller's own limit a held call may use: the rest is for
/// the answer to reach it in time.
const CALLER_LIMIT_SHARE: f64 = 0.9;

/// How long a held call may wait for `ctx`'s caller, with the server's limit `max`.
pub(crate) fn patience(ctx: &CallContext, max: Duration) -> Duration {
    match ctx.wait_limit {
        Some(caller) => max.min(caller.mul_f64(CALLER_LIMIT_SHARE)),
        None => max,
    }
}

impl TaskEngine {
    /// The row of task `task_id` once its generation is above `seen`, or as
    /// it stands when `within` passes or the task ends.
    pub(crate) async fn await_generation(
        &self,
        namespace: &str,
        task_id: &str,
        seen: i64,
        within: Duration,
    ) -> Result<TaskRow, Error> {
        let row = self.load_task(namespace, task_id).await?;
        if generation(row.last_seq) > seen || is_terminal(row.body.status.state) {
            return Ok(row);
        }
        // From where the row ends: whatever lands between the read and the
        // subscription is in the backlog, nothing is missed.
        let (backlog, rx) = self.subscribe(namespace, task_id, Some(row.last_seq)).await?;
        let passed = |seq: Option<u64>| seq.is_some_and(|seq| generation(seq) > seen);
        if !backlog.iter().any(|event| passed(event.seq)) {
            if let Some(mut rx) = rx {
                let wait = async {
                    while let Some(event) = rx.recv().await {
                        if passed(event.seq) || ends_stream(&event.data, false) {
                            break;
                        }
                    }
                };
                // The wait ending unanswered is the timeout the spec allows:
                // the task is answered as it stands.
                let _ = tokio::time::timeout(within, wait).await;
            }
        }
        self.load_task(namespace, task_id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use crate::tasks::testing::{create, engine, move_to};
    use a2a::types::TaskState;
    use std::sync::Arc;
    use tokio::time::Instant;

    /// How long the caller is willing to wait in these tests: time is
    /// paused, so a wait that runs out passes at once, and how much (virtual)
    /// time passed tells a wait from an answer given at once.
    const WITHIN: Duration = Duration::from_secs(3600);

    /// An engine with task `t` of `ns` at generation 2 (WORKING).
    async fn working() -> TaskEngine {
        let engine = engine(&Arc::new(MemoryStore::new()));
        create(&engine, "ns", "t").await;
        move_to(&engine, "ns", "t", TaskState::Working).await;
        engine
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_past_the_seen_generation_is_answered_at_once() {
        let engine = working().await;
        let start = Instant::now();
        let row = engine
            .await_generation("ns", "t", 1, WITHIN)
            .await
            .expect("the task");
        assert_eq!((row.last_seq, start.elapsed()), (2, Duration::ZERO));
    }

    #[tokio::test(start_paused = true)]
    async fn a_finished_task_is_answered_at_once() {
        let engine = working().await;
        move_to(&engine, "ns", "t", TaskState::Completed).await;
        let start = Instant::now();
        let row = engine
            .await_generation("ns", "t", 3, WITHIN)
            .await
            .expect("the task");
        assert_eq!((row.last_seq, start.elapsed()), (3, Duration::ZERO));
    }

    #[tokio::test(start_paused = true)]
    async fn the_wait_ends_with_the_next_generation() {
        let engine = working().await;
        let start = Instant::now();
        let mover = engine.clone();
        let (row, ()) = tokio::join!(engine.await_generation("ns", "t", 2, WITHIN), async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            move_to(&mover, "ns", "t", TaskState::InputRequired).await;
        });
        let row = row.expect("the task");
        assert_eq!(row.body.status.state, TaskState::InputRequired);
        assert_eq!((row.last_seq, start.elapsed()), (3, Duration::from_secs(5)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_generation_claimed_ahead_of_the_task_is_waited_past() {
        let engine = working().await;
        let start = Instant::now();
        let mover = engine.clone();
        let (row, ()) = tokio::join!(engine.await_generation("ns", "t", 3, WITHIN), async move {
            for state in [TaskState::InputRequired, TaskState::Working] {
                tokio::time::sleep(Duration::from_secs(5)).await;
                move_to(&mover, "ns", "t", state).await;
            }
        });
        let row = row.expect("the task");
        assert_eq!((row.last_seq, start.elapsed()), (4, Duration::from_secs(10)));
    }

    #[tokio::test(start_paused = true)]
    async fn an_unmoved_task_is_answered_as_it_stands_when_the_wait_ends() {
        let engine = working().await;
        let start = Instant::now();
        let within = Duration::from_secs(7);
        let row = engine
            .await_generation("ns", "t", 2, within)
            .await
            .expect("the task");
        assert_eq!((row.last_seq, start.elapsed()), (2, within));
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_that_does_not_exist_is_not_found() {
        let engine = working().await;
        let answer = engine.await_generation("ns", "gone", 0, WITHIN).await;
        assert_eq!(
            answer.map(|row| row.id).map_err(|e| e.code),
            Err(a2a::ErrorKind::TaskNotFound.code())
        );
    }

    #[test]
    fn patience_is_the_least_of_the_limits() {
        let max = Duration::from_secs(30);
        let mut ctx = CallContext::default();
        assert_eq!(patience(&ctx, max), max);
        ctx.wait_limit = Some(Duration::from_secs(10));
        assert_eq!(patience(&ctx, max), Duration::from_secs(9));
        ctx.wait_limit = Some(Duration::from_secs(60));
        assert_eq!(patience(&ctx, max), max);
    }
}
