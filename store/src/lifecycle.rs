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

#[cfg(test)]
mod tests {
    use super::{is_interrupted, is_terminal};
    use a2a::types::TaskState;

    /// Every state, each in the one class it belongs to (or neither).
    #[test]
    fn each_state_is_in_its_class() {
        let classes = [
            (TaskState::Unspecified, false, false),
            (TaskState::Submitted, false, false),
            (TaskState::Working, false, false),
            (TaskState::InputRequired, false, true),
            (TaskState::AuthRequired, false, true),
            (TaskState::Completed, true, false),
            (TaskState::Failed, true, false),
            (TaskState::Canceled, true, false),
            (TaskState::Rejected, true, false),
        ];
        for (state, terminal, interrupted) in classes {
            assert_eq!(
                (is_terminal(state), is_interrupted(state)),
                (terminal, interrupted),
                "{state}"
            );
        }
    }
}
