//! Shared test fixtures: the reference application in memory, served over
//! loopback HTTP and over in-memory stdio pipes, and the committed baseline.

#![allow(dead_code)]

use a2a::rpc::Dispatch;
use conformance::transport::{BoxFuture, Connector, StdioTransport, Transport};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;

/// The committed expected-failures file.
pub const BASELINE: &str = include_str!("../../expected-failures.txt");

/// Bound on each exchange; nothing in these tests comes near it.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// A fresh reference application (in-memory store, default executor).
pub fn app_dispatch() -> Arc<dyn Dispatch> {
    let app =
        app::App::open(app::StoreConfig::Memory, app::AppConfig::default()).expect("the app opens in memory");
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
    let server = server::HttpServer::bind(server_config(), dispatch)
        .await
        .expect("bind loopback");
    let addr = server.local_addr().expect("bound address");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(server.serve(async {
        let _ = stopped.await;
    }));
    Http {
        url: format!("http://{addr}/"),
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
        ext_version: Option<&'a str>,
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
                ext_version,
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
    }
}
