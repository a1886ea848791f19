//! End-to-end tests of the client transports and the `agents` CLI against live
//! agents: the server crate's stdio and HTTP transports over an in-test,
//! example-driven dispatcher (this test executable re-runs itself as the
//! stdio agent), plus a scripted loopback HTTP peer for retry and resume.
//!
//! A custom harness (`harness = false`) because the executable must also be
//! able to act as the agent process; every test still runs and is reported.

use a2a::rpc::{BoxFuture, CallContext, CallError, Dispatch, Error, Event, Outcome};
use a2a::{Contract, ErrorKind};
use client::cli::render;
use client::{Client, Credentials, HttpConfig, HttpTransport, StdioConfig, StdioTransport};
use futures_util::StreamExt;
use serde_json::{json, Value};
use server::{CredentialConfig, PrincipalConfig, Secret, ServerConfig};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// Set in the environment of a child that must act as the stdio agent.
const AGENT_ENV: &str = "CLIENT_E2E_AGENT";
const TOKEN: &str = "e2e-secret";

fn main() {
    if std::env::var_os(AGENT_ENV).is_some() {
        run_stdio_agent();
        return;
    }
    let tests: &[(&str, fn())] = &[
        (
            "stdio_client_calls_streams_and_shuts_down",
            stdio_client_calls_streams_and_shuts_down,
        ),
        (
            "http_client_typed_calls_and_negotiation",
            http_client_typed_calls_and_negotiation,
        ),
        ("http_retries_reads_only", http_retries_reads_only),
        (
            "http_stream_resumes_from_last_seq",
            http_stream_resumes_from_last_seq,
        ),
        (
            "cli_every_command_json_over_stdio",
            cli_every_command_json_over_stdio,
        ),
        (
            "cli_every_command_json_over_http",
            cli_every_command_json_over_http,
        ),
        ("cli_text_output_and_follow", cli_text_output_and_follow),
        ("cli_error_exit_codes", cli_error_exit_codes),
        ("cli_card_and_completions", cli_card_and_completions),
    ];
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        println!("test {name} ...");
        match std::panic::catch_unwind(test) {
            Ok(()) => println!("test {name} ... ok"),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed.push(*name);
            }
        }
    }
    println!("\ne2e: {} passed; {} failed", ran - failed.len(), failed.len());
    if !failed.is_empty() {
        println!("failures: {failed:?}");
        std::process::exit(1);
    }
}

// ---------------------------------------------------------------------------
// The in-test agent
// ---------------------------------------------------------------------------

struct Example {
    params: Value,
    result: Option<Value>,
    events: Option<Vec<Value>>,
}

fn examples() -> &'static HashMap<String, Example> {
    static EXAMPLES: OnceLock<HashMap<String, Example>> = OnceLock::new();
    EXAMPLES.get_or_init(|| {
        let mut out = HashMap::new();
        for text in [
            include_str!("../../schema/a2a.json"),
            include_str!("../../schema/cleveragents-ext.json"),
        ] {
            let schema: Value = serde_json::from_str(text).expect("schema JSON");
            for (name, method) in schema["x-methods"].as_object().expect("x-methods") {
                let example = &method["examples"][0];
                out.insert(
                    name.clone(),
                    Example {
                        params: example["params"].clone(),
                        result: example.get("result").cloned(),
                        events: example.get("events").and_then(Value::as_array).cloned(),
                    },
                );
            }
        }
        out
    })
}

/// Validates like the router, then answers each method with its schema
/// example. Ids `missing` are not found; plan `done` is in a terminal state.
struct ExampleAgent;

impl Dispatch for ExampleAgent {
    fn dispatch<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Option<Value>,
    ) -> BoxFuture<'a, Outcome> {
        Box::pin(async move {
            let descriptor = match a2a::rpc::resolve(method, &ctx) {
                Ok(d) => d,
                Err(e) => return Outcome::Single(Err(e)),
            };
            let params = params.unwrap_or_else(|| json!({}));
            if let Err(reason) = (descriptor.roundtrip_params)(params.clone()) {
                return Outcome::Single(Err(Error::new(descriptor.contract.invalid_params(), reason)));
            }
            let id = params
                .get("id")
                .or_else(|| params.get("planId"))
                .and_then(Value::as_str);
            if id == Some("missing") {
                let kind = match descriptor.contract {
                    Contract::A2a => ErrorKind::TaskNotFound,
                    _ => ErrorKind::ExtNotFound,
                };
                return Outcome::Single(Err(Error::new(kind, "No such thing as `missing`\nhere")));
            }
            if id == Some("done") {
                return Outcome::Single(Err(Error::new(
                    ErrorKind::ExtInvalidState,
                    "Plan `done` already ended",
                )));
            }
            let example = &examples()[method];
            match &example.events {
                Some(events) if descriptor.streaming => {
                    let items: Vec<Result<Event<Value>, Error>> = events
                        .iter()
                        .enumerate()
                        .map(|(i, e)| Ok(Event::with_seq(i as u64 + 1, e.clone())))
                        .collect();
                    Outcome::Stream(Box::pin(futures_util::stream::iter(items)))
                }
                _ => Outcome::Single(Ok(example.result.clone().unwrap_or(Value::Null))),
            }
        })
    }
}

fn agent_config() -> ServerConfig {
    let mut config = ServerConfig::default();
    config.http.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    config.agent.capabilities.push_notifications = true;
    config.agent.capabilities.extended_agent_card = Some(true);
    config.auth.bearer_tokens = vec![CredentialConfig {
        secret: Secret::new(TOKEN),
        subject: "tester".into(),
    }];
    config.auth.principals = vec![PrincipalConfig {
        subject: "tester".into(),
        namespaces: BTreeMap::from([("*".to_string(), a2a::rpc::Access::Admin)]),
        default_namespace: None,
    }];
    config
}

fn run_stdio_agent() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let result = runtime.block_on(server::serve_stdio(
        &agent_config(),
        Arc::new(ExampleAgent),
        tokio::io::stdin(),
        tokio::io::stdout(),
    ));
    std::process::exit(i32::from(result.is_err()));
}

/// The HTTP agent, started once and shared by the tests.
fn http_agent() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let server = server::HttpServer::bind(agent_config(), Arc::new(ExampleAgent))
                    .await
                    .expect("bind");
                tx.send(server.local_addr().expect("addr")).expect("send addr");
                let _ = server.serve(std::future::pending()).await;
            });
        });
        rx.recv().expect("server address")
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

fn stdio_config() -> StdioConfig {
    let mut config = StdioConfig::new(std::env::current_exe().expect("test executable"));
    config.args = vec!["--stdio".into()];
    config
}

// ---------------------------------------------------------------------------
// Library: transports
// ---------------------------------------------------------------------------

fn typed<T: serde::de::DeserializeOwned>(value: &Value) -> T {
    serde_json::from_value(value.clone()).expect("example decodes")
}

fn stdio_client_calls_streams_and_shuts_down() {
    std::env::set_var(AGENT_ENV, "1");
    runtime().block_on(async {
        let transport = StdioTransport::spawn(stdio_config()).await.expect("spawn");
        assert_eq!(transport.session()["protocolVersion"], json!("1.0"));
        assert_eq!(
            transport.session()["extensions"][0]["uri"],
            json!("urn:cleveragents:extensions:v1")
        );
        let client = Client::new(transport);
        let ex = examples();
        // Concurrent calls over one pipe, matched by id.
        let (task, page, plan) = tokio::join!(
            client.get_task(typed(&ex["GetTask"].params)),
            client.list_tasks(typed(&ex["ListTasks"].params)),
            client.plan_status(typed(&ex["_cleveragents/plan/status"].params)),
        );
        assert_eq!(
            serde_json::to_value(task.expect("task")).ok(),
            ex["GetTask"].result
        );
        assert_eq!(
            serde_json::to_value(page.expect("page")).ok(),
            ex["ListTasks"].result
        );
        assert_eq!(
            serde_json::to_value(plan.expect("plan")).ok(),
            ex["_cleveragents/plan/status"].result
        );
        // A stream: every event in order with its sequence number.
        let events: Vec<_> = client
            .subscribe_to_task(typed(&ex["SubscribeToTask"].params))
            .await
            .expect("subscribe")
            .collect()
            .await;
        let seqs: Vec<Option<u64>> = events
            .iter()
            .map(|e| e.as_ref().ok().and_then(|e| e.seq))
            .collect();
        assert_eq!(seqs, [Some(1), Some(2), Some(3)]);
        let data: Vec<Value> = events
            .into_iter()
            .map(|e| serde_json::to_value(e.expect("event").data).expect("encode"))
            .collect();
        assert_eq!(Some(data), ex["SubscribeToTask"].events);
        // A typed error, matched on (domain, reason).
        let missing = client.get_task(typed(&json!({"id": "missing"}))).await;
        match missing {
            Err(CallError::Rpc(e)) => assert_eq!(e.kind(), Some(ErrorKind::TaskNotFound)),
            other => panic!("expected TaskNotFound, got {other:?}"),
        }
        // Clean shutdown: EOF on stdin, the agent exits on its own with 0.
        let status = client.transport().shutdown().await.expect("shutdown");
        assert_eq!(status.code(), Some(0));
        assert!(matches!(
            client.get_task(typed(&ex["GetTask"].params)).await,
            Err(CallError::Transport(_))
        ));
    });
}

fn http_client(extension_version: Option<&str>, token: Option<&str>) -> Client<HttpTransport> {
    let mut config = HttpConfig::new(format!("http://{}/", http_agent()));
    config.extension_version = extension_version.map(str::to_string);
    config.credentials = token.map_or(Credentials::None, |t| Credentials::Bearer(t.into()));
    Client::new(HttpTransport::new(config).expect("transport"))
}

fn http_client_typed_calls_and_negotiation() {
    runtime().block_on(async {
        let ex = examples();
        let client = http_client(None, Some(TOKEN));
        let task = client.get_task(typed(&ex["GetTask"].params)).await.expect("task");
        assert_eq!(serde_json::to_value(task).ok(), ex["GetTask"].result);
        let plans = client
            .plan_list(typed(&ex["_cleveragents/plan/list"].params))
            .await
            .expect("plans");
        assert_eq!(
            serde_json::to_value(plans).ok(),
            ex["_cleveragents/plan/list"].result
        );
        let events: Vec<Value> = client
            .send_streaming_message(typed(&ex["SendStreamingMessage"].params))
            .await
            .expect("stream")
            .map(|e| serde_json::to_value(e.expect("event").data).expect("encode"))
            .collect()
            .await;
        assert_eq!(Some(events), ex["SendStreamingMessage"].events);
        // Extension 1.0 does not have plan/list (since 1.1).
        let old = http_client(Some("1.0"), Some(TOKEN));
        match old.plan_list(typed(&ex["_cleveragents/plan/list"].params)).await {
            Err(CallError::Rpc(e)) => assert_eq!(e.kind(), Some(ErrorKind::ExtMethodNotFound)),
            other => panic!("expected method-not-found, got {other:?}"),
        }
        // No credentials: 401 surfaces as the typed auth error.
        let anonymous = http_client(None, None);
        match anonymous.get_task(typed(&ex["GetTask"].params)).await {
            Err(CallError::Rpc(e)) => assert_eq!(e.kind(), Some(ErrorKind::ExtAuthRequired)),
            other => panic!("expected auth error, got {other:?}"),
        }
        let card = client::AnyTransport::Http(
            HttpTransport::new(HttpConfig::new(format!("http://{}/", http_agent()))).expect("t"),
        )
        .agent_card()
        .await
        .expect("card");
        assert_eq!(card["name"], json!("CleverAgents"));
    });
}

// ---------------------------------------------------------------------------
// Library: retries and resume against a scripted loopback peer
// ---------------------------------------------------------------------------

/// What the scripted peer saw: (method, Last-Event-ID).
type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

async fn read_request(stream: &mut BufReader<tokio::net::TcpStream>) -> Option<(Option<String>, Value)> {
    let mut length = 0usize;
    let mut last_event_id = None;
    for _ in 0..100 {
        let mut line = String::new();
        if stream.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().ok()?,
                "last-event-id" => last_event_id = Some(value.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.ok()?;
    Some((last_event_id, serde_json::from_slice(&body).ok()?))
}

fn sse_chunk(id: &Value, seq: usize, event: &Value) -> String {
    let data = json!({"jsonrpc": "2.0", "id": id, "result": event});
    let frame = format!("id: {seq}\ndata: {data}\n\n");
    format!("{:x}\r\n{frame}\r\n", frame.len())
}

/// GetTask fails once with 503, CancelTask always does, SubscribeToTask breaks
/// after its first event and, resumed, replays event 1 then sends 2 and 3.
async fn scripted_peer(seen: Seen) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut stream = BufReader::new(socket);
                let Some((last_event_id, request)) = read_request(&mut stream).await else {
                    return;
                };
                let method = request["method"].as_str().unwrap_or_default().to_string();
                let count = {
                    let mut seen = seen.lock().expect("lock");
                    seen.push((method.clone(), last_event_id));
                    seen.iter().filter(|(m, _)| *m == method).count()
                };
                let ex = examples();
                let unavailable =
                    "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                        .to_string();
                let reply = match (method.as_str(), count) {
                    ("GetTask", 1) | ("CancelTask", _) => unavailable,
                    ("GetTask", _) => {
                        let body =
                            json!({"jsonrpc": "2.0", "id": request["id"], "result": ex["GetTask"].result})
                                .to_string();
                        format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len())
                    }
                    ("SubscribeToTask", n) => {
                        let events = ex["SubscribeToTask"].events.clone().unwrap_or_default();
                        let mut out = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n".to_string();
                        if n == 1 {
                            // One event, then the connection dies mid-stream.
                            out.push_str(&sse_chunk(&request["id"], 1, &events[0]));
                        } else {
                            for (i, event) in events.iter().enumerate() {
                                out.push_str(&sse_chunk(&request["id"], i + 1, event));
                            }
                            out.push_str("0\r\n\r\n");
                        }
                        out
                    }
                    _ => unavailable,
                };
                let _ = stream.get_mut().write_all(reply.as_bytes()).await;
                let _ = stream.get_mut().flush().await;
            });
        }
    });
    addr
}

fn scripted_client(addr: SocketAddr) -> Client<HttpTransport> {
    let mut config = HttpConfig::new(format!("http://{addr}/"));
    config.backoff = Duration::from_millis(1);
    Client::new(HttpTransport::new(config).expect("transport"))
}

fn http_retries_reads_only() {
    runtime().block_on(async {
        let seen: Seen = Arc::default();
        let client = scripted_client(scripted_peer(seen.clone()).await);
        let ex = examples();
        let task = client
            .get_task(typed(&ex["GetTask"].params))
            .await
            .expect("retried read");
        assert_eq!(serde_json::to_value(task).ok(), ex["GetTask"].result);
        match client.cancel_task(typed(&json!({"id": "t"}))).await {
            Err(CallError::Transport(message)) => assert_eq!(message, "HTTP 503 Service Unavailable"),
            other => panic!("expected a transport error, got {other:?}"),
        }
        let methods: Vec<String> = seen
            .lock()
            .expect("lock")
            .iter()
            .map(|(m, _)| m.clone())
            .collect();
        // The read was sent twice; the write exactly once.
        assert_eq!(methods, ["GetTask", "GetTask", "CancelTask"]);
    });
}

fn http_stream_resumes_from_last_seq() {
    runtime().block_on(async {
        let seen: Seen = Arc::default();
        let client = scripted_client(scripted_peer(seen.clone()).await);
        let ex = examples();
        let events: Vec<Event<Value>> = client
            .transport()
            .subscribe_raw("SubscribeToTask", ex["SubscribeToTask"].params.clone())
            .await;
        let seqs: Vec<Option<u64>> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [Some(1), Some(2), Some(3)]);
        let data: Vec<Value> = events.into_iter().map(|e| e.data).collect();
        assert_eq!(Some(data), ex["SubscribeToTask"].events);
        let log = seen.lock().expect("lock").clone();
        assert_eq!(
            log,
            [
                ("SubscribeToTask".to_string(), None),
                ("SubscribeToTask".to_string(), Some("1".to_string()))
            ]
        );
    });
}

trait SubscribeRaw {
    async fn subscribe_raw(&self, method: &'static str, params: Value) -> Vec<Event<Value>>;
}

impl SubscribeRaw for HttpTransport {
    async fn subscribe_raw(&self, method: &'static str, params: Value) -> Vec<Event<Value>> {
        use a2a::rpc::Transport;
        let stream = self.subscribe(method, params).await.expect("subscribe");
        stream.map(|e| e.expect("event")).take(10).collect().await
    }
}

// ---------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn agents(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_agents"))
        .args(args)
        .env(AGENT_ENV, "1")
        .env(
            "CLEVERAGENTS_AGENT",
            std::env::current_exe().expect("test executable"),
        )
        .env_remove("CLEVERAGENTS_SERVER")
        .env_remove("CLEVERAGENTS_TOKEN")
        .env_remove("CLEVERAGENTS_API_KEY")
        .output()
        .expect("run agents");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn server_args() -> Vec<String> {
    vec![
        "--server".into(),
        format!("http://{}/", http_agent()),
        "--token".into(),
        TOKEN.into(),
    ]
}

fn validator(type_name: &str) -> jsonschema::Validator {
    jsonschema::validator_for(&client::schema::standalone(type_name)).expect("schema compiles")
}

fn assert_valid(type_name: &str, value: &Value) {
    let validator = validator(type_name);
    let errors: Vec<String> = validator.iter_errors(value).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{type_name}: {errors:?}");
}

/// Runs every method's command with its schema example as `--params` and
/// checks the `--json` output: valid against the result schema and equal to the
/// example answer.
fn every_command_json(mode: &[String]) {
    let mut count = 0;
    for method in a2a::METHODS {
        let Some(path) = client::cli::tree::command_path(method) else {
            continue;
        };
        let example = &examples()[method.name];
        let params = example.params.to_string();
        let mut args: Vec<&str> = mode.iter().map(String::as_str).collect();
        args.push("--json");
        args.extend(path.iter().map(String::as_str));
        args.extend(["--params", params.as_str()]);
        let run = agents(&args);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", method.name);
        let lines: Vec<Value> = run
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON line"))
            .collect();
        for line in &lines {
            assert_valid(method.result_type, line);
        }
        if method.streaming {
            assert_eq!(Some(lines), example.events, "{}", method.name);
        } else {
            // The server answers GetExtendedAgentCard itself, with its own card.
            if method.name != "GetExtendedAgentCard" {
                assert_eq!(
                    lines,
                    [example.result.clone().unwrap_or(Value::Null)],
                    "{}",
                    method.name
                );
            }
        }
        count += 1;
    }
    assert_eq!(count, a2a::METHODS.iter().filter(|m| m.is_dispatched()).count());
}

fn cli_every_command_json_over_stdio() {
    every_command_json(&[]);
}

fn cli_every_command_json_over_http() {
    every_command_json(&server_args());
}

fn cli_text_output_and_follow() {
    let ex = examples();
    // plan execute --follow: the result, then the task's events in order.
    let run = agents(&[
        "plan",
        "execute",
        "5b0e8c1e-3a41-4f0a-9d2c-7a1e2f4b9c10",
        "--namespace",
        "acme",
        "--follow",
    ]);
    let execution = ex["_cleveragents/plan/execute"]
        .result
        .clone()
        .unwrap_or_default();
    let expected = format!(
        "{}{}",
        render::result_text(&execution),
        "#1 task 8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b working\n\
         #2 artifact q3-summary: - Revenue grew 12% quarter over quarter. - EMEA overtook North America as the largest region. - Hardware margins fell 3 points on component costs.\n\
         #3 status completed\n"
    );
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, expected.as_str(), "")
    );
    assert!(run
        .stdout
        .starts_with("plan:\n  id: 5b0e8c1e-3a41-4f0a-9d2c-7a1e2f4b9c10\n"));

    // The same over HTTP, with --json: the result line, then one line per event.
    let mut args = server_args();
    args.extend(["--json", "plan", "execute", "p", "--follow"].map(String::from));
    let run = agents(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let mut expected = vec![execution];
    expected.extend(ex["SubscribeToTask"].events.clone().unwrap_or_default());
    assert_eq!((run.code, lines), (0, expected));

    // A page of tasks as a table.
    let run = agents(&["tasks", "list"]);
    let (id, ctx) = (
        "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b",
        "c3f1a2b4-7d5e-4c1a-9b8e-2f6d0a1e5c77",
    );
    let expected = format!(
        "{:<36}  {:<36}  {:<12}  STATUS.TIMESTAMP\n{id}  {ctx}  COMPLETED     2025-11-03T09:14:27.512Z\npageSize: 10\ntotalSize: 1\n",
        "ID", "CONTEXTID", "STATUS.STATE"
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, expected.as_str()));

    // `send "text"` builds the message from its words.
    let run = agents(&["--json", "send", "Summarize", "the", "report"]);
    let answer: Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
    assert_eq!((run.code, Some(answer)), (0, ex["SendMessage"].result.clone()));

    // `registry actions add -f action.json` with just the action spec in the file.
    let spec = ex["_cleveragents/registry/actions/add"].params["action"].clone();
    let path = std::env::temp_dir().join(format!("agents-e2e-action-{}.json", std::process::id()));
    std::fs::write(&path, spec.to_string()).expect("write spec");
    let path_text = path.to_string_lossy().into_owned();
    let run = agents(&[
        "--json",
        "registry",
        "actions",
        "add",
        "-f",
        &path_text,
        "--namespace",
        "acme",
    ]);
    let _ = std::fs::remove_file(&path);
    let answer: Value = serde_json::from_str(run.stdout.trim()).unwrap_or(Value::Null);
    assert_eq!(
        (run.code, run.stderr.as_str(), Some(answer)),
        (0, "", ex["_cleveragents/registry/actions/add"].result.clone())
    );
}

fn cli_error_exit_codes() {
    let cases: Vec<(Vec<String>, i32, String)> = vec![
        (
            vec!["tasks".into(), "get".into(), "missing".into()],
            4,
            "error: No such thing as `missing` here (TASK_NOT_FOUND)\n".into(),
        ),
        (
            vec!["plan".into(), "status".into(), "missing".into()],
            4,
            "error: No such thing as `missing` here (NOT_FOUND)\n".into(),
        ),
        (
            vec!["plan".into(), "cancel".into(), "done".into()],
            7,
            "error: Plan `done` already ended (INVALID_STATE)\n".into(),
        ),
        (
            vec!["plan".into(), "status".into()],
            2,
            "error: missing required <PLAN_ID> for _cleveragents/plan/status\n".into(),
        ),
        (
            vec!["tasks".into(), "list".into(), "--params".into(), "{".into()],
            2,
            "error: --params is not valid JSON: EOF while parsing an object at line 1 column 1\n".into(),
        ),
        (
            vec!["--agent".into(), "/nonexistent/agent".into(), "health".into(), "check".into()],
            3,
            "error: cannot reach the agent: cannot start agent `/nonexistent/agent`: No such file or directory (os error 2)\n".into(),
        ),
    ];
    for (args, code, stderr) in cases {
        let run = agents(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(
            (run.code, run.stderr.as_str(), run.stdout.as_str()),
            (code, stderr.as_str(), ""),
            "{args:?}"
        );
    }
    // plan/list arrived in 1.1: a 1.0 session does not have it.
    let run = agents(&["--extension-version", "1.0", "plan", "list"]);
    assert_eq!(run.code, 8);
    assert!(
        run.stderr.starts_with("error: ") && run.stderr.ends_with("(METHOD_NOT_FOUND)\n"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1);
    // An unsupported minor version is refused at initialize.
    let run = agents(&["--extension-version", "1.9", "health", "check"]);
    assert_eq!(run.code, 8);
    assert!(run.stderr.ends_with("(VERSION_MISMATCH)\n"), "{}", run.stderr);
    // Unknown command: clap's usage error.
    assert_eq!(agents(&["bogus"]).code, 2);
    // Server mode: no token, wrong token, nobody listening.
    let url = format!("http://{}/", http_agent());
    let run = agents(&["--server", &url, "health", "check"]);
    assert_eq!(run.code, 5);
    assert!(run.stderr.ends_with("(AUTH_REQUIRED)\n"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1);
    let run = agents(&["--server", &url, "--token", "wrong", "health", "check"]);
    assert_eq!(run.code, 5);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed_url = format!("http://{}/", closed.local_addr().expect("addr"));
    drop(closed);
    let run = agents(&["--server", &closed_url, "--retries", "0", "health", "check"]);
    assert_eq!(run.code, 3);
    assert!(
        run.stderr.starts_with("error: cannot reach the agent: "),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1);
}

fn cli_card_and_completions() {
    let run = agents(&["--json", "card"]);
    let card: Value = serde_json::from_str(run.stdout.trim()).expect("card JSON");
    assert_eq!((run.code, &card["name"]), (0, &json!("CleverAgents")));
    assert_valid("AgentCard", &card);
    let mut args = server_args();
    args.extend(["--json".into(), "card".into()]);
    let run = agents(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let card: Value = serde_json::from_str(run.stdout.trim()).expect("card JSON");
    assert_eq!((run.code, &card["name"]), (0, &json!("CleverAgents")));
    assert_valid("AgentCard", &card);
    for shell in ["bash", "zsh", "fish"] {
        let run = agents(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}");
        assert!(run.stdout.contains("registry"), "{shell}");
    }
    let run = agents(&["--help"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("Exit codes:\n   0  success\n"));
}
