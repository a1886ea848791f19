//! Crash safety of the agent binary: SIGKILL in the middle of a stream of
//! `SendMessage` calls loses no acknowledged task. The agent runs over stdio on a
//! SQLite data directory; after the kill a fresh agent on the same directory must
//! return every task whose response the client received, exactly as acknowledged.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Agent {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Agent {
    fn start(data_dir: &std::path::Path) -> Agent {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cleveragents-agent"))
            .args(["--stdio", "--data-dir"])
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
