//! The stream of a task's events as a subscriber sees it: a backlog (the
//! snapshot or the events after a resume point), then live events, ending
//! after a terminal status (or, for message streams, an interrupted one).

use super::changes::stamp_generation;
use crate::lifecycle::{is_interrupted, is_terminal};
use a2a::rpc::{Error, Event, Stream};
use a2a::types::StreamResponse;
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// The receiving end of a subscription's live events. Each event is shared
/// by every subscriber that gets it, and a queue slot holds a pointer: an
/// idle subscription's queue costs a few hundred bytes, not a block of
/// whole events.
pub(crate) type LiveEvents = mpsc::UnboundedReceiver<Arc<Event<StreamResponse>>>;

/// A stream of task events that ends after a terminal (or, for message
/// streams, an interrupted) status.
pub(crate) struct TaskEvents {
    pub(crate) backlog: VecDeque<Event<StreamResponse>>,
    pub(crate) rx: Option<LiveEvents>,
    pub(crate) stop_when_interrupted: bool,
    /// True until the first event is out. A message stream's first event is
    /// the task as the message found it: waiting for input, perhaps, which
    /// the message itself answers, so it never ends the stream.
    pub(crate) at_first: bool,
    pub(crate) done: bool,
}

pub(crate) fn ends_stream(event: &StreamResponse, stop_when_interrupted: bool) -> bool {
    let state = match event {
        StreamResponse::Task(t) => t.status.state,
        StreamResponse::StatusUpdate(s) => s.status.state,
        _ => return false,
    };
    is_terminal(state) || (stop_when_interrupted && is_interrupted(state))
}

impl Stream for TaskEvents {
    type Item = Result<Event<StreamResponse>, Error>;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let next = match this.backlog.pop_front() {
            Some(event) => {
                if this.backlog.is_empty() {
                    // Drained for good: nothing is queued here again, so an
                    // idle subscription keeps no buffer.
                    this.backlog = VecDeque::new();
                }
                Some(event)
            }
            None => match this.rx.as_mut() {
                Some(rx) => match rx.poll_recv(cx) {
                    Poll::Ready(item) => item.map(Arc::unwrap_or_clone),
                    Poll::Pending => return Poll::Pending,
                },
                None => None,
            },
        };
        match next {
            Some(mut event) => {
                if let Some(seq) = event.seq {
                    stamp_generation(&mut event.data, seq);
                }
                let stop_when_interrupted = this.stop_when_interrupted && !std::mem::take(&mut this.at_first);
                if ends_stream(&event.data, stop_when_interrupted) {
                    this.done = true;
                    this.rx = None;
                }
                Poll::Ready(Some(Ok(event)))
            }
            None => {
                this.done = true;
                Poll::Ready(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ends_stream;
    use a2a::types::{StreamResponse, TaskState};
    use serde_json::json;

    /// A task snapshot and a status update end a stream alike: at a terminal
    /// state always, at an interrupted one only for a stream told to stop
    /// there; no other state, and no other kind of event, ends it.
    #[test]
    fn terminal_and_interrupted_states_end_a_stream() {
        let event = |kind: &str, state: TaskState| -> StreamResponse {
            let status = json!({"state": state});
            let data = match kind {
                "task" => json!({"task": {"id": "t", "contextId": "c", "status": status}}),
                _ => json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": status}}),
            };
            serde_json::from_value(data).expect("an event")
        };
        for kind in ["task", "status"] {
            let ends = |state, stop_when_interrupted| ends_stream(&event(kind, state), stop_when_interrupted);
            assert!(ends(TaskState::Completed, false), "{kind}");
            assert!(ends(TaskState::Canceled, true), "{kind}");
            assert!(!ends(TaskState::Working, true), "{kind}");
            assert!(ends(TaskState::InputRequired, true), "{kind}");
            assert!(!ends(TaskState::InputRequired, false), "{kind}");
        }
        let artifact: StreamResponse = serde_json::from_value(json!({"artifactUpdate": {
            "taskId": "t", "contextId": "c", "artifact": {"artifactId": "a", "parts": [{"text": "x"}]}
        }}))
        .expect("an event");
        assert!(!ends_stream(&artifact, true));
    }
}
