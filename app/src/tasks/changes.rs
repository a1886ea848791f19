//! What changes a task: its states (terminal, interrupted), status and
//! artifact changes with the events that announce them, and history trimming.
//! Pure functions on the contract's types; the engine persists and fans out.

use crate::lifecycle::is_terminal;
use crate::util;
use a2a::rpc::Error;
use a2a::types::{
    Artifact, Message, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use a2a::ErrorKind;

/// What a change to a task produced.
pub struct Change {
    pub events: Vec<StreamResponse>,
}

/// Moves `task` to `state` (refused once terminal) and describes the event.
pub fn status_change(
    task: &mut Task,
    state: TaskState,
    message: Option<Message>,
    metadata: Option<serde_json::Map<String, serde_json::Value>>,
) -> Result<Change, Error> {
    if is_terminal(task.status.state) {
        return Err(Error::new(
            ErrorKind::UnsupportedOperation,
            "the task is already in a terminal state",
        ));
    }
    let message = message.map(|mut m| {
        m.task_id = Some(task.id.clone());
        m.context_id = task.context_id.clone();
        m
    });
    Ok(set_status(task, state, message, metadata))
}

/// One status step: state, agent message, event metadata.
pub(crate) type StatusStep = (
    TaskState,
    Option<Message>,
    Option<serde_json::Map<String, serde_json::Value>>,
);

/// Moves `task` through `steps` (refused once terminal), each step its own
/// status event.
pub(crate) fn status_steps(task: &mut Task, steps: Vec<StatusStep>) -> Result<Change, Error> {
    let mut events = Vec::with_capacity(steps.len());
    for (state, message, metadata) in steps {
        events.extend(status_change(task, state, message, metadata)?.events);
    }
    Ok(Change { events })
}

/// Puts the message of `task`'s status in its history, unless a reply that
/// came while it stood put it there already: the history then reads in the
/// order the messages were sent, the agent's question before the answer.
pub(crate) fn record_status_message(task: &mut Task) {
    let Some(message) = &task.status.message else {
        return;
    };
    let recorded = task
        .history
        .iter()
        .rev()
        .any(|m| m.message_id == message.message_id);
    if !recorded {
        task.history.push(message.clone());
    }
}

/// Sets the status of `task` (its previous status message becomes history
/// when superseded, if it is not there yet) and describes the event.
fn set_status(
    task: &mut Task,
    state: TaskState,
    message: Option<Message>,
    metadata: Option<serde_json::Map<String, serde_json::Value>>,
) -> Change {
    record_status_message(task);
    task.status = TaskStatus {
        state,
        message,
        timestamp: Some(util::now()),
    };
    Change {
        events: vec![StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone().unwrap_or_default(),
            status: task.status.clone(),
            metadata,
            // Stamped as the event goes out (`stamp_generation`): its sequence number.
            generation: None,
        })],
    }
}

/// Cancels `task` (TaskNotCancelable once terminal) and describes the event.
pub fn cancel_change(
    task: &mut Task,
    metadata: Option<serde_json::Map<String, serde_json::Value>>,
) -> Result<Change, Error> {
    if is_terminal(task.status.state) {
        return Err(Error::new(
            ErrorKind::TaskNotCancelable,
            format!("Task `{}` is already in a terminal state", task.id),
        ));
    }
    Ok(set_status(task, TaskState::Canceled, None, metadata))
}

/// Adds (or, with `append`, extends) an artifact of `task` (refused once terminal).
pub fn artifact_change(
    task: &mut Task,
    artifact: Artifact,
    append: bool,
    last_chunk: Option<bool>,
    metadata: Option<serde_json::Map<String, serde_json::Value>>,
) -> Result<Change, Error> {
    if is_terminal(task.status.state) {
        return Err(Error::new(
            ErrorKind::UnsupportedOperation,
            "the task is already in a terminal state",
        ));
    }
    match task
        .artifacts
        .iter_mut()
        .find(|a| a.artifact_id == artifact.artifact_id)
    {
        Some(existing) if append => existing.parts.extend(artifact.parts.iter().cloned()),
        Some(existing) => *existing = artifact.clone(),
        None => task.artifacts.push(artifact.clone()),
    }
    Ok(Change {
        events: vec![StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone().unwrap_or_default(),
            artifact,
            append: append.then_some(true),
            last_chunk,
            metadata,
            generation: None,
        })],
    })
}

/// Gives a task event its generation (A2A 1.1): its sequence number in the
/// task's log. Events are stored without it and stamped as they go out, so
/// the generation of an event read back is the one it went out with.
pub(crate) fn stamp_generation(event: &mut StreamResponse, seq: u64) {
    let generation = Some(crate::store::generation(seq));
    match event {
        StreamResponse::Task(task) => task.generation = generation,
        StreamResponse::StatusUpdate(update) => update.generation = generation,
        StreamResponse::ArtifactUpdate(update) => update.generation = generation,
        StreamResponse::Message(_) => {}
    }
}

/// Fills in the `seq` of a plan domain event carried in an event's metadata.
pub(crate) fn stamp_seq(event: &mut StreamResponse, seq: u64) {
    let metadata = match event {
        StreamResponse::StatusUpdate(e) => e.metadata.as_mut(),
        StreamResponse::ArtifactUpdate(e) => e.metadata.as_mut(),
        _ => None,
    };
    if let Some(domain) = metadata
        .and_then(|m| m.get_mut(util::EXTENSION_URI))
        .and_then(serde_json::Value::as_object_mut)
    {
        if domain.contains_key("seq") {
            domain.insert("seq".into(), serde_json::json!(seq));
        }
    }
}

/// Keeps the last `n` messages of the history (A2A §3.2.4); `None` keeps all.
pub fn trim_history(task: &mut Task, history_length: Option<i32>) {
    if let Some(n) = history_length {
        let n = usize::try_from(n.max(0)).unwrap_or(0);
        let len = task.history.len();
        if len > n {
            task.history.drain(..len - n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{artifact_change, stamp_generation, stamp_seq, status_change, trim_history};
    use crate::util::EXTENSION_URI;
    use a2a::types::{Artifact, Message, StreamResponse, Task, TaskState};
    use a2a::ErrorKind;
    use serde_json::{json, Value};

    fn working(history: &[&str], status_message: Option<&str>) -> Task {
        let message = |id: &str| json!({"messageId": id, "role": "ROLE_AGENT", "parts": [{"text": id}]});
        let mut status = json!({"state": "TASK_STATE_WORKING"});
        if let Some(id) = status_message {
            status["message"] = message(id);
        }
        serde_json::from_value(json!({
            "id": "t", "contextId": "c", "status": status,
            "history": history.iter().map(|id| message(id)).collect::<Vec<_>>()
        }))
        .expect("a task")
    }

    fn ids(task: &Task) -> Vec<&str> {
        task.history.iter().map(|m| m.message_id.as_str()).collect()
    }

    fn agent_message(id: &str) -> Message {
        serde_json::from_value(json!({"messageId": id, "role": "ROLE_AGENT", "parts": [{"text": "done"}]}))
            .expect("a message")
    }

    /// A status message the next status supersedes joins the history, once:
    /// not again when a reply that came while it stood put it there already.
    #[test]
    fn a_superseded_status_message_joins_the_history_once() {
        let mut asked = working(&["u0"], Some("q1"));
        let change = status_change(&mut asked, TaskState::Completed, Some(agent_message("a1")), None);
        assert_eq!(change.map(|c| c.events.len()).ok(), Some(1));
        assert_eq!(ids(&asked), ["u0", "q1"]);
        let status = asked.status.message.as_ref().expect("the new status message");
        assert_eq!(status.message_id, "a1");
        assert_eq!(status.task_id.as_deref(), Some("t"));
        assert_eq!(status.context_id.as_deref(), Some("c"));

        let mut answered = working(&["u0", "q1", "u1"], Some("q1"));
        assert!(status_change(&mut answered, TaskState::Completed, None, None).is_ok());
        assert_eq!(ids(&answered), ["u0", "q1", "u1"]);

        let mut silent = working(&["u0"], None);
        assert!(status_change(&mut silent, TaskState::Completed, None, None).is_ok());
        assert_eq!(ids(&silent), ["u0"]);

        let refused = status_change(&mut silent, TaskState::Working, None, None).err();
        assert_eq!(
            refused.and_then(|e| e.kind::<ErrorKind>()),
            Some(ErrorKind::UnsupportedOperation)
        );
        assert_eq!(silent.status.state, TaskState::Completed);
    }

    fn status_event(metadata: Value) -> StreamResponse {
        let mut task = working(&[], None);
        let metadata = metadata.as_object().cloned();
        let change = status_change(&mut task, TaskState::Working, None, metadata).expect("a change");
        change.events.into_iter().next().expect("one event")
    }

    fn artifact_event(metadata: Value) -> StreamResponse {
        let mut task = working(&[], None);
        let metadata = metadata.as_object().cloned();
        let change = artifact_change(&mut task, artifact("x"), false, None, metadata).expect("a change");
        change.events.into_iter().next().expect("one event")
    }

    /// Every task event goes out with its sequence number as its generation;
    /// a message, which has none, goes out as it is.
    #[test]
    fn task_events_are_stamped_with_their_generation() {
        let mut events = [
            StreamResponse::Task(working(&[], None)),
            status_event(json!({})),
            artifact_event(json!({})),
            StreamResponse::Message(agent_message("m")),
        ];
        for event in &mut events {
            stamp_generation(event, 7);
        }
        let generations: Vec<Value> = events
            .iter()
            .map(|e| serde_json::to_value(e).expect("an event"))
            .map(|v| {
                v.as_object()
                    .and_then(|o| o.values().next().cloned())
                    .unwrap_or_default()
            })
            .map(|body| body["generation"].clone())
            .collect();
        assert_eq!(generations, [json!(7), json!(7), json!(7), Value::Null]);
    }

    /// A plan domain event in a status or artifact event's metadata gets the
    /// event's sequence number; metadata carrying no `seq` is left alone.
    #[test]
    fn a_domain_event_gets_its_sequence_number() {
        let domain = |seq: Option<u64>| {
            let mut event = json!({"kind": "plan.step"});
            if let Some(seq) = seq {
                event["seq"] = json!(seq);
            }
            json!({ EXTENSION_URI: event, "other": {"seq": 0} })
        };
        let metadata = |event: &StreamResponse| match event {
            StreamResponse::StatusUpdate(e) => Value::Object(e.metadata.clone().unwrap_or_default()),
            StreamResponse::ArtifactUpdate(e) => Value::Object(e.metadata.clone().unwrap_or_default()),
            _ => Value::Null,
        };
        for make in [status_event, artifact_event] {
            let mut stamped = make(domain(Some(0)));
            stamp_seq(&mut stamped, 12);
            assert_eq!(
                metadata(&stamped),
                json!({ EXTENSION_URI: {"kind": "plan.step", "seq": 12}, "other": {"seq": 0} })
            );
            let mut unstamped = make(domain(None));
            stamp_seq(&mut unstamped, 12);
            assert_eq!(metadata(&unstamped), domain(None));
        }
    }

    /// `historyLength` keeps the last n messages; none keeps all, 0 or less
    /// keeps none.
    #[test]
    fn history_length_keeps_the_last_messages() {
        let all = ["m1", "m2", "m3", "m4", "m5"];
        for (length, kept) in [
            (None, &all[..]),
            (Some(7), &all[..]),
            (Some(5), &all[..]),
            (Some(2), &all[3..]),
            (Some(1), &all[4..]),
            (Some(0), &all[5..]),
            (Some(-3), &all[5..]),
        ] {
            let mut task = working(&all, None);
            trim_history(&mut task, length);
            assert_eq!(ids(&task), kept, "historyLength {length:?}");
        }
    }

    fn artifact(text: &str) -> Artifact {
        serde_json::from_value(json!({"artifactId": "a", "parts": [{"text": text}]})).expect("an artifact")
    }

    fn texts(task: &Task) -> Vec<String> {
        let parts = task.artifacts.iter().flat_map(|a| a.parts.iter());
        parts
            .map(|p| serde_json::to_value(p).expect("a part")["text"].to_string())
            .collect()
    }

    /// An artifact sent again replaces the one of its id; appended, it extends it.
    #[test]
    fn an_artifact_is_replaced_unless_appended() {
        let mut task: Task = serde_json::from_value(json!({
            "id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}
        }))
        .expect("a task");
        for (text, append) in [("one", false), ("two", false), ("three", true)] {
            assert!(artifact_change(&mut task, artifact(text), append, None, None).is_ok());
        }
        assert_eq!(texts(&task), ["\"two\"", "\"three\""]);
    }
}
