//! Several agents on one PostgreSQL database (a throwaway cluster), as real
//! processes: a task created on one agent is read on another; a stream
//! produced on one agent is followed live on a second, which is then killed,
//! and resumed on a third from the last event id, each seeing exactly the
//! producing agent's event log, without gap or duplicate; concurrent
//! messages to three agents, one killed under load, lose no acknowledged
//! task; names and expected versions hold across agents. Also measures how
//! long an event takes to reach a subscriber on another agent.

mod common;

use a2a::registry::{RegistryKindDescriptor, RegistryOperation, REGISTRY_KINDS};
use a2a::ErrorKind;
use common::http::{post, try_post};
use common::ServerAgent;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use store_postgres::cluster::TestCluster;

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

/// Messages each worker sends at most.
const MESSAGES_PER_WORKER: u64 = 25;
/// Workers per agent.
const WORKERS_PER_AGENT: usize = 2;
/// Acknowledged tasks before one agent is killed.
const ACKS_BEFORE_KILL: u64 = 30;

#[test]
fn concurrent_messages_across_agents_with_one_killed_lose_no_acknowledged_task() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};
    let url = TestCluster::fresh_database();
    let mut agents = [agent(&url), agent(&url), agent(&url)];
    let acks = Arc::new(AtomicU64::new(0));
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let mut workers = Vec::new();
    for (index, target) in agents.iter().enumerate() {
        for worker in 0..WORKERS_PER_AGENT {
            let (addr, acks, acknowledged) = (target.addr(), acks.clone(), acknowledged.clone());
            workers.push(std::thread::spawn(move || {
                for n in 0..MESSAGES_PER_WORKER {
                    let message = json!({"message": {"messageId": format!("load-{index}-{worker}-{n}"),
                        "role": "ROLE_USER", "parts": [{"text": "tck-complete-task"}]}});
                    // A killed agent ends its workers: what it acknowledged stands.
                    let Ok(reply) = try_post(&addr, &[], &call("SendMessage", message)) else {
                        return;
                    };
                    let Some(answer) = reply.messages().pop() else {
                        return;
                    };
                    let Some(task_id) = answer["result"]["task"]["id"].as_str() else {
                        panic!("an answer without a task: {answer}");
                    };
                    acknowledged.lock().expect("ledger").push(task_id.to_string());
                    acks.fetch_add(1, Ordering::SeqCst);
                }
            }));
        }
    }
    let deadline = Instant::now() + EVENT_WAIT;
    while acks.load(Ordering::SeqCst) < ACKS_BEFORE_KILL {
        assert!(
            Instant::now() < deadline,
            "the agents never acknowledged enough messages"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    agents[1].kill();
    for worker in workers {
        worker.join().expect("a worker panicked");
    }
    let acknowledged = acknowledged.lock().expect("ledger").clone();
    assert!(acknowledged.len() as u64 >= ACKS_BEFORE_KILL);
    // Every acknowledged task is on the database, complete, with an unbroken
    // log, as seen from an agent that stayed up.
    let survivor = agents[0].addr();
    for task_id in &acknowledged {
        let task = result(&survivor, "GetTask", json!({"id": task_id}));
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
        let log = whole_log(&survivor, task_id);
        assert!(
            log.values()
                .last()
                .is_some_and(|e| is_state(e, "TASK_STATE_COMPLETED")),
            "task {task_id}: its log ends with its completion"
        );
    }
    eprintln!(
        "{} acknowledged messages across 3 agents (one killed), all present",
        acknowledged.len()
    );
}

#[test]
fn names_and_expected_versions_hold_across_agents() {
    let url = TestCluster::fresh_database();
    let (a, b) = (agent(&url), agent(&url));
    let kind = skills();
    let spec = example_spec(kind);
    let add = call(
        kind.method(RegistryOperation::Add),
        json!({kind.spec_field: spec}),
    );
    let added = post(&a.addr(), &[], &add).messages().pop().expect("an answer");
    assert!(added.get("error").is_none(), "{added}");
    let again = post(&b.addr(), &[], &add).messages().pop().expect("an answer");
    assert_eq!(
        again["error"]["code"],
        ErrorKind::ExtAlreadyExists.code(),
        "{again}"
    );
    let update = call(
        kind.method(RegistryOperation::Update),
        json!({"expectedVersion": 1, kind.spec_field: spec}),
    );
    let first = post(&a.addr(), &[], &update).messages().pop().expect("an answer");
    assert!(first.get("error").is_none(), "{first}");
    // B read nothing of A's update, yet the store refuses its stale write.
    let stale = post(&b.addr(), &[], &update).messages().pop().expect("an answer");
    assert_eq!(
        stale["error"]["code"],
        ErrorKind::ExtInvalidState.code(),
        "{stale}"
    );
}

/// The registry kind these tests add and update.
fn skills() -> &'static RegistryKindDescriptor {
    REGISTRY_KINDS
        .iter()
        .find(|k| k.spec_field == "skill")
        .expect("the skill registry kind")
}

/// The entity of the schema's example of adding one of `kind`.
fn example_spec(kind: &RegistryKindDescriptor) -> Value {
    a2a::schema::method_entry(kind.method(RegistryOperation::Add))
        .and_then(|entry| {
            entry
                .get("examples")?
                .get(0)?
                .pointer(&format!("/params/{}", kind.spec_field))
                .cloned()
        })
        .expect("the schema has an example")
}

/// Steps of the plan the kill test runs: enough that its run is still under
/// way when its agent is killed as soon as the run has begun.
const PLAN_STEPS: usize = 150;

/// The extension URI under which plan task events name their domain event.
const EXTENSION: &str = "urn:cleveragents:extensions:v1";

/// An agent on the database at `url` whose plan runs are leased for `lease_ms`.
fn leasing_agent(url: &str, dir: &std::path::Path, lease_ms: u64) -> ServerAgent {
    let config = dir.join("config.json");
    std::fs::write(&config, json!({"plans": {"lease_ms": lease_ms}}).to_string()).expect("config");
    ServerAgent::start_with(&[
        "--database-url",
        url,
        "--executor",
        "tck",
        "--config",
        config.to_str().expect("utf-8 path"),
    ])
}

/// The domain event a plan task event names, with its fields.
fn domain_event(event: &Value) -> Option<&Value> {
    event["statusUpdate"]["metadata"]
        .get(EXTENSION)
        .or_else(|| event["artifactUpdate"]["metadata"].get(EXTENSION))
}

#[test]
fn a_plan_whose_agent_is_killed_mid_run_is_finished_once_by_another() {
    let url = TestCluster::fresh_database();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut agents = [
        leasing_agent(&url, dir.path(), 2_000),
        leasing_agent(&url, dir.path(), 2_000),
        leasing_agent(&url, dir.path(), 2_000),
    ];
    let (runner, watcher) = (agents[0].addr(), agents[1].addr());
    result(
        &runner,
        "_cleveragents/registry/projects/add",
        json!({"project": {"name": "site", "files": [
            {"path": "README.md", "mediaType": "text/markdown", "text": "# Site\n"}]}}),
    );
    let steps: Vec<Value> = (0..PLAN_STEPS)
        .map(|i| {
            json!({"id": format!("s{i}"), "name": format!("Step {i}"), "tool": "template",
                        "arguments": {"template": format!("step {i}")}})
        })
        .collect();
    result(
        &runner,
        "_cleveragents/registry/actions/add",
        json!({"action": {"name": "many", "steps": steps}}),
    );
    let plan = result(
        &runner,
        "_cleveragents/plan/use",
        json!({"action": "many", "project": "site"}),
    );
    let plan_id = plan["id"].as_str().expect("plan id").to_string();
    let execution = result(&runner, "_cleveragents/plan/execute", json!({"planId": plan_id}));
    let task_id = execution["taskId"].as_str().expect("task id").to_string();
    // Followed on another agent; the runner dies as soon as a step is done.
    let follower = Follower::start(&watcher, &task_id, None);
    loop {
        let (_, event) = follower.next();
        if domain_event(&event).is_some_and(|d| d["event"] == "tool.completed") {
            break;
        }
    }
    agents[0].kill();
    let killed = Instant::now();
    let status = result(&watcher, "_cleveragents/plan/status", json!({"planId": plan_id}));
    assert_eq!(
        status["plan"]["state"], "PLAN_STATE_RUNNING",
        "the run was under way when its agent died"
    );
    // Another agent takes the run over once its lease has expired, and finishes it.
    loop {
        let (_, event) = follower.next();
        if is_state(&event, "TASK_STATE_COMPLETED") {
            break;
        }
        assert!(!is_state(&event, "TASK_STATE_FAILED"), "{event}");
    }
    eprintln!(
        "plan takeover: finished by another agent {:?} after its runner was killed (lease 2 s)",
        killed.elapsed()
    );
    let log = whole_log(&agents[2].addr(), &task_id);
    let mut completed: BTreeMap<String, usize> = BTreeMap::new();
    let mut finished = 0;
    for event in log.values() {
        let Some(domain) = domain_event(event) else {
            continue;
        };
        if domain["event"] == "tool.completed" {
            *completed
                .entry(domain["stepId"].as_str().unwrap_or_default().to_string())
                .or_default() += 1;
        }
        if domain["event"] == "plan.state_changed" && domain["state"] == "PLAN_STATE_COMPLETED" {
            finished += 1;
        }
    }
    assert_eq!(finished, 1, "the plan completed once");
    assert_eq!(completed.len(), PLAN_STEPS, "every step completed");
    assert!(
        completed.values().all(|n| *n == 1),
        "each step completed once: {completed:?}"
    );
    let status = result(
        &agents[2].addr(),
        "_cleveragents/plan/status",
        json!({"planId": plan_id}),
    );
    assert_eq!(status["plan"]["state"], "PLAN_STATE_COMPLETED");
    assert!(status["steps"].as_array().is_some_and(
        |s| s.len() == PLAN_STEPS && s.iter().all(|s| s["state"] == "PLAN_STEP_STATE_SUCCEEDED")
    ));
}

#[test]
fn a_task_whose_agent_dies_mid_run_is_failed_by_another_once_its_lease_expires() {
    let url = TestCluster::fresh_database();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut runner = leasing_agent(&url, dir.path(), 600);
    let other = leasing_agent(&url, dir.path(), 600);
    // A two-second run, started and cut short by SIGKILL at once.
    let sent = result(
        &runner.addr(),
        "SendMessage",
        json!({"message": {"messageId": "tck-long-running-lease", "role": "ROLE_USER",
                           "parts": [{"text": "work"}]},
               "configuration": {"returnImmediately": true}}),
    );
    let task_id = sent["task"]["id"].as_str().expect("task id").to_string();
    runner.kill();

    // The other agent fails it once the dead agent's lease has expired.
    let follower = Follower::start(&other.addr(), &task_id, None);
    let (_, first) = follower.next();
    assert_eq!(first["task"]["id"], task_id.as_str());
    let ended = loop {
        let (_, event) = follower.next();
        if is_state(&event, "TASK_STATE_FAILED") {
            break event;
        }
        assert!(
            !is_state(&event, "TASK_STATE_COMPLETED"),
            "the run was cut short: {event}"
        );
    };
    assert_eq!(
        ended["statusUpdate"]["status"]["message"]["parts"][0]["text"],
        "The agent stopped before this task finished; send the message again to retry."
    );
    assert!(follower.ended());
    // Failed once: the lease is gone with it, so no later sweep touches it.
    let log = whole_log(&other.addr(), &task_id);
    let failures = log
        .values()
        .filter(|event| is_state(event, "TASK_STATE_FAILED"))
        .count();
    assert_eq!(failures, 1, "{log:#?}");
}
