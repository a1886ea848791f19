//! One turn: the message sent (streamed where the agent streams), and the
//! wait until its task settles, following the stream, opening it again when
//! it breaks, or polling the task.

use super::live::Live;
use super::session::Session;
use crate::cli::failure::{Failure, Local};
use crate::cli::wait::{class_of, resubscribe, StreamEnd, Waiter};
use crate::generation::{CheckedEventStream, EventSource};
use crate::http::StateClass;
use a2a::methods::markers::{SendMessage, SendStreamingMessage};
use a2a::rpc::{Method, Transport};
use a2a::types::Role;
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::time::Instant;

impl Session<'_, '_> {
    /// Sends one message and waits until its task settles (or the direct
    /// answer arrives): the `SendMessageResponse` of the turn.
    pub(super) async fn turn(&self, text: &str, live: &RefCell<Live<'_>>) -> Result<Value, Failure> {
        let mut message = json!({
            "messageId": uuid::Uuid::new_v4().to_string(),
            "role": Role::User,
            "parts": [{ "text": text }],
        });
        if let Some(context) = &self.context_id {
            message["contextId"] = json!(context);
        }
        if let Some(task) = &self.task_id {
            message["taskId"] = json!(task);
        }
        if let Some(metadata) = &self.metadata {
            message["metadata"] = metadata.clone();
        }
        let mut params = json!({ "message": message });
        self.target.with_tenant(SendMessage::NAME, &mut params);
        let tenant = params.get(crate::wire::A2A_NAMESPACE_FIELD).cloned();
        let progress = |task: &Value| live.borrow_mut().progress(task);
        let waiter = Waiter {
            target: self.target,
            poll_interval: self.poll_interval,
            deadline: self.timeout.map(|timeout| Instant::now() + timeout),
            progress: &progress,
            replying: self.task_id.is_some(),
        };
        let sends = self.target.sends_credentials;
        let fail = |error: a2a::rpc::CallError| {
            let failure = self.ctx.fail(self.target, &error, sends);
            match &self.task_id {
                Some(task) => {
                    let hint = failure.hint.clone().unwrap_or_default();
                    failure.hint(
                        format!("{hint} no new task was started for task {task}; /new starts a new conversation, --debug shows the agent's answer")
                            .trim()
                            .to_string(),
                    )
                }
                None => failure,
            }
        };
        if !self.target.allows(SendStreamingMessage::NAME) {
            let answer = self
                .target
                .transport
                .call(SendMessage::NAME, params)
                .await
                .map_err(fail)?;
            live.borrow_mut().event(&answer, false);
            return match answer.get("task") {
                Some(task) if class_of(task) == StateClass::Pending => {
                    let id = task["id"].as_str().unwrap_or("").to_string();
                    let task = waiter.poll(&id, tenant.as_ref()).await?;
                    let answer = json!({ "task": task });
                    live.borrow_mut().event(&answer, false);
                    Ok(answer)
                }
                _ => Ok(answer),
            };
        }
        let ours = message_id(&params);
        let mut events = Some(
            self.target
                .transport
                .subscribe_checked(SendStreamingMessage::NAME, params)
                .await
                .map_err(fail)?,
        );
        // Only the stream of a message continuing a task can open on the task
        // as it was before the message.
        let mut continuing = self.task_id.as_ref().map(|_| ours);
        let mut resubscribes = 0;
        loop {
            let Some(current) = events.take() else {
                return Err(Failure::local(Local::Internal, "no stream to follow"));
            };
            let end = self.follow(&waiter, current, continuing.take(), live).await?;
            match end {
                StreamEnd::Message(answer) => return Ok(answer),
                StreamEnd::Settled(_) => {
                    let id = live.borrow().tracked.task_id.clone().unwrap_or_default();
                    let task = waiter.poll(&id, tenant.as_ref()).await?;
                    return Ok(json!({ "task": task }));
                }
                StreamEnd::Broken(None, failure) => {
                    return Err(failure.unwrap_or_else(|| {
                        Failure::local(
                            Local::Internal,
                            "the agent closed the stream before naming a task",
                        )
                    }))
                }
                StreamEnd::Broken(Some(id), why) => {
                    let stopped = (id.as_str(), why.as_ref());
                    let tries = &mut resubscribes;
                    let again = resubscribe(self.ctx.debug, self.target, stopped, tenant.as_ref(), tries);
                    if let Some(again) = again.await {
                        events = Some(again);
                        continue;
                    }
                    let task = waiter.poll(&id, tenant.as_ref()).await?;
                    let answer = json!({ "task": task });
                    live.borrow_mut().event(&answer, false);
                    return Ok(answer);
                }
            }
        }
    }

    /// Follows a turn's stream until its task settles, each event handed to
    /// `live` as it arrives. `continuing` is the id of a message that
    /// continues an interrupted task: its stream may open on the task as it
    /// was when the message arrived, still interrupted, which is shown as
    /// an event but does not end the turn.
    async fn follow(
        &self,
        waiter: &Waiter<'_>,
        mut events: CheckedEventStream,
        continuing: Option<String>,
        live: &RefCell<Live<'_>>,
    ) -> Result<StreamEnd, Failure> {
        let mut task_id: Option<String> = None;
        let mut first = true;
        loop {
            let next = match waiter.deadline {
                Some(deadline) => match tokio::time::timeout_at(deadline.into(), events.next()).await {
                    Ok(next) => next,
                    Err(_) => return Err(waiter.timed_out(task_id.as_deref().unwrap_or("(unknown)"))),
                },
                None => events.next().await,
            };
            match next {
                Some(Ok(event)) => {
                    let data = event.data;
                    self.ctx.debug.log(&format!("< event {data}"));
                    if task_id.is_none() {
                        task_id = crate::http::stream_task_id(&data);
                    }
                    let stale = first
                        && continuing
                            .as_deref()
                            .is_some_and(|ours| before_reply(&data, ours));
                    first = false;
                    live.borrow_mut().event(&data, stale);
                    if stale {
                        continue;
                    }
                    if data.get("message").is_some() && task_id.is_none() {
                        return Ok(StreamEnd::Message(data));
                    }
                    if class_of(&data) != StateClass::Pending {
                        return Ok(StreamEnd::Settled(data));
                    }
                }
                Some(Err(error)) => {
                    return Ok(StreamEnd::failed(task_id, error, self.target.sends_credentials))
                }
                None => return Ok(StreamEnd::Broken(task_id, None)),
            }
        }
    }
}

/// The id of the message in SendMessage params.
fn message_id(params: &Value) -> String {
    params
        .pointer("/message/messageId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// Whether a stream `event` is the task as it was when the message `ours`
/// reached it: a snapshot still interrupted, with nothing after that
/// message in its history (the agent has not answered it yet).
fn before_reply(event: &Value, ours: &str) -> bool {
    let Some(task) = event.get("task") else {
        return false;
    };
    if class_of(task) != StateClass::Interrupted {
        return false;
    }
    match task["history"].as_array().and_then(|h| h.last()) {
        Some(last) => last["messageId"].as_str() == Some(ours),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_task_before_the_reply_is_not_the_answer() {
        let snapshot = |state: &str, last: &str| {
            json!({"task": {"id": "t", "status": {"state": state},
                "history": [{"messageId": "first"}, {"messageId": last}]}})
        };
        assert!(before_reply(
            &snapshot("TASK_STATE_INPUT_REQUIRED", "ours"),
            "ours"
        ));
        // The agent answered already: its reply is last.
        assert!(!before_reply(
            &snapshot("TASK_STATE_INPUT_REQUIRED", "reply"),
            "ours"
        ));
        // A task that ended, or one still working, is news either way.
        assert!(!before_reply(&snapshot("TASK_STATE_COMPLETED", "ours"), "ours"));
        assert!(!before_reply(&snapshot("TASK_STATE_WORKING", "ours"), "ours"));
        assert!(before_reply(
            &json!({"task": {"id": "t", "status": {"state": "TASK_STATE_AUTH_REQUIRED"}}}),
            "ours"
        ));
        assert!(!before_reply(
            &json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}}),
            "ours"
        ));
    }
}
