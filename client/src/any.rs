//! Any transport, picked at run time (the CLI picks by `--server` and `--binding`).

use crate::generation::EventSource;
use crate::grpc::GrpcTransport;
use crate::http::HttpTransport;
use crate::stdio::StdioTransport;
use a2a::rpc::{BoxFuture, CallError, RawEventStream, Transport};
use serde_json::Value;

/// Either transport, so a caller can pick one at run time (the CLI does).
pub enum AnyTransport {
    /// The HTTP transport (server mode).
    Http(HttpTransport),
    /// The gRPC transport (server mode), which reads the card over HTTP.
    Grpc(GrpcTransport, HttpTransport),
    /// The stdio transport over a spawned agent (local mode).
    // Boxed: the session owns the child process and is much larger than the
    // HTTP handle.
    Stdio(Box<StdioTransport>),
}

impl AnyTransport {
    /// The agent's public card: the well-known document over HTTP, the card the
    /// `initialize` handshake returned over stdio.
    pub async fn agent_card(&self) -> Result<Value, CallError> {
        match self {
            AnyTransport::Http(t) | AnyTransport::Grpc(_, t) => t.agent_card().await,
            AnyTransport::Stdio(t) => Ok(t.agent_card().clone()),
        }
    }

    /// The A2A protocol version in effect: the one chosen from the agent's
    /// card (HTTP, gRPC) or agreed in `initialize` (stdio).
    pub fn protocol_version(&self) -> &str {
        match self {
            AnyTransport::Http(t) => t.protocol_version(),
            AnyTransport::Grpc(t, _) => t.protocol_version(),
            AnyTransport::Stdio(t) => t.protocol_version(),
        }
    }

    /// Ends the session: closes the child's stdin and waits for it (stdio);
    /// nothing to do over HTTP.
    pub async fn shutdown(self) -> Result<(), CallError> {
        match self {
            AnyTransport::Http(_) | AnyTransport::Grpc(..) => Ok(()),
            AnyTransport::Stdio(t) => t.shutdown().await.map(|_| ()),
        }
    }
}

impl EventSource for AnyTransport {
    fn open_stream<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>> {
        match self {
            AnyTransport::Http(t) => t.open_stream(method, params),
            AnyTransport::Grpc(t, _) => t.open_stream(method, params),
            AnyTransport::Stdio(t) => t.open_stream(method, params),
        }
    }
}

impl Transport for AnyTransport {
    fn call<'a>(&'a self, method: &'static str, params: Value) -> BoxFuture<'a, Result<Value, CallError>> {
        match self {
            AnyTransport::Http(t) => t.call(method, params),
            AnyTransport::Grpc(t, _) => t.call(method, params),
            AnyTransport::Stdio(t) => t.call(method, params),
        }
    }

    fn subscribe<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>> {
        match self {
            AnyTransport::Http(t) => t.subscribe(method, params),
            AnyTransport::Grpc(t, _) => t.subscribe(method, params),
            AnyTransport::Stdio(t) => t.subscribe(method, params),
        }
    }
}
