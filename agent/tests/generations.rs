//! Task generations (the A2A 1.1 draft), against real agent processes: the
//! draft is served only when turned on; a 1.1 caller sees every event's
//! generation (the task's log position) and a 1.0 caller on the same agent
//! never sees one; a long-polling GetTask is woken by a change committed on
//! another agent sharing the database; of two conditional sends racing on
//! two agents exactly one is taken.

mod common;

use common::http::{get, post_as, Reply};
use common::ServerAgent;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use store_postgres::cluster::TestCluster;

const DRAFT: &str = "1.1";
const RELEASED: &str = "1.0";

fn call(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// The one answer of a unary call in `version`.
fn answer(addr: &str, version: &str, headers: &[(&str, &[u8])], method: &str, params: Value) -> Value {
    let reply = post_as(addr, Some(version), headers, &call(method, params));
    reply.messages().pop().expect("one answer")
}

fn result(addr: &str, version: &str, method: &str, params: Value) -> Value {
    let message = answer(addr, version, &[], method, params);
    assert!(message.get("error").is_none(), "{method}: {message}");
    message["result"].clone()
}

fn addr(agent: &ServerAgent) -> String {
    agent.addr()
}

/// A task left waiting for input (generation 2: the task, then its status).
fn conversation(addr: &str, id: &str) -> String {
    let sent = result(
        addr,
        DRAFT,
        "SendMessage",
        json!({"message": {"messageId": id, "role": "ROLE_USER",
                           "parts": [{"text": "tck-multi-turn start"}]}}),
    );
    assert_eq!(
        sent["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{sent}"
    );
    assert_eq!(sent["task"]["generation"], 2, "{sent}");
    sent["task"]["id"].as_str().expect("task id").to_string()
}

fn conditional_reply(task_id: &str, message_id: &str, generation: i64) -> Value {
    call(
        "SendMessage",
        json!({"message": {"messageId": message_id, "role": "ROLE_USER", "taskId": task_id,
                           "parts": [{"text": "more"}]},
               "configuration": {"ifGenerationMatch": generation, "returnImmediately": true}}),
    )
}

/// The (binding, version) of each interface the card at `addr` lists.
fn interfaces(addr: &str) -> Vec<(String, String)> {
    let card = get(addr, "/.well-known/agent-card.json", &[("A2A-Version", b"1.0")]);
    let card: Value = serde_json::from_slice(&card.body).expect("card JSON");
    card["supportedInterfaces"]
        .as_array()
        .expect("interfaces")
        .iter()
        .map(|i| {
            (
                i["protocolBinding"].as_str().unwrap_or_default().to_string(),
                i["protocolVersion"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(b, v)| (b.to_string(), v.to_string())).collect()
}

#[test]
fn the_draft_is_served_only_when_turned_on() {
    let plain = ServerAgent::start_with(&["--memory", "--executor", "tck"]);
    let refused = answer(&addr(&plain), DRAFT, &[], "GetTask", json!({"id": "none"}));
    assert_eq!(refused["error"]["code"], -32009, "{refused}");
    assert_eq!(
        refused["error"]["data"][0]["metadata"]["supportedVersions"], "1.0,0.3",
        "{refused}"
    );
    let released = [
        ("JSONRPC", "1.0"),
        ("JSONRPC", "0.3"),
        ("HTTP+JSON", "1.0"),
        ("GRPC", "1.0"),
    ];
    assert_eq!(interfaces(&addr(&plain)), pairs(&released));

    let draft = ServerAgent::start_with(&["--memory", "--executor", "tck", "--draft-version", DRAFT]);
    let mut offered = released.to_vec();
    offered.extend([("JSONRPC", DRAFT), ("HTTP+JSON", DRAFT), ("GRPC", DRAFT)]);
    assert_eq!(interfaces(&addr(&draft)), pairs(&offered));
    let reply = post_as(
        &addr(&draft),
        Some(DRAFT),
        &[],
        &call("GetTask", json!({"id": "none"})),
    );
    assert_eq!(reply.header("a2a-version"), Some(DRAFT));
    assert_eq!(reply.error().expect("no such task")["code"], -32001);
    let unknown = answer(&addr(&draft), "1.2", &[], "GetTask", json!({"id": "none"}));
    assert_eq!(
        unknown["error"]["data"][0]["metadata"]["supportedVersions"],
        "1.1,1.0,0.3"
    );
}

/// The generations of a stream's task events, with their SSE ids.
fn generations(reply: &Reply) -> Vec<(Option<u64>, Value)> {
    reply
        .events()
        .into_iter()
        .map(|(id, data)| {
            let event = &data["result"];
            let generation = ["task", "statusUpdate", "artifactUpdate"]
                .iter()
                .find_map(|kind| event.get(*kind))
                .map(|inner| inner.get("generation").cloned().unwrap_or(Value::Null))
                .unwrap_or(Value::Null);
            (id, generation)
        })
        .collect()
}

#[test]
fn each_event_carries_its_generation_for_a_1_1_caller_only() {
    let agent = ServerAgent::start_with(&["--memory", "--executor", "tck", "--draft-version", DRAFT]);
    let addr = addr(&agent);
    let streamed = post_as(
        &addr,
        Some(DRAFT),
        &[],
        &call(
            "SendStreamingMessage",
            json!({"message": {"messageId": "chunks", "role": "ROLE_USER",
                               "parts": [{"text": "tck-stream-chunked"}]}}),
        ),
    );
    // The task, working, two artifact chunks, completed: one generation each,
    // the event's position in the task's log (its SSE id).
    let seen = generations(&streamed);
    assert_eq!(
        seen,
        (1..=5u64).map(|n| (Some(n), json!(n))).collect::<Vec<_>>(),
        "{}",
        String::from_utf8_lossy(&streamed.body)
    );
    let task_id = streamed.events()[0].1["result"]["task"]["id"]
        .as_str()
        .expect("task id")
        .to_string();
    let current = result(&addr, DRAFT, "GetTask", json!({"id": task_id}));
    assert_eq!(current["generation"], 5);

    // The same task and its replayed log, asked for in 1.0: no generation anywhere.
    let old = post_as(
        &addr,
        Some(RELEASED),
        &[],
        &call("GetTask", json!({"id": task_id})),
    );
    let old_body = String::from_utf8_lossy(&old.body).to_string();
    assert!(!old_body.contains("generation"), "{old_body}");
    let replay = post_as(
        &addr,
        Some(RELEASED),
        &[("Last-Event-ID", b"0")],
        &call("SubscribeToTask", json!({"id": task_id})),
    );
    assert_eq!(replay.events().len(), 5);
    assert!(!String::from_utf8_lossy(&replay.body).contains("generation"));
    let replay = post_as(
        &addr,
        Some(DRAFT),
        &[("Last-Event-ID", b"0")],
        &call("SubscribeToTask", json!({"id": task_id})),
    );
    assert_eq!(generations(&replay), seen);

    // A 1.0 caller's 1.1 members are ignored, as any member it could not know.
    let conditional = post_as(
        &addr,
        Some(RELEASED),
        &[],
        &call(
            "SendMessage",
            json!({"message": {"messageId": "old", "role": "ROLE_USER",
                               "parts": [{"text": "tck-complete-task"}]},
                   "configuration": {"ifGenerationMatch": 99}}),
        ),
    );
    let sent = conditional.messages().pop().expect("answer");
    assert_eq!(
        sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{sent}"
    );
    assert!(sent["result"]["task"].get("generation").is_none(), "{sent}");
}

#[test]
fn a_long_poll_and_a_conditional_send_hold_across_agents() {
    let url = TestCluster::fresh_database();
    let args = [
        "--database-url",
        url.as_str(),
        "--executor",
        "tck",
        "--draft-version",
        DRAFT,
    ];
    let (first, second) = (ServerAgent::start_with(&args), ServerAgent::start_with(&args));
    let (a, b) = (addr(&first), addr(&second));
    let task_id = conversation(&a, "start");

    // Already past: answered at once, as it stands.
    let passed = result(
        &b,
        DRAFT,
        "GetTask",
        json!({"id": task_id, "currentGeneration": 1}),
    );
    assert_eq!(passed["generation"], 2);

    // Held on the second agent until the first one moves the task on. The
    // poll is started first; the answer can only say generation 3 or more if
    // it was woken by that change (the wait limit is far away: a minute).
    let poll = {
        let (b, task_id) = (b.clone(), task_id.clone());
        std::thread::spawn(move || {
            answer(
                &b,
                DRAFT,
                &[("Prefer", b"wait=60")],
                "GetTask",
                json!({"id": task_id, "currentGeneration": 2}),
            )
        })
    };
    // Give the poll a moment to reach its agent before the task moves, so
    // the answer is the wake's. Were it later, the answer is still right
    // (the generation has passed), only the wake goes unexercised.
    std::thread::sleep(std::time::Duration::from_millis(300));
    // Two conditional replies on the same generation, one through each
    // agent, at once: exactly one is taken.
    let racers: Vec<_> = [(a.clone(), "left"), (b.clone(), "right")]
        .into_iter()
        .map(|(addr, id)| {
            let message = conditional_reply(&task_id, id, 2);
            std::thread::spawn(move || {
                post_as(&addr, Some(DRAFT), &[], &message)
                    .messages()
                    .pop()
                    .expect("answer")
            })
        })
        .collect();
    let outcomes: Vec<Value> = racers.into_iter().map(|r| r.join().expect("racer")).collect();
    let codes: BTreeSet<i64> = outcomes
        .iter()
        .map(|o| o["error"]["code"].as_i64().unwrap_or(0))
        .collect();
    assert_eq!(codes, BTreeSet::from([0, -32010]), "{outcomes:?}");
    let refused = outcomes
        .iter()
        .find(|o| o.get("error").is_some())
        .expect("one refused");
    let info = &refused["error"]["data"][0];
    assert_eq!(info["reason"], "TASK_GENERATION_MISMATCH", "{refused}");
    assert_eq!(info["metadata"]["taskId"], task_id.as_str());
    assert_eq!(info["metadata"]["expectedGeneration"], "2");
    let current: i64 = info["metadata"]["currentGeneration"]
        .as_str()
        .and_then(|g| g.parse().ok())
        .expect("current generation");
    assert!(current > 2, "{refused}");

    let woken = poll.join().expect("poll");
    let generation = woken["result"]["generation"].as_i64().expect("generation");
    assert!(generation > 2, "{woken}");
    // The taken reply added exactly one message to the task's history.
    let task = result(&a, DRAFT, "GetTask", json!({"id": task_id}));
    let replies = task["history"]
        .as_array()
        .expect("history")
        .iter()
        .filter(|m| m["role"] == "ROLE_USER" && m["parts"][0]["text"] == "more")
        .count();
    assert_eq!(replies, 1, "{task}");
}

#[test]
fn a_long_poll_answers_the_task_as_it_stands_when_the_wait_ends() {
    let agent = ServerAgent::start_with(&["--memory", "--executor", "tck", "--draft-version", DRAFT]);
    let addr = addr(&agent);
    let task_id = conversation(&addr, "waits");
    // Nothing moves the task: the caller's limit (one second) ends the wait.
    let held = answer(
        &addr,
        DRAFT,
        &[("Prefer", b"wait=1")],
        "GetTask",
        json!({"id": task_id, "currentGeneration": 2}),
    );
    assert_eq!(held["result"]["generation"], 2, "{held}");
    assert_eq!(held["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    // A stale conditional reply changes nothing.
    let before = result(&addr, DRAFT, "GetTask", json!({"id": task_id}));
    let stale = answer(
        &addr,
        DRAFT,
        &[],
        "SendMessage",
        conditional_reply(&task_id, "stale", 1)["params"].clone(),
    );
    assert_eq!(stale["error"]["code"], -32010, "{stale}");
    assert_eq!(
        stale["error"]["message"],
        "Task generation mismatch: expected 1 but current generation is 2"
    );
    let after = result(&addr, DRAFT, "GetTask", json!({"id": task_id}));
    assert_eq!(after, before);
    assert_eq!(after["generation"], 2);
}

#[test]
fn a_streamed_reply_to_a_task_waiting_for_input_follows_it_to_its_end() {
    let agent = ServerAgent::start_with(&["--memory", "--executor", "tck", "--draft-version", DRAFT]);
    let addr = addr(&agent);
    let task_id = conversation(&addr, "first");
    let streamed = post_as(
        &addr,
        Some(DRAFT),
        &[],
        &call(
            "SendStreamingMessage",
            json!({"message": {"messageId": "done", "role": "ROLE_USER", "taskId": task_id,
                               "parts": [{"text": "done"}]}}),
        ),
    );
    // The first event is the task as the reply found it, perhaps still
    // waiting for input: the stream goes on to the end the reply leads to.
    let events = generations(&streamed);
    let body = String::from_utf8_lossy(&streamed.body).to_string();
    let last = streamed.events().last().expect("events").1["result"].clone();
    assert_eq!(
        last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{body}"
    );
    let first = events[0].1.as_i64().expect("a generation");
    let expected: Vec<Value> = (first..first + events.len() as i64).map(|g| json!(g)).collect();
    let seen: Vec<Value> = events.into_iter().map(|(_, g)| g).collect();
    assert_eq!(seen, expected, "{body}");
}
