//! Crash safety of the agent binary: SIGKILL in the middle of a stream of
//! `SendMessage` calls loses no acknowledged task. The agent runs on a SQLite
//! data directory, over stdio one call at a time, and over HTTP with many
//! concurrent callers (so commits share transactions); after the kill a
//! fresh agent on the same directory must return every task whose response a
//! client received, exactly as acknowledged. A data directory belongs to one
//! running agent: a second one started on it is refused and changes nothing.

mod common;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};

struct Agent {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Agent {
    fn start(data_dir: &std::path::Path) -> Agent {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cleveragents-agent"))
            // In this process: the kill then stops the store's owner itself.
            .args(["--stdio", "--in-process", "--data-dir"])
            .arg(data_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("agent starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut agent = Agent { child, stdin, stdout };
        agent.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "1.0", "extensions": [{"uri": "urn:cleveragents:extensions:v1"}],
            "clientInfo": {"name": "crash-test", "version": "1"}}}),
        );
        let answer = agent.read();
        assert_eq!(answer["id"], 0);
        assert!(answer.get("result").is_some(), "initialize failed: {answer}");
        agent
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).expect("encodes");
        line.push(b'\n');
        self.stdin.write_all(&line).expect("agent reads stdin");
        self.stdin.flush().expect("flush");
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("agent writes stdout");
        assert!(n > 0, "agent closed stdout");
        serde_json::from_str(&line).expect("one JSON message per line")
    }

    fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.read();
        assert_eq!(answer["id"], id);
        answer
    }
}

fn send_message(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "SendMessage", "params": {
        "message": {"messageId": format!("crash-{id}"), "role": "ROLE_USER", "parts": [{"text": format!("job {id}")}]}}})
}

#[test]
fn sigkill_mid_stream_loses_no_acknowledged_task() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut agent = Agent::start(dir.path());

    // Acknowledged one by one, then a burst still in flight when the agent dies.
    let mut acknowledged: BTreeMap<String, Value> = BTreeMap::new();
    for id in 1..=30u64 {
        agent.send(&send_message(id));
        let answer = agent.read();
        let task = answer["result"]["task"].clone();
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{answer}");
        acknowledged.insert(task["id"].as_str().expect("task id").to_string(), task);
    }
    for id in 31..=60u64 {
        agent.send(&send_message(id));
    }
    for _ in 0..10 {
        let answer = agent.read();
        let task = answer["result"]["task"].clone();
        acknowledged.insert(task["id"].as_str().expect("task id").to_string(), task);
    }
    agent.child.kill().expect("SIGKILL");
    agent.child.wait().expect("reaped");

    let mut agent = Agent::start(dir.path());
    let mut next_id = 1000;
    for (task_id, acked) in &acknowledged {
        next_id += 1;
        let answer = agent.call(next_id, "GetTask", json!({"id": task_id}));
        let stored = &answer["result"];
        assert_eq!(stored["id"], acked["id"], "task {task_id} lost: {answer}");
        assert_eq!(stored["status"]["state"], acked["status"]["state"]);
        assert_eq!(stored["contextId"], acked["contextId"]);
        assert_eq!(stored["history"], acked["history"]);
    }
    let listed = agent.call(next_id + 1, "ListTasks", json!({"pageSize": 100}));
    let total = listed["result"]["totalSize"].as_u64().expect("totalSize");
    assert!(
        total >= acknowledged.len() as u64,
        "{total} tasks after restart, {} acknowledged",
        acknowledged.len()
    );
    assert_eq!(acknowledged.len(), 40);
}

/// One JSON-RPC call over a kept-alive HTTP/1.1 connection; `None` once the
/// connection is gone (the agent was killed).
fn http_call(stream: &mut TcpStream, addr: &str, body: &Value) -> Option<Value> {
    let body = serde_json::to_vec(body).expect("encodes");
    let head = format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    // One write: a request split in two would wait on delayed ACKs.
    let mut request = head.into_bytes();
    request.extend_from_slice(&body);
    stream.write_all(&request).ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
        }
    }
    let mut answer = vec![0; length?];
    reader.read_exact(&mut answer).ok()?;
    serde_json::from_slice(&answer).ok()
}

#[test]
fn sigkill_under_concurrent_load_loses_no_acknowledged_task() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data_dir = dir.path().to_str().expect("utf-8 path").to_string();
    let mut agent = common::ServerAgent::start_with(&["--data-dir", &data_dir]);
    let addr = agent.addr();
    let acknowledged: Arc<Mutex<BTreeMap<String, Value>>> = Arc::default();
    let callers: Vec<_> = (0..16u64)
        .map(|caller| {
            let (addr, acknowledged) = (addr.clone(), acknowledged.clone());
            std::thread::spawn(move || {
                let Ok(mut stream) = TcpStream::connect(&addr) else {
                    return;
                };
                // Bounded: the kill ends the loop long before this count.
                for n in 0..10_000u64 {
                    let id = caller * 100_000 + n;
                    let Some(answer) = http_call(&mut stream, &addr, &send_message(id)) else {
                        return;
                    };
                    let task = answer["result"]["task"].clone();
                    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{answer}");
                    let task_id = task["id"].as_str().expect("task id").to_string();
                    acknowledged.lock().expect("lock").insert(task_id, task);
                }
            })
        })
        .collect();
    // Kill once enough answers are in, while every caller still has a call in flight.
    while acknowledged.lock().expect("lock").len() < 300 && !callers.iter().all(|c| c.is_finished()) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    agent.kill();
    for caller in callers {
        caller.join().expect("caller thread");
    }
    let acknowledged = acknowledged.lock().expect("lock").clone();
    assert!(acknowledged.len() >= 300);

    let agent = common::ServerAgent::start_with(&["--data-dir", &data_dir]);
    let addr = agent.addr();
    let mut stream = TcpStream::connect(&addr).expect("connects");
    for (n, (task_id, acked)) in acknowledged.iter().enumerate() {
        let call = json!({"jsonrpc": "2.0", "id": n, "method": "GetTask", "params": {"id": task_id}});
        let answer = http_call(&mut stream, &addr, &call).expect("restarted agent answers");
        let stored = &answer["result"];
        assert_eq!(stored, acked, "task {task_id} lost or changed: {answer}");
    }
    let listed = json!({"jsonrpc": "2.0", "id": "list", "method": "ListTasks", "params": {"pageSize": 1}});
    let answer = http_call(&mut stream, &addr, &listed).expect("list answers");
    let total = answer["result"]["totalSize"].as_u64().expect("totalSize");
    assert!(
        total >= acknowledged.len() as u64,
        "{total} stored, {} acknowledged",
        acknowledged.len()
    );
}

#[test]
fn a_second_agent_on_a_data_directory_in_use_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data_dir = dir.path().to_str().expect("utf-8 path").to_string();
    let agent = common::ServerAgent::start_with(&["--data-dir", &data_dir]);
    let addr = agent.addr();
    let mut stream = TcpStream::connect(&addr).expect("connects");
    let sent = http_call(&mut stream, &addr, &send_message(1)).expect("first agent answers");
    let task = sent["result"]["task"].clone();
    let task_id = task["id"].as_str().expect("task id").to_string();

    // Refused at once: the data directory's owner is named, with what to do.
    let second = Command::new(common::AGENT)
        .args(["--listen", "127.0.0.1:0", "--data-dir", &data_dir])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("second agent runs");
    assert_eq!(second.status.code(), Some(2));
    let message = String::from_utf8_lossy(&second.stderr);
    let expected = format!(
        "cleveragents-agent: a server-mode agent (pid {}) already serves {data_dir}. A server-mode agent serves local clients too, so stop that one first (`cleveragents-agent --stop --data-dir {data_dir}` stops a background agent), or give this server another --data-dir",
        agent.pid()
    );
    assert_eq!(message.trim_end(), expected);

    // The first agent is untouched: it still holds and serves what it had.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task_id}});
    let answer = http_call(&mut stream, &addr, &call).expect("first agent still answers");
    assert_eq!(answer["result"], task);
}
