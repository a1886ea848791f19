//! OpenTelemetry traces of the real agent, exported over OTLP/HTTP (protobuf)
//! to a receiver on a loopback port that decodes each export: one request with
//! a known W3C `traceparent` gives one trace with that trace id, whose spans
//! chain transport → dispatch → handler → store commit, over HTTP and over
//! stdio (`params._meta.traceparent`); a push delivery made for that request
//! carries the trace on to the webhook. The agent flushes its spans when it
//! stops (SIGTERM, or EOF on stdio), so the test reads them after the agent
//! has exited: nothing is waited for by time.

mod common;

use common::http::post;
use common::{ServerAgent, AGENT};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value;
use prost::Message;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN: &str = "b7ad6b7169203331";
const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const TRACESTATE: &str = "congo=t61rcWkgMzE";

/// One exported span, as the test reads it.
#[derive(Clone, Debug)]
struct Span {
    trace_id: String,
    span_id: String,
    parent: String,
    name: String,
    attributes: BTreeMap<String, String>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A minimal OTLP/HTTP receiver: every `POST /v1/traces` body decoded as an
/// `ExportTraceServiceRequest`, answered 200 with an empty response.
struct Collector {
    endpoint: String,
    spans: Arc<Mutex<Vec<Span>>>,
    paths: Arc<Mutex<Vec<String>>>,
}

impl Collector {
    fn start() -> Collector {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let endpoint = format!("http://{}", listener.local_addr().expect("addr"));
        let spans = Arc::new(Mutex::new(Vec::new()));
        let paths = Arc::new(Mutex::new(Vec::new()));
        let (s, p) = (spans.clone(), paths.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (s, p) = (s.clone(), p.clone());
                std::thread::spawn(move || {
                    serve_requests(stream, |path, _, body| {
                        p.lock().expect("paths").push(path.to_string());
                        let export = ExportTraceServiceRequest::decode(body).expect("an OTLP trace export");
                        let mut spans = s.lock().expect("spans");
                        for resource in export.resource_spans {
                            for scope in resource.scope_spans {
                                spans.extend(scope.spans.into_iter().map(|span| {
                                    Span {
                                        trace_id: hex(&span.trace_id),
                                        span_id: hex(&span.span_id),
                                        parent: hex(&span.parent_span_id),
                                        name: span.name,
                                        attributes: span
                                            .attributes
                                            .into_iter()
                                            .map(|kv| {
                                                let value = match kv.value.and_then(|v| v.value) {
                                                    Some(any_value::Value::StringValue(s)) => s,
                                                    Some(any_value::Value::IntValue(i)) => i.to_string(),
                                                    Some(any_value::Value::BoolValue(b)) => b.to_string(),
                                                    other => format!("{other:?}"),
                                                };
                                                (kv.key, value)
                                            })
                                            .collect(),
                                    }
                                }));
                            }
                        }
                        200
                    })
                });
            }
        });
        Collector {
            endpoint,
            spans,
            paths,
        }
    }

    /// The spans of the trace `trace_id` received so far.
    fn trace(&self, trace_id: &str) -> Vec<Span> {
        let spans = self.spans.lock().expect("spans");
        spans.iter().filter(|s| s.trace_id == trace_id).cloned().collect()
    }
}

/// Serves the HTTP/1.1 requests of one connection (kept alive) until the
/// peer closes it; `answer` gets each request's path, headers and body and
/// returns the status.
fn serve_requests(stream: TcpStream, answer: impl Fn(&str, &BTreeMap<String, String>, &[u8]) -> u16) {
    let mut writer = stream.try_clone().expect("clone");
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        match reader.read_line(&mut request_line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let path = request_line.split_whitespace().nth(1).unwrap_or("").to_string();
        let mut headers = BTreeMap::new();
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) if line == "\r\n" => break,
                Ok(_) => {
                    if let Some((k, v)) = line.trim_end().split_once(':') {
                        headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                    }
                }
            }
        }
        let length: usize = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let status = answer(&path, &headers, &body);
        let _ = write!(writer, "HTTP/1.1 {status} OK\r\nContent-Length: 0\r\n\r\n");
        let _ = writer.flush();
    }
}

/// The one span named `name` among `spans`.
fn one<'s>(spans: &'s [Span], name: &str) -> &'s Span {
    let found: Vec<&Span> = spans.iter().filter(|s| s.name == name).collect();
    assert_eq!(found.len(), 1, "one `{name}` span in {spans:#?}");
    found[0]
}

/// Asserts the chain `transport` → dispatch → handler → store commit of one
/// SendMessage call, the transport span a child of the caller's span.
fn assert_chain(spans: &[Span], transport: &str) {
    let request = one(spans, transport);
    assert_eq!(request.parent, CALLER_SPAN, "{request:#?}");
    let dispatch = one(spans, "dispatch");
    assert_eq!(dispatch.parent, request.span_id, "{spans:#?}");
    assert_eq!(dispatch.attributes["method"], "SendMessage");
    let handler = one(spans, "handler");
    assert_eq!(handler.parent, dispatch.span_id, "{spans:#?}");
    assert_eq!(handler.attributes["method"], "SendMessage");
    assert_eq!(handler.attributes["service"], "messaging");
    let commits: Vec<&Span> = spans.iter().filter(|s| s.name == "store.commit").collect();
    assert!(!commits.is_empty(), "no store commit in {spans:#?}");
    for commit in commits {
        assert_eq!(commit.parent, handler.span_id, "{spans:#?}");
        assert_eq!(commit.attributes["store"], "memory");
    }
}

fn send_message(params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params})
}

#[test]
fn one_http_request_is_one_trace_from_transport_to_store() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("agent.log");
    let mut agent = ServerAgent::start_logged(
        &["--memory"],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)],
        &log,
    );
    let reply = post(
        &agent.addr(),
        &[
            ("traceparent", TRACEPARENT.as_bytes()),
            ("tracestate", TRACESTATE.as_bytes()),
        ],
        &send_message(
            json!({"message": {"messageId": "traced", "role": "ROLE_USER", "parts": [{"text": "hello"}]}}),
        ),
    );
    let answer = reply.messages().pop().expect("one answer");
    assert_eq!(
        answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answer}"
    );
    let status = agent.terminate();
    assert!(
        status.success(),
        "{status}: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );

    assert!(collector
        .paths
        .lock()
        .expect("paths")
        .iter()
        .all(|p| p == "/v1/traces"));
    let spans = collector.trace(TRACE_ID);
    assert_chain(&spans, "http.request");
    let request = one(&spans, "http.request");
    assert_eq!(request.attributes["http.request.method"], "POST");
    assert_eq!(request.attributes["url.path"], "/");
    assert_eq!(one(&spans, "dispatch").attributes["transport"], "http");
}

#[test]
fn a_stdio_request_carries_its_trace_in_params_meta() {
    let collector = Collector::start();
    let mut child = Command::new(AGENT)
        .args(["--stdio", "--memory"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("agent starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut exchange = |stdin: &mut std::process::ChildStdin, message: Value| -> Value {
        writeln!(stdin, "{message}").expect("request written");
        let mut line = String::new();
        stdout.read_line(&mut line).expect("answer read");
        serde_json::from_str(&line).expect("a JSON answer")
    };
    let init = exchange(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "1.0", "extensions": [], "clientInfo": {"name": "trace-test", "version": "1"}}}),
    );
    assert!(init.get("result").is_some(), "{init}");
    let answer = exchange(
        &mut stdin,
        send_message(json!({
            "message": {"messageId": "traced", "role": "ROLE_USER", "parts": [{"text": "hello"}]},
            "_meta": {"traceparent": TRACEPARENT, "tracestate": TRACESTATE}
        })),
    );
    assert_eq!(
        answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answer}"
    );
    // EOF ends the session; the agent exports what is left and exits.
    drop(stdin);
    let status = child.wait().expect("the agent exits");
    assert!(status.success(), "{status}");

    let spans = collector.trace(TRACE_ID);
    assert_chain(&spans, "stdio.request");
    assert_eq!(one(&spans, "dispatch").attributes["transport"], "stdio");
}

#[test]
fn a_push_delivery_carries_the_trace_of_its_request_to_the_webhook() {
    let collector = Collector::start();
    // The webhook: each POST's W3C headers.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let webhook = format!("http://{}/hook", listener.local_addr().expect("addr"));
    let received: Arc<Mutex<Vec<BTreeMap<String, String>>>> = Arc::new(Mutex::new(Vec::new()));
    let seen = received.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let seen = seen.clone();
            std::thread::spawn(move || {
                serve_requests(stream, |_, headers, _| {
                    seen.lock().expect("posts").push(headers.clone());
                    200
                })
            });
        }
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("agent.json");
    std::fs::write(
        &config,
        json!({"push": {"allow_list": ["127.0.0.1"]}}).to_string(),
    )
    .expect("config");
    let log = dir.path().join("agent.log");
    let mut agent = ServerAgent::start_logged(
        &["--memory", "--config", config.to_str().expect("utf-8")],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)],
        &log,
    );
    let reply = post(
        &agent.addr(),
        &[("traceparent", TRACEPARENT.as_bytes())],
        &send_message(json!({
            "message": {"messageId": "pushed", "role": "ROLE_USER", "parts": [{"text": "hello"}]},
            "configuration": {"taskPushNotificationConfig": {"url": webhook, "token": "t"}}
        })),
    );
    let answer = reply.messages().pop().expect("one answer");
    let task_id = answer["result"]["task"]["id"]
        .as_str()
        .expect("a task")
        .to_string();
    let log_reply = post(
        &agent.addr(),
        &[("Last-Event-ID", b"0")],
        &json!({"jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask", "params": {"id": task_id}}),
    );
    let events = log_reply.events().len();
    assert!(events >= 1);
    // Deliveries run on the agent's schedule: wait (boundedly) until the
    // webhook has had every event.
    let deadline = Instant::now() + Duration::from_secs(60);
    while received.lock().expect("posts").len() < events {
        assert!(Instant::now() < deadline, "the webhook never got every event");
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = agent.terminate();
    assert!(status.success(), "{status}");

    let posts = received.lock().expect("posts").clone();
    let spans = collector.trace(TRACE_ID);
    let deliveries: Vec<&Span> = spans.iter().filter(|s| s.name == "push.deliver").collect();
    assert_eq!(deliveries.len(), posts.len(), "{spans:#?}");
    for headers in &posts {
        let traceparent = headers.get("traceparent").expect("a traceparent header");
        let fields: Vec<&str> = traceparent.split('-').collect();
        assert_eq!(fields.len(), 4, "{traceparent}");
        assert_eq!(fields[1], TRACE_ID);
        // The receiver's parent is the agent's delivery span, a child of the
        // request's trace.
        let delivery = deliveries
            .iter()
            .find(|d| d.span_id == fields[2])
            .unwrap_or_else(|| panic!("no delivery span {} in {spans:#?}", fields[2]));
        assert_eq!(delivery.attributes["task_id"], task_id);
    }
}

#[test]
fn a_sync_call_carries_the_trace_of_its_request_to_the_remote() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let otlp = [("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint.as_str())];
    let mut remote = ServerAgent::start_logged(&["--memory"], &otlp, &dir.path().join("remote.log"));
    let config = dir.path().join("local.json");
    std::fs::write(
        &config,
        json!({"sync_remotes": {"default": remote.endpoint}}).to_string(),
    )
    .expect("config");
    let mut local = ServerAgent::start_logged(
        &["--memory", "--config", config.to_str().expect("utf-8")],
        &otlp,
        &dir.path().join("local.log"),
    );
    let reply = post(
        &local.addr(),
        &[("traceparent", TRACEPARENT.as_bytes())],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "_cleveragents/sync/status", "params": {}}),
    );
    let answer = reply.messages().pop().expect("one answer");
    assert!(answer.get("result").is_some(), "{answer}");
    assert!(local.terminate().success());
    assert!(remote.terminate().success());

    let spans = collector.trace(TRACE_ID);
    // The remote's own handlers are in the trace too: ours is the sync's.
    let handlers: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "handler" && s.attributes["method"] == "_cleveragents/sync/status")
        .collect();
    assert_eq!(handlers.len(), 1, "{spans:#?}");
    let handler = handlers[0];
    let requests: Vec<&Span> = spans.iter().filter(|s| s.name == "http.request").collect();
    let (ours, theirs): (Vec<&Span>, Vec<&Span>) =
        requests.into_iter().partition(|s| s.parent == CALLER_SPAN);
    assert_eq!(ours.len(), 1, "{spans:#?}");
    // Every call the sync made to the remote is a request of the same trace,
    // a child of the local handler's span.
    assert!(
        !theirs.is_empty(),
        "the remote's requests are in the trace: {spans:#?}"
    );
    for request in theirs {
        assert_eq!(request.parent, handler.span_id, "{spans:#?}");
    }
    let remote_dispatches = spans
        .iter()
        .filter(|s| s.name == "dispatch" && s.attributes["method"] != "_cleveragents/sync/status")
        .count();
    assert!(remote_dispatches >= 1, "{spans:#?}");
}

#[test]
fn an_api_key_in_the_query_string_is_in_no_span() {
    const KEY: &str = "traces-query-key-81c4";
    let collector = Collector::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("agent.json");
    std::fs::write(
        &config,
        json!({"server": {"auth": {
            "api_key_location": "query",
            "api_key_name": "api_key",
            "api_keys": [{"secret": KEY, "subject": "traced-key-holder"}],
            "principals": [{"subject": "traced-key-holder", "namespaces": {"default": "writer"}}],
        }}})
        .to_string(),
    )
    .expect("config");
    let log = dir.path().join("agent.log");
    let mut agent = ServerAgent::start_logged(
        &["--memory", "--config", config.to_str().expect("utf-8")],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)],
        &log,
    );
    let reply = common::http::post_to(
        &agent.addr(),
        &format!("/?api_key={KEY}"),
        &[("traceparent", TRACEPARENT.as_bytes())],
        &send_message(
            json!({"message": {"messageId": "traced-key", "role": "ROLE_USER", "parts": [{"text": "hello"}]}}),
        ),
    );
    let answer = reply.messages().pop().expect("one answer");
    assert_eq!(
        answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answer}"
    );
    let refused = common::http::post_to(
        &agent.addr(),
        &format!("/?api_key={KEY}x"),
        &[],
        &send_message(json!({"message": {"messageId": "untraced", "role": "ROLE_USER", "parts": []}})),
    );
    assert_eq!(refused.status, 401);
    let status = agent.terminate();
    assert!(
        status.success(),
        "{status}: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );

    let spans = collector.trace(TRACE_ID);
    assert_chain(&spans, "http.request");
    assert_eq!(one(&spans, "http.request").attributes["url.path"], "/");
    let every = collector.spans.lock().expect("spans").clone();
    for span in &every {
        let text = format!("{} {:?}", span.name, span.attributes);
        assert!(!text.contains(KEY), "the key is in a span: {span:#?}");
    }
}
