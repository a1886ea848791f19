//! One receive once the receiver is listening: the configuration registered,
//! the notifications printed until the task settles, and the configuration
//! deleted whichever way the wait ends.

use super::guard::Guard;
use super::receiver::Note;
use crate::cli::failure::{Failure, Local};
use crate::cli::output;
use crate::cli::standard::{self, Ctx};
use crate::cli::target::Target;
use crate::cli::text::{self, Tracked};
use crate::cli::wait::class_of;
use crate::http::StateClass;
use a2a::methods::markers::{CreateTaskPushNotificationConfig, DeleteTaskPushNotificationConfig};
use a2a::rpc::{Method, Transport};
use serde_json::{json, Value};
use std::future::Future;
use std::net::SocketAddr;
use tokio::sync::mpsc;

/// One receive: registration, the wait, and the configuration's deletion.
pub(super) struct Session<'a, 'c> {
    pub(super) ctx: &'a Ctx<'c>,
    pub(super) target: &'a Target,
    pub(super) task_id: &'a str,
    pub(super) config_id: String,
}

impl Session<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn receive(
        &mut self,
        guard: &mut Guard,
        inbox: &mut mpsc::UnboundedReceiver<Note>,
        tracked: &mut Tracked,
        url: &str,
        token: &str,
        bound: SocketAddr,
        reread: impl Future<Output = Result<Value, Failure>>,
    ) -> Result<(), Failure> {
        let (ctx, target, task_id) = (self.ctx, self.target, self.task_id);
        let mut params = json!({
            "taskId": task_id,
            "id": self.config_id,
            "url": url,
            "token": token,
        });
        target.with_tenant(CreateTaskPushNotificationConfig::NAME, &mut params);
        let created = guard
            .run(
                target
                    .transport
                    .call(CreateTaskPushNotificationConfig::NAME, params),
            )
            .await;
        let created = match created {
            Ok(Ok(config)) => config,
            Ok(Err(error)) => {
                let refused_url = matches!(&error, a2a::rpc::CallError::Rpc(e) if e.kind() == Some(a2a::ErrorKind::InvalidParams));
                let failure = ctx.fail(target, &error, target.sends_credentials);
                return Err(if refused_url {
                    failure.hint(format!(
                        "the agent must be able to call {url}: an agent that refuses loopback or private \
                         addresses needs it allow-listed, or --url with an address it can reach (a tunnel)"
                    ))
                } else {
                    failure
                });
            }
            Err(stopped) => {
                self.delete(guard).await;
                return Err(stopped);
            }
        };
        if let Some(assigned) = created["id"].as_str().filter(|id| !id.is_empty()) {
            self.config_id = assigned.to_string();
        }
        ctx.debug
            .log(&format!("push config {} registered: {url}", self.config_id));
        let result = self.wait(guard, inbox, tracked, url, bound, reread).await;
        self.delete(guard).await;
        result
    }

    /// Prints the notifications until the task settles.
    async fn wait(
        &self,
        guard: &mut Guard,
        inbox: &mut mpsc::UnboundedReceiver<Note>,
        tracked: &mut Tracked,
        url: &str,
        bound: SocketAddr,
        reread: impl Future<Output = Result<Value, Failure>>,
    ) -> Result<(), Failure> {
        let (ctx, task_id) = (self.ctx, self.task_id);
        // Settled before the configuration was in place, its last events
        // were never going to be delivered: what did arrive, then the task.
        let task = guard.run(reread).await??;
        if class_of(&task) != StateClass::Pending {
            while let Ok(note) = inbox.try_recv() {
                if self.take(note, tracked) {
                    return Ok(());
                }
            }
            standard::emit_event(ctx.output, tracked, &json!({ "task": task }));
            outcome(ctx, task_id, &state_of(&task));
            return Ok(());
        }
        eprintln!("push receiver: {url} (listening on {bound})");
        eprintln!(
            "push config: {} (task {task_id}); waiting until the task ends or needs input; \
             Ctrl-C stops waiting, the task goes on",
            self.config_id
        );
        loop {
            match guard.run(inbox.recv()).await? {
                Some(note) => {
                    if self.take(note, tracked) {
                        return Ok(());
                    }
                }
                None => {
                    return Err(Failure::local(
                        Local::Internal,
                        "the push receiver stopped before the task ended or paused",
                    ))
                }
            }
        }
    }

    /// Shows what the receiver noted; whether the task has settled.
    fn take(&self, note: Note, tracked: &mut Tracked) -> bool {
        match note {
            Note::Refused(status, why) => {
                self.ctx
                    .debug
                    .log(&format!("refused a delivery ({}): {why}", status.as_u16()));
                false
            }
            Note::Event(event) => {
                self.ctx.debug.log(&format!("< push {event}"));
                standard::emit_event(self.ctx.output, tracked, &event);
                if class_of(&event) == StateClass::Pending {
                    return false;
                }
                let state = tracked.state.clone().unwrap_or_default();
                outcome(self.ctx, self.task_id, &state);
                true
            }
        }
    }

    /// Deletes the configuration; a failure is a warning, naming the
    /// command that deletes it. A second Ctrl-C leaves it.
    async fn delete(&self, guard: &mut Guard) {
        let (ctx, target, task_id, config_id) = (self.ctx, self.target, self.task_id, &self.config_id);
        let mut params = json!({ "taskId": task_id, "id": config_id });
        target.with_tenant(DeleteTaskPushNotificationConfig::NAME, &mut params);
        let deleted = tokio::select! {
            deleted = target.transport.call(DeleteTaskPushNotificationConfig::NAME, params) => deleted
                .map_err(|e| ctx.fail(target, &e, target.sends_credentials).message),
            _ = guard.interrupt.recv() => Err("interrupted".to_string()),
        };
        match deleted {
            Ok(_) => ctx.debug.log(&format!("push config {config_id} deleted")),
            Err(why) => output::warn(&format!(
                "push config {config_id} of task {task_id} is left in place ({why}); delete it with: \
                 agents{} task push-config delete {task_id} {config_id}",
                ctx.agent_flag
            )),
        }
    }
}

/// The state a task (or event) carries, as sent.
pub(super) fn state_of(value: &Value) -> String {
    value
        .pointer("/status/state")
        .or_else(|| value.pointer("/task/status/state"))
        .or_else(|| value.pointer("/statusUpdate/status/state"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// Names a settled task's outcome on stderr, as the other waits do: how to
/// answer a task that waits, the state of one that did not complete.
pub(super) fn outcome(ctx: &Ctx<'_>, task_id: &str, state: &str) {
    ctx.outcome(
        &json!({ "id": task_id, "status": { "state": state } }),
        &mut text::Text::new(),
    );
}
