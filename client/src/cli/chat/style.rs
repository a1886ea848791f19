//! Emphasis on a terminal: bold and dim text, and the `Label: value` fields
//! the interactive chat shows, with every value cleaned of control sequences.

use crate::cli::text::{self, label};
use crate::cli::wait::id_and_state;
use serde_json::Value;

/// Emphasis on a terminal (none where `NO_COLOR` is set or the terminal is dumb).
#[derive(Clone, Copy)]
pub(super) struct Style {
    pub(super) colour: bool,
}

impl Style {
    pub(super) fn detect() -> Style {
        let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Style {
            colour: !no_colour && !dumb,
        }
    }

    fn wrap(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\u{1b}[{code}m{text}\u{1b}[0m")
        } else {
            text.to_string()
        }
    }

    pub(super) fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    pub(super) fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    /// `Label: value` with the label in bold.
    pub(super) fn field(self, label: &str, value: &str) -> String {
        format!("{} {}\n", self.bold(&format!("{label}:")), text::clean(value))
    }

    /// A task's id, context and state, one field each.
    pub(super) fn task_fields(self, task: &Value) -> String {
        let (id, state) = id_and_state(task);
        let mut out = self.field(label::TASK_ID, id);
        out.push_str(&self.field(label::CONTEXT_ID, task["contextId"].as_str().unwrap_or("")));
        out.push_str(&self.field(label::STATE, state));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_style_has_no_control_sequences() {
        let plain = Style { colour: false };
        assert_eq!(plain.field("Task ID", "t\u{1b}[2J"), "Task ID: t\u{FFFD}[2J\n");
        let bold = Style { colour: true };
        assert_eq!(bold.field("State", "s"), "\u{1b}[1mState:\u{1b}[0m s\n");
    }
}
