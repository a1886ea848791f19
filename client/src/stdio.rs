//! The stdio transport: spawns the agent as a child process and speaks
//! newline-delimited JSON-RPC with it (`urn:cleveragents:bindings:stdio:v1`):
//! the `initialize` handshake, concurrent calls matched by id, streams fed by
//! `stream/event` notifications, and a clean shutdown of the child.
//!
//! The session's A2A version is set once, by `initialize`, before the agent's
//! card can be read: the client asks for the newest version it knows when
//! that is newer than the released one, and an agent that does not serve it
//! refuses the handshake, which is then made again, under the same request
//! id, in the released version (as it is made when no newer version exists).

use crate::generation::EventSource;
use crate::wire;
use a2a::rpc::{BoxFuture, CallError, Event, RawEventStream, Transport};
use futures_util::stream::StreamExt;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, oneshot};

/// How to start the agent and what to negotiate with it.
#[derive(Clone, Debug)]
pub struct StdioConfig {
    /// The agent executable.
    pub program: PathBuf,
    /// Arguments that make it serve the stdio binding.
    pub args: Vec<OsString>,
    /// Minor version of the CleverAgents extension to ask for; newest when `None`.
    pub extension_version: Option<String>,
    /// Bound on the handshake and on each unary call.
    pub timeout: Duration,
    /// How long shutdown waits for the child to exit after closing its stdin
    /// before killing it.
    pub shutdown_grace: Duration,
    /// Client name reported in `initialize`.
    pub client_name: String,
    /// The A2A protocol version to ask for in `initialize`: when `None`, the
    /// newest this client knows where the agent serves it, else the released one.
    pub protocol_version: Option<String>,
    /// Where every line sent to and read from the agent is logged.
    pub wire_log: Option<wire::WireLog>,
}

impl StdioConfig {
    /// Defaults for `program`: no arguments, 30 s calls, 5 s shutdown grace.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        StdioConfig {
            program: program.into(),
            args: Vec::new(),
            extension_version: None,
            timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(5),
            client_name: "cleveragents-client".into(),
            protocol_version: None,
            wire_log: None,
        }
    }
}

type StreamSender = mpsc::UnboundedSender<Result<Event<Value>, CallError>>;

/// Who waits for the answer to a request id.
enum Waiter {
    Unary(oneshot::Sender<Result<Value, CallError>>),
    Stream(StreamSender),
}

/// Requests in flight, shared by callers and the reader task. `None` once the
/// agent's stdout closed: nothing more will be answered.
type Pending = Arc<Mutex<Option<HashMap<u64, Waiter>>>>;

/// A session with a spawned agent. Drop kills the child if it still runs;
/// call [`StdioTransport::shutdown`] to end it cleanly.
pub struct StdioTransport {
    stdin: Arc<Pipe>,
    child: Mutex<Option<Child>>,
    pending: Pending,
    next_id: Arc<AtomicU64>,
    timeout: Duration,
    shutdown_grace: Duration,
    initialized: Value,
}

impl StdioTransport {
    /// Spawns the agent and performs the `initialize` handshake.
    pub async fn spawn(config: StdioConfig) -> Result<Self, CallError> {
        let mut child = Command::new(&config.program)
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            // Its own process group: a Ctrl-C meant for the client (which
            // may stop one wait and go on) does not reach the agent too.
            .process_group(0)
            .spawn()
            .map_err(|e| {
                CallError::Transport(format!("cannot start agent `{}`: {e}", config.program.display()))
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(CallError::Transport("agent pipes unavailable".into()));
        };
        let pending: Pending = Arc::new(Mutex::new(Some(HashMap::new())));
        tokio::spawn(read_loop(stdout, pending.clone(), config.wire_log.clone()));
        let mut transport = StdioTransport {
            stdin: Arc::new(Pipe {
                stdin: tokio::sync::Mutex::new(Some(stdin)),
                log: config.wire_log.clone(),
            }),
            child: Mutex::new(Some(child)),
            pending,
            next_id: Arc::new(AtomicU64::new(1)),
            timeout: config.timeout,
            shutdown_grace: config.shutdown_grace,
            initialized: Value::Null,
        };
        let mut extension = serde_json::Map::new();
        for uri in wire::extension_uris() {
            extension.insert("uri".into(), Value::String(uri.into()));
        }
        if let Some(version) = &config.extension_version {
            extension.insert("version".into(), Value::String(version.clone()));
        }
        let params = |version: &str| {
            json!({
                "protocolVersion": version,
                "extensions": if extension.is_empty() { vec![] } else { vec![Value::Object(extension.clone())] },
                "clientInfo": { "name": config.client_name, "version": env!("CARGO_PKG_VERSION") },
            })
        };
        let id = transport.next_id.fetch_add(1, Ordering::Relaxed);
        let initialized = match &config.protocol_version {
            Some(version) => {
                transport
                    .request_as(id, wire::INITIALIZE_METHOD, params(version))
                    .await?
            }
            None if wire::NEWEST_PROTOCOL_VERSION != wire::PROTOCOL_VERSION => {
                let newest = params(wire::NEWEST_PROTOCOL_VERSION);
                match transport.request_as(id, wire::INITIALIZE_METHOD, newest).await {
                    // Refused (the session stays uninitialized): the released version.
                    Err(CallError::Rpc(_)) => {
                        let released = params(wire::PROTOCOL_VERSION);
                        transport
                            .request_as(id, wire::INITIALIZE_METHOD, released)
                            .await?
                    }
                    outcome => outcome?,
                }
            }
            None => {
                transport
                    .request_as(id, wire::INITIALIZE_METHOD, params(wire::PROTOCOL_VERSION))
                    .await?
            }
        };
        transport.initialized = initialized;
        Ok(transport)
    }

    /// The A2A protocol version the session speaks (the `initialize` result's).
    pub fn protocol_version(&self) -> &str {
        self.initialized["protocolVersion"]
            .as_str()
            .unwrap_or(wire::PROTOCOL_VERSION)
    }

    /// The `initialize` result (protocol version, activated extensions, card, server info).
    pub fn session(&self) -> &Value {
        &self.initialized
    }

    /// The Agent Card from the handshake.
    pub fn agent_card(&self) -> &Value {
        self.initialized.get("agentCard").unwrap_or(&Value::Null)
    }

    /// Closes the agent's stdin (a clean shutdown for the binding), waits up to
    /// the grace period for it to exit, then kills it. Calls made afterwards fail
    /// with a transport error.
    pub async fn shutdown(&self) -> Result<ExitStatus, CallError> {
        drop(self.stdin.stdin.lock().await.take());
        let child = self.child.lock().ok().and_then(|mut c| c.take());
        let Some(mut child) = child else {
            return Err(CallError::Transport("agent already shut down".into()));
        };
        match tokio::time::timeout(self.shutdown_grace, child.wait()).await {
            Ok(status) => status.map_err(|e| CallError::Transport(format!("waiting for agent: {e}"))),
            Err(_) => {
                let _ = child.start_kill();
                child
                    .wait()
                    .await
                    .map_err(|e| CallError::Transport(format!("waiting for agent: {e}")))
            }
        }
    }

    fn register(&self, id: u64, waiter: Waiter) -> Result<(), CallError> {
        let mut guard = self
            .pending
            .lock()
            .map_err(|_| CallError::Transport("client state poisoned".into()))?;
        match guard.as_mut() {
            Some(map) => {
                map.insert(id, waiter);
                Ok(())
            }
            None => Err(CallError::Transport("the agent has exited".into())),
        }
    }

    async fn request(&self, method: &str, params: Value) -> Result<Value, CallError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.request_as(id, method, params).await
    }

    /// A request under id `id`, which no other request in flight has.
    async fn request_as(&self, id: u64, method: &str, params: Value) -> Result<Value, CallError> {
        let (tx, rx) = oneshot::channel();
        self.register(id, Waiter::Unary(tx))?;
        if let Err(e) = write_line(&self.stdin, &wire::request(id, method, params)).await {
            forget(&self.pending, id);
            return Err(e);
        }
        match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) => Err(CallError::Transport("the agent has exited".into())),
            Err(_) => {
                forget(&self.pending, id);
                Err(CallError::Transport(format!(
                    "no answer within {:?}",
                    self.timeout
                )))
            }
        }
    }
}

fn forget(pending: &Pending, id: u64) {
    if let Ok(mut guard) = pending.lock() {
        if let Some(map) = guard.as_mut() {
            map.remove(&id);
        }
    }
}

/// The agent's stdin, and where the lines written to it are logged.
struct Pipe {
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    log: Option<wire::WireLog>,
}

async fn write_line(pipe: &Pipe, message: &Value) -> Result<(), CallError> {
    let mut line = serde_json::to_vec(message).map_err(|e| CallError::Decode(e.to_string()))?;
    if let Some(log) = &pipe.log {
        log.log(&format!("> {}", String::from_utf8_lossy(&line)));
    }
    line.push(b'\n');
    // One lock per line keeps concurrent writers from interleaving bytes.
    let mut guard = pipe.stdin.lock().await;
    let Some(stdin) = guard.as_mut() else {
        return Err(CallError::Transport("the agent session is closed".into()));
    };
    let lost = |e: std::io::Error| CallError::Transport(format!("writing to agent: {e}"));
    stdin.write_all(&line).await.map_err(lost)?;
    stdin.flush().await.map_err(lost)
}

/// Reads the agent's stdout until it closes, routing each line to its waiter.
async fn read_loop(stdout: ChildStdout, pending: Pending, log: Option<wire::WireLog>) {
    let mut lines = BufReader::new(stdout).lines();
    // Ends on EOF or a read error: either way the agent will answer no more.
    while let Ok(Some(line)) = lines.next_line().await {
        if line.trim().is_empty() {
            continue;
        }
        if let Some(log) = &log {
            log.log(&format!("< {line}"));
        }
        // stdout carries protocol only; a line that is not JSON is a broken
        // agent, which we report on stderr and skip.
        match serde_json::from_str::<Value>(&line) {
            Ok(message) => route(&pending, message),
            Err(e) => eprintln!("agent sent a line that is not JSON ({e}); ignored"),
        }
    }
    let waiters = pending.lock().ok().and_then(|mut guard| guard.take());
    for (_, waiter) in waiters.into_iter().flatten() {
        let error = CallError::Transport("the agent exited before answering".into());
        match waiter {
            Waiter::Unary(tx) => {
                let _ = tx.send(Err(error));
            }
            Waiter::Stream(tx) => {
                let _ = tx.send(Err(error));
            }
        }
    }
}

fn request_id(value: Option<&Value>) -> Option<u64> {
    match value? {
        Value::Number(n) => n.as_u64(),
        // Ids are ours (integers); an agent echoing them as strings still matches.
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn route(pending: &Pending, mut message: Value) {
    let Ok(mut guard) = pending.lock() else {
        return;
    };
    let Some(map) = guard.as_mut() else {
        return;
    };
    if message.get("method").and_then(Value::as_str) == Some(wire::STREAM_EVENT_METHOD) {
        let params = message.get_mut("params").map(Value::take).unwrap_or(Value::Null);
        let Some(id) = request_id(params.get("requestId")) else {
            return;
        };
        if let Some(Waiter::Stream(tx)) = map.get(&id) {
            // The producer's number (a task's sequence, the namespace cursor) when
            // the stream has one, as the SSE `id:` is over HTTP; else the
            // binding's own count.
            let seq = params
                .get("taskSeq")
                .or_else(|| params.get("seq"))
                .and_then(Value::as_u64);
            let data = params.get("event").cloned().unwrap_or(Value::Null);
            if tx.send(Ok(Event { seq, data })).is_err() {
                // The consumer is gone; its cancel request is on the way.
                map.remove(&id);
            }
        }
        return;
    }
    if message.get("method").is_some() {
        // Another notification or a request from the agent: none is defined.
        return;
    }
    let Some(id) = request_id(message.get("id")) else {
        return;
    };
    match map.remove(&id) {
        Some(Waiter::Unary(tx)) => {
            let _ = tx.send(wire::response_outcome(&mut message));
        }
        Some(Waiter::Stream(tx)) => {
            // The ordinary response ends the stream; only an error is news.
            if let Err(error) = wire::response_outcome(&mut message) {
                let _ = tx.send(Err(error));
            }
        }
        None => {}
    }
}

/// Sends `stream/cancel` when a stream is dropped before its final response.
struct CancelOnDrop {
    request_id: u64,
    stdin: Arc<Pipe>,
    pending: Pending,
    next_id: Arc<AtomicU64>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let still_open = self
            .pending
            .lock()
            .ok()
            .and_then(|mut guard| guard.as_mut().map(|map| map.remove(&self.request_id).is_some()))
            .unwrap_or(false);
        if !still_open {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = wire::request(
            id,
            wire::STREAM_CANCEL_METHOD,
            json!({ "requestId": self.request_id }),
        );
        let stdin = self.stdin.clone();
        runtime.spawn(async move {
            // Best effort: the answer is not awaited (its id has no waiter).
            let _ = write_line(&stdin, &message).await;
        });
    }
}

impl EventSource for StdioTransport {
    fn open_stream<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>> {
        Box::pin(self.open_raw(method, params))
    }
}

impl Transport for StdioTransport {
    fn call<'a>(&'a self, method: &'static str, params: Value) -> BoxFuture<'a, Result<Value, CallError>> {
        Box::pin(self.request(method, params))
    }

    fn subscribe<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>> {
        self.subscribe_guarded(method, params)
    }
}

impl StdioTransport {
    /// Opens a stream as the agent sends it.
    async fn open_raw(&self, method: &'static str, params: Value) -> Result<RawEventStream, CallError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        self.register(id, Waiter::Stream(tx))?;
        if let Err(e) = write_line(&self.stdin, &wire::request(id, method, params)).await {
            forget(&self.pending, id);
            return Err(e);
        }
        let guard = CancelOnDrop {
            request_id: id,
            stdin: self.stdin.clone(),
            pending: self.pending.clone(),
            next_id: self.next_id.clone(),
        };
        let events = futures_util::stream::unfold((rx, guard), |(mut rx, guard)| async move {
            let item = rx.recv().await?;
            Some((item, (rx, guard)))
        });
        Ok(events.boxed() as RawEventStream)
    }
}
