//! The HTTP workloads: the JSON-RPC request each one sends and how its answer
//! is checked. The same requests go to the agent and to the floor, so every
//! row has its baseline measured on identical traffic.

use crate::http::Answer;
use crate::load::{expect_ok_status, Workload};
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::types::{Role, TaskState};
use bench::frames::parse_sse;
use bench::reply::{expect_success, stream_event_state};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// Message ids are fresh across the whole run (every loop and target), so no
/// SendMessage ever repeats one.
static MESSAGE_SEQ: AtomicU64 = AtomicU64::new(0);

fn fresh_message_id() -> u64 {
    MESSAGE_SEQ.fetch_add(1, Ordering::Relaxed)
}

/// The names the table and `--workloads` use.
pub const HTTP_WORKLOADS: &[&str] = &[
    "get-task",
    "send-message",
    "send-streaming",
    "list-tasks",
    "registry-read",
];
pub const STDIO_WORKLOAD: &str = "stdio";

/// Writes one SendMessage (or SendStreamingMessage) request; `context` puts
/// the new task in that context.
pub fn write_send_message(out: &mut Vec<u8>, id: u64, method: &str, context: Option<&str>) {
    let message_id = fresh_message_id();
    let _ = write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"message":{{"messageId":"bench-{message_id}","role":"{role}","parts":[{{"text":"hello"}}]"#,
        role = Role::User,
    );
    if let Some(context) = context {
        let _ = write!(out, r#","contextId":"{context}""#);
    }
    out.extend_from_slice(b"}}}");
}

/// `GetTask` of one task created beforehand.
pub struct GetTask {
    pub task_id: String,
}

impl Workload for GetTask {
    fn write_body(&self, id: u64, out: &mut Vec<u8>) {
        let task = &self.task_id;
        let _ = write!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"id":"{task}"}}}}"#,
            method = markers::GetTask::NAME,
        );
    }
}

/// Blocking `SendMessage`, each with a fresh message (a new task each time);
/// with `contexts`, the tasks are spread over them (the seeding before
/// `list-tasks`).
pub struct SendMessage {
    pub contexts: Vec<String>,
}

impl Workload for SendMessage {
    fn write_body(&self, id: u64, out: &mut Vec<u8>) {
        let context =
            (!self.contexts.is_empty()).then(|| self.contexts[id as usize % self.contexts.len()].as_str());
        write_send_message(out, id, markers::SendMessage::NAME, context);
    }
}

/// `SendStreamingMessage`, read as SSE to the end of the stream.
pub struct SendStreaming;

/// The state the last event of a default-executor stream reports.
const COMPLETED: TaskState = TaskState::Completed;

impl Workload for SendStreaming {
    fn write_body(&self, id: u64, out: &mut Vec<u8>) {
        write_send_message(out, id, markers::SendStreamingMessage::NAME, None);
    }
    fn check(&self, answer: &Answer<'_>, id: u64) -> Result<(), String> {
        expect_ok_status(answer)?;
        let events = parse_sse(answer.body)?;
        // The last state any event reported, and whether the last event itself reported COMPLETED.
        let (mut last_state, mut ends_completed) = (None, false);
        for event in &events {
            expect_success(event.data.as_bytes(), id)?;
            let state = stream_event_state(event.data.as_bytes())?;
            ends_completed = state.as_deref().and_then(|s| s.parse::<TaskState>().ok()) == Some(COMPLETED);
            if state.is_some() {
                last_state = state;
            }
        }
        if events.is_empty() {
            Err("stream without events".into())
        } else if ends_completed {
            Ok(())
        } else {
            Err(format!(
                "stream of {} events did not end COMPLETED (last state {last_state:?})",
                events.len()
            ))
        }
    }
}

/// `ListTasks` of one seeded context at a time, completed tasks, 20 a page.
pub struct ListTasks {
    pub contexts: Vec<String>,
}

impl Workload for ListTasks {
    fn write_body(&self, id: u64, out: &mut Vec<u8>) {
        let context = &self.contexts[id as usize % self.contexts.len()];
        let _ = write!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"contextId":"{context}","status":"{COMPLETED}","pageSize":20}}}}"#,
            method = markers::ListTasks::NAME,
        );
    }
}

/// `_cleveragents/registry/tools/list` with no filter.
pub struct RegistryRead;

impl Workload for RegistryRead {
    fn write_body(&self, id: u64, out: &mut Vec<u8>) {
        let _ = write!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{}}}}"#,
            method = markers::RegistryToolsList::NAME,
        );
    }
}
