//! The body of a streaming HTTP response: each event one SSE message whose
//! `data:` is, per the binding's [`Framing`], a complete JSON-RPC response with
//! the request id or the bare event (HTTP+JSON), and whose `id:` is the
//! event's sequence number; keep-alive comments while idle; the stream
//! ends on the producer's end, an error event, the idle limit, or server
//! shutdown. Dropping the body (client gone) drops the producer's stream.

use crate::jsonrpc;
use a2a::rpc::{Error, EventStream, RawJson};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use serde_json::Value;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Interval, MissedTickBehavior, Sleep};
use tokio_util::sync::WaitForCancellationFutureOwned;

/// Held while a stream is open; releases the caller's stream slot on drop.
pub(crate) type SlotGuard = Box<dyn Send + Sync>;

/// How a binding frames each event of a stream.
pub(crate) enum Framing {
    /// JSON-RPC: each event a success response to this request id, an error
    /// an error response.
    JsonRpc(Value),
    /// HTTP+JSON (spec §11.7): each event the bare `StreamResponse`, an error
    /// its `google.rpc.Status` body.
    Bare,
}

impl Framing {
    fn event(&self, data: RawJson) -> Vec<u8> {
        match self {
            Framing::JsonRpc(id) => jsonrpc::success(id, data),
            Framing::Bare => data.get().as_bytes().to_vec(),
        }
    }

    fn error(&self, error: &Error) -> Vec<u8> {
        match self {
            Framing::JsonRpc(id) => jsonrpc::failure(id, error),
            Framing::Bare => {
                let (_, body) = a2a::rpc::rest::status_body::<a2a::ErrorKind>(error);
                serde_json::to_vec(&body).unwrap_or_default()
            }
        }
    }
}

pub(crate) struct SseBody {
    framing: Framing,
    events: EventStream<RawJson>,
    counter: u64,
    keep_alive: Interval,
    idle: Pin<Box<Sleep>>,
    idle_limit: Duration,
    shutdown: Pin<Box<WaitForCancellationFutureOwned>>,
    done: bool,
    _slot: Option<SlotGuard>,
}

impl SseBody {
    pub(crate) fn new(
        framing: Framing,
        events: EventStream<RawJson>,
        keep_alive: Duration,
        idle_limit: Duration,
        shutdown: WaitForCancellationFutureOwned,
        slot: Option<SlotGuard>,
    ) -> Self {
        let mut interval = tokio::time::interval_at(Instant::now() + keep_alive, keep_alive);
        interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
        SseBody {
            framing,
            events,
            counter: 0,
            keep_alive: interval,
            idle: Box::pin(tokio::time::sleep(idle_limit)),
            idle_limit,
            shutdown: Box::pin(shutdown),
            done: false,
            _slot: slot,
        }
    }

    fn message(&self, sse_id: Option<u64>, json: Vec<u8>) -> Frame<Bytes> {
        let mut out = Vec::with_capacity(json.len() + 32);
        if let Some(id) = sse_id {
            out.extend_from_slice(format!("id: {id}\n").as_bytes());
        }
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(&json);
        out.extend_from_slice(b"\n\n");
        Frame::data(Bytes::from(out))
    }
}

impl Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        if this.shutdown.as_mut().poll(cx).is_ready() {
            this.done = true;
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                b": server shutting down\n\n",
            )))));
        }
        match this.events.as_mut().poll_next(cx) {
            Poll::Ready(Some(Ok(event))) => {
                this.counter += 1;
                let sse_id = event.seq.unwrap_or(this.counter);
                let deadline = Instant::now() + this.idle_limit;
                this.idle.as_mut().reset(deadline);
                this.keep_alive.reset();
                let frame = this.message(Some(sse_id), this.framing.event(event.data));
                return Poll::Ready(Some(Ok(frame)));
            }
            Poll::Ready(Some(Err(error))) => {
                this.done = true;
                let frame = this.message(None, this.framing.error(&error));
                return Poll::Ready(Some(Ok(frame)));
            }
            Poll::Ready(None) => {
                this.done = true;
                return Poll::Ready(None);
            }
            Poll::Pending => {}
        }
        if this.idle.as_mut().poll(cx).is_ready() {
            this.done = true;
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b": idle timeout\n\n")))));
        }
        if this.keep_alive.poll_tick(cx).is_ready() {
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b": keep-alive\n\n")))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

/// The body of every response: a complete buffer, or an SSE stream.
pub(crate) enum ResponseBody {
    Full(Option<Bytes>),
    Sse(Box<SseBody>),
}

impl ResponseBody {
    pub(crate) fn full(bytes: impl Into<Bytes>) -> Self {
        ResponseBody::Full(Some(bytes.into()))
    }
    pub(crate) fn empty() -> Self {
        ResponseBody::Full(None)
    }
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            ResponseBody::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            ResponseBody::Sse(sse) => Pin::new(sse.as_mut()).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            ResponseBody::Full(bytes) => bytes.is_none(),
            ResponseBody::Sse(sse) => sse.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ResponseBody::Full(Some(bytes)) => SizeHint::with_exact(bytes.len() as u64),
            ResponseBody::Full(None) => SizeHint::with_exact(0),
            ResponseBody::Sse(_) => SizeHint::default(),
        }
    }
}
