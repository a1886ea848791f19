//! The JSON-level dispatch surface transports call: the outcome of a call (one
//! result or a stream of events), the event type with its sequence number, and
//! the [`Dispatch`] trait the generated router implements.

use crate::context::CallContext;
use crate::error::{Error, ErrorRegistry};
use crate::params::Params;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub use futures_core::Stream;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// JSON-RPC 2.0's own "Internal error" code, for the one failure that is a
/// caller's programming mistake rather than an answer of any contract.
const JSONRPC_INTERNAL_ERROR: i64 = -32603;

/// JSON-RPC's internal error, for what no contract answers.
fn internal(message: impl Into<String>) -> Error {
    Error {
        code: JSONRPC_INTERNAL_ERROR,
        message: message.into(),
        data: None,
    }
}

/// One event of a stream, with the sequence number the producer gave it (a
/// task's event sequence, used to resume).
#[derive(Clone, Debug, PartialEq)]
pub struct Event<T> {
    /// The producer's sequence number, which a client resumes after; `None` when the stream has none.
    pub seq: Option<u64>,
    /// The event itself.
    pub data: T,
}

impl<T> Event<T> {
    /// An event without a sequence number.
    pub fn new(data: T) -> Self {
        Event { seq: None, data }
    }
    /// An event the producer numbered `seq`.
    pub fn with_seq(seq: u64, data: T) -> Self {
        Event { seq: Some(seq), data }
    }
}

impl Event<RawJson> {
    /// The event's data decoded into a JSON value (for in-process callers;
    /// transports copy the encoded data as it is). Encoded JSON always decodes.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.data.get()).unwrap_or(Value::Null)
    }
}

/// The events of a streaming method, as a handler produces them.
pub type EventStream<T> = Pin<Box<dyn Stream<Item = Result<Event<T>, Error>> + Send>>;

/// JSON already encoded: what handlers' results and events travel to the
/// transports as. Encoded once, straight from the typed value, and written
/// into the envelope as it is, with no intermediate `Value` tree.
pub type RawJson = Box<RawValue>;

/// Encodes a value into [`RawJson`].
pub fn to_raw<T: Serialize + ?Sized>(value: &T) -> Result<RawJson, serde_json::Error> {
    serde_json::value::to_raw_value(value)
}

/// What the handler of a method whose schema marks its result
/// `encodedResult` answers: the result as a value, or already encoded (as
/// the backend stored it, say), which is sent as it is, neither decoded nor
/// encoded again. The encoding must be the value's own: the JSON the value
/// encodes to, not merely JSON.
#[derive(Debug)]
pub enum Reply<T> {
    /// The result as a value, encoded on its way out.
    Value(T),
    /// The result already encoded.
    Encoded(RawJson),
}

impl<T> From<T> for Reply<T> {
    fn from(value: T) -> Self {
        Reply::Value(value)
    }
}

/// The answer of the dispatcher: one result, or a stream of JSON events.
pub enum Outcome {
    /// A non-streaming method's result or error.
    Single(Result<RawJson, Error>),
    /// A streaming method's events, already encoded.
    Stream(EventStream<RawJson>),
}

impl fmt::Debug for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Single(result) => f.debug_tuple("Single").field(result).finish(),
            Outcome::Stream(_) => f.write_str("Stream(..)"),
        }
    }
}

impl Outcome {
    /// A unary outcome known before anything runs (a call refused by
    /// resolution, authorization or its params), as the boxed future a
    /// dispatcher returns.
    pub fn ready<'a>(result: Result<RawJson, Error>) -> BoxFuture<'a, Outcome> {
        Box::pin(std::future::ready(Outcome::Single(result)))
    }

    /// Encodes a handler's unary result; a value that cannot be encoded is
    /// `internal` (the generated router passes its base contract's internal error).
    pub fn from_result<T: Serialize>(result: Result<T, Error>, internal: impl ErrorRegistry) -> Self {
        Outcome::Single(result.and_then(|value| encode(&value, internal)))
    }

    /// A handler's unary [`Reply`]: a value is encoded as by
    /// [`Outcome::from_result`], an encoded result goes out as it is.
    pub fn from_reply<T: Serialize>(result: Result<Reply<T>, Error>, internal: impl ErrorRegistry) -> Self {
        Outcome::Single(result.and_then(|reply| match reply {
            Reply::Value(value) => encode(&value, internal),
            Reply::Encoded(raw) => Ok(raw),
        }))
    }

    /// Encodes a handler's stream, event by event.
    pub fn from_stream<T: Serialize + 'static>(
        result: Result<EventStream<T>, Error>,
        internal: impl ErrorRegistry,
    ) -> Self {
        match result {
            Err(error) => Outcome::Single(Err(error)),
            Ok(stream) => Outcome::Stream(Box::pin(MapStream::new(
                stream,
                move |item: Result<Event<T>, Error>| {
                    item.and_then(|event| {
                        Ok(Event {
                            seq: event.seq,
                            data: encode(&event.data, internal)?,
                        })
                    })
                },
            ))),
        }
    }

    /// A unary outcome from a JSON value (for dispatchers that hold JSON).
    pub fn from_value(result: Result<Value, Error>) -> Self {
        Outcome::Single(result.and_then(|value| {
            to_raw(&value).map_err(|e| internal(format!("result could not be encoded: {e}")))
        }))
    }

    /// A stream outcome from JSON events (for dispatchers that hold JSON).
    pub fn from_values(events: EventStream<Value>) -> Self {
        Outcome::Stream(Box::pin(MapStream::new(
            events,
            |item: Result<Event<Value>, Error>| {
                item.and_then(|event| {
                    let data = to_raw(&event.data)
                        .map_err(|e| internal(format!("event could not be encoded: {e}")))?;
                    Ok(Event { seq: event.seq, data })
                })
            },
        )))
    }

    /// The unary result, decoded into a JSON value (for in-process callers);
    /// a stream is JSON-RPC's internal error here (the caller asked a
    /// streaming method for one value).
    pub fn into_single(self) -> Result<Value, Error> {
        match self {
            Outcome::Single(result) => result.and_then(|raw| {
                serde_json::from_str(raw.get()).map_err(|e| internal(format!("result is not JSON: {e}")))
            }),
            Outcome::Stream(_) => Err(internal("expected a single result, got a stream")),
        }
    }
}

fn encode<T: Serialize>(value: &T, internal: impl ErrorRegistry) -> Result<RawJson, Error> {
    to_raw(value).map_err(|e| Error::new(internal, format!("result could not be encoded: {e}")))
}

/// A JSON-level dispatcher: what transports call. Implemented by the generated
/// router.
pub trait Dispatch: Send + Sync + 'static {
    /// Calls `method` with `params` on behalf of the caller in `ctx`: the
    /// params as the binding has them (JSON-RPC's as the text sent).
    fn dispatch_params<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Params,
    ) -> BoxFuture<'a, Outcome>;

    /// Calls `method` with `params` given as a JSON value (`None`: absent).
    fn dispatch<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Option<Value>,
    ) -> BoxFuture<'a, Outcome> {
        self.dispatch_params(ctx, method, Params::from(params))
    }
}

/// Two dispatchers as one: the methods whose wire name starts with `prefix` go
/// to `extension`, every other method to `base`. This is how an extension
/// generated downstream (its methods all under its own method prefix) is
/// served beside the contract's router by the same transports; the extension
/// answers an unknown method under its prefix itself, in its own error domain.
pub struct Prefixed<E, B> {
    prefix: &'static str,
    extension: E,
    base: B,
}

impl<E, B> Prefixed<E, B> {
    /// `extension` for the methods under `prefix`, `base` for the rest.
    pub fn new(prefix: &'static str, extension: E, base: B) -> Self {
        Prefixed {
            prefix,
            extension,
            base,
        }
    }

    /// The method prefix the extension owns.
    pub fn prefix(&self) -> &'static str {
        self.prefix
    }
}

impl<E: Dispatch, B: Dispatch> Dispatch for Prefixed<E, B> {
    fn dispatch_params<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Params,
    ) -> BoxFuture<'a, Outcome> {
        if method.starts_with(self.prefix) {
            self.extension.dispatch_params(ctx, method, params)
        } else {
            self.base.dispatch_params(ctx, method, params)
        }
    }
}

impl<D: Dispatch + ?Sized> Dispatch for std::sync::Arc<D> {
    fn dispatch_params<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Params,
    ) -> BoxFuture<'a, Outcome> {
        (**self).dispatch_params(ctx, method, params)
    }
}

/// Runs a routed call of `method` (served by `service`) inside its `handler`
/// span, so a trace shows the application's work, and the store commits it
/// waits for, under the transport's dispatch. The generated router's
/// [`Dispatch`] implementation wraps every call alike.
///
/// Not an `async fn`: that would move `call` once more, into a future of its
/// own, when first polled; the instrumented call is built here, in place.
pub fn in_handler_span<F: Future>(
    method: &str,
    service: &str,
    call: F,
) -> tracing::instrument::Instrumented<F> {
    use tracing::Instrument;
    call.instrument(tracing::info_span!("handler", method, service))
}

/// Maps the items of a stream (a tiny adapter so the crate needs no futures-util).
pub struct MapStream<S, F> {
    inner: S,
    map: F,
}

impl<S, F> MapStream<S, F> {
    /// Applies `map` to every item of `inner`.
    pub fn new(inner: S, map: F) -> Self {
        MapStream { inner, map }
    }
}

impl<S, F, A, B> Stream for MapStream<S, F>
where
    S: Stream<Item = A> + Unpin,
    F: FnMut(A) -> B + Unpin,
{
    type Item = B;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<B>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(Some(item)) => Poll::Ready(Some((this.map)(item))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
