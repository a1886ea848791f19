//! Several agents on one PostgreSQL database (a throwaway cluster), as real
//! processes: a task created on one agent is read on another; a stream
//! produced on one agent is followed live on a second, which is then killed,
//! and resumed on a third from the last event id, each seeing exactly the
//! producing agent's event log, without gap or duplicate. Also measures how
//! long an event takes to reach a subscriber on another agent.

mod common;

use app::store::postgres::cluster::TestCluster;
use common::http::{post, try_post};
use common::ServerAgent;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Generous bound on waiting for one event, so a broken agent fails the test
/// instead of hanging it.
const EVENT_WAIT: Duration = Duration::from_secs(60);

/// An agent on the database at `url`, answering as the TCK scenarios expect.
fn agent(url: &str) -> ServerAgent {
    ServerAgent::start_with(&["--database-url", url, "--executor", "tck"])
}

fn call(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// The result of a call, which must succeed.
fn result(addr: &str, method: &str, params: Value) -> Value {
    let reply = post(addr, &[], &call(method, params));
    let message = reply.messages().pop().expect("one answer");
    assert!(message.get("error").is_none(), "{method}: {message}");
    message["result"].clone()
}

/// Starts a multi-turn task on `addr`: it waits for input.
fn start_conversation(addr: &str) -> (String, String) {
    let task = result(
        addr,
        "SendMessage",
        json!({"message": {"messageId": "tck-multi-turn-1", "role": "ROLE_USER",
                           "parts": [{"text": "tck-multi-turn start"}]}}),
    );
    let task = &task["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED", "{task}");
    (
        task["id"].as_str().expect("task id").to_string(),
        task["contextId"].as_str().expect("context id").to_string(),
    )
}

/// Answers the conversation's task on `addr` with `text`.
fn reply(addr: &str, (task_id, context_id): &(String, String), message_id: &str, text: &str) -> Value {
    result(
        addr,
        "SendMessage",
        json!({"message": {"messageId": message_id, "role": "ROLE_USER", "taskId": task_id,
                           "contextId": context_id, "parts": [{"text": text}]}}),
    )
}

/// A task's whole event log on `addr`, replayed from the start; checked to
/// be 1..=n without gap or duplicate.
fn whole_log(addr: &str, task_id: &str) -> BTreeMap<u64, Value> {
    let reply = try_post(
        addr,
        &[("Last-Event-ID", b"0")],
        &call("SubscribeToTask", json!({"id": task_id})),
    )
    .expect("the log replays");
    let mut log = BTreeMap::new();
    for (seq, event) in reply.events() {
        let seq = seq.expect("every event has a sequence number");
        assert!(
            log.insert(seq, event["result"].clone()).is_none(),
            "sequence number {seq} twice"
        );
    }
    let expected: Vec<u64> = (1..=log.len() as u64).collect();
    assert_eq!(
        log.keys().copied().collect::<Vec<_>>(),
        expected,
        "a gap in the log"
    );
    log
}

/// A SubscribeToTask stream read on its own thread: each SSE event (its id
/// and JSON-RPC result) as it arrives. The exchange is HTTP/1.0, so the body
/// is the bare event stream, closed at its end.
struct Follower {
    /// Each event, and when it was read.
    events: mpsc::Receiver<(u64, Value, Instant)>,
}

impl Follower {
    fn start(addr: &str, task_id: &str, last_event_id: Option<u64>) -> Follower {
        let body = serde_json::to_vec(&call("SubscribeToTask", json!({"id": task_id}))).expect("encodes");
        let mut request = format!(
            "POST / HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: {}\r\n",
            body.len()
        );
        if let Some(id) = last_event_id {
            request.push_str(&format!("Last-Event-ID: {id}\r\n"));
        }
        request.push_str("\r\n");
        let mut stream = TcpStream::connect(addr).expect("connects");
        stream.set_read_timeout(Some(EVENT_WAIT)).expect("read timeout");
        stream.write_all(request.as_bytes()).expect("sends");
        stream.write_all(&body).expect("sends");
        let (tx, events) = mpsc::channel();
        std::thread::spawn(move || {
            let mut id = None;
            // Ends with the stream: at its end, or when the agent is gone.
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { return };
                if let Some(value) = line.strip_prefix("id:") {
                    id = value.trim().parse().ok();
                } else if let Some(data) = line.strip_prefix("data:") {
                    let data: Value = serde_json::from_str(data.trim()).expect("each SSE data is JSON");
                    let seq = id
                        .take()
                        .unwrap_or_else(|| panic!("an event without an id: {data}"));
                    if tx.send((seq, data["result"].clone(), Instant::now())).is_err() {
                        return;
                    }
                }
            }
        });
        Follower { events }
    }

    /// The next event, waiting (bounded) for it.
    fn next(&self) -> (u64, Value) {
        let (seq, event, _) = self.next_read();
        (seq, event)
    }

    /// The next event and when it was read.
    fn next_read(&self) -> (u64, Value, Instant) {
        self.events
            .recv_timeout(EVENT_WAIT)
            .expect("the next event arrives")
    }

    /// True once the stream has ended (no event follows).
    fn ended(&self) -> bool {
        matches!(
            self.events.recv_timeout(EVENT_WAIT),
            Err(mpsc::RecvTimeoutError::Disconnected)
        )
    }
}

#[test]
fn a_task_created_on_one_agent_is_read_and_continued_on_another() {
    let url = TestCluster::fresh_database();
    let (a, b) = (agent(&url), agent(&url));
    let conversation = start_conversation(&a.addr());
    let (task_id, _) = &conversation;
    let on_a = result(&a.addr(), "GetTask", json!({"id": task_id}));
    let on_b = result(&b.addr(), "GetTask", json!({"id": task_id}));
    assert_eq!(on_b, on_a);
    // Continued on B, the task is done on A too.
    let done = reply(&b.addr(), &conversation, "m-done", "done");
    assert_eq!(done["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    let on_a = result(&a.addr(), "GetTask", json!({"id": task_id}));
    assert_eq!(on_a["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(whole_log(&a.addr(), task_id), whole_log(&b.addr(), task_id));
}

#[test]
fn a_stream_produced_on_one_agent_is_followed_on_another_then_resumed_on_a_third() {
    let url = TestCluster::fresh_database();
    let (a, mut b, c) = (agent(&url), agent(&url), agent(&url));
    let conversation = start_conversation(&a.addr());
    let task_id = conversation.0.clone();
    // B follows live from the snapshot, while A answers the task (and a
    // subscriber on A shows when A published each event).
    let on_b = Follower::start(&b.addr(), &task_id, None);
    let on_a = Follower::start(&a.addr(), &task_id, None);
    let (snapshot_seq, snapshot) = on_b.next();
    assert_eq!(snapshot["task"]["id"], task_id.as_str(), "{snapshot}");
    assert_eq!(on_a.next().0, snapshot_seq);
    reply(&a.addr(), &conversation, "m-more", "more");
    let (seq, event, read_on_b) = on_b.next_read();
    let (seq_on_a, _, read_on_a) = on_a.next_read();
    assert_eq!(seq, seq_on_a);
    let mut followed = vec![(seq, event)];
    // The reply's events end with the task waiting for input again.
    while !is_state(&followed[followed.len() - 1].1, "TASK_STATE_INPUT_REQUIRED") {
        followed.push(on_b.next());
    }
    let (later, by) = match read_on_b.checked_duration_since(read_on_a) {
        Some(by) => ("after", by),
        None => ("before", read_on_a.duration_since(read_on_b)),
    };
    eprintln!(
        "cross-instance event: read from B {by:?} {later} it was read from A, the producer (event {seq})"
    );
    // B dies; C resumes from where B started, and A finishes the task.
    b.kill();
    let on_c = Follower::start(&c.addr(), &task_id, Some(snapshot_seq));
    let mut resumed = vec![on_c.next()];
    reply(&a.addr(), &conversation, "m-done", "done");
    while !is_state(&resumed[resumed.len() - 1].1, "TASK_STATE_COMPLETED") {
        resumed.push(on_c.next());
    }
    assert!(on_c.ended(), "the stream ends after the terminal event");
    // Both saw exactly A's log from the snapshot on: in order, once each.
    let log: Vec<(u64, Value)> = whole_log(&a.addr(), &task_id)
        .into_iter()
        .filter(|(seq, _)| *seq > snapshot_seq)
        .collect();
    assert_eq!(followed, log[..followed.len()], "B follows A's events");
    assert_eq!(resumed, log, "C resumes with A's events");
}

/// True when `event` is a status update to `state`.
fn is_state(event: &Value, state: &str) -> bool {
    event["statusUpdate"]["status"]["state"] == state
}
