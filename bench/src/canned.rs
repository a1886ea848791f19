//! The floors' canned answers: values of the same shape and size class as the
//! agent's real answers to the benchmark's requests (a default-executor task
//! with its user message in the history and the agent's reply as the status
//! message; a page of 20 such tasks; the four built-in tools; the three
//! events of one streamed message), so the floor serializes as much JSON per
//! request as the agent does. Built once at startup; the floors serialize
//! them per request. Enum values, method names, the protocol version, the
//! extension and the default namespace come from the contract crate, so the
//! answers follow the schemas.

use a2a::methods::markers;
use a2a::rpc::{declared, Method as _};
use a2a::types::{Role, TaskState, ToolKind};
use a2a::{Contract, DEFAULT_NAMESPACE};
use serde::Serialize;
use serde_json::{json, Value};

/// The JSON-RPC success envelope the floors answer with, serialized around
/// borrowed parts so a canned result is written per request without being
/// copied.
#[derive(Serialize)]
pub struct Success<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: &'a Value,
}

impl<'a> Success<'a> {
    pub fn new(id: &'a Value, result: &'a Value) -> Success<'a> {
        Success {
            jsonrpc: "2.0",
            id,
            result,
        }
    }
}

/// Identifiers of the agent's length (UUIDs), fixed so the answers are too.
const TASK_ID: &str = "9af654e5-6d22-4d0f-b007-a19f8c979ace";
const CONTEXT_ID: &str = "741b50af-e412-4aa2-b4c6-49c95afd7d77";
const REPLY_ID: &str = "2336e0b9-4598-442b-94bd-37250addf7c4";
const TIMESTAMP: &str = "2026-01-01T00:00:00.000Z";

fn message(context: &str, role: Role, message_id: &str, text: &str) -> Value {
    json!({
        "contextId": context,
        "messageId": message_id,
        "parts": [{"text": text}],
        "role": role,
        "taskId": TASK_ID,
    })
}

fn status(context: &str, state: TaskState, with_reply: bool) -> Value {
    let mut status = json!({"state": state, "timestamp": TIMESTAMP});
    if with_reply {
        status["message"] = message(context, Role::Agent, REPLY_ID, "Received: hello");
    }
    status
}

/// A completed task as the default executor leaves it, in `context` (a
/// server-made UUID unless the message named one, as the seeded ones do).
pub fn task_in(context: &str) -> Value {
    json!({
        "contextId": context,
        "history": [message(context, Role::User, "bench-0000000", "hello")],
        "id": TASK_ID,
        "status": status(context, TaskState::Completed, true),
    })
}

pub fn task() -> Value {
    task_in(CONTEXT_ID)
}

/// The events the agent streams for one message to the default executor:
/// the submitted task, then WORKING, then COMPLETED with the reply.
pub fn stream_events() -> Vec<Value> {
    let mut submitted = task();
    submitted["status"] = status(CONTEXT_ID, TaskState::Submitted, false);
    let update = |state: TaskState, with_reply: bool| {
        json!({"statusUpdate": {
            "contextId": CONTEXT_ID,
            "status": status(CONTEXT_ID, state, with_reply),
            "taskId": TASK_ID,
        }})
    };
    vec![
        json!({ "task": submitted }),
        update(TaskState::Working, false),
        update(TaskState::Completed, true),
    ]
}

fn tool(kind: ToolKind, name: &str, description: &str, properties: Value) -> Value {
    json!({
        "builtin": true,
        "createdAt": "1970-01-01T00:00:00.000Z",
        "description": description,
        "inputSchema": {"type": "object", "properties": properties, "additionalProperties": false},
        "kind": kind,
        "name": name,
        "namespace": DEFAULT_NAMESPACE,
        "updatedAt": "1970-01-01T00:00:00.000Z",
        "version": 1,
    })
}

/// A registry listing of the size of the agent's four built-in tools.
pub fn tools_list() -> Value {
    json!({"items": [
        tool(ToolKind::Approval, "approval", "Asks the user to approve before continuing.",
             json!({"question": {"type": "string"}})),
        tool(ToolKind::RunValidation, "run-validation", "Runs the plan's declared validations on its workspace.",
             json!({"validations": {"type": "array", "items": {"type": "string"}}})),
        tool(ToolKind::Template, "template", "Renders a text template with the plan inputs.",
             json!({"template": {"type": "string"}, "name": {"type": "string"}})),
        tool(ToolKind::WriteFile, "write-file", "Writes a file into the plan's virtual workspace.",
             json!({"path": {"type": "string", "minLength": 1}, "content": {"type": "string"},
                    "fromStep": {"type": "string"}, "mediaType": {"type": "string"}})),
    ]})
}

const SEND_MESSAGE: &str = markers::SendMessage::NAME;
const GET_TASK: &str = markers::GetTask::NAME;
const LIST_TASKS: &str = markers::ListTasks::NAME;
const TOOLS_LIST: &str = markers::RegistryToolsList::NAME;
const INITIALIZE: &str = markers::Initialize::NAME;

/// The answers, built once.
pub struct Canned {
    pub send_message: Value,
    pub task: Value,
    pub list_page: Value,
    pub tools_list: Value,
    pub stream_events: Vec<Value>,
    pub initialize: Value,
    /// Anything else: a small object.
    pub other: Value,
}

impl Canned {
    pub fn new() -> Canned {
        let task = task();
        // A page of the seeded tasks, whose contexts the driver names.
        let page: Vec<Value> = (0..20).map(|_| task_in("bench-context-0")).collect();
        Canned {
            send_message: json!({ "task": task }),
            list_page: json!({
                "nextPageToken": "MjAyNi0wMS0wMVQwMDowMDowMC4wMDBafDlhZjY1NGU1",
                "pageSize": 20,
                "tasks": page,
                "totalSize": 1250,
            }),
            task,
            tools_list: tools_list(),
            stream_events: stream_events(),
            // The contract's protocol version and its extension at the newest minor version.
            initialize: json!({
                "protocolVersion": declared(Contract::A2a.released_protocol_version()),
                "extensions": [{
                    "uri": declared(Contract::Cleveragents.extension_uri()),
                    "version": Contract::Cleveragents.versions().last(),
                }],
                "serverInfo": {"name": "bench-echo", "version": "0.1.0"},
            }),
            other: json!({"ok": true}),
        }
    }

    /// The result of a unary method.
    pub fn result(&self, method: &str) -> &Value {
        match method {
            SEND_MESSAGE => &self.send_message,
            GET_TASK => &self.task,
            LIST_TASKS => &self.list_page,
            TOOLS_LIST => &self.tools_list,
            INITIALIZE => &self.initialize,
            _ => &self.other,
        }
    }
}

impl Default for Canned {
    fn default() -> Self {
        Canned::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canned_answers_are_the_agents_size_class() {
        let canned = Canned::new();
        let size = |v: &Value| serde_json::to_vec(v).unwrap().len();
        // The agent's own results measure about 600 bytes (a task in a UUID
        // context), 10.5 KB (a page of 20 seeded tasks) and 1.6 KB (the
        // tools); the canned ones stay within 10 %.
        let within = |actual: usize, agent: usize| actual * 10 >= agent * 9 && actual * 10 <= agent * 11;
        assert!(within(size(&canned.task), 600), "{}", size(&canned.task));
        assert!(
            within(size(&canned.list_page), 10_500),
            "{}",
            size(&canned.list_page)
        );
        assert!(
            within(size(&canned.tools_list), 1_600),
            "{}",
            size(&canned.tools_list)
        );
        let states: Vec<Option<&str>> = canned
            .stream_events
            .iter()
            .map(|e| e.pointer("/statusUpdate/status/state").and_then(Value::as_str))
            .collect();
        assert_eq!(
            states,
            [None, Some("TASK_STATE_WORKING"), Some("TASK_STATE_COMPLETED")]
        );
        assert_eq!(canned.result("GetTask")["id"], TASK_ID);
    }
}
