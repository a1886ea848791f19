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
