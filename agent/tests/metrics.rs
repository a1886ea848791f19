//! `GET /metrics` of the real agent over a real socket: after real calls, the
//! exact series and counts of calls by method and outcome, latency histograms
//! (their counts, and buckets that only grow), open streams, store commits on
//! the memory and SQLite stores, and push delivery attempts; and the guard:
//! with authentication configured, 401 without credentials, 403 for anyone
//! but an admin of every namespace.

mod common;

use common::http::{get, post};
use common::ServerAgent;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn call(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

fn send(addr: &str, text: &str) -> Value {
    let reply = post(
        addr,
        &[],
        &call(
            "SendMessage",
            json!({"message": {"messageId": text, "role": "ROLE_USER", "parts": [{"text": text}]}}),
        ),
    );
    reply.messages().pop().expect("one answer")
}

fn add_tool(addr: &str, name: &str) {
    let reply = post(
        addr,
        &[],
        &call(
            "_cleveragents/registry/tools/add",
            json!({"tool": {"name": name, "description": "a tool", "kind": "TOOL_KIND_TEMPLATE"}}),
        ),
    );
    let answer = reply.messages().pop().expect("one answer");
    assert_eq!(answer["result"]["version"], 1, "{answer}");
}

/// The metrics as served, with their content type checked.
fn scrape(addr: &str, headers: &[(&str, &[u8])]) -> String {
    let reply = get(addr, "/metrics", headers);
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.body));
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    String::from_utf8(reply.body).expect("UTF-8 exposition")
}

/// The value of the sample `series` (name and labels, exactly as rendered).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| {
        let value = line.strip_prefix(series)?.strip_prefix(' ')?;
        value.parse().ok()
    })
}

fn count(text: &str, series: &str) -> u64 {
    sample(text, series).unwrap_or_else(|| panic!("no sample `{series}` in:\n{text}")) as u64
}

/// The bucket counts of one histogram series, in order, with `+Inf` last;
/// asserts they are cumulative and end at the series' `_count`.
fn buckets(text: &str, name: &str, labels: &str) -> Vec<u64> {
    let prefix = format!("{name}_bucket{{{labels},le=\"");
    let counts: Vec<(String, u64)> = text
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix(&prefix)?;
            let (le, value) = rest.split_once("\"} ")?;
            Some((le.to_string(), value.parse().ok()?))
        })
        .collect();
    assert!(counts.len() > 1, "no buckets of {name}{{{labels}}} in:\n{text}");
    assert_eq!(counts.last().map(|(le, _)| le.as_str()), Some("+Inf"));
    let bounds: Vec<f64> = counts[..counts.len() - 1]
        .iter()
        .map(|(le, _)| le.parse().expect("numeric bound"))
        .collect();
    assert!(
        bounds.windows(2).all(|w| w[0] < w[1]),
        "bounds ascend: {bounds:?}"
    );
    let values: Vec<u64> = counts.iter().map(|(_, v)| *v).collect();
    assert!(values.windows(2).all(|w| w[0] <= w[1]), "cumulative: {values:?}");
    let total = count(text, &format!("{name}_count{{{labels}}}"));
    assert_eq!(values.last(), Some(&total));
    values
}

/// Every sample line of the families named `name` (so a test can say which
/// series exist, exactly).
fn series_of<'t>(text: &'t str, name: &str) -> Vec<&'t str> {
    text.lines()
        .filter(|line| line.starts_with(&format!("{name}{{")) || line.starts_with(&format!("{name} ")))
        .collect()
}

#[test]
fn calls_are_counted_by_method_and_outcome() {
    let agent = ServerAgent::start();
    let addr = agent.addr();
    let before = scrape(&addr, &[]);
    assert_eq!(
        series_of(&before, "cleveragents_requests_total"),
        Vec::<&str>::new()
    );
    assert_eq!(count(&before, "cleveragents_open_streams{transport=\"http\"}"), 0);
    assert_eq!(
        count(&before, "cleveragents_open_streams{transport=\"stdio\"}"),
        0
    );
    assert_eq!(count(&before, "cleveragents_push_delivery_attempts_total"), 0);
    assert_eq!(count(&before, "cleveragents_push_delivery_failures_total"), 0);

    for n in 0..3 {
        let answer = send(&addr, &format!("hello {n}"));
        assert_eq!(
            answer["result"]["task"]["status"]["state"],
            "TASK_STATE_COMPLETED"
        );
    }
    let missing = post(&addr, &[], &call("GetTask", json!({"id": "no-such-task"})));
    assert_eq!(missing.error().expect("an error")["code"], -32001);
    let unknown = post(&addr, &[], &call("NoSuchMethod", json!({})));
    assert_eq!(unknown.error().expect("an error")["code"], -32601);
    let invalid = post(&addr, &[], &call("GetTask", json!({"id": 7})));
    assert_eq!(invalid.error().expect("an error")["code"], -32602);
    // A 0.3 call is counted under the 1.0 method that serves it.
    let reply = common::http::post_as(
        &addr,
        None,
        &[],
        &call(
            "message/send",
            json!({"message": {"messageId": "v03", "role": "user", "kind": "message",
                               "parts": [{"kind": "text", "text": "hi"}]}}),
        ),
    );
    assert!(
        reply.messages()[0].get("result").is_some(),
        "{:?}",
        reply.messages()
    );

    let text = scrape(&addr, &[]);
    assert_eq!(
        series_of(&text, "cleveragents_requests_total"),
        vec![
            "cleveragents_requests_total{method=\"SendMessage\",outcome=\"ok\"} 4",
            "cleveragents_requests_total{method=\"GetTask\",outcome=\"-32602\"} 1",
            "cleveragents_requests_total{method=\"GetTask\",outcome=\"-32001\"} 1",
            "cleveragents_requests_total{method=\"unknown\",outcome=\"-32601\"} 1",
        ]
    );
    let send_buckets = buckets(
        &text,
        "cleveragents_request_duration_seconds",
        "method=\"SendMessage\"",
    );
    assert_eq!(send_buckets.last(), Some(&4));
    let get_buckets = buckets(
        &text,
        "cleveragents_request_duration_seconds",
        "method=\"GetTask\"",
    );
    assert_eq!(get_buckets.last(), Some(&2));
    buckets(
        &text,
        "cleveragents_request_duration_seconds",
        "method=\"unknown\"",
    );
    // Each message committed its task (memory store): the histogram exists.
    let commits = buckets(
        &text,
        "cleveragents_store_commit_duration_seconds",
        "store=\"memory\"",
    );
    assert!(commits.last().copied().unwrap_or(0) >= 4, "{commits:?}");
}

#[test]
fn store_commits_are_counted_per_commit_on_sqlite() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().to_str().expect("utf-8 path").to_string();
    let agent = ServerAgent::start_with(&["--data-dir", &data]);
    let addr = agent.addr();
    let before = scrape(&addr, &[]);
    let already = sample(
        &before,
        "cleveragents_store_commit_duration_seconds_count{store=\"sqlite\"}",
    )
    .unwrap_or(0.0) as u64;
    // One registry add is one commit.
    for n in 0..3 {
        add_tool(&addr, &format!("tool-{n}"));
    }
    let text = scrape(&addr, &[]);
    let commits = buckets(
        &text,
        "cleveragents_store_commit_duration_seconds",
        "store=\"sqlite\"",
    );
    assert_eq!(commits.last(), Some(&(already + 3)));
    assert_eq!(
        count(
            &text,
            "cleveragents_requests_total{method=\"_cleveragents/registry/tools/add\",outcome=\"ok\"}"
        ),
        3
    );
}

#[test]
fn an_open_sse_stream_is_counted() {
    let agent = ServerAgent::start();
    let addr = agent.addr();
    let body = call("_cleveragents/events/subscribe", json!({"follow": true})).to_string();
    let mut stream = TcpStream::connect(&addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    write!(
        stream,
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("request sent");
    // The response head is written once the stream's body exists.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("response head");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_string();
    assert!(head.to_ascii_lowercase().contains("text/event-stream"), "{head}");
    let text = scrape(&addr, &[]);
    assert_eq!(count(&text, "cleveragents_open_streams{transport=\"http\"}"), 1);
    assert_eq!(
        count(
            &text,
            "cleveragents_requests_total{method=\"_cleveragents/events/subscribe\",outcome=\"ok\"}"
        ),
        1
    );
}

/// A webhook on loopback answering `status` to every POST, counting them.
fn webhook(status: u16) -> (String, Arc<Mutex<usize>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    let posts = Arc::new(Mutex::new(0));
    let seen = posts.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let seen = seen.clone();
            std::thread::spawn(move || {
                // One request per connection is enough here: read the head and
                // the body, answer, close.
                let mut raw = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    let Ok(n) = stream.read(&mut buf) else { return };
                    if n == 0 {
                        return;
                    }
                    raw.extend_from_slice(&buf[..n]);
                    let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
                        continue;
                    };
                    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    if raw.len() >= end + 4 + length {
                        break;
                    }
                }
                *seen.lock().expect("count") += 1;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
            });
        }
    });
    (url, posts)
}

/// Scrapes until `done` holds, or fails the test after a generous bound: a
/// delivery is counted right after its POST is answered, on the agent's own
/// schedule.
fn scrape_until(addr: &str, what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let text = scrape(addr, &[]);
        if done(&text) {
            return text;
        }
        assert!(Instant::now() < deadline, "{what}:\n{text}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn push_delivery_attempts_and_failures_are_counted() {
    let (accepting, accepted) = webhook(200);
    let (refusing, refused) = webhook(400);
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.json");
    std::fs::write(
        &config,
        json!({"push": {"allow_list": ["127.0.0.1"], "max_attempts": 1}}).to_string(),
    )
    .expect("config");
    let agent = ServerAgent::start_with(&["--memory", "--config", config.to_str().expect("utf-8")]);
    let addr = agent.addr();
    let mut events = 0;
    for (n, url) in [&accepting, &refusing].into_iter().enumerate() {
        let reply = post(
            &addr,
            &[],
            &call(
                "SendMessage",
                json!({
                    "message": {"messageId": format!("push-{n}"), "role": "ROLE_USER", "parts": [{"text": "job"}]},
                    "configuration": {"taskPushNotificationConfig": {"url": url, "token": "t"}}
                }),
            ),
        );
        let task = reply.messages().pop().expect("one answer")["result"]["task"].clone();
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
        // The task's whole log: one delivery per event.
        let log = post(
            &addr,
            &[("Last-Event-ID", b"0")],
            &call("SubscribeToTask", json!({"id": task["id"]})),
        );
        let n_events = log.events().len();
        assert!(n_events >= 1);
        if n == 0 {
            events = n_events;
        } else {
            assert_eq!(n_events, events, "both tasks ran alike");
        }
    }
    let text = scrape_until(&addr, "every event tried once at each webhook", |text| {
        sample(text, "cleveragents_push_delivery_attempts_total") == Some((2 * events) as f64)
    });
    // The 400s are not retried (max_attempts 1 anyway): each is one failure.
    assert_eq!(
        count(&text, "cleveragents_push_delivery_failures_total"),
        events as u64
    );
    assert_eq!(*accepted.lock().expect("count"), events);
    assert_eq!(*refused.lock().expect("count"), events);
}

fn auth_config(dir: &std::path::Path) -> String {
    let credential = |secret: &str, subject: &str| json!({"secret": secret, "subject": subject});
    let config = json!({"server": {"auth": {
        "api_keys": [
            credential("key-operator", "operator"),
            credential("key-tenant-admin", "tenant-admin"),
            credential("key-reader", "reader"),
        ],
        "principals": [
            {"subject": "operator", "namespaces": {"*": "admin"}},
            {"subject": "tenant-admin", "namespaces": {"default": "admin"}},
            {"subject": "reader", "namespaces": {"*": "reader"}},
        ],
    }}});
    let path = dir.join("agent.json");
    std::fs::write(&path, config.to_string()).expect("config");
    path.to_str().expect("utf-8 path").to_string()
}

#[test]
fn with_authentication_only_an_admin_of_every_namespace_reads_the_metrics() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = auth_config(dir.path());
    let agent = ServerAgent::start_with(&["--memory", "--config", &config]);
    let addr = agent.addr();

    let anonymous = get(&addr, "/metrics", &[]);
    assert_eq!(anonymous.status, 401);
    assert_eq!(
        anonymous.header("www-authenticate"),
        Some("ApiKey realm=\"cleveragents\", header=\"X-API-Key\"")
    );
    let wrong_key = get(&addr, "/metrics", &[("X-API-Key", b"key-nobody")]);
    assert_eq!(wrong_key.status, 401);
    for key in ["key-reader", "key-tenant-admin"] {
        let refused = get(&addr, "/metrics", &[("X-API-Key", key.as_bytes())]);
        assert_eq!(refused.status, 403, "{key}");
        assert_eq!(
            String::from_utf8_lossy(&refused.body),
            "the metrics need the admin role in every namespace\n"
        );
    }
    // The refused scrapes are no calls; a call of the operator is.
    let answer = post(
        &addr,
        &[("X-API-Key", b"key-operator")],
        &call("GetTask", json!({"id": "no-such-task"})),
    );
    assert_eq!(answer.error().expect("an error")["code"], -32001);
    let text = scrape(&addr, &[("X-API-Key", b"key-operator")]);
    assert_eq!(
        series_of(&text, "cleveragents_requests_total"),
        vec!["cleveragents_requests_total{method=\"GetTask\",outcome=\"-32001\"} 1"]
    );
}
