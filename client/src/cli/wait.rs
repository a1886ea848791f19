//! Waiting on a task until it ends or pauses (a2a-cli §9): following its
//! event stream where the agent streams, polling `GetTask` otherwise or once
//! a stream fails, and stopping at once on an interrupted state
//! (`INPUT_REQUIRED`, `AUTH_REQUIRED`) so the caller can act. `UNSPECIFIED`
//! is neither: the wait goes on. `--timeout` bounds the whole wait.
//!
//! Polling backs off from `--poll-interval` to five times it; where the
//! agent speaks a version with long-polling reads (A2A 1.1), each read is
//! held by the agent until the task moves, so no interval is slept at all.

use super::debug::Debug;
use super::failure::{Failure, Local};
use super::target::Target;
use crate::generation::{generation_of, CheckedEventStream, EventSource, StreamError, LONG_POLL_FIELD};
use crate::http::{event_state, state_class, StateClass};
use a2a::methods::markers::{GetTask, SubscribeToTask};
use a2a::rpc::{Method, Transport};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// How a wait goes.
pub struct Waiter<'a> {
    /// The agent.
    pub target: &'a Target,
    /// `--poll-interval`.
    pub poll_interval: Duration,
    /// When `--timeout` passes.
    pub deadline: Option<Instant>,
    /// Told about each event or read while waiting (live progress).
    pub progress: &'a dyn Fn(&Value),
    /// The wait follows a reply to a task that waited for it: the stream's
    /// first event is the task as it stood when the reply came, still
    /// waiting, and does not end the wait (what the reply leads to does).
    pub replying: bool,
}

/// How a followed stream ended.
pub enum StreamEnd {
    /// At a terminal or interrupted state: this event.
    Settled(Value),
    /// A direct message answered: no task.
    Message(Value),
    /// The stream stopped before the task settled: the task id, if known.
    Broken(Option<String>, Option<Failure>),
}

impl StreamEnd {
    /// The end of a stream of task `task_id` (if known) that failed: the
    /// call's failure, or a gap in its events.
    pub fn failed(task_id: Option<String>, error: StreamError, sends_credentials: bool) -> StreamEnd {
        let failure = match error {
            StreamError::Call(error) => Failure::of_call(&error, sends_credentials),
            StreamError::Gap(gap) => Failure::local(Local::Internal, gap.to_string()),
        };
        StreamEnd::Broken(task_id, Some(failure))
    }
}

/// How many times a broken stream is opened again before a wait falls back
/// to polling the task.
const RESUBSCRIBES: usize = 2;

/// Logs that the stream of task `id` stopped before it settled (and `why`),
/// then, while `tries` (counted across one wait) are left, subscribes to the
/// task again, in `tenant` if given; `None` when none is left or that fails
/// too, and the wait polls instead.
pub async fn resubscribe(
    debug: &Debug,
    target: &Target,
    (id, why): (&str, Option<&Failure>),
    tenant: Option<&Value>,
    tries: &mut usize,
) -> Option<CheckedEventStream> {
    debug.log(&format!(
        "the stream of task {id} stopped before it settled{}",
        why.map(|f| format!(": {}", f.message)).unwrap_or_default()
    ));
    if *tries >= RESUBSCRIBES {
        return None;
    }
    *tries += 1;
    let mut params = json!({ "id": id });
    if let Some(tenant) = tenant {
        params[crate::wire::A2A_NAMESPACE_FIELD] = tenant.clone();
    }
    target
        .transport
        .subscribe_checked(SubscribeToTask::NAME, params)
        .await
        .ok()
}

/// A task's id and the text of its state (empty where it has none).
pub fn id_and_state(task: &Value) -> (&str, &str) {
    let state = task.pointer("/status/state").and_then(Value::as_str);
    (task["id"].as_str().unwrap_or(""), state.unwrap_or(""))
}

/// The class of a task (or event)'s state.
pub fn class_of(value: &Value) -> StateClass {
    event_state(value).map_or(StateClass::Pending, state_class)
}

impl Waiter<'_> {
    /// A failure for `--timeout`, naming the task so it can be picked up later.
    pub fn timed_out(&self, task_id: &str) -> Failure {
        Failure::local(
            Local::Timeout,
            format!("--timeout passed before task {task_id} ended or paused"),
        )
        .hint(format!("the task goes on: `agents task get {task_id} --wait`"))
    }

    fn remaining(&self) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Follows `events` until the task settles; each event is handed to
    /// `on_event` as it arrives.
    pub async fn follow(
        &self,
        mut events: CheckedEventStream,
        on_event: &mut dyn FnMut(&Value),
    ) -> Result<StreamEnd, Failure> {
        let mut task_id: Option<String> = None;
        let mut first = true;
        loop {
            let next = match self.remaining() {
                Some(left) => match tokio::time::timeout(left, events.next()).await {
                    Ok(next) => next,
                    Err(_) => return Err(self.timed_out(task_id.as_deref().unwrap_or("(unknown)"))),
                },
                None => events.next().await,
            };
            match next {
                Some(Ok(event)) => {
                    let data = event.data;
                    if task_id.is_none() {
                        task_id = crate::http::stream_task_id(&data);
                    }
                    on_event(&data);
                    (self.progress)(&data);
                    if data.get("message").is_some() && task_id.is_none() {
                        return Ok(StreamEnd::Message(data));
                    }
                    let stale = first && self.replying && data.get("task").is_some();
                    first = false;
                    if class_of(&data) == StateClass::Terminal
                        || (class_of(&data) == StateClass::Interrupted && !stale)
                    {
                        return Ok(StreamEnd::Settled(data));
                    }
                }
                Some(Err(error)) => {
                    return Ok(StreamEnd::failed(task_id, error, self.target.sends_credentials))
                }
                None => return Ok(StreamEnd::Broken(task_id, None)),
            }
        }
    }

    /// Reads the task until it settles; the last read is returned.
    pub async fn poll(&self, task_id: &str, tenant: Option<&Value>) -> Result<Value, Failure> {
        let mut params = json!({ "id": task_id });
        if let Some(tenant) = tenant {
            params[crate::wire::A2A_NAMESPACE_FIELD] = tenant.clone();
        }
        let long_poll = crate::negotiate::since("GetTaskRequest", LONG_POLL_FIELD)
            .is_some_and(|since| crate::negotiate::reaches(self.target.transport.protocol_version(), since));
        let mut interval = self.poll_interval;
        let most = self.poll_interval * 5;
        loop {
            let read = self.target.transport.call(GetTask::NAME, params.clone());
            let task = match self.remaining() {
                Some(left) => match tokio::time::timeout(left, read).await {
                    Ok(read) => read,
                    Err(_) => return Err(self.timed_out(task_id)),
                },
                None => read.await,
            };
            let task = match task {
                Ok(task) => task,
                // A long-poll the transport gave up on is a read to make again.
                Err(a2a::rpc::CallError::Transport(_))
                    if long_poll && params.get(LONG_POLL_FIELD).is_some() =>
                {
                    continue;
                }
                Err(error) => return Err(Failure::of_call(&error, self.target.sends_credentials)),
            };
            (self.progress)(&task);
            if class_of(&task) != StateClass::Pending {
                return Ok(task);
            }
            if self.remaining() == Some(Duration::ZERO) {
                return Err(self.timed_out(task_id));
            }
            match generation_of(&task).filter(|g| long_poll && *g > 0) {
                // Held by the agent until the task passes this generation.
                Some(generation) => params[LONG_POLL_FIELD] = json!(generation),
                None => {
                    let sleep = self.remaining().map_or(interval, |left| interval.min(left));
                    tokio::time::sleep(sleep).await;
                    interval = (interval.mul_f64(1.5)).min(most);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        let of = |state: &str| class_of(&json!({"status": {"state": state}}));
        assert_eq!(of("TASK_STATE_INPUT_REQUIRED"), StateClass::Interrupted);
        assert_eq!(of("TASK_STATE_AUTH_REQUIRED"), StateClass::Interrupted);
        assert_eq!(of("TASK_STATE_REJECTED"), StateClass::Terminal);
        assert_eq!(of("TASK_STATE_UNSPECIFIED"), StateClass::Pending);
        assert_eq!(of("TASK_STATE_WORKING"), StateClass::Pending);
        assert_eq!(
            class_of(&json!({"statusUpdate": {"status": {"state": "TASK_STATE_FAILED"}}})),
            StateClass::Terminal
        );
    }
}
