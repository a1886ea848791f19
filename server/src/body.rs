//! The body of every HTTP response: a complete buffer, an SSE stream
//! ([`crate::sse`]), or a gRPC response's messages and trailers
//! ([`crate::grpc_stream`]).

use crate::grpc_stream::GrpcBody;
use crate::sse::SseBody;
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The body of every response: a complete buffer, an SSE stream, or a gRPC answer.
pub(crate) enum ResponseBody {
    Full(Option<Bytes>),
    Sse(Box<SseBody>),
    Grpc(Box<GrpcBody>),
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
            ResponseBody::Grpc(grpc) => Pin::new(grpc.as_mut()).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            ResponseBody::Full(bytes) => bytes.is_none(),
            ResponseBody::Sse(sse) => sse.is_end_stream(),
            ResponseBody::Grpc(grpc) => grpc.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ResponseBody::Full(Some(bytes)) => SizeHint::with_exact(bytes.len() as u64),
            ResponseBody::Full(None) => SizeHint::with_exact(0),
            ResponseBody::Sse(_) | ResponseBody::Grpc(_) => SizeHint::default(),
        }
    }
}
