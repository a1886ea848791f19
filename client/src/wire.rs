//! What the transports share: service-parameter names, credentials, which
//! HTTP binding is spoken, the JSON-RPC envelope on the client side.

use a2a::rpc::{CallError, Request, Response};
use a2a::Contract;
use serde_json::Value;

/// Which HTTP binding a transport speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HttpBinding {
    /// JSON-RPC 2.0: every call a `POST` to the endpoint.
    #[default]
    JsonRpc,
    /// HTTP+JSON (REST): each call on its method's route under the endpoint.
    Rest,
}

/// The A2A protocol version this client speaks unless the agent's card offers
/// a newer one it knows (see [`crate::negotiate`]): the released version.
pub const PROTOCOL_VERSION: &str = a2a::rpc::declared(Contract::A2a.released_protocol_version());
/// The newest A2A protocol version this client knows (a draft, when the
/// contract has one), spoken only where the agent offers it.
pub const NEWEST_PROTOCOL_VERSION: &str = a2a::rpc::declared(Contract::A2a.protocol_version());
/// HTTP header carrying the A2A protocol version.
pub const A2A_VERSION_HEADER: &str = a2a::rpc::declared(Contract::A2a.version_header());
/// HTTP header listing the extensions the client activates.
pub const A2A_EXTENSIONS_HEADER: &str = a2a::rpc::declared(Contract::A2a.extensions_header());
/// HTTP header carrying the minor version of `urn:cleveragents:extensions:v1`
/// wanted (the server's name for it; absent means the newest).
pub const EXTENSION_VERSION_HEADER: &str = a2a::rpc::declared(Contract::Cleveragents.version_header());
/// The params field naming the namespace of an A2A call (A2A `tenant`).
pub const A2A_NAMESPACE_FIELD: &str = a2a::rpc::declared(Contract::A2a.namespace_field());
/// The params field naming the namespace of an extension call.
pub const EXTENSION_NAMESPACE_FIELD: &str = a2a::rpc::declared(Contract::Cleveragents.namespace_field());
/// Default header of API-key authentication.
pub const DEFAULT_API_KEY_HEADER: &str = "X-API-Key";
/// Method name of stdio stream event notifications.
pub const STREAM_EVENT_METHOD: &str = <a2a::methods::markers::StreamEvent as a2a::rpc::Method>::NAME;
/// Method name that cancels a stdio stream.
pub const STREAM_CANCEL_METHOD: &str = <a2a::methods::markers::StreamCancel as a2a::rpc::Method>::NAME;
/// Method name of the stdio handshake.
pub const INITIALIZE_METHOD: &str = <a2a::methods::markers::Initialize as a2a::rpc::Method>::NAME;

/// How the client authenticates to a server (HTTP only; stdio runs as the user).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Credentials {
    /// No credentials: the server must accept anonymous callers.
    #[default]
    None,
    /// `Authorization: Bearer <token>` (opaque token or JWT).
    Bearer(String),
    /// An API key in a header (`X-API-Key` unless the agent card says otherwise).
    ApiKey {
        /// The header that carries the key.
        header: String,
        /// The key itself.
        key: String,
    },
    /// An API key where an API-key scheme of the agent's card puts it (A2A
    /// §4.5.2: a header, a query parameter or a cookie).
    ApiKeyAt {
        /// Header, query parameter or cookie.
        location: KeyLocation,
        /// The name of that header, parameter or cookie.
        name: String,
        /// The key itself.
        key: String,
    },
}

/// A sink for the raw messages a transport exchanges (the CLI's `--debug`):
/// each request and answer as text, headers included. The sink redacts.
#[derive(Clone)]
pub struct WireLog(std::sync::Arc<dyn Fn(&str) + Send + Sync>);

impl WireLog {
    /// A sink calling `log` with each message.
    pub fn new(log: impl Fn(&str) + Send + Sync + 'static) -> WireLog {
        WireLog(std::sync::Arc::new(log))
    }

    /// Logs one message.
    pub fn log(&self, text: &str) {
        (self.0)(text)
    }
}

impl std::fmt::Debug for WireLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WireLog")
    }
}

/// Where an API key travels (the `location` of an APIKeySecurityScheme).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyLocation {
    /// A request header.
    Header,
    /// A query parameter of every request URL (HTTP bindings only).
    Query,
    /// A cookie.
    Cookie,
}

impl KeyLocation {
    /// The location a card names (`header`, `query`, `cookie`, any case).
    pub fn parse(name: &str) -> Option<KeyLocation> {
        match name.to_ascii_lowercase().as_str() {
            "header" => Some(KeyLocation::Header),
            "query" => Some(KeyLocation::Query),
            "cookie" => Some(KeyLocation::Cookie),
            _ => None,
        }
    }
}

impl Credentials {
    /// The query parameter the credentials add to every HTTP request URL.
    pub fn query_parameter(&self) -> Option<(&str, &str)> {
        match self {
            Credentials::ApiKeyAt {
                location: KeyLocation::Query,
                name,
                key,
            } => Some((name, key)),
            _ => None,
        }
    }
}

/// The extension URIs the client activates: every extension contract it was
/// generated with.
pub fn extension_uris() -> Vec<&'static str> {
    Contract::ALL.iter().filter_map(|c| c.extension_uri()).collect()
}

/// A JSON-RPC request envelope (the runtime's one [`Request`]).
pub(crate) fn request(id: u64, method: &str, params: Value) -> Value {
    // Every member is already JSON, so encoding cannot fail.
    Request::new(id, method, params).to_value().unwrap_or(Value::Null)
}

/// The outcome a JSON-RPC response carries: its `result`, or its `error` as a
/// typed RPC error. Anything else is a decode error.
pub fn response_outcome(response: &mut Value) -> Result<Value, CallError> {
    match serde_json::from_value::<Response>(response.take()) {
        Ok(response) => response.outcome.map_err(CallError::Rpc),
        Err(e) => Err(CallError::Decode(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outcomes() {
        let mut ok = json!({"jsonrpc": "2.0", "id": 1, "result": {"a": 1}});
        assert_eq!(response_outcome(&mut ok).ok(), Some(json!({"a": 1})));
        let mut err =
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "Task not found"}});
        match response_outcome(&mut err) {
            Err(CallError::Rpc(e)) => assert_eq!((e.code, e.message.as_str()), (-32001, "Task not found")),
            other => panic!("unexpected {other:?}"),
        }
        let mut neither = json!({"jsonrpc": "2.0", "id": 1});
        assert!(matches!(
            response_outcome(&mut neither),
            Err(CallError::Decode(_))
        ));
        assert_eq!(extension_uris(), ["urn:cleveragents:extensions:v1"]);
    }
}
