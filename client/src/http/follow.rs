//! Following an HTTP stream: Server-Sent Events read one by one, replays
//! after a resume skipped by their sequence, and a stream that broke or ended
//! before its final event reopened from the last sequence delivered (the same
//! call for an idempotent stream, else a subscription to its task).

use super::Inner;
use crate::policy;
use crate::sse::{read_event, SseRead};
use crate::wire;
use a2a::methods::markers::SubscribeToTask;
use a2a::rpc::{CallError, Event, Method, RawEventStream};
use a2a::types::TaskState;
use futures_util::stream::{self, BoxStream, StreamExt};
use serde_json::{json, Value};
use std::sync::Arc;

type SseEvents = BoxStream<
    'static,
    Result<eventsource_stream::Event, eventsource_stream::EventStreamError<reqwest::Error>>,
>;

pub(crate) enum Opened {
    Events(SseEvents),
    Single(Value),
}

/// Where a stream stands between polls.
pub(super) struct Follow {
    inner: Arc<Inner>,
    method: &'static str,
    params: Value,
    events: Option<SseEvents>,
    /// A single JSON answer waiting to be yielded as the only event.
    pending: Option<Value>,
    last_seq: Option<u64>,
    /// Task the stream is about, for resuming a non-repeatable stream with SubscribeToTask.
    task_id: Option<String>,
    resumes_left: u32,
    final_seen: bool,
    done: bool,
}

impl Follow {
    /// The request that resumes this stream, if any may: the same one for an
    /// idempotent stream, else a subscription to the task it was about.
    fn resume_request(&self) -> Option<(&'static str, Value)> {
        if policy::is_idempotent_read_name(self.method) {
            return Some((self.method, self.params.clone()));
        }
        let id = self.task_id.clone()?;
        let mut params = json!({ "id": id });
        if let Some(tenant) = self.params.get(wire::A2A_NAMESPACE_FIELD) {
            params[wire::A2A_NAMESPACE_FIELD] = tenant.clone();
        }
        Some((SubscribeToTask::NAME, params))
    }

    /// The stream ended without its final event or broke: reconnect from the
    /// last sequence seen, within the resume budget. `Err` carries the error to
    /// report when resuming is not possible.
    async fn reconnect(&mut self, cause: CallError) -> Result<(), CallError> {
        let Some((method, params)) = self.resume_request() else {
            return Err(cause);
        };
        if self.resumes_left == 0 {
            return Err(cause);
        }
        let attempt = self.inner.config.max_resumes - self.resumes_left;
        self.resumes_left -= 1;
        tokio::time::sleep(policy::backoff(self.inner.config.backoff, attempt)).await;
        match self.inner.open(method, &params, self.last_seq).await {
            Ok(Opened::Events(events)) => {
                self.events = Some(events);
                Ok(())
            }
            Ok(Opened::Single(value)) => {
                self.pending = Some(value);
                Ok(())
            }
            Err(attempt) if attempt.transient => {
                self.events = None;
                Ok(())
            }
            Err(attempt) => Err(attempt.error),
        }
    }

    async fn next_item(&mut self) -> Option<Result<Event<Value>, CallError>> {
        loop {
            if self.done {
                return None;
            }
            if let Some(value) = self.pending.take() {
                self.done = true;
                return Some(Ok(Event::new(value)));
            }
            let Some(events) = self.events.as_mut() else {
                let cause = CallError::Transport("stream connection lost".into());
                if let Err(error) = self.reconnect(cause).await {
                    self.done = true;
                    return Some(Err(error));
                }
                continue;
            };
            match events.next().await {
                Some(Ok(event)) => {
                    match read_event(self.inner.config.binding, &event.id, &event.data, self.last_seq) {
                        SseRead::Skip => continue,
                        SseRead::End(error) => {
                            self.done = true;
                            return Some(Err(error));
                        }
                        SseRead::Deliver(event) => {
                            if event.seq.is_some() {
                                self.last_seq = event.seq;
                            }
                            if self.task_id.is_none() {
                                self.task_id = stream_task_id(&event.data);
                            }
                            self.final_seen = is_final_event(&event.data);
                            self.resumes_left = self.inner.config.max_resumes;
                            return Some(Ok(event));
                        }
                    }
                }
                Some(Err(error)) => {
                    self.events = None;
                    if let Err(error) = self
                        .reconnect(CallError::Transport(format!("stream broken: {error}")))
                        .await
                    {
                        self.done = true;
                        return Some(Err(error));
                    }
                }
                None => {
                    // A clean end is final unless the events say the task is
                    // still going (the server may close idle streams).
                    let knows_finality =
                        a2a::find_method(self.method).is_some_and(|d| d.result_type == "StreamResponse");
                    if self.final_seen || !knows_finality {
                        self.done = true;
                        return None;
                    }
                    self.events = None;
                    if self
                        .reconnect(CallError::Transport("stream ended early".into()))
                        .await
                        .is_err()
                    {
                        self.done = true;
                        return None;
                    }
                }
            }
        }
    }
}

/// The task id a StreamResponse event is about.
pub(crate) fn stream_task_id(event: &Value) -> Option<String> {
    let id = event
        .pointer("/task/id")
        .or_else(|| event.pointer("/statusUpdate/taskId"))
        .or_else(|| event.pointer("/artifactUpdate/taskId"))?;
    id.as_str().map(str::to_string)
}

/// What a task state means to a client waiting on the task (A2A §4.1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateClass {
    /// The task has ended: nothing more will happen to it.
    Terminal,
    /// The task waits for the client (input or authentication).
    Interrupted,
    /// In flight, or unknown (`UNSPECIFIED`): keep waiting.
    Pending,
}

/// The class of `state`.
pub fn state_class(state: TaskState) -> StateClass {
    match state {
        TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected => {
            StateClass::Terminal
        }
        TaskState::InputRequired | TaskState::AuthRequired => StateClass::Interrupted,
        TaskState::Unspecified | TaskState::Submitted | TaskState::Working => StateClass::Pending,
    }
}

/// The task state a StreamResponse event (or a Task) carries.
pub fn event_state(event: &Value) -> Option<TaskState> {
    event
        .pointer("/statusUpdate/status/state")
        .or_else(|| event.pointer("/task/status/state"))
        .or_else(|| event.pointer("/status/state"))
        .and_then(Value::as_str)
        .and_then(|state| state.parse::<TaskState>().ok())
}

/// True when a StreamResponse event is the last of its stream: a direct
/// message, or a task state that is terminal or waits for the client.
pub fn is_final_event(event: &Value) -> bool {
    if event.get("message").is_some() {
        return true;
    }
    event_state(event).is_some_and(|state| state_class(state) != StateClass::Pending)
}

impl Follow {
    /// The stream of events of `method` called with `params`, as `opened`
    /// began it.
    pub(super) fn start(
        inner: Arc<Inner>,
        method: &'static str,
        params: Value,
        opened: Opened,
    ) -> RawEventStream {
        let (events, pending) = match opened {
            Opened::Events(events) => (Some(events), None),
            Opened::Single(value) => (None, Some(value)),
        };
        let state = Follow {
            resumes_left: inner.config.max_resumes,
            inner,
            method,
            params,
            events,
            pending,
            last_seq: None,
            task_id: None,
            final_seen: false,
            done: false,
        };
        let stream = stream::unfold(state, |mut state| async move {
            let item = state.next_item().await?;
            Some((item, state))
        });
        Box::pin(stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finality() {
        assert!(is_final_event(&json!({"message": {}})));
        assert!(is_final_event(
            &json!({"statusUpdate": {"status": {"state": "TASK_STATE_COMPLETED"}}})
        ));
        assert!(!is_final_event(
            &json!({"statusUpdate": {"status": {"state": "TASK_STATE_WORKING"}}})
        ));
        assert!(!is_final_event(&json!({"artifactUpdate": {}})));
        assert_eq!(
            stream_task_id(&json!({"task": {"id": "t1"}})).as_deref(),
            Some("t1")
        );
    }
}
