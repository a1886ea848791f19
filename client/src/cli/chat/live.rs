//! A turn's events as they arrive: on a terminal, the agent's words, the
//! task's progress and its artifacts; with `--stream`, each event as a
//! stream record; otherwise only what they say of the task, kept.

use super::style::Style;
use crate::cli::output;
use crate::cli::text::{self, Text, Tracked};
use crate::cli::wait::class_of;
use crate::http::StateClass;
use serde_json::{json, Value};
use std::collections::HashSet;

/// What the agent's words are introduced by.
const AGENT: &str = "agent> ";

/// Where a turn's events go as they arrive.
#[derive(Clone, Copy)]
pub(super) enum Show {
    /// Read for a person: the agent's words, progress, artifacts.
    Screen(Style),
    /// Each as a stream record (`--stream`): a text record or a JSON line.
    Events,
    /// Only kept (the answer is written once settled).
    Nothing,
}

/// A turn's events, as they arrive.
pub(super) struct Live<'o> {
    show: Show,
    output: &'o output::Output,
    pub(super) tracked: Tracked,
    state_shown: Option<String>,
    said: HashSet<String>,
    artifacts: HashSet<String>,
    /// The artifact whose text the screen's last line ends with (a chunk
    /// appended to it goes on on that line).
    open: Option<String>,
}

impl<'o> Live<'o> {
    pub(super) fn new(show: Show, output: &'o output::Output) -> Self {
        Live {
            show,
            output,
            tracked: Tracked::default(),
            state_shown: None,
            said: HashSet::new(),
            artifacts: HashSet::new(),
            open: None,
        }
    }

    /// Writes `text` to the screen on a line of its own.
    fn write(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut out = String::new();
        if self.open.take().is_some() {
            out.push('\n');
        }
        out.push_str(text);
        output::stdout(&out);
    }

    /// Ends the line an artifact's text left open.
    pub(super) fn finish(&mut self) {
        if self.open.take().is_some() {
            output::stdout("\n");
        }
    }

    /// What a wait reports: a read of the task while polling shows its
    /// progress; a stream event was already taken by [`Live::event`].
    pub(super) fn progress(&mut self, task: &Value) {
        if task.get("id").is_none() || task.get("status").is_none() {
            return;
        }
        self.tracked.observe(&json!({ "task": task }));
        if let Show::Screen(style) = self.show {
            self.state(style, task.pointer("/status/state"));
        }
    }

    /// A stream event (a `StreamResponse`), or an answer of the same shape;
    /// `stale` when it is the task as it was before the turn's message
    /// (recorded, and written as an event, but not shown as news).
    pub(super) fn event(&mut self, event: &Value, stale: bool) {
        self.tracked.observe(event);
        match self.show {
            Show::Nothing => {}
            Show::Events => {
                let tracked = &self.tracked;
                self.output.line(event, |out, value, verbose| {
                    text::stream_event(out, value, tracked, verbose)
                });
            }
            Show::Screen(_) if stale => {}
            Show::Screen(style) => {
                if let Some(task) = event.get("task") {
                    self.state(style, task.pointer("/status/state"));
                    self.says(style, task.pointer("/status/message"));
                    for artifact in task["artifacts"].as_array().into_iter().flatten() {
                        let id = artifact["artifactId"].as_str().unwrap_or("");
                        if !self.artifacts.contains(id) {
                            self.artifact(style, artifact, false);
                        }
                    }
                } else if let Some(update) = event.get("statusUpdate") {
                    self.state(style, update.pointer("/status/state"));
                    self.says(style, update.pointer("/status/message"));
                } else if let Some(update) = event.get("artifactUpdate") {
                    let append = update["append"].as_bool() == Some(true);
                    self.artifact(style, &update["artifact"], append);
                } else if let Some(message) = event.get("message") {
                    self.says(style, Some(message));
                }
            }
        }
    }

    /// A state the task is still working in, once per change.
    fn state(&mut self, style: Style, state: Option<&Value>) {
        let Some(state) = state.and_then(Value::as_str) else {
            return;
        };
        if self.state_shown.as_deref() == Some(state) {
            return;
        }
        self.state_shown = Some(state.to_string());
        if class_of(&json!({"status": {"state": state}})) == StateClass::Pending {
            self.write(&format!("{}\n", style.dim(&format!("· {}", text::clean(state)))));
        }
    }

    /// What the agent says in a message (once, however often it is resent).
    fn says(&mut self, style: Style, message: Option<&Value>) {
        let Some(message) = message else { return };
        let key = message["messageId"]
            .as_str()
            .map_or_else(|| message.to_string(), str::to_string);
        if !self.said.insert(key) {
            return;
        }
        let mut out = String::new();
        let words = text::message_text(message);
        if !words.is_empty() {
            out.push_str(&style.bold(AGENT));
            out.push_str(&indent(text::clean(&words).trim_end(), AGENT.len()));
            out.push('\n');
        }
        out.push_str(&other_parts(message.get("parts"), self.output.verbose));
        self.write(&out);
    }

    /// An artifact (or a chunk of one): its text as it is (a chunk appended
    /// to the text just shown goes on where it stopped), other parts as the
    /// text floor's fields.
    fn artifact(&mut self, style: Style, artifact: &Value, append: bool) {
        let id = artifact["artifactId"].as_str().unwrap_or("").to_string();
        let parts: Vec<&Value> = artifact["parts"].as_array().into_iter().flatten().collect();
        let words: Vec<String> = parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .map(|t| indent(&text::clean(t), 2))
            .collect();
        let others = other_parts(artifact.get("parts"), self.output.verbose);
        if append && !words.is_empty() && self.open.as_deref() == Some(id.as_str()) {
            output::stdout(&words.join("\n  "));
        } else {
            let mut out = String::new();
            if !(append && self.artifacts.contains(&id)) {
                let name = artifact["name"]
                    .as_str()
                    .map(|n| format!(" {n}"))
                    .unwrap_or_default();
                out.push_str(&style.bold(&text::clean(&format!("artifact{name} ({id}):"))));
                out.push('\n');
            }
            if !words.is_empty() {
                out.push_str("  ");
                out.push_str(&words.join("\n  "));
            }
            self.write(&out);
            self.open = (!words.is_empty()).then(|| id.clone());
        }
        self.artifacts.insert(id);
        self.write(&others);
    }
}

/// The parts that are not text, as the text floor shows them.
fn other_parts(parts: Option<&Value>, verbose: bool) -> String {
    let others: Vec<Value> = parts
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| p.get("text").is_none())
        .cloned()
        .collect();
    if others.is_empty() {
        return String::new();
    }
    let mut out = Text::new();
    text::parts(&mut out, Some(&Value::Array(others)), verbose);
    out.finish()
}

/// Lines after the first indented by `width`, under the first's text.
fn indent(text: &str, width: usize) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(width)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_lines_line_up() {
        assert_eq!(indent("one\ntwo", 4), "one\n    two");
    }
}
