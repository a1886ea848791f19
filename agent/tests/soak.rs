//! Kill soak: the agent on SQLite under concurrent HTTP `SendMessage`,
//! `SendStreamingMessage`, plan and registry traffic is killed with SIGKILL at
//! random moments, restarted on the same data directory each time, and must
//! keep everything it acknowledged: every task as answered, every task's event
//! log whole (sequence numbers 1..=n, no gap, no duplicate, each event seen
//! live unchanged), every plan (run to its end, resumed after a kill if need
//! be) and every registry entity at the version acknowledged (or the one
//! update in flight at the kill). Prints one summary line.
//!
//! The suite runs a short soak (3 kills); `scripts/soak` a long one. Settings:
//! `CLEVERAGENTS_SOAK_KILLS` (default 3), `CLEVERAGENTS_SOAK_SEED` (default:
//! from the clock; printed, so a run can be repeated).

mod common;

use a2a::methods::markers;
use a2a::registry::{RegistryKindDescriptor, RegistryOperation, REGISTRY_KINDS};
use a2a::rpc::Method;
use a2a::types::{PlanState, TaskState};
use common::http::{try_post, Reply};
use common::seeded::{env_number, Rng};
use common::ServerAgent;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Callers per kind of traffic.
const WORKERS_PER_KIND: u64 = 2;
/// Acknowledged writes per round before the kill may come.
const ACKS_BEFORE_KILL: u64 = 20;
/// Bound on the calls of one worker in one round (the kill ends it long before).
const CALLS_PER_ROUND: u64 = 100_000;
const PROJECT: &str = "soak-site";
const ACTION: &str = "soak-notes";

/// Everything the agent acknowledged, across every round.
#[derive(Default)]
struct Ledger {
    /// Task id → the task as `SendMessage` answered it.
    tasks: BTreeMap<String, Value>,
    /// Task id → the events a completed `SendStreamingMessage` delivered, by sequence number.
    streams: BTreeMap<String, BTreeMap<u64, Value>>,
    /// Plan id → the task its acknowledged `execute` runs it as, if one was acknowledged.
    plans: BTreeMap<String, Option<String>>,
    /// Registry entity → (acknowledged version, version of an update in flight).
    entities: BTreeMap<String, (u64, Option<u64>)>,
}

fn call(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

fn message(text: String) -> Value {
    json!({"message": {"messageId": format!("soak-{text}"), "role": "ROLE_USER", "parts": [{"text": text}]}})
}

/// The result of a unary call; `None` when the agent went away mid-call. An
/// error answer is a failure of the soak.
fn result_of(addr: &str, method: &str, params: Value) -> Option<Value> {
    let reply = try_post(addr, &[], &call(method, params.clone())).ok()?;
    // A body cut short by the kill is no answer.
    let answer: Value = serde_json::from_slice(&reply.body).ok()?;
    match answer.get("result") {
        Some(result) => Some(result.clone()),
        None => panic!("{method} {params}: {answer}"),
    }
}

fn state_of(event: &Value) -> Option<String> {
    event
        .pointer("/result/statusUpdate/status/state")
        .or_else(|| event.pointer("/result/task/status/state"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn is_final(state: &str) -> bool {
    [
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::Rejected,
    ]
    .iter()
    .any(|s| s.to_string() == state)
}

/// One caller's traffic for a round, until the agent is killed.
fn work(kind: u64, worker: u64, round: u64, addr: &str, ledger: &Mutex<Ledger>, acks: &AtomicU64) {
    let record = |f: &mut dyn FnMut(&mut Ledger)| {
        f(&mut ledger.lock().expect("ledger"));
        acks.fetch_add(1, Ordering::Relaxed);
    };
    let entity = format!("soak-skill-{worker}");
    let skills = skills();
    let spec = |description: &str| {
        let mut spec = example_spec(skills);
        spec["name"] = json!(entity);
        spec["description"] = json!(description);
        spec
    };
    for n in 0..CALLS_PER_ROUND {
        let tag = format!("{round}-{worker}-{n}");
        match kind {
            0 => {
                let Some(result) = result_of(addr, markers::SendMessage::NAME, message(tag)) else {
                    return;
                };
                let task = result["task"].clone();
                let id = task["id"].as_str().expect("task id").to_string();
                record(&mut |l| {
                    l.tasks.insert(id.clone(), task.clone());
                });
            }
            1 => {
                let Ok(reply) = try_post(
                    addr,
                    &[],
                    &call(markers::SendStreamingMessage::NAME, message(tag)),
                ) else {
                    return;
                };
                let events = reply.events();
                let complete = events
                    .last()
                    .and_then(|(_, e)| state_of(e))
                    .is_some_and(|s| is_final(&s));
                if !complete {
                    return;
                }
                let mut seen = BTreeMap::new();
                let mut task_id = None;
                for (seq, event) in events {
                    let seq = seq.expect("every stream event has a sequence number");
                    assert!(
                        seen.insert(seq, event["result"].clone()).is_none(),
                        "duplicate seq {seq} live"
                    );
                    task_id = task_id.or_else(|| {
                        event
                            .pointer("/result/task/id")
                            .or_else(|| event.pointer("/result/statusUpdate/taskId"))
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    });
                }
                let task_id = task_id.expect("the stream names its task");
                record(&mut |l| {
                    l.streams.insert(task_id.clone(), seen.clone());
                });
            }
            2 => {
                let Some(plan) = result_of(
                    addr,
                    markers::PlanUse::NAME,
                    json!({"action": ACTION, "project": PROJECT, "inputs": {"version": tag}}),
                ) else {
                    return;
                };
                let plan_id = plan["id"].as_str().expect("plan id").to_string();
                record(&mut |l| {
                    l.plans.insert(plan_id.clone(), None);
                });
                let Some(run) = result_of(addr, markers::PlanExecute::NAME, json!({"planId": plan_id}))
                else {
                    return;
                };
                let task_id = run["taskId"].as_str().expect("plan task").to_string();
                record(&mut |l| {
                    l.plans.insert(plan_id.clone(), Some(task_id.clone()));
                });
            }
            _ => {
                let known = ledger.lock().expect("ledger").entities.get(&entity).map(|e| e.0);
                let (method, params, next) = match known {
                    None => (
                        skills.method(RegistryOperation::Add),
                        json!({skills.spec_field: spec(&tag)}),
                        1,
                    ),
                    Some(version) => (
                        skills.method(RegistryOperation::Update),
                        json!({"expectedVersion": version, skills.spec_field: spec(&tag)}),
                        version + 1,
                    ),
                };
                {
                    let mut l = ledger.lock().expect("ledger");
                    let entry = l.entities.entry(entity.clone()).or_insert((0, None));
                    entry.1 = Some(next);
                }
                let Some(result) = result_of(addr, method, params) else {
                    return;
                };
                let version = result["version"].as_u64().expect("entity version");
                assert_eq!(version, next, "{result}");
                record(&mut |l| {
                    l.entities.insert(entity.clone(), (version, None));
                });
            }
        }
    }
}

/// A task's whole event log, replayed from the start (`Last-Event-ID: 0`).
fn event_log(addr: &str, task_id: &str) -> Reply {
    try_post(
        addr,
        &[("Last-Event-ID", b"0")],
        &call(markers::SubscribeToTask::NAME, json!({"id": task_id})),
    )
    .expect("the restarted agent replays the events")
}

/// Checks the task's event log is 1..=n without gap or duplicate, and returns it.
fn whole_log(addr: &str, task_id: &str) -> BTreeMap<u64, Value> {
    let mut log = BTreeMap::new();
    for (seq, event) in event_log(addr, task_id).events() {
        let seq = seq.unwrap_or_else(|| panic!("task {task_id}: an event without a sequence number"));
        assert!(
            log.insert(seq, event["result"].clone()).is_none(),
            "task {task_id}: sequence number {seq} twice"
        );
    }
    let expected: Vec<u64> = (1..=log.len() as u64).collect();
    let got: Vec<u64> = log.keys().copied().collect();
    assert_eq!(got, expected, "task {task_id}: a gap in the event log");
    log
}

/// Waits (bounded) until `f` answers `Some`.
fn eventually<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(value) = f() {
            return value;
        }
        assert!(Instant::now() < deadline, "{what} never happened");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Checks every acknowledged write against the restarted agent; returns how
/// many. An update found committed though unacknowledged becomes the version
/// the next round builds on.
fn verify(addr: &str, ledger: &mut Ledger) -> u64 {
    let mut checked = 0;
    for (task_id, acked) in &ledger.tasks {
        let stored = result_of(addr, markers::GetTask::NAME, json!({"id": task_id}));
        assert_eq!(stored.as_ref(), Some(acked), "task {task_id} lost or changed");
        assert!(!whole_log(addr, task_id).is_empty());
        checked += 1;
    }
    for (task_id, live) in &ledger.streams {
        let log = whole_log(addr, task_id);
        for (seq, event) in live {
            // The stream opens with the task as it was; later events are the log's.
            if event.get("task").is_none() {
                assert_eq!(
                    log.get(seq),
                    Some(event),
                    "task {task_id}: event {seq} lost or changed"
                );
            }
        }
        checked += 1;
    }
    for (plan_id, task) in &ledger.plans {
        let status = result_of(addr, markers::PlanStatus::NAME, json!({"planId": plan_id}))
            .unwrap_or_else(|| panic!("plan {plan_id} lost"));
        if let Some(task_id) = task {
            // A plan killed mid-run resumes on restart and runs to its end.
            let completed = PlanState::Completed.to_string();
            eventually(&format!("plan {plan_id} completing"), || {
                let status = result_of(addr, markers::PlanStatus::NAME, json!({"planId": plan_id}))?;
                (status["plan"]["state"] == completed.as_str()).then_some(())
            });
            assert!(!whole_log(addr, task_id).is_empty());
        } else {
            assert_eq!(status["plan"]["id"], plan_id.as_str());
        }
        checked += 1;
    }
    let list = skills().method(RegistryOperation::List);
    let listed = result_of(addr, list, json!({"limit": 500})).expect("registry list");
    let stored: BTreeMap<&str, u64> = listed["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| Some((e["name"].as_str()?, e["version"].as_u64()?)))
        .collect();
    for (name, (acked, in_flight)) in ledger.entities.iter_mut() {
        let version = stored.get(name.as_str()).copied().unwrap_or(0);
        assert!(
            version == *acked || Some(version) == *in_flight,
            "entity {name}: version {version} stored, {acked} acknowledged (in flight: {in_flight:?})"
        );
        (*acked, *in_flight) = (version, None);
        checked += 1;
    }
    checked
}

/// The kind the registry traffic adds and updates.
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
        .unwrap_or_else(|| json!({}))
}

/// The project and action the plan traffic uses.
fn seed_registry(addr: &str) {
    let added = result_of(
        addr,
        markers::RegistryProjectsAdd::NAME,
        json!({"project": {"name": PROJECT, "files": [
            {"path": "README.md", "mediaType": "text/markdown", "text": "# Site\n"}]}}),
    );
    assert!(added.is_some(), "project added");
    let added = result_of(
        addr,
        markers::RegistryActionsAdd::NAME,
        json!({"action": {"name": ACTION, "steps": [
            {"id": "render", "name": "Render", "tool": "template", "arguments": {"template": "Release {{version}}\n"}},
            {"id": "write", "name": "Write", "tool": "write-file", "arguments": {"path": "NOTES.md", "fromStep": "render"}}]}}),
    );
    assert!(added.is_some(), "action added");
}

#[test]
fn sigkill_at_random_moments_loses_nothing_acknowledged() {
    let kills = env_number("CLEVERAGENTS_SOAK_KILLS").unwrap_or(3);
    let seed = env_number("CLEVERAGENTS_SOAK_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let mut rng = Rng(seed | 1);
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let data = data.to_str().expect("utf-8 path").to_string();
    let log = dir.path().join("agent.log");
    let args = ["--data-dir", data.as_str()];
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let (mut acknowledged, mut checked) = (0, 0);
    let mut agent = ServerAgent::start_logged(&args, &[], &log);
    seed_registry(&agent.addr());
    for round in 0..kills {
        let acks = Arc::new(AtomicU64::new(0));
        let workers: Vec<_> = (0..4 * WORKERS_PER_KIND)
            .map(|worker| {
                let (addr, ledger, acks) = (agent.addr(), ledger.clone(), acks.clone());
                std::thread::spawn(move || work(worker % 4, worker, round, &addr, &ledger, &acks))
            })
            .collect();
        // The kill comes after some acknowledged writes, at a random moment.
        let pause = Duration::from_millis(rng.below(400));
        eventually("acknowledged writes before the kill", || {
            (acks.load(Ordering::Relaxed) >= ACKS_BEFORE_KILL || workers.iter().all(|w| w.is_finished()))
                .then_some(())
        });
        std::thread::sleep(pause);
        agent.kill();
        for worker in workers {
            worker.join().expect("worker");
        }
        acknowledged += acks.load(Ordering::Relaxed);
        agent = ServerAgent::start_logged(&args, &[], &log);
        checked += verify(&agent.addr(), &mut ledger.lock().expect("ledger"));
    }
    let ledger = ledger.lock().expect("ledger");
    println!(
        "soak: {kills} kills, {acknowledged} acknowledged writes ({} tasks, {} streamed tasks, {} plans, {} registry entities), {checked} checks after restarts, lost: 0, seed {seed}",
        ledger.tasks.len(),
        ledger.streams.len(),
        ledger.plans.len(),
        ledger.entities.len()
    );
}
