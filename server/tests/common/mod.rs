//! Test support shared by the transport tests: an in-test handler, an
//! example-driven dispatcher built from the schemas' method examples, a raw
//! HTTP/1.1 client over loopback sockets, and a stdio client over an in-memory
//! pipe.
#![allow(dead_code)]

use a2a::handlers::*;
use a2a::rpc::{BoxFuture, CallContext, Dispatch, Error, Event, EventStream, Outcome, Params, Reply};
use a2a::types::*;
use a2a::{ErrorKind, Router};
use serde_json::{json, Value};
use server::ServerConfig;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::net::TcpStream;
use tokio::sync::{oneshot, Notify};

// ---------------------------------------------------------------------------
// Schema examples
// ---------------------------------------------------------------------------

/// The first example of each method: (params, result, events).
pub struct Example {
    pub params: Value,
    pub result: Option<Value>,
    pub events: Option<Vec<Value>>,
}

pub fn examples() -> HashMap<String, Example> {
    let mut out = HashMap::new();
    for file in ["a2a.json", "cleveragents-ext.json"] {
        let path = format!("{}/../schema/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("schema file");
        let schema: Value = serde_json::from_str(&text).expect("schema JSON");
        for (name, method) in schema["x-methods"].as_object().expect("x-methods") {
            let Some(example) = method["examples"].get(0) else {
                continue;
            };
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
}

pub fn example_result(method: &str) -> Value {
    examples()
        .remove(method)
        .and_then(|e| e.result)
        .expect("example result")
}

/// A dispatcher that validates like the router and answers the schema's example.
pub struct ExampleDispatch {
    examples: HashMap<String, Example>,
}

impl ExampleDispatch {
    pub fn new() -> Arc<Self> {
        Arc::new(ExampleDispatch { examples: examples() })
    }
}

impl Dispatch for ExampleDispatch {
    fn dispatch_params<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Params,
    ) -> BoxFuture<'a, Outcome> {
        // The params as a value, as this dispatcher reads them.
        let params = params.into_json().ok().flatten();
        Box::pin(async move {
            let descriptor = match a2a::rpc::resolve(method, &ctx) {
                Ok(d) => d,
                Err(e) => return Outcome::Single(Err(e)),
            };
            if let Err(reason) = (descriptor.roundtrip_params)(params.unwrap_or_else(|| json!({}))) {
                return Outcome::Single(Err(Error::new(descriptor.contract.invalid_params(), reason)));
            }
            let Some(example) = self.examples.get(method) else {
                return Outcome::Single(Err(Error::unimplemented(descriptor)));
            };
            if descriptor.streaming {
                let events: Vec<Result<Event<Value>, Error>> = example
                    .events
                    .clone()
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                    .map(|(i, e)| Ok(Event::with_seq(i as u64 + 1, e)))
                    .collect();
                Outcome::from_values(Box::pin(futures_util::stream::iter(events)))
            } else {
                Outcome::from_value(Ok(example.result.clone().unwrap_or(Value::Null)))
            }
        })
    }
}

// ---------------------------------------------------------------------------
// In-test handler
// ---------------------------------------------------------------------------

/// Signals the handler gives the tests.
#[derive(Default)]
pub struct Probe {
    /// Notified when a "forever" subscription's stream is dropped.
    pub stream_dropped: Notify,
    /// Released to let a "slow" GetTask answer.
    pub gate: Notify,
}

pub struct TestHandler {
    pub probe: Arc<Probe>,
}

struct DropSignal(Arc<Probe>);
impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.stream_dropped.notify_one();
    }
}

/// A task whose metadata reports the namespace the call acts in (as the
/// router resolved it) and the caller.
fn task(id: &str, tenant: Option<&str>, principal: Option<&str>) -> Task {
    serde_json::from_value(json!({
        "id": id,
        "contextId": "ctx-1",
        "status": {"state": "TASK_STATE_WORKING"},
        "metadata": {"tenant": tenant, "principal": principal}
    }))
    .expect("task")
}

fn status_event(n: u64) -> StreamResponse {
    serde_json::from_value(json!({"statusUpdate": {
        "taskId": "t-1", "contextId": "ctx-1",
        "status": {"state": "TASK_STATE_WORKING"},
        "metadata": {"n": n}
    }}))
    .expect("event")
}

impl MessagingHandler for TestHandler {
    async fn get_task(&self, ctx: &CallContext, params: GetTaskRequest) -> Result<Reply<Task>, Error> {
        let task = match params.id.as_str() {
            "missing" => Err(Error::from_kind(ErrorKind::TaskNotFound)),
            "slow" => {
                self.probe.gate.notified().await;
                Ok(task("slow", params.tenant.as_deref(), None))
            }
            "release" => {
                self.probe.gate.notify_one();
                Ok(task("release", params.tenant.as_deref(), None))
            }
            id => Ok(task(
                id,
                ctx.namespace.as_deref(),
                ctx.principal.as_ref().map(|p| p.subject.as_str()),
            )),
        };
        task.map(Reply::Value)
    }

    async fn send_message(
        &self,
        ctx: &CallContext,
        _params: SendMessageRequest,
    ) -> Result<SendMessageResponse, Error> {
        Ok(SendMessageResponse::Task(task(
            "t-1",
            ctx.namespace.as_deref(),
            None,
        )))
    }

    async fn send_streaming_message(
        &self,
        _ctx: &CallContext,
        _params: SendMessageRequest,
    ) -> Result<EventStream<StreamResponse>, Error> {
        let events: Vec<Result<Event<StreamResponse>, Error>> = (10..13)
            .map(|n| Ok(Event::with_seq(n, status_event(n))))
            .collect();
        Ok(Box::pin(futures_util::stream::iter(events)))
    }

    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        params: SubscribeToTaskRequest,
    ) -> Result<EventStream<StreamResponse>, Error> {
        match params.id.as_str() {
            "forever" => {
                let guard = DropSignal(self.probe.clone());
                let first = futures_util::stream::iter(vec![Ok(Event::with_seq(1, status_event(1)))]);
                let rest = futures_util::stream::unfold(guard, |guard| async move {
                    std::future::pending::<()>().await;
                    Some((Ok(Event::new(status_event(0))), guard))
                });
                Ok(Box::pin(futures_util::StreamExt::chain(first, rest)))
            }
            "resume" => {
                let from = ctx.resume_after.unwrap_or(0);
                let events: Vec<Result<Event<StreamResponse>, Error>> = (from + 1..from + 3)
                    .map(|n| Ok(Event::with_seq(n, status_event(n))))
                    .collect();
                Ok(Box::pin(futures_util::stream::iter(events)))
            }
            "failing" => {
                let events: Vec<Result<Event<StreamResponse>, Error>> = vec![
                    Ok(Event::new(status_event(1))),
                    Err(Error::from_kind(ErrorKind::InternalError)),
                ];
                Ok(Box::pin(futures_util::stream::iter(events)))
            }
            _ => Err(Error::from_kind(ErrorKind::TaskNotFound)),
        }
    }
}

impl PushConfigHandler for TestHandler {}
impl AgentCardHandler for TestHandler {}
impl PlanHandler for TestHandler {
    async fn plan_list(&self, _ctx: &CallContext, _params: PlanListParams) -> Result<PlanList, Error> {
        serde_json::from_value(example_result("_cleveragents/plan/list"))
            .map_err(|e| Error::new(ErrorKind::ExtInternalError, e.to_string()))
    }
}
impl RegistryHandler for TestHandler {
    async fn registry_actors_list(
        &self,
        _ctx: &CallContext,
        _params: RegistryListParams,
    ) -> Result<ActorList, Error> {
        serde_json::from_value(example_result("_cleveragents/registry/actors/list"))
            .map_err(|e| Error::new(ErrorKind::ExtInternalError, e.to_string()))
    }
}
impl ContextHandler for TestHandler {}
impl SyncHandler for TestHandler {}
impl NamespaceHandler for TestHandler {}
impl HealthHandler for TestHandler {}
impl SessionHandler for TestHandler {}
impl EventsHandler for TestHandler {}

pub fn test_router() -> (Arc<dyn Dispatch>, Arc<Probe>) {
    let probe = Arc::new(Probe::default());
    let router = Router::new(Arc::new(TestHandler { probe: probe.clone() }));
    (Arc::new(router), probe)
}

// ---------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------

pub struct RunningServer {
    pub addr: SocketAddr,
    /// The address for A2A 0.3 clients, when the config names one.
    pub v0_3_addr: Option<SocketAddr>,
    stop: Option<oneshot::Sender<()>>,
    pub done: Option<tokio::task::JoinHandle<Result<(), server::ServerError>>>,
}

impl RunningServer {
    /// Stops the server and waits for `serve` to return.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(done) = self.done.take() {
            done.await.expect("join").expect("serve");
        }
    }
    pub fn trigger_stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

pub fn loopback_config() -> ServerConfig {
    let mut config = ServerConfig::default();
    config.http.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    config
}

pub async fn start_http(config: ServerConfig, dispatch: Arc<dyn Dispatch>) -> RunningServer {
    let server = server::HttpServer::bind(config, dispatch).await.expect("bind");
    let addr = server.local_addr().expect("addr");
    let v0_3_addr = server.v0_3_local_addr().expect("0.3 addr");
    let (stop, stopped) = oneshot::channel::<()>();
    let done = tokio::spawn(server.serve(async move {
        let _ = stopped.await;
    }));
    RunningServer {
        addr,
        v0_3_addr,
        stop: Some(stop),
        done: Some(done),
    }
}

/// An HTTP response read off the socket.
#[derive(Debug)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    /// Every value of header `name`, in order.
    pub fn header_values(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {:?}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// A response whose body is read incrementally (SSE).
pub struct OpenResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    reader: BufReader<TcpStream>,
    chunked: bool,
    length: Option<usize>,
    buffer: Vec<u8>,
    ended: bool,
}

impl OpenResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Reads the next piece of the body; `false` at the end.
    async fn fill(&mut self) -> bool {
        if self.ended {
            return false;
        }
        if self.chunked {
            let mut size_line = String::new();
            if self.reader.read_line(&mut size_line).await.unwrap_or(0) == 0 {
                self.ended = true;
                return false;
            }
            let size =
                usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
            if size == 0 {
                let mut end = String::new();
                let _ = self.reader.read_line(&mut end).await;
                self.ended = true;
                return false;
            }
            let mut chunk = vec![0; size + 2];
            if self.reader.read_exact(&mut chunk).await.is_err() {
                self.ended = true;
                return false;
            }
            chunk.truncate(size);
            self.buffer.extend_from_slice(&chunk);
            true
        } else if let Some(len) = self.length {
            let mut body = vec![0; len];
            let ok = self.reader.read_exact(&mut body).await.is_ok();
            self.buffer.extend_from_slice(&body);
            self.ended = true;
            ok
        } else {
            let mut chunk = vec![0; 4096];
            match self.reader.read(&mut chunk).await {
                Ok(0) | Err(_) => {
                    self.ended = true;
                    false
                }
                Ok(n) => {
                    self.buffer.extend_from_slice(&chunk[..n]);
                    true
                }
            }
        }
    }

    /// The next SSE block (text up to a blank line), or `None` at the end.
    pub async fn next_block(&mut self) -> Option<String> {
        loop {
            if let Some(pos) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.buffer.drain(..pos + 2).collect();
                return Some(String::from_utf8_lossy(&block[..pos]).into_owned());
            }
            if !self.fill().await {
                return None;
            }
        }
    }

    /// The next SSE event (skipping comments): (id, data as JSON).
    pub async fn next_event(&mut self) -> Option<(Option<String>, Value)> {
        loop {
            let block = self.next_block().await?;
            let mut id = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = Some(v.to_string());
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = Some(serde_json::from_str(v).expect("SSE data is JSON"));
                }
            }
            if let Some(data) = data {
                return Some((id, data));
            }
        }
    }

    pub async fn all_events(&mut self) -> Vec<(Option<String>, Value)> {
        let mut out = Vec::new();
        while let Some(e) = self.next_event().await {
            out.push(e);
        }
        out
    }

    pub async fn into_full(mut self) -> HttpResponse {
        while self.fill().await {}
        HttpResponse {
            status: self.status,
            headers: self.headers,
            body: self.buffer,
        }
    }
}

/// Sends raw bytes as a request and reads the response head.
pub async fn send_raw(addr: SocketAddr, request: &[u8]) -> OpenResponse {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request).await.expect("write");
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).await.expect("status line");
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
            break;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(k, _): &&(String, String)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let chunked = find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let length = find("content-length").and_then(|v| v.parse().ok());
    OpenResponse {
        status,
        headers,
        reader,
        chunked,
        length,
        buffer: Vec::new(),
        ended: false,
    }
}

/// Builds a POST with the default A2A headers plus `extra`.
pub fn post_bytes(path: &str, body: &[u8], extra: &[(&str, &str)], with_version: bool) -> Vec<u8> {
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if with_version {
        head.push_str("A2A-Version: 1.0\r\n");
    }
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

/// POSTs `body` to `/` with `A2A-Version: 1.0` and the extra headers.
pub async fn post(addr: SocketAddr, body: &Value, extra: &[(&str, &str)]) -> HttpResponse {
    let bytes = serde_json::to_vec(body).expect("encode");
    send_raw(addr, &post_bytes("/", &bytes, extra, true))
        .await
        .into_full()
        .await
}

pub async fn post_text(addr: SocketAddr, body: &[u8], extra: &[(&str, &str)]) -> HttpResponse {
    send_raw(addr, &post_bytes("/", body, extra, true))
        .await
        .into_full()
        .await
}

pub async fn get(addr: SocketAddr, path: &str) -> HttpResponse {
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    send_raw(addr, request.as_bytes()).await.into_full().await
}

pub fn rpc(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// `(code, domain, reason)` of a JSON-RPC error response.
pub fn error_of(response: &Value) -> (i64, String, String) {
    let error = &response["error"];
    let info = &error["data"][0];
    (
        error["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error in {response}")),
        info["domain"].as_str().unwrap_or_default().to_string(),
        info["reason"].as_str().unwrap_or_default().to_string(),
    )
}

// ---------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------

pub struct StdioClient {
    pub writer: Option<DuplexStream>,
    pub reader: BufReader<DuplexStream>,
    pub done: tokio::task::JoinHandle<Result<(), server::ServerError>>,
}

impl StdioClient {
    pub fn start(config: ServerConfig, dispatch: Arc<dyn Dispatch>) -> StdioClient {
        let (client_out, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, client_in) = tokio::io::duplex(1 << 16);
        let done =
            tokio::spawn(async move { server::serve_stdio(&config, dispatch, server_in, server_out).await });
        StdioClient {
            writer: Some(client_out),
            reader: BufReader::new(client_in),
            done,
        }
    }

    pub async fn send_line(&mut self, line: &[u8]) {
        let writer = self.writer.as_mut().expect("open");
        writer.write_all(line).await.expect("write");
        writer.write_all(b"\n").await.expect("write");
    }

    pub async fn send(&mut self, message: &Value) {
        let bytes = serde_json::to_vec(message).expect("encode");
        self.send_line(&bytes).await;
    }

    /// The next line from the server, as JSON; `None` at EOF.
    pub async fn recv(&mut self) -> Option<Value> {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line).await.expect("read");
        if n == 0 {
            return None;
        }
        Some(
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}")),
        )
    }

    /// Reads until the response with `id`, returning it and the notifications before it.
    pub async fn until_response(&mut self, id: &Value) -> (Value, Vec<Value>) {
        let mut notes = Vec::new();
        loop {
            let message = self.recv().await.expect("response before EOF");
            if message.get("method").is_some() {
                notes.push(message);
            } else if &message["id"] == id {
                return (message, notes);
            } else {
                panic!("unexpected message {message} while waiting for {id}");
            }
        }
    }

    pub async fn initialize(&mut self, version: Option<&str>) -> Value {
        let mut ext = json!({"uri": "urn:cleveragents:extensions:v1"});
        if let Some(v) = version {
            ext["version"] = json!(v);
        }
        self.send(&rpc(
            json!("init"),
            "initialize",
            json!({
                "protocolVersion": "1.0",
                "extensions": [ext],
                "clientInfo": {"name": "test", "version": "0"}
            }),
        ))
        .await;
        self.until_response(&json!("init")).await.0
    }

    /// Closes the input (EOF).
    pub fn close(&mut self) {
        self.writer = None;
    }
}
