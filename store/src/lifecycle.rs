//! The two classes of task state everything else decides by: the states
//! that end a task and those in which it waits on its client. The engine,
//! the streams and the stores ask here, so no layer keeps its own list.

use a2a::types::TaskState;

/// Terminal states: no further change is possible.
pub fn is_terminal(state: TaskState) -> bool {
    matches!(
        state,
        TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
    )
}

/// Interrupted states: the task waits for the client.
pub fn is_interrupted(state: TaskState) -> bool {
    matches!(state, TaskState::InputRequired | TaskState::AuthRequired)
}
