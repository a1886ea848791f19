//! The body of a gRPC response: the answer's messages, each length-prefixed
//! ([`grpc::frame`]), then trailers with the call's status. A unary answer is
//! one message and `grpc-status: 0`; a stream's events are transcoded to the
//! rpc's response message one by one as they come, and the stream ends with
//! `OK` when the producer ends, the error's status when it fails,
//! `DEADLINE_EXCEEDED` at the caller's deadline, `UNAVAILABLE` at the idle
//! limit or server shutdown (a client may subscribe again).

use crate::pump::{EventPump, Pumped};
use a2a::ErrorKind;
use bytes::Bytes;
use grpc::MessageDescriptor;
use grpc::{Code, Status};
use http::header::{HeaderMap, HeaderName, HeaderValue};
use http_body::{Body, Frame, SizeHint};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::time::Sleep;

/// The headers of a status: the trailers of a response, or the headers of a
/// trailers-only one.
pub(crate) fn status_headers(status: &Status) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for (name, value) in status.to_headers() {
        if let Ok(value) = HeaderValue::try_from(value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    }
    headers
}

enum Source {
    /// A unary answer: its one message, until sent.
    One(Option<Bytes>),
    /// A stream's events and the message each becomes.
    Events {
        pump: EventPump,
        output: MessageDescriptor,
    },
}

pub(crate) struct GrpcBody {
    source: Source,
    deadline: Option<Pin<Box<Sleep>>>,
    done: bool,
}

impl GrpcBody {
    /// A unary answer: one encoded message.
    pub(crate) fn one(message: Vec<u8>) -> Self {
        GrpcBody {
            source: Source::One(Some(grpc::frame::encode(&message))),
            deadline: None,
            done: false,
        }
    }

    /// A server stream of `output` messages, cut at `deadline`.
    pub(crate) fn events(pump: EventPump, output: MessageDescriptor, deadline: Option<Sleep>) -> Self {
        GrpcBody {
            source: Source::Events { pump, output },
            deadline: deadline.map(Box::pin),
            done: false,
        }
    }

    fn end(&mut self, status: &Status) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.done = true;
        Poll::Ready(Some(Ok(Frame::trailers(status_headers(status)))))
    }
}

impl Body for GrpcBody {
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
        if let Some(deadline) = &mut this.deadline {
            if deadline.as_mut().poll(cx).is_ready() {
                return this.end(&Status::new(
                    Code::DeadlineExceeded,
                    "the call's deadline (grpc-timeout) passed",
                ));
            }
        }
        let next = match &mut this.source {
            Source::One(message) => match message.take() {
                Some(message) => return Poll::Ready(Some(Ok(Frame::data(message)))),
                None => return this.end(&Status::new(Code::Ok, "")),
            },
            Source::Events { pump, output } => match pump.poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Pumped::Event(event)) => {
                    grpc::transcode::from_json(output, event.data.get(), ErrorKind::InternalError)
                        .map(|mut message| {
                            if let Some(seq) = event.seq {
                                grpc::sequence::append(&mut message, seq);
                            }
                            message
                        })
                        .map_err(Status::from_error)
                }
                Poll::Ready(Pumped::Failed(error)) => Err(Status::from_error(error)),
                Poll::Ready(Pumped::Ended) => Err(Status::new(Code::Ok, "")),
                Poll::Ready(Pumped::Idle) => Err(Status::new(
                    Code::Unavailable,
                    "no event within the stream's idle limit; subscribe again to go on",
                )),
                Poll::Ready(Pumped::ShuttingDown) => {
                    Err(Status::new(Code::Unavailable, "the server is shutting down"))
                }
                // Keep-alives are HTTP/2's own PINGs: the pump has no interval.
                Poll::Ready(Pumped::KeepAlive) => {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
            },
        };
        match next {
            Ok(message) => Poll::Ready(Some(Ok(Frame::data(grpc::frame::encode(&message))))),
            Err(status) => this.end(&status),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}
