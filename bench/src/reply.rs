//! Checking one JSON-RPC message from a server: which request it answers and
//! whether it carries a `result` or an `error`, without building the whole
//! value (the result is skipped over, not materialized, so checking costs the
//! load generator little next to the server's work).

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::borrow::Cow;

/// What one message from the server is.
#[derive(Debug, PartialEq)]
pub enum Reply {
    /// A response carrying `result` (which may be `null`).
    Success { id: Option<u64> },
    /// A response carrying `error`: its code and message.
    Failure { id: Option<u64>, error: String },
    /// A message without `id`, such as the stdio binding's `stream/event`.
    Notification { method: String },
}

/// Set when the member was present at all, `null` included (an `Option`
/// would read `"result": null` as absent).
#[derive(Default)]
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(deserializer)?;
        Ok(Present(true))
    }
}

#[derive(Deserialize)]
struct Envelope<'a> {
    id: Option<Value>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default)]
    result: Present,
    error: Option<Value>,
}

/// Classifies one JSON-RPC message. Ids are the driver's own integers; any
/// other id is reported as `None` (and then fails the caller's id check).
pub fn classify(json: &[u8]) -> Result<Reply, String> {
    let envelope: Envelope =
        serde_json::from_slice(json).map_err(|e| format!("not a JSON-RPC message: {e}"))?;
    let id = envelope.id.as_ref().and_then(Value::as_u64);
    if let Some(error) = envelope.error {
        return Ok(Reply::Failure {
            id,
            error: format!("{} {}", error["code"], error["message"]),
        });
    }
    if envelope.result.0 {
        return Ok(Reply::Success { id });
    }
    match (envelope.id, envelope.method) {
        (None, Some(method)) => Ok(Reply::Notification {
            method: method.into_owned(),
        }),
        _ => Err("a response with neither result nor error".into()),
    }
}

/// Checks that `json` is a success answering `expected_id`; the error
/// otherwise, as the table's error sample shows it.
pub fn expect_success(json: &[u8], expected_id: u64) -> Result<(), String> {
    match classify(json)? {
        Reply::Success { id: Some(id) } if id == expected_id => Ok(()),
        Reply::Success { id } => Err(format!("answer for id {id:?}, expected {expected_id}")),
        Reply::Failure { error, .. } => Err(error),
        Reply::Notification { method } => Err(format!("unexpected notification `{method}`")),
    }
}

#[derive(Deserialize)]
struct StreamEvent {
    result: Option<StreamResult>,
}

/// A `StreamResponse`: exactly one of its members is set.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StreamResult {
    task: Option<WithStatus>,
    status_update: Option<WithStatus>,
}

#[derive(Deserialize)]
struct WithStatus {
    status: Status,
}

#[derive(Deserialize)]
struct Status {
    state: String,
}

/// The task state an SSE event's JSON-RPC response reports (a `task` or a
/// `statusUpdate`), `None` for other events (messages, artifacts).
pub fn stream_event_state(json: &[u8]) -> Result<Option<String>, String> {
    let event: StreamEvent = serde_json::from_slice(json).map_err(|e| format!("bad stream event: {e}"))?;
    let result = event.result.ok_or("stream event without a result")?;
    Ok(result.status_update.or(result.task).map(|s| s.status.state))
}

/// The id of the task a `SendMessage` result describes: a `Task`, or the
/// one-member wrapper (`{"task": …}`) that holds it.
pub fn task_id_of(result: &Value) -> Option<String> {
    let task = result.get("task").unwrap_or(result);
    task.get("id")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_notifications_and_errors() {
        let ok = br#"{"jsonrpc":"2.0","id":7,"result":{"id":"t","history":[{"a":[1,2]}]}}"#;
        assert_eq!(classify(ok).unwrap(), Reply::Success { id: Some(7) });
        let null = br#"{"jsonrpc":"2.0","id":8,"result":null}"#;
        assert_eq!(classify(null).unwrap(), Reply::Success { id: Some(8) });
        let failed = br#"{"jsonrpc":"2.0","id":9,"error":{"code":-32001,"message":"no task"}}"#;
        assert_eq!(
            classify(failed).unwrap(),
            Reply::Failure {
                id: Some(9),
                error: "-32001 \"no task\"".into()
            }
        );
        let event = br#"{"jsonrpc":"2.0","method":"stream/event","params":{"requestId":1}}"#;
        assert_eq!(
            classify(event).unwrap(),
            Reply::Notification {
                method: "stream/event".into()
            }
        );
        assert!(classify(br#"{"jsonrpc":"2.0","id":1}"#).is_err());
        assert!(classify(b"{not json").is_err());
    }

    #[test]
    fn success_must_answer_the_expected_id() {
        let ok = br#"{"jsonrpc":"2.0","id":3,"result":{}}"#;
        assert_eq!(expect_success(ok, 3), Ok(()));
        assert!(expect_success(ok, 4).is_err());
        let string_id = br#"{"jsonrpc":"2.0","id":"3","result":{}}"#;
        assert!(expect_success(string_id, 3).is_err());
    }

    #[test]
    fn stream_states_from_tasks_and_status_updates() {
        let task = br#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","status":{"state":"TASK_STATE_SUBMITTED"}}}}"#;
        assert_eq!(
            stream_event_state(task).unwrap().as_deref(),
            Some("TASK_STATE_SUBMITTED")
        );
        let update = br#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_COMPLETED"}}}}"#;
        assert_eq!(
            stream_event_state(update).unwrap().as_deref(),
            Some("TASK_STATE_COMPLETED")
        );
        let message = br#"{"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"m"}}}"#;
        assert_eq!(stream_event_state(message).unwrap(), None);
        let failed = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}"#;
        assert!(stream_event_state(failed).is_err());
    }

    #[test]
    fn task_ids_of_bare_and_wrapped_tasks() {
        let bare = serde_json::json!({"id": "t1", "status": {"state": "TASK_STATE_COMPLETED"}});
        assert_eq!(task_id_of(&bare).as_deref(), Some("t1"));
        let wrapped = serde_json::json!({"task": {"id": "t2"}});
        assert_eq!(task_id_of(&wrapped).as_deref(), Some("t2"));
        assert_eq!(
            task_id_of(&serde_json::json!({"message": {"messageId": "m"}})),
            None
        );
    }
}
