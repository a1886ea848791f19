//! The events of a release-notes run before and after its approval, and the
//! changelog it writes.

use sha2::{Digest, Sha256};

pub const NEW: &str = "# Changelog\n\n## 2.4.0\n\n- Faster search.\n\n## 2.3.0\n\n- Initial public API.\n";

pub fn sha(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub const BEFORE_APPROVAL: [&str; 7] = [
    "task:TASK_STATE_SUBMITTED",
    "status:TASK_STATE_SUBMITTED:plan.created",
    "status:TASK_STATE_WORKING:plan.phase_changed",
    "status:TASK_STATE_WORKING:tool.invoked",
    "artifact:notes:tool.completed",
    "status:TASK_STATE_WORKING:tool.invoked",
    "status:TASK_STATE_INPUT_REQUIRED:plan.state_changed",
];

pub const AFTER_APPROVAL: [&str; 11] = [
    "status:TASK_STATE_WORKING:plan.state_changed",
    "status:TASK_STATE_WORKING:plan.decision_made",
    "status:TASK_STATE_WORKING:tool.completed",
    "status:TASK_STATE_WORKING:tool.invoked",
    "artifact:CHANGELOG.md:tool.completed",
    "status:TASK_STATE_WORKING:tool.invoked",
    "artifact:mentions-version:validation.completed",
    "status:TASK_STATE_WORKING:tool.completed",
    "artifact:mentions-version:validation.completed",
    "status:TASK_STATE_WORKING:plan.phase_changed",
    "status:TASK_STATE_COMPLETED:plan.state_changed",
];
