//! The body of a streaming HTTP response: each event one SSE message whose
//! `data:` is, per the binding's [`Framing`], a complete JSON-RPC response with
//! the request id or the bare event (HTTP+JSON), and whose `id:` is the
//! event's sequence number; keep-alive comments while idle; the stream
//! ends as its [`EventPump`] says (the producer's end, an error event, the
//! idle limit, or server shutdown).

use crate::jsonrpc;
use crate::pump::{EventPump, Pumped};
use a2a::rpc::{Error, RawJson};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use serde_json::Value;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

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
    pump: EventPump,
    counter: u64,
    done: bool,
}

impl SseBody {
    pub(crate) fn new(framing: Framing, pump: EventPump) -> Self {
        SseBody {
            framing,
            pump,
            counter: 0,
            done: false,
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
        let comment = |text: &'static [u8]| Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(text)))));
        let Poll::Ready(next) = this.pump.poll(cx) else {
            return Poll::Pending;
        };
        this.done = !matches!(next, Pumped::Event(_) | Pumped::KeepAlive);
        match next {
            Pumped::Event(event) => {
                this.counter += 1;
                let sse_id = event.seq.unwrap_or(this.counter);
                let frame = this.message(Some(sse_id), this.framing.event(event.data));
                Poll::Ready(Some(Ok(frame)))
            }
            Pumped::Failed(error) => {
                let frame = this.message(None, this.framing.error(&error));
                Poll::Ready(Some(Ok(frame)))
            }
            Pumped::Ended => Poll::Ready(None),
            Pumped::Idle => comment(b": idle timeout\n\n"),
            Pumped::ShuttingDown => comment(b": server shutting down\n\n"),
            Pumped::KeepAlive => comment(b": keep-alive\n\n"),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}
