//! A seeded history checker under faults, in two modes. In PostgreSQL
//! mode, three agents share one database (a throwaway cluster), each through
//! a proxy of its own, clients run a random mix of A2A and registry
//! operations over HTTP on random agents, and a nemesis SIGKILLs and
//! restarts agents, SIGSTOPs and continues them, cuts or slows an agent's
//! connections to the database, or shuts PostgreSQL down at once and
//! restarts it. In local mode (`local.rs`),
//! each client spawns a stdio front on one data directory, whose background
//! agent on SQLite serves them all, and the nemesis kills or stops that
//! agent, kills clients' fronts, or fills the disk. Every invocation and
//! what its client was told is recorded; once the faults have stopped,
//! the checker (`checker.rs`) proves the whole history against what the
//! agents hold (in local mode, the one store, read through a fresh front),
//! and prints the operations of each task that breaks a guarantee. The
//! run's last line: `chaos: N operations, M acknowledged, F faults, A anomalies`.
//!
//! The judgement never depends on speed: a call with no answer may have
//! taken effect or not, and the run lasts at least until enough operations
//! were acknowledged and enough faults injected, however slow the machine.
//!
//! The suite runs a short run of each mode with a fixed seed;
//! `scripts/chaos` a long one. Settings: `CLEVERAGENTS_CHAOS_SECONDS`
//! (default 12 for PostgreSQL, 6 for local mode), `CLEVERAGENTS_CHAOS_SEED`
//! (default 1), `CLEVERAGENTS_CHAOS_CLIENTS` (default 5),
//! `CLEVERAGENTS_CHAOS_AGENTS` (PostgreSQL only; default 3).

#[path = "../common/mod.rs"]
mod common;

mod checker;
mod client;
mod history;
mod local;
mod nemesis;
mod proxy;
mod stdio;
mod wire;
mod workload;

use client::{Client, Http};
use common::seeded::env_number;
pub use common::seeded::Rng;
use common::webhook::{self, Mode as Answering, Post, Receiver};
use nemesis::{Agents, Faults};
use proxy::Proxy;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use store_postgres::cluster::TestCluster;
use wire::Outcome;
use workload::Shared;

/// How long a run lease lasts: short, so pauses outlast it and dead
/// agents' runs are failed by the others within the run.
const LEASE_MS: u64 = 1_500;
/// Push delivery as the agents are configured: to the loopback receiver,
/// retried for as long as a run lasts, leases short enough that a killed
/// or paused agent's deliveries are taken over within the run.
static PUSH: std::sync::LazyLock<Value> = std::sync::LazyLock::new(
    || json!({"allow_list": ["127.0.0.1"], "max_attempts": 1000, "initial_backoff_ms": 20, "lease_ms": LEASE_MS}),
);
/// The fewest acknowledged operations and faults a run ends with.
const MIN_ACKNOWLEDGED: u64 = 60;
const MIN_FAULTS: u64 = 4;
/// A bound on how far a run may outlast its time, far beyond what a
/// working agent needs, so a broken one fails the test instead of hanging it.
const HANG_GUARD: Duration = Duration::from_secs(900);
/// How often a run says how far it has come.
const PROGRESS: Duration = Duration::from_secs(60);
/// Tasks whose anomalies are printed in full.
const PRINTED_TASKS: usize = 8;

/// A nemesis: injects faults (counting them) until told to stop, drawing
/// from its generator; every fault is over when it returns.
type Nemesis = Box<dyn FnOnce(Arc<Faults>, Arc<AtomicBool>, Rng) + Send>;

/// How a run's clients reach the agents, and what hurts them.
struct Mode {
    /// The client numbered `n`; number 0 makes the final reads.
    client: Box<dyn Fn(u64) -> Box<dyn Client>>,
    nemesis: Nemesis,
    /// How long the final reads wait after the faults, for leases to expire.
    settle: Duration,
    /// Set once the clients are to stop.
    stop_clients: Arc<AtomicBool>,
    /// The receiver of the webhooks the clients register.
    webhook: Receiver,
}

/// GetTask on agent `agent`: the task, or the error as a value (which no
/// agent's task equals).
fn get_task(reader: &mut dyn Client, agent: usize, id: &str) -> Value {
    match reader.call(agent, "GetTask", json!({"id": id})) {
        Outcome::Ok(task) => task,
        Outcome::Fail { code, message } => json!({"error": code, "message": message}),
        Outcome::Unknown(why) => json!({"unknown": why}),
    }
}

/// A read of `method` on agent `agent`: the answer, or the error as a
/// value; a call the database's restart broke is tried again.
fn read(reader: &mut dyn Client, agent: usize, method: &str, params: Value) -> Value {
    let mut last = Value::Null;
    for attempt in 0..10 {
        if attempt > 0 {
            std::thread::sleep(Duration::from_millis(500));
        }
        match reader.call(agent, method, params.clone()) {
            Outcome::Ok(entry) => return entry,
            Outcome::Fail { code, message } if code != wire::NOT_CONNECTED => {
                return json!({"error": code, "message": message})
            }
            other => last = json!({"unknown": format!("{other:?}")}),
        }
    }
    last
}

/// A task's whole event log on agent `agent`: the snapshot's id says how
/// far the log reaches now (a terminal task has no snapshot: its replay
/// ends by itself), then the log is replayed from the start up to there.
fn whole_log(reader: &mut dyn Client, agent: usize, id: &str) -> Vec<(Option<u64>, Value)> {
    const WAIT: Duration = Duration::from_secs(60);
    let head = reader.follow(agent, id, None, WAIT, &|s| !s.events.is_empty());
    let reach = head.events.first().and_then(|(id, _)| *id);
    if head.refused.is_none() && reach.is_none() {
        return vec![(None, json!({"no log": head.not_connected}))];
    }
    let replay = reader.follow(agent, id, Some(0), WAIT, &|s| {
        reach.is_some_and(|reach| s.events.last().and_then(|(id, _)| *id) >= Some(reach))
    });
    match replay.refused {
        Some((code, message)) => vec![(None, json!({"error": code, "message": message}))],
        None => replay.events,
    }
}

/// Task `id` as every agent holds it, read again (boundedly) until every
/// agent agrees, so a change committed between two reads is no anomaly.
fn read_final(reader: &mut dyn Client, id: &str) -> checker::Final {
    let mut last = None;
    for _ in 0..6 {
        let agents = 0..reader.agents();
        let tasks: Vec<Value> = agents.clone().map(|i| get_task(reader, i, id)).collect();
        let logs: Vec<_> = agents.map(|i| whole_log(reader, i, id)).collect();
        let again = get_task(reader, 0, id);
        let agreed = tasks.iter().all(|t| *t == again) && logs.iter().all(|l| *l == logs[0]);
        last = Some(checker::Final { tasks, logs });
        if agreed {
            break;
        }
        std::thread::sleep(Duration::from_millis(LEASE_MS));
    }
    last.expect("read at least once")
}

/// What the webhook received, once every task that owes its webhook its
/// last event has delivered it (or a bound has passed: the checker then
/// reports what is missing); and how many tasks owed it.
fn delivered(webhook: &Receiver, tasks: &checker::push::Tasks) -> (Vec<Post>, usize) {
    let owed = tasks.owed();
    let deadline = Instant::now() + webhook::DELIVERY_WAIT;
    loop {
        let posts = webhook.posts();
        let done = owed
            .iter()
            .all(|(task, last)| posts.iter().any(|p| p.task_id == *task && p.seq == *last));
        if done || Instant::now() > deadline {
            return (posts, owed.len());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Every task agent 0 lists.
fn listed_tasks(reader: &mut dyn Client) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let mut token = String::new();
    loop {
        let mut params = json!({"pageSize": 100, "historyLength": 0});
        if !token.is_empty() {
            params["pageToken"] = json!(token);
        }
        // A connection the database's restart broke fails one call more.
        let page = (0..10)
            .find_map(|attempt| {
                if attempt > 0 {
                    std::thread::sleep(Duration::from_millis(500));
                }
                match reader.call(0, "ListTasks", params.clone()) {
                    Outcome::Ok(page) => Some(page),
                    _ => None,
                }
            })
            .unwrap_or_else(|| panic!("ListTasks {params} on an agent with every fault over"));
        ids.extend(
            page["tasks"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t["id"].as_str().map(str::to_string)),
        );
        token = page["nextPageToken"].as_str().unwrap_or_default().to_string();
        if token.is_empty() {
            return ids;
        }
    }
}

/// The summary of one run.
struct Summary {
    operations: usize,
    acknowledged: usize,
    /// Operations whose outcome the client was not told.
    unknown: usize,
    /// Of those, the calls a live agent never answered (given up on), as
    /// the history shows them.
    unanswered: Vec<String>,
    faults: BTreeMap<&'static str, u64>,
    /// Webhook deliveries received, the tasks they were for, and the tasks
    /// that owed their webhook their last event.
    deliveries: (usize, usize, usize),
    /// Operations by kind: (acknowledged, all).
    kinds: BTreeMap<&'static str, (usize, usize)>,
    anomalies: usize,
}

fn run(mode: Mode, seconds: u64, seed: u64, clients: u64) -> Summary {
    let shared = Arc::new(Shared::new(seed, mode.webhook.url.clone()));
    let faults = Arc::new(Faults::default());
    let (stop_faults, stop_clients) = (Arc::new(AtomicBool::new(false)), mode.stop_clients.clone());
    workload::prepare_plans((mode.client)(0).as_mut(), seed);
    let nemesis = {
        let (nemesis, faults, stop) = (mode.nemesis, faults.clone(), stop_faults.clone());
        std::thread::spawn(move || nemesis(faults, stop, Rng::new(seed, 0)))
    };
    let workers: Vec<_> = (1..=clients)
        .map(|client| {
            let (shared, stop, to) = (shared.clone(), stop_clients.clone(), (mode.client)(client));
            std::thread::spawn(move || workload::client(shared, to, client, stop, Rng::new(seed, client)))
        })
        .collect();
    let started = Instant::now();
    let mut said = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let (operations, acknowledged) = shared.history.counts();
        let enough = acknowledged >= MIN_ACKNOWLEDGED && faults.total() >= MIN_FAULTS;
        if started.elapsed() >= Duration::from_secs(seconds) && enough {
            break;
        }
        if said.elapsed() >= PROGRESS {
            said = Instant::now();
            println!(
                "chaos: after {:.0?}: {operations} operations, {acknowledged} acknowledged, {} faults",
                started.elapsed(),
                faults.total()
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(seconds) + HANG_GUARD,
            "after {:?}: {acknowledged} acknowledged, {} faults",
            started.elapsed(),
            faults.total()
        );
    }
    // The faults end first (every agent up again), then the clients.
    stop_faults.store(true, Ordering::SeqCst);
    nemesis.join().expect("the nemesis");
    stop_clients.store(true, Ordering::SeqCst);
    for worker in workers {
        worker.join().expect("a client");
    }
    // Runs a dead or paused agent held are failed once their leases expire.
    std::thread::sleep(mode.settle);
    let ops = shared.history.ops();
    let mut reader = (mode.client)(0);
    let listed = listed_tasks(reader.as_mut());
    let mut ids: BTreeSet<String> = listed.clone();
    ids.extend(ops.iter().filter_map(|op| op.task().map(str::to_string)));
    let finals: BTreeMap<String, checker::Final> = ids
        .into_iter()
        .map(|id| {
            let last = read_final(reader.as_mut(), &id);
            (id, last)
        })
        .collect();
    let entries: BTreeMap<String, Vec<Value>> = workload::registry_entries(seed)
        .map(|name| {
            let params = json!({"name": name});
            let shown = (0..reader.agents())
                .map(|agent| read(reader.as_mut(), agent, workload::SHOW, params.clone()))
                .collect();
            (name, shown)
        })
        .collect();
    let plan_ids: BTreeSet<&str> = ops.iter().filter_map(history::Op::plan).collect();
    let plans: BTreeMap<String, Vec<Value>> = plan_ids
        .into_iter()
        .map(|plan| {
            let params = json!({"planId": plan});
            let shown = (0..reader.agents())
                .map(|agent| {
                    read(
                        reader.as_mut(),
                        agent,
                        "_cleveragents/plan/status",
                        params.clone(),
                    )
                })
                .collect();
            (plan.to_string(), shown)
        })
        .collect();
    let pushed = checker::push::Tasks::new(&ops, &finals);
    let hooks: BTreeMap<String, Vec<Value>> = pushed
        .registered()
        .into_iter()
        .map(|task| {
            let params = json!({"taskId": task, "id": workload::HOOK});
            let method = "GetTaskPushNotificationConfig";
            let held = (0..reader.agents())
                .map(|agent| read(reader.as_mut(), agent, method, params.clone()))
                .collect();
            (task.to_string(), held)
        })
        .collect();
    drop(reader);
    let (posts, owed) = delivered(&mode.webhook, &pushed);
    let mut anomalies = checker::check(&ops, &finals, &listed);
    anomalies.extend(checker::registry::check(&ops, &entries));
    anomalies.extend(checker::push::check(&pushed, &posts, &hooks));
    anomalies.extend(checker::plans::check(&ops, &plans));

    report(&ops, &finals, &plans, &anomalies);
    Summary {
        operations: ops.len(),
        acknowledged: ops.iter().filter(|op| op.acknowledged()).count(),
        unknown: ops
            .iter()
            .filter(|op| matches!(op.outcome(), Some(Outcome::Unknown(_))))
            .count(),
        unanswered: ops
            .iter()
            .filter(|op| matches!(op.outcome(), Some(Outcome::Unknown(why)) if why.starts_with("no answer")))
            .map(ToString::to_string)
            .collect(),
        faults: faults.by_kind(),
        deliveries: (
            posts.len(),
            posts.iter().map(|p| &p.task_id).collect::<BTreeSet<_>>().len(),
            owed,
        ),
        kinds: ops.iter().fold(BTreeMap::new(), |mut kinds, op| {
            let counts = kinds.entry(op.request.kind()).or_insert((0, 0));
            counts.0 += usize::from(op.acknowledged());
            counts.1 += 1;
            kinds
        }),
        anomalies: anomalies.len(),
    }
}

/// Prints each anomaly, and for the first tasks the operations on them:
/// the smallest history that shows what went wrong.
fn report(
    ops: &[history::Op],
    finals: &BTreeMap<String, checker::Final>,
    plans: &BTreeMap<String, Vec<Value>>,
    anomalies: &[checker::Anomaly],
) {
    let mut by_task: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for anomaly in anomalies {
        by_task
            .entry(anomaly.task.as_str())
            .or_default()
            .push(anomaly.what.as_str());
    }
    for (printed, (task, whats)) in by_task.iter().enumerate() {
        let subject = if finals.contains_key(*task) {
            "task"
        } else if plans.contains_key(*task) {
            "plan"
        } else {
            "registry entry"
        };
        println!("chaos: anomaly on {subject} {task}:");
        for what in whats {
            println!("  {what}");
        }
        if printed >= PRINTED_TASKS {
            continue;
        }
        // The operations on the task, and those that sent its messages.
        let messages: BTreeSet<String> = finals
            .get(*task)
            .map(|last| checker::user_messages(&last.tasks[0]).into_iter().collect())
            .unwrap_or_default();
        println!("  history:");
        for op in ops {
            let on_task = [op.task(), op.entry(), op.plan()].contains(&Some(*task));
            let sent_here = op.message_id().is_some_and(|m| messages.contains(m));
            if on_task || sent_here {
                println!("    {op}");
            }
        }
        if let Some(last) = finals.get(*task) {
            println!("  final: {}", last.tasks[0]);
            let log: Vec<String> = last.logs[0]
                .iter()
                .map(|(id, event)| {
                    let id = id.map_or("-".to_string(), |id| id.to_string());
                    match checker::state_of(event) {
                        Some(state) => format!("{id}:{state}"),
                        None => id,
                    }
                })
                .collect();
            println!("  log: {}", log.join(" "));
        }
    }
}

/// Prints the summary's two lines (`what` describes the run) and fails
/// on any anomaly.
fn conclude(what: &str, seed: u64, started: Instant, summary: Summary) {
    let faults: Vec<String> = summary
        .faults
        .iter()
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect();
    let total: u64 = summary.faults.values().sum();
    // Each call given up on, with what became of its front: the lead to
    // follow if one was not the nemesis's doing.
    for op in &summary.unanswered {
        println!("chaos: never answered: {op}");
    }
    let unanswered = match summary.unanswered.len() {
        0 => String::new(),
        n => format!(" ({n} never answered)"),
    };
    println!(
        "chaos: {what}, seed {seed}, {:.0?}, {} outcomes unknown{unanswered}; faults: {}",
        started.elapsed(),
        summary.unknown,
        faults.join(", ")
    );
    let kinds: Vec<String> = summary
        .kinds
        .iter()
        .map(|(kind, (acked, all))| format!("{kind} {acked}/{all}"))
        .collect();
    println!("chaos: acknowledged/sent by kind: {}", kinds.join(", "));
    let (posts, tasks, owed) = summary.deliveries;
    println!("chaos: {posts} webhook deliveries for {tasks} tasks ({owed} owed their last event)");
    println!(
        "chaos: {} operations, {} acknowledged, {total} faults, {} anomalies",
        summary.operations, summary.acknowledged, summary.anomalies
    );
    assert_eq!(summary.anomalies, 0, "anomalies (seed {seed}); see above");
    assert!(summary.acknowledged as u64 >= MIN_ACKNOWLEDGED);
    assert!(total >= MIN_FAULTS);
}

#[test]
fn a_seeded_history_under_faults_has_no_anomaly() {
    let seconds = env_number("CLEVERAGENTS_CHAOS_SECONDS").unwrap_or(12);
    let seed = env_number("CLEVERAGENTS_CHAOS_SEED").unwrap_or(1);
    let clients = env_number("CLEVERAGENTS_CHAOS_CLIENTS").unwrap_or(5);
    let count = env_number("CLEVERAGENTS_CHAOS_AGENTS").unwrap_or(3) as usize;
    let started = Instant::now();
    let cluster = TestCluster::shared();
    let database = cluster.create_named_database().unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.json");
    let settings = json!({"plans": {"lease_ms": LEASE_MS}, "push": PUSH.clone()});
    std::fs::write(&config, settings.to_string()).expect("config");
    // Each agent reaches the database through a proxy of its own.
    let target = SocketAddr::from(([127, 0, 0, 1], cluster.port()));
    let links: Vec<Proxy> = (0..count).map(|_| Proxy::start(target)).collect();
    let args = links
        .iter()
        .map(|link| {
            vec![
                "--database-url".to_string(),
                cluster.url_through(link.port(), &database),
                "--executor".to_string(),
                "tck".to_string(),
                "--config".to_string(),
                config.to_str().expect("utf-8 path").to_string(),
            ]
            .into_iter()
            .chain(wire::DRAFT_SWITCH.map(str::to_string))
            .collect()
        })
        .collect();
    let agents = Arc::new(Agents::start(args, dir.path().to_path_buf()));
    let mode = Mode {
        client: {
            let agents = agents.clone();
            Box::new(move |_| Box::new(Http(agents.clone())))
        },
        nemesis: Box::new(move |faults, stop, rng| nemesis::run(agents, links, faults, stop, rng)),
        settle: Duration::from_millis(3 * LEASE_MS),
        stop_clients: Arc::new(AtomicBool::new(false)),
        webhook: Receiver::start(Answering::Accept),
    };
    let summary = run(mode, seconds, seed, clients);
    let what = format!("postgres, {count} agents, {clients} clients");
    conclude(&what, seed, started, summary);
}

#[test]
fn a_seeded_local_mode_history_under_faults_has_no_anomaly() {
    let seconds = env_number("CLEVERAGENTS_CHAOS_SECONDS").unwrap_or(6);
    let seed = env_number("CLEVERAGENTS_CHAOS_SEED").unwrap_or(1);
    let clients = env_number("CLEVERAGENTS_CHAOS_CLIENTS").unwrap_or(5);
    let started = Instant::now();
    let dir = Arc::new(local::DataDir::create(json!({"push": PUSH.clone()})));
    let mode = Mode {
        client: {
            let dir = dir.clone();
            Box::new(move |n| Box::new(dir.client(n)))
        },
        nemesis: {
            let dir = dir.clone();
            Box::new(move |faults, stop, rng| local::nemesis(dir, faults, stop, rng))
        },
        // One agent at a time: a dead one's runs are failed as the next starts.
        settle: Duration::ZERO,
        // A call hung in the agent is given up on once the run is over.
        stop_clients: dir.launch.over.clone(),
        webhook: Receiver::start(Answering::Accept),
    };
    let summary = run(mode, seconds, seed, clients);
    let what = format!("local, {clients} clients, {}", dir.describe());
    conclude(&what, seed, started, summary);
}
