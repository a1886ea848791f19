//! Shared test fixtures: the reference application in memory, served over
//! loopback HTTP and over in-memory stdio pipes; a dispatcher that records the
//! methods it is called with; a static Agent Card served over loopback; the
//! runner binary; and the committed baseline.

#![allow(dead_code)]

use a2a::rpc::{CallContext, Dispatch, Outcome, Params};
use conformance::transport::{Activation, BoxFuture, Connector, StdioTransport, Transport};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::oneshot;

/// The committed expected-failures file.
pub const BASELINE: &str = include_str!("../../expected-failures.txt");

/// Bound on each exchange; nothing in these tests comes near it.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// A fresh reference application (in-memory store, default executor).
pub fn app_dispatch() -> Arc<dyn Dispatch> {
    let app = app::App::with_store(
        std::sync::Arc::new(app::store::MemoryStore::new()),
        app::AppConfig::default(),
    );
    Arc::new(a2a::Router::new(app))
}

/// The server settings the agent binary uses, on an ephemeral loopback port.
pub fn server_config() -> server::ServerConfig {
    let mut config = server::ServerConfig::default();
    config.http.listen = "127.0.0.1:0".parse().expect("loopback address");
    // The application delivers push notifications (the agent binary sets this too).
    config.agent.capabilities.push_notifications = true;
    config
}

/// A running loopback HTTP server; stops when dropped.
pub struct Http {
    pub url: String,
    _stop: oneshot::Sender<()>,
}

/// Serves `dispatch` over HTTP on loopback.
pub async fn serve_http(dispatch: Arc<dyn Dispatch>) -> Http {
    serve_http_with(server_config(), dispatch).await
}

/// Serves `dispatch` over HTTP on loopback with `config`.
pub async fn serve_http_with(config: server::ServerConfig, dispatch: Arc<dyn Dispatch>) -> Http {
    let scheme = config.http.scheme();
    let server = server::HttpServer::bind(config, dispatch)
        .await
        .expect("bind loopback");
    let addr = server.local_addr().expect("bound address");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(server.serve(async {
        let _ = stopped.await;
    }));
    Http {
        url: format!("{scheme}://{addr}/"),
        _stop: stop,
    }
}

/// Opens stdio sessions on in-memory pipes to `serve_stdio` over one dispatcher,
/// so every session sees the same backend state.
pub struct InProcessStdio {
    pub dispatch: Arc<dyn Dispatch>,
}

impl Connector for InProcessStdio {
    fn connect<'a>(
        &'a self,
        activation: Activation<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn Transport>, String>> {
        Box::pin(async move {
            let (client, agent) = tokio::io::duplex(1 << 20);
            let (agent_in, agent_out) = tokio::io::split(agent);
            let dispatch = self.dispatch.clone();
            tokio::spawn(async move {
                let _ = server::serve_stdio(&server_config(), dispatch, agent_in, agent_out).await;
            });
            let (client_in, client_out) = tokio::io::split(client);
            let t = StdioTransport::start(
                Box::new(client_in),
                Box::new(client_out),
                activation,
                TIMEOUT,
                None,
            )
            .await?;
            Ok(Box::new(t) as Box<dyn Transport>)
        })
    }
    fn kind(&self) -> &'static str {
        "stdio"
    }
}

/// An HTTP connector to `url`.
pub fn http_connector(url: &str) -> conformance::transport::HttpConnector {
    conformance::transport::HttpConnector {
        url: url.to_string(),
        token: None,
        timeout: TIMEOUT,
        card_url: None,
    }
}

/// The real dispatcher, recording the name of every method it is called with.
pub struct Recorder {
    pub inner: Arc<dyn Dispatch>,
    pub methods: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    pub fn new(inner: Arc<dyn Dispatch>) -> Recorder {
        Recorder {
            inner,
            methods: Arc::default(),
        }
    }

    /// The methods called so far.
    pub fn calls(methods: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
        methods.lock().expect("the record").clone()
    }
}

impl Dispatch for Recorder {
    fn dispatch_params<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Params,
    ) -> BoxFuture<'a, Outcome> {
        if let Ok(mut methods) = self.methods.lock() {
            methods.push(method.to_string());
        }
        self.inner.dispatch_params(ctx, method, params)
    }
}

/// A loopback HTTP server that answers every request with one JSON document
/// (an Agent Card); stops when dropped.
pub struct StaticCard {
    pub url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for StaticCard {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves `card` at `http://127.0.0.1:PORT/card.json`.
pub async fn serve_card(card: Value) -> StaticCard {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("bound address");
    let body = card.to_string();
    let task = tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let body = body.clone();
            tokio::spawn(async move {
                // Read the request head (a GET has no body), then answer and close.
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    StaticCard {
        url: format!("http://{addr}/card.json"),
        task,
    }
}

/// The Agent Card our server serves over HTTP with `config`, as JSON.
pub fn our_card(config: &server::ServerConfig) -> Value {
    serde_json::to_value(server::agent_card(config, server::Binding::Http)).expect("the card encodes")
}

/// A scratch directory for one test's reports.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("a2a-conformance-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Runs the runner binary off the async runtime (it is a blocking child process).
pub async fn runner(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_a2a-conformance"))
            .args(args)
            .output()
            .expect("the runner starts")
    })
    .await
    .expect("the runner finishes")
}

pub fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The runner's stdout.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The JSON report written at `path`.
pub fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("report written")).expect("JSON report")
}

/// The case of a JSON report with this id.
pub fn case<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["cases"]
        .as_array()
        .and_then(|cases| cases.iter().find(|c| c["id"] == id))
        .unwrap_or_else(|| panic!("no case {id} in the report"))
}

/// A fresh reference application as `--executor tck` runs it (the ACTS SUT
/// behaviours), holding a long poll at most `long_poll_max`.
pub fn tck_dispatch(long_poll_max: Duration) -> Arc<dyn Dispatch> {
    let app = app::App::with_store(
        std::sync::Arc::new(app::store::MemoryStore::new()),
        app::AppConfig {
            executor: app::ExecutorKind::Tck,
            long_poll_max: Some(long_poll_max),
            ..Default::default()
        },
    );
    Arc::new(a2a::Router::new(app))
}

/// The server settings of the agent started with `--draft-version` for each of `drafts`.
pub fn draft_config(drafts: &[&str]) -> server::ServerConfig {
    let mut config = server_config();
    config.a2a.draft_versions = drafts.iter().map(|d| d.to_string()).collect();
    config
}

/// Like [`InProcessStdio`], served with `config` (its drafts among them).
pub struct ConfiguredStdio {
    pub dispatch: Arc<dyn Dispatch>,
    pub config: server::ServerConfig,
}

impl Connector for ConfiguredStdio {
    fn connect<'a>(
        &'a self,
        activation: Activation<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn Transport>, String>> {
        Box::pin(async move {
            let (client, agent) = tokio::io::duplex(1 << 20);
            let (agent_in, agent_out) = tokio::io::split(agent);
            let (dispatch, config) = (self.dispatch.clone(), self.config.clone());
            tokio::spawn(async move {
                let _ = server::serve_stdio(&config, dispatch, agent_in, agent_out).await;
            });
            let (client_in, client_out) = tokio::io::split(client);
            let t = StdioTransport::start(
                Box::new(client_in),
                Box::new(client_out),
                activation,
                TIMEOUT,
                None,
            )
            .await?;
            Ok(Box::new(t) as Box<dyn Transport>)
        })
    }
    fn kind(&self) -> &'static str {
        "stdio"
    }
}
