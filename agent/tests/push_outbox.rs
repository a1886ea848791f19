//! Push deliveries from the persisted outbox, with real agents and a real
//! webhook receiver on loopback: an agent killed with deliveries pending
//! (its webhook down) delivers every acknowledged event after a restart on
//! the same data directory; two agents on one PostgreSQL database deliver
//! each event once; and when the agent holding a delivery is killed in the
//! middle of it, the other delivers it once the lease has expired. A
//! redelivery always carries the same event and sequence number.

mod common;

use app::store::Store;
use common::http::{post, try_post};
use common::webhook::{Mode, Post, Receiver, DELIVERY_WAIT};
use common::ServerAgent;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};
use store_postgres::cluster::TestCluster;
use store_postgres::PgStore;

fn call(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// Sends a message whose task delivers its events to `url`; the task id,
/// once the task is complete (every event acknowledged).
fn send_with_webhook(addr: &str, n: usize, url: &str) -> String {
    let reply = post(
        addr,
        &[],
        &call(
            "SendMessage",
            json!({
                "message": {"messageId": format!("outbox-{n}"), "role": "ROLE_USER", "parts": [{"text": format!("job {n}")}]},
                "configuration": {"taskPushNotificationConfig": {"url": url, "token": "outbox-token"}}
            }),
        ),
    );
    let message = reply.messages().pop().expect("one answer");
    let task = &message["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{message}");
    task["id"].as_str().expect("task id").to_string()
}

/// A task's whole event log on `addr`, by sequence number.
fn whole_log(addr: &str, task_id: &str) -> BTreeMap<u64, Value> {
    let reply = try_post(
        addr,
        &[("Last-Event-ID", b"0")],
        &call("SubscribeToTask", json!({"id": task_id})),
    )
    .expect("the log replays");
    reply
        .events()
        .into_iter()
        .map(|(seq, event)| (seq.expect("a sequence number"), event["result"].clone()))
        .collect()
}

/// True when every event of every log was answered 200.
fn all_delivered(posts: &[Post], logs: &BTreeMap<String, BTreeMap<u64, Value>>) -> bool {
    logs.iter().all(|(task_id, log)| {
        log.keys().all(|seq| {
            posts
                .iter()
                .any(|p| p.task_id == *task_id && p.seq == *seq && p.status == 200)
        })
    })
}

/// Every POST carried the event its sequence number names, and each event
/// was accepted exactly once; the POSTs per event.
fn check_posts(
    posts: &[Post],
    logs: &BTreeMap<String, BTreeMap<u64, Value>>,
) -> BTreeMap<(String, u64), usize> {
    let mut per_event = BTreeMap::new();
    for post in posts {
        let log = logs
            .get(&post.task_id)
            .unwrap_or_else(|| panic!("a POST of an unknown task: {post:?}"));
        assert_eq!(
            log.get(&post.seq),
            Some(&post.body),
            "POST {} of task {} is not the event of that sequence number",
            post.seq,
            post.task_id
        );
        *per_event.entry((post.task_id.clone(), post.seq)).or_insert(0) += 1;
    }
    for (task_id, log) in logs {
        for seq in log.keys() {
            let accepted = posts
                .iter()
                .filter(|p| p.task_id == *task_id && p.seq == *seq && p.status == 200)
                .count();
            assert_eq!(
                accepted, 1,
                "event {seq} of task {task_id} accepted {accepted} times"
            );
        }
    }
    per_event
}

/// A config file letting the agent call the loopback receiver, retrying
/// quickly, with `lease_ms` as the lease of a claimed delivery.
fn config_file(dir: &Path, lease_ms: u64) -> String {
    let path = dir.join("config.json");
    let config = json!({"push": {"allow_list": ["127.0.0.1"], "max_attempts": 1000,
                                 "initial_backoff_ms": 20, "lease_ms": lease_ms}});
    std::fs::write(&path, config.to_string()).expect("config");
    path.to_str().expect("utf-8 path").to_string()
}

#[test]
fn pending_deliveries_survive_a_kill_and_are_made_after_a_restart() {
    const TASKS: usize = 4;
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let config = config_file(dir.path(), 30_000);
    let data_arg = data.to_str().expect("utf-8 path");
    let receiver = Receiver::start(Mode::Unavailable);
    let mut agent = ServerAgent::start_with(&["--data-dir", data_arg, "--config", &config]);
    let tasks: Vec<String> = (0..TASKS)
        .map(|n| send_with_webhook(&agent.addr(), n, &receiver.url))
        .collect();
    // The webhook is down: every task has been tried, none delivered.
    receiver.wait_for("every task tried", |posts| {
        tasks.iter().all(|t| posts.iter().any(|p| p.task_id == *t))
    });
    agent.kill();
    assert!(receiver.posts().iter().all(|p| p.status == 503));
    receiver.set(Mode::Accept);
    let restarted = Instant::now();
    let agent = ServerAgent::start_with(&["--data-dir", data_arg, "--config", &config]);
    let logs: BTreeMap<String, BTreeMap<u64, Value>> = tasks
        .iter()
        .map(|t| (t.clone(), whole_log(&agent.addr(), t)))
        .collect();
    assert!(logs.values().all(|log| log.len() >= 3), "{logs:#?}");
    let posts = receiver.wait_for("every acknowledged event delivered after the restart", |posts| {
        all_delivered(posts, &logs)
    });
    eprintln!(
        "outbox after a restart: {} events of {TASKS} tasks delivered within {:?} of it",
        logs.values().map(BTreeMap::len).sum::<usize>(),
        restarted.elapsed()
    );
    let per_event = check_posts(&posts, &logs);
    // The first event of each task was tried before the kill and again after it.
    for task_id in &tasks {
        assert!(per_event[&(task_id.clone(), 1)] >= 2, "{per_event:?}");
    }
}

/// An agent on the database at `url` with the outbox settings of `config`.
fn pg_agent(url: &str, config: &str) -> ServerAgent {
    ServerAgent::start_with(&["--database-url", url, "--config", config])
}

/// Waits until the database at `url` holds no pending delivery of `tasks`.
fn wait_until_outbox_empty(url: &str, tasks: &[String]) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let store = PgStore::open(url).await.expect("open the database");
        let deadline = Instant::now() + DELIVERY_WAIT;
        for task in tasks {
            while !store
                .pending_deliveries(a2a::DEFAULT_NAMESPACE, task)
                .await
                .expect("pending deliveries")
                .is_empty()
            {
                assert!(Instant::now() < deadline, "deliveries still pending");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    });
}

#[test]
fn two_agents_on_postgres_deliver_each_event_once() {
    const TASKS: usize = 8;
    let url = TestCluster::fresh_database();
    let dir = tempfile::tempdir().expect("temp dir");
    let config = config_file(dir.path(), 30_000);
    let receiver = Receiver::start(Mode::Accept);
    let agents = [pg_agent(&url, &config), pg_agent(&url, &config)];
    let tasks: Vec<String> = (0..TASKS)
        .map(|n| send_with_webhook(&agents[n % 2].addr(), n, &receiver.url))
        .collect();
    let logs: BTreeMap<String, BTreeMap<u64, Value>> = tasks
        .iter()
        .enumerate()
        .map(|(n, t)| (t.clone(), whole_log(&agents[(n + 1) % 2].addr(), t)))
        .collect();
    receiver.wait_for("every event delivered", |posts| all_delivered(posts, &logs));
    // Once nothing is pending, nothing more can be delivered: each event
    // reached the webhook exactly once.
    wait_until_outbox_empty(&url, &tasks);
    let per_event = check_posts(&receiver.posts(), &logs);
    assert!(per_event.values().all(|n| *n == 1), "{per_event:?}");
    assert_eq!(per_event.len(), logs.values().map(BTreeMap::len).sum::<usize>());
}

#[test]
fn a_delivery_whose_agent_is_killed_is_made_by_another_after_the_lease() {
    let url = TestCluster::fresh_database();
    let dir = tempfile::tempdir().expect("temp dir");
    // Long enough that a live holder renews it in time even on a busy machine.
    let config = config_file(dir.path(), 3_000);
    let receiver = Receiver::start(Mode::Hold);
    // Only the first agent runs when the task is made, so it is the one
    // that claims the first delivery, and hangs in it.
    let mut holder = pg_agent(&url, &config);
    let task_id = send_with_webhook(&holder.addr(), 0, &receiver.url);
    receiver.wait_for("the first delivery under way", |posts| !posts.is_empty());
    let other = pg_agent(&url, &config);
    let log = whole_log(&other.addr(), &task_id);
    // While the holder lives, the other agent leaves its delivery alone
    // (and the later events wait behind it, in order).
    std::thread::sleep(Duration::from_secs(1));
    let held = receiver.posts();
    assert_eq!(held.len(), 1, "{held:#?}");
    assert_eq!((held[0].seq, held[0].status), (1, 0));
    holder.kill();
    let killed = Instant::now();
    receiver.set(Mode::Accept);
    let logs = BTreeMap::from([(task_id.clone(), log)]);
    receiver.wait_for("delivered by the other agent", |posts| {
        all_delivered(posts, &logs)
    });
    eprintln!(
        "push takeover: every event delivered by the other agent {:?} after the holder was killed (lease 3 s)",
        killed.elapsed()
    );
    wait_until_outbox_empty(&url, std::slice::from_ref(&task_id));
    let per_event = check_posts(&receiver.posts(), &logs);
    // The event under way when its agent died went twice, with its sequence number both times.
    assert_eq!(per_event[&(task_id.clone(), 1)], 2, "{per_event:?}");
    assert!(
        per_event.iter().filter(|(k, _)| k.1 > 1).all(|(_, n)| *n == 1),
        "{per_event:?}"
    );
}
