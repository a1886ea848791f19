//! The state of one conversation: where it goes on (its context, the task
//! waiting for the caller, the task last seen), what each turn carries, and
//! how an answer or a stopped turn moves that state on.

use super::style::Style;
use crate::cli::output::{self, Format};
use crate::cli::settings::{id, Source};
use crate::cli::standard::Ctx;
use crate::cli::target::Target;
use crate::cli::text::{self, Tracked};
use crate::cli::wait::class_of;
use crate::http::StateClass;
use serde_json::Value;
use std::time::Duration;

/// The last task the conversation saw.
#[derive(Clone, Debug)]
pub(super) struct Seen {
    pub(super) task_id: String,
    pub(super) state: Option<String>,
}

impl Seen {
    /// `task` as seen now, under `task_id`.
    pub(super) fn of(task_id: String, task: &Value) -> Seen {
        let state = task.pointer("/status/state").and_then(Value::as_str);
        Seen {
            task_id,
            state: state.map(str::to_string),
        }
    }
}

/// One conversation.
pub(super) struct Session<'s, 'c> {
    pub(super) ctx: &'s Ctx<'c>,
    pub(super) target: &'s Target,
    /// On a terminal: how it is emphasized.
    pub(super) screen: Option<Style>,
    /// The conversation's context, once known.
    pub(super) context_id: Option<String>,
    /// The task the next line continues (only while it waits for the caller).
    pub(super) task_id: Option<String>,
    /// The task last seen, for `/task` and `/cancel`.
    pub(super) last: Option<Seen>,
    pub(super) metadata: Option<Value>,
    pub(super) poll_interval: Duration,
    pub(super) timeout: Option<Duration>,
}

impl<'s, 'c> Session<'s, 'c> {
    /// The session the settings start; what is wrong with them, if anything
    /// (a usage error).
    pub(super) fn new(ctx: &'s Ctx<'c>, target: &'s Target, interactive: bool) -> Result<Self, String> {
        let settings = ctx.settings;
        if settings.switch(id::ASYNC)? && settings.source(id::ASYNC) == Some(&Source::Flag) {
            return Err(
                "--async does not apply to chat: each turn is waited for (Ctrl-C stops waiting on a terminal)"
                    .into(),
            );
        }
        let metadata = match settings.get(id::METADATA) {
            None => None,
            Some(text) => {
                let metadata: Value =
                    serde_json::from_str(text).map_err(|e| format!("--metadata is not valid JSON: {e}"))?;
                if !metadata.is_object() {
                    return Err("--metadata must be a JSON object, e.g. '{\"k\": \"v\"}'".into());
                }
                Some(metadata)
            }
        };
        let poll_interval = settings
            .duration(id::POLL_INTERVAL)?
            .unwrap_or(Duration::from_secs(2));
        let timeout = settings.duration(id::TIMEOUT)?;
        let task_id = settings.get(id::TASK_ID).map(str::to_string);
        Ok(Session {
            ctx,
            target,
            screen: interactive.then(Style::detect),
            context_id: settings.get(id::CONTEXT_ID).map(str::to_string),
            last: task_id.clone().map(|id| Seen {
                task_id: id,
                state: None,
            }),
            task_id,
            metadata,
            poll_interval,
            timeout,
        })
    }

    /// Whether the answers are JSON.
    pub(super) fn json(&self) -> bool {
        self.ctx.output.format == Format::Json
    }

    /// A note for the person (stderr, so stdout keeps only the answers).
    pub(super) fn note(&self, text: &str) {
        match self.screen {
            Some(style) => eprintln!("{}", style.dim(&text::clean(text))),
            None => output::warn(text),
        }
    }

    /// The command that names this agent again.
    pub(super) fn agents(&self) -> String {
        format!("agents{}", self.ctx.agent_flag)
    }
}

impl Session<'_, '_> {
    /// Takes what a turn's answer says: the context always, the task while
    /// it waits for the caller.
    pub(super) fn settle(&mut self, answer: &Value) {
        if let Some(task) = answer.get("task") {
            let task_id = task["id"].as_str().unwrap_or("").to_string();
            if let Some(context) = task["contextId"].as_str() {
                self.context_id = Some(context.to_string());
            }
            self.task_id = (class_of(task) == StateClass::Interrupted).then(|| task_id.clone());
            self.last = Some(Seen::of(task_id, task));
        } else if let Some(message) = answer.get("message") {
            if let Some(context) = message["contextId"].as_str() {
                self.context_id = Some(context.to_string());
            }
            self.task_id = None;
        }
    }

    /// A turn stopped by Ctrl-C: the task goes on, and how to find it is said.
    pub(super) fn stopped(&mut self, tracked: &Tracked) {
        eprintln!();
        if let Some(context) = &tracked.context_id {
            self.context_id = Some(context.clone());
        }
        match &tracked.task_id {
            Some(task) => {
                self.task_id = None;
                self.last = Some(Seen {
                    task_id: task.clone(),
                    state: tracked.state.clone(),
                });
                self.note(&format!(
                    "Stopped waiting for task {task}; the task goes on. Follow it with `{} task get {task} --wait`, or /cancel it.",
                    self.agents()
                ));
            }
            None => self.note("Stopped waiting; the agent may still act on the message."),
        }
    }
}
