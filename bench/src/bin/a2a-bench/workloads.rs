//! The HTTP workloads: the JSON-RPC request each one sends and how its answer
//! is checked. The same requests go to the agent and to the floor, so every
//! row has its baseline measured on identical traffic.

use crate::http::Answer;
use crate::load::{expect_ok_status, Workload};
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::types::{Role, TaskState};
use bench::frames::parse_sse;
use bench::reply::{expect_success, stream_event_state, task_id_of};
use serde_json::Value;
use std::cell::RefCell;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// Message ids are fresh across the whole run (every loop and target), so no
/// SendMessage ever repeats one.
static MESSAGE_SEQ: AtomicU64 = AtomicU64::new(0);

fn fresh_message_id() -> u64 {
    MESSAGE_SEQ.fetch_add(1, Ordering::Relaxed)
}

/// The names the table and `--workloads` use.
pub const GET_TASK: &str = "get-task";
pub const SEND_MESSAGE: &str = "send-message";
pub const LIST_TASKS: &str = "list-tasks";
pub const HTTP_WORKLOADS: &[&str] = &[
    GET_TASK,
    SEND_MESSAGE,
    "send-streaming",
    LIST_TASKS,
    "registry-read",
];
/// The workloads also run over the gRPC binding on every agent target (rows
/// `agent/<store> gRPC`, against the same floor).
pub const GRPC_WORKLOADS: &[&str] = &[GET_TASK, SEND_MESSAGE];
pub const STDIO_WORKLOAD: &str = "stdio";
/// The scale run (see `scale.rs`): minutes long, so only when asked for.
pub const SCALE_WORKLOAD: &str = "scale";

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

/// `GetTask` of tasks created beforehand: request `id` reads one of
/// `task_ids`, stepping through them in a scattered order so that, over a
/// large store, reads land all over it rather than on a few hot pages.
pub struct GetTask {
    pub task_ids: Vec<String>,
}

/// A step coprime with any count that is not its multiple: every id is
/// visited before one repeats.
const SCATTER: usize = 1_000_003;

impl Workload for GetTask {
    fn write_body(&self, id: u64, out: &mut Vec<u8>) {
        let task = &self.task_ids[(id as usize).wrapping_mul(SCATTER) % self.task_ids.len()];
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

/// [`SendMessage`] that also keeps the id of every `keep_every`-th task it
/// created: the tasks a later [`GetTask`] over the whole store reads.
pub struct SeedTasks {
    pub send: SendMessage,
    pub keep_every: u64,
    pub kept: RefCell<Vec<String>>,
}

impl Workload for SeedTasks {
    fn write_body(&self, id: u64, out: &mut Vec<u8>) {
        self.send.write_body(id, out);
    }
    fn check(&self, answer: &Answer<'_>, id: u64) -> Result<(), String> {
        expect_ok_status(answer)?;
        expect_success(answer.body, id)?;
        if id.is_multiple_of(self.keep_every) {
            let value: Value =
                serde_json::from_slice(answer.body).map_err(|e| format!("SendMessage answer: {e}"))?;
            let task = task_id_of(&value["result"])
                .ok_or_else(|| format!("SendMessage created no task: {value}"))?;
            self.kept.borrow_mut().push(task);
        }
        Ok(())
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
