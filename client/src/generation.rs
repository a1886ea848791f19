//! Task generations (A2A 1.1, spec §3.2.7) as a stream reader sees them: the
//! server raises a task's generation by exactly one with each change, each
//! change one event, so an event whose generation is not the previous one
//! plus one means events were missed. The reader then stops with a
//! [`GenerationGap`] naming the task, so the caller can re-read it.
//!
//! Checking starts at the first task event that carries a generation; an
//! event without one (or with 0) means the server keeps none, and checking
//! stops. A `task` event is the whole task, so one at or past the previous
//! generation misses nothing (a stream resumed without a sequence to resume
//! after starts with one). A resumed stream replays from the last sequence
//! delivered, so the events it delivers follow on without a gap.

use a2a::rpc::{BoxFuture, CallError, Event, RawEventStream};
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::Value;
use std::pin::Pin;

/// The params member of GetTask that makes it a long-poll (A2A 1.1): the
/// generation the caller has seen.
pub const LONG_POLL_FIELD: &str = "currentGeneration";

/// The member of a task and of its update events that carries the generation.
pub const GENERATION_FIELD: &str = "generation";

/// Events of a task were missed: the stream delivered generation `seen`
/// where `expected` was next.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("events of task `{task_id}` were missed (generation {expected} expected, {seen} seen): read the task again")]
pub struct GenerationGap {
    /// The task whose events were missed.
    pub task_id: String,
    /// The generation that should have come next.
    pub expected: i64,
    /// The generation that came.
    pub seen: i64,
}

/// An error ending a checked stream: the call's, or a gap in the task's events.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The call failed (transport, agent error, malformed event).
    #[error(transparent)]
    Call(#[from] CallError),
    /// Events were missed: re-read the task.
    #[error(transparent)]
    Gap(GenerationGap),
}

impl From<StreamError> for CallError {
    /// For callers that know only [`CallError`]: a gap is events lost on
    /// the way, a transport error (with the task and generations in its text).
    fn from(error: StreamError) -> Self {
        match error {
            StreamError::Call(error) => error,
            StreamError::Gap(gap) => CallError::Transport(gap.to_string()),
        }
    }
}

/// A stream of events whose task generations are checked.
pub type CheckedEventStream = Pin<Box<dyn Stream<Item = Result<Event<Value>, StreamError>> + Send>>;

/// The generation a task event carries (an integer, or a decimal string as
/// proto3 JSON renders an int64).
pub fn generation_of(body: &Value) -> Option<i64> {
    match body.get(GENERATION_FIELD)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// What a StreamResponse event says about its task: whether it is the whole
/// task, its id, and its generation.
fn task_event(event: &Value) -> Option<(bool, &str, Option<i64>)> {
    if let Some(task) = event.get("task") {
        return Some((true, task["id"].as_str().unwrap_or(""), generation_of(task)));
    }
    let update = event
        .get("statusUpdate")
        .or_else(|| event.get("artifactUpdate"))?;
    Some((
        false,
        update["taskId"].as_str().unwrap_or(""),
        generation_of(update),
    ))
}

/// The state of the check along one stream.
#[derive(Clone, Debug, Default)]
pub struct GapCheck {
    /// The task and generation of the last task event.
    last: Option<(String, i64)>,
    /// The server keeps no generations: nothing more to check.
    off: bool,
}

impl GapCheck {
    /// Checks the next event of the stream (a StreamResponse; any other
    /// event passes).
    pub fn check(&mut self, event: &Value) -> Result<(), GenerationGap> {
        if self.off {
            return Ok(());
        }
        let Some((whole, task_id, generation)) = task_event(event) else {
            return Ok(());
        };
        let Some(generation) = generation.filter(|g| *g > 0) else {
            self.off = true;
            self.last = None;
            return Ok(());
        };
        if let Some((last_task, last)) = &self.last {
            let follows = generation == last + 1 || (whole && generation >= *last);
            if last_task == task_id && !follows {
                return Err(GenerationGap {
                    task_id: task_id.to_string(),
                    expected: last + 1,
                    seen: generation,
                });
            }
        }
        self.last = Some((task_id.to_string(), generation));
        Ok(())
    }
}

/// `events` with their generations checked: a gap is yielded as
/// [`StreamError::Gap`] and ends the stream.
pub fn checked(events: RawEventStream) -> CheckedEventStream {
    let state = (events, GapCheck::default(), false);
    let stream = stream::unfold(state, |(mut events, mut check, ended)| async move {
        if ended {
            return None;
        }
        let item = match events.next().await? {
            Ok(event) => match check.check(&event.data) {
                Ok(()) => Ok(event),
                Err(gap) => return Some((Err(StreamError::Gap(gap)), (events, check, true))),
            },
            Err(error) => Err(StreamError::Call(error)),
        };
        Some((item, (events, check, false)))
    });
    Box::pin(stream)
}

/// `events` checked, a gap reported as a [`CallError`] (what
/// `Transport::subscribe` yields).
fn guarded(events: RawEventStream) -> RawEventStream {
    Box::pin(checked(events).map(|item| item.map_err(CallError::from)))
}

/// A transport that opens event streams: each binding says only how a
/// stream is opened, and the generation check is put on it here, once.
pub trait EventSource: Sync {
    /// Opens a stream as the agent sends it, its generations unchecked.
    fn open_stream<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>>;

    /// Opens a stream whose task generations are checked: a gap in them is
    /// [`StreamError::Gap`].
    fn subscribe_checked<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<CheckedEventStream, CallError>> {
        Box::pin(async move { Ok(checked(self.open_stream(method, params).await?)) })
    }

    /// Opens a stream whose generation gap, if any, is its last item as a
    /// [`CallError`]: the body of each binding's `Transport::subscribe`.
    fn subscribe_guarded<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>> {
        Box::pin(async move { Ok(guarded(self.open_stream(method, params).await?)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn status(generation: Option<i64>) -> Value {
        let mut update = json!({"taskId": "t1", "status": {"state": "TASK_STATE_WORKING"}});
        if let Some(generation) = generation {
            update["generation"] = json!(generation);
        }
        json!({ "statusUpdate": update })
    }

    fn task(generation: i64) -> Value {
        json!({"task": {"id": "t1", "generation": generation}})
    }

    fn run(events: Vec<Value>) -> Vec<Result<Value, String>> {
        let raw: RawEventStream = Box::pin(stream::iter(events.into_iter().map(|data| Ok(Event::new(data)))));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        runtime
            .block_on(checked(raw).collect::<Vec<_>>())
            .into_iter()
            .map(|item| item.map(|e| e.data).map_err(|e| e.to_string()))
            .collect()
    }

    #[test]
    fn a_gap_ends_the_stream_with_the_task_and_generations() {
        let events = vec![task(1), status(Some(2)), status(Some(4)), status(Some(5))];
        let mut check = GapCheck::default();
        let results: Vec<_> = events.iter().map(|e| check.check(e)).collect();
        assert_eq!(
            results[2],
            Err(GenerationGap {
                task_id: "t1".into(),
                expected: 3,
                seen: 4
            })
        );
        let read = run(events);
        assert_eq!(read.len(), 3, "nothing after the gap: {read:?}");
        assert_eq!(read[1], Ok(status(Some(2))));
        assert_eq!(
            read[2],
            Err(
                "events of task `t1` were missed (generation 3 expected, 4 seen): read the task again".into()
            )
        );
    }

    #[test]
    fn no_false_gaps() {
        // In order, artifacts included; a non-task event in between.
        let artifact = json!({"artifactUpdate": {"taskId": "t1", "generation": 3}});
        let events = vec![
            task(1),
            status(Some(2)),
            artifact,
            json!({"message": {}}),
            status(Some(4)),
        ];
        assert!(run(events).iter().all(Result::is_ok));
        // A stream resumed without a sequence starts with the whole task, further on.
        assert!(run(vec![status(Some(2)), task(5), status(Some(6))])
            .iter()
            .all(Result::is_ok));
        // A server without generations (none, or 0): nothing is checked.
        assert!(run(vec![task(0), status(Some(7)), status(Some(3))])
            .iter()
            .all(Result::is_ok));
        assert!(run(vec![status(Some(2)), status(None), status(Some(9))])
            .iter()
            .all(Result::is_ok));
        // Generations as proto3 JSON strings (gRPC transcoding) count the same.
        let string = json!({"statusUpdate": {"taskId": "t1", "generation": "3"}});
        assert!(run(vec![status(Some(2)), string]).iter().all(Result::is_ok));
    }

    #[test]
    fn going_back_is_a_gap_too() {
        let read = run(vec![status(Some(3)), status(Some(3))]);
        assert!(read[1]
            .as_ref()
            .is_err_and(|e| e.contains("generation 4 expected, 3 seen")));
        let read = run(vec![status(Some(3)), task(2)]);
        assert!(read[1].is_err());
    }
}
