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
    use super::artifact_change;
    use a2a::types::{Artifact, Task};
    use serde_json::json;

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
