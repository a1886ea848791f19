//! The slash commands that act on the conversation: `/new`, `/task` and
//! `/cancel [ID]`.

use super::session::{Seen, Session};
use crate::cli::failure::Failure;
use crate::cli::output;
use crate::cli::text::{self, label, Text};
use crate::cli::wait::class_of;
use crate::http::StateClass;
use a2a::methods::markers::CancelTask;
use a2a::rpc::{Method, Transport};
use serde_json::json;

impl Session<'_, '_> {
    pub(super) fn new_conversation(&mut self) {
        self.context_id = None;
        self.task_id = None;
        self.last = None;
        self.note("New conversation: the next line starts a new context.");
    }

    /// `/task`: the ids the conversation goes on with.
    pub(super) fn show_ids(&self) {
        let mut lines = Vec::new();
        let mut command = self.agents();
        match (&self.task_id, &self.last) {
            (Some(task), _) => {
                lines.push((label::TASK_ID, task.clone()));
                command.push_str(&format!(" --task-id {task}"));
            }
            (None, Some(last)) => lines.push(("Last Task ID", last.task_id.clone())),
            (None, None) => {}
        }
        if let Some(context) = &self.context_id {
            lines.push((label::CONTEXT_ID, context.clone()));
            if self.task_id.is_none() {
                command.push_str(&format!(" --context-id {context}"));
            }
        }
        if let Some(state) = self.last.as_ref().and_then(|l| l.state.clone()) {
            lines.push((label::STATE, state));
        }
        if lines.is_empty() {
            self.note("No conversation yet: the next line starts one.");
            return;
        }
        match self.screen {
            Some(style) => {
                let mut out: String = lines.iter().map(|(l, v)| style.field(l, v)).collect();
                out.push_str(&style.field("Continue With", &format!("{command} chat")));
                output::stdout(&out);
            }
            None => {
                for (label, value) in lines {
                    eprintln!("{label}: {}", text::clean(&value));
                }
            }
        }
    }

    /// `/cancel [ID]`: the current task (or the one named) canceled, shown.
    pub(super) async fn cancel(&mut self, named: Option<&str>) -> Result<(), Failure> {
        let current = self.task_id.clone().or_else(|| {
            self.last
                .as_ref()
                .filter(|l| {
                    l.state
                        .as_deref()
                        .is_none_or(|s| class_of(&json!({"status": {"state": s}})) != StateClass::Terminal)
                })
                .map(|l| l.task_id.clone())
        });
        let Some(task_id) = named.map(str::to_string).or(current) else {
            self.note("No task to cancel: /cancel ID names one.");
            return Ok(());
        };
        let mut params = json!({ "id": task_id });
        self.target.with_tenant(CancelTask::NAME, &mut params);
        let task = self
            .target
            .transport
            .call(CancelTask::NAME, params)
            .await
            .map_err(|e| self.ctx.fail(self.target, &e, self.target.sends_credentials))?;
        if self.task_id.as_deref() == Some(task_id.as_str()) {
            self.task_id = None;
        }
        self.last = Some(Seen::of(task_id, &task));
        if self.json() {
            output::stdout(&format!("{task}\n"));
        } else if let Some(style) = self.screen {
            output::stdout(&style.task_fields(&task));
        } else {
            let mut out = Text::new();
            text::task(&mut out, &task, self.ctx.output.verbose);
            out.gap();
            output::stdout(&out.finish());
        }
        Ok(())
    }
}
