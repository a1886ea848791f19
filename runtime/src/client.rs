//! The client side: why a call failed, the [`Transport`] trait the HTTP and
//! stdio clients implement, and the typed [`call`] and [`subscribe`] the
//! generated client stubs stand on.

use crate::dispatch::{BoxFuture, Event, MapStream, Stream};
use crate::error::Error;
use crate::method::Method;
use serde_json::Value;
use std::fmt;
use std::pin::Pin;

/// Why a client call failed.
#[derive(Debug)]
pub enum CallError {
    /// The agent answered with a JSON-RPC error.
    Rpc(Error),
    /// The transport failed (connection, process, framing).
    Transport(String),
    /// The agent's answer did not match the method's result schema.
    Decode(String),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Rpc(e) => write!(f, "{e}"),
            CallError::Transport(e) => write!(f, "transport error: {e}"),
            CallError::Decode(e) => write!(f, "unexpected answer: {e}"),
        }
    }
}

impl std::error::Error for CallError {}

impl From<Error> for CallError {
    fn from(error: Error) -> Self {
        CallError::Rpc(error)
    }
}

/// Raw JSON events from a transport.
pub type RawEventStream = Pin<Box<dyn Stream<Item = Result<Event<Value>, CallError>> + Send>>;

/// Typed events for a client.
pub type ClientStream<T> = Pin<Box<dyn Stream<Item = Result<Event<T>, CallError>> + Send>>;

/// Carries JSON-RPC calls to an agent. Implemented by the HTTP and stdio clients.
pub trait Transport: Send + Sync {
    /// Sends a request and waits for its result.
    fn call<'a>(&'a self, method: &'static str, params: Value) -> BoxFuture<'a, Result<Value, CallError>>;
    /// Sends a streaming request; the stream ends with the method's final response.
    fn subscribe<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>>;
}

/// Calls method `M` over `transport`: encodes the typed params, decodes the
/// typed result. The generated `Client` is a thin wrapper over this.
pub async fn call<M: Method, T: Transport + ?Sized>(
    transport: &T,
    params: M::Params,
) -> Result<M::Result, CallError> {
    let params = serde_json::to_value(params).map_err(|e| CallError::Decode(e.to_string()))?;
    let value = transport.call(M::NAME, params).await?;
    serde_json::from_value(value).map_err(|e| CallError::Decode(format!("{}: {e}", M::NAME)))
}

/// Calls streaming method `M` over `transport`, decoding each event.
pub async fn subscribe<M: Method, T: Transport + ?Sized>(
    transport: &T,
    params: M::Params,
) -> Result<ClientStream<M::Result>, CallError>
where
    M::Result: 'static,
{
    let params = serde_json::to_value(params).map_err(|e| CallError::Decode(e.to_string()))?;
    let raw = transport.subscribe(M::NAME, params).await?;
    Ok(Box::pin(MapStream::new(
        raw,
        |item: Result<Event<Value>, CallError>| {
            item.and_then(|event| {
                let data = serde_json::from_value(event.data)
                    .map_err(|e| CallError::Decode(format!("{}: {e}", M::NAME)))?;
                Ok(Event { seq: event.seq, data })
            })
        },
    )))
}
