//! What a settled turn leaves on screen: its answer (the ids and state on a
//! terminal, else the document `send` writes), what the task waits for, and
//! a failure that does not end the conversation.

use super::session::Session;
use crate::cli::failure::Failure;
use crate::cli::output;
use crate::cli::text::{self, label, Text};
use crate::cli::wait::{class_of, id_and_state};
use crate::http::StateClass;
use serde_json::Value;

impl Session<'_, '_> {
    /// Writes a turn's answer: on a terminal its ids and state (the rest was
    /// shown as it came), else the document `send` writes.
    pub(super) fn present(&self, answer: &Value) {
        let task = answer.get("task");
        if self.json() {
            if !self.ctx.output.stream {
                output::stdout(&format!("{answer}\n"));
            }
        } else if let Some(style) = self.screen {
            let mut out = String::new();
            match (task, answer.get("message")) {
                (Some(task), _) => out.push_str(&style.task_fields(task)),
                (None, Some(message)) => {
                    if let Some(task) = message["taskId"].as_str() {
                        out.push_str(&style.field(label::TASK_ID, task));
                    }
                    out.push_str(
                        &style.field(label::CONTEXT_ID, message["contextId"].as_str().unwrap_or("")),
                    );
                }
                (None, None) => {}
            }
            output::stdout(&out);
        } else if !self.ctx.output.stream {
            let mut out = Text::new();
            if let Some(task) = task {
                text::task(&mut out, task, self.ctx.output.verbose);
                if class_of(task) == StateClass::Interrupted {
                    let id = task["id"].as_str().unwrap_or("");
                    out.field(
                        label::RESUME,
                        &format!("{} send --task-id {id} 'REPLY'", self.agents()),
                    );
                }
            } else if let Some(message) = answer.get("message") {
                text::message(&mut out, message, self.ctx.output.verbose);
            }
            out.gap();
            output::stdout(&out.finish());
        }
        if let Some(task) = task {
            self.outcome(task);
        }
    }

    /// Says what a settled task waits for, or how it ended if not well.
    fn outcome(&self, task: &Value) {
        let (id, state) = id_and_state(task);
        match class_of(task) {
            StateClass::Interrupted if state.ends_with("AUTH_REQUIRED") => {
                let agents = self.agents();
                let mut lines = vec![format!(
                    "task {id} waits for authentication ({state}): where the agent's message says where to \
                     sign in, do that; the next line then resumes the task"
                )];
                lines.push(format!(
                    "credentials for this agent itself are read when the chat starts: end it, sign in with \
                     `{agents} auth login` (or give --bearer TOKEN / --api-key KEY, or A2ACLI_BEARER / \
                     A2ACLI_API_KEY), then resume with `{agents} --task-id {id} chat`"
                ));
                if let Some(hint) = self.target.auth_hint() {
                    lines.push(format!("the card says: {hint}"));
                }
                for line in lines {
                    self.note(&line);
                }
            }
            StateClass::Interrupted => {
                self.note(&format!(
                    "task {id} waits for input ({state}): the next line answers it"
                ));
            }
            StateClass::Terminal if !state.ends_with("COMPLETED") => {
                self.note(&format!(
                    "task {id} ended {state}: the next line starts a new task in this conversation"
                ));
            }
            _ => {}
        }
    }

    /// A failed turn on a terminal: said, and the conversation goes on.
    pub(super) fn report(&self, failure: Failure) {
        let failure = Failure {
            message: self.ctx.debug.redact(&failure.message),
            ..failure
        };
        match self.screen {
            Some(style) if !self.json() => {
                let mut out = style.field("Error", &failure.message);
                out.push_str(&style.field("Code", failure.code_name()));
                if let Some(code) = &failure.a2a_code {
                    out.push_str(&style.field("A2A Code", &code.to_string()));
                }
                if let Some(hint) = &failure.hint {
                    out.push_str(&style.field("Hint", hint));
                }
                eprint!("{out}");
            }
            _ => self.ctx.output.failure(&failure),
        }
    }
}
