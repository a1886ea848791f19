//! Reading a whole gRPC answer from any HTTP body: its messages, then the
//! status its trailers carry (or its headers, for a trailers-only answer).
//! For callers that want the answer at once (the conformance runner, tests);
//! a client following a stream reads frame by frame with [`crate::frame::Decoder`].

use crate::frame::Decoder;
use crate::Status;
use bytes::Bytes;
use http::HeaderMap;
use http_body_util::BodyExt;

/// A whole answer.
#[derive(Debug)]
pub struct Answer {
    /// The messages, in order.
    pub messages: Vec<Bytes>,
    /// How the call ended.
    pub status: Status,
}

/// The answer whose response headers are `head` and body `body`, each message
/// at most `limit` bytes; an error says how it is no valid gRPC answer.
pub async fn collect<B>(head: &HeaderMap, body: B, limit: usize) -> Result<Answer, String>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let status_of =
        |headers: &HeaderMap| Status::from_headers(|name| headers.get(name).and_then(|v| v.to_str().ok()));
    if let Some(status) = status_of(head) {
        return Ok(Answer {
            messages: Vec::new(),
            status,
        });
    }
    let mut body = std::pin::pin!(body);
    let mut decoder = Decoder::new(limit);
    let mut messages = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| format!("the answer broke: {e}"))?;
        match frame.into_data() {
            Ok(data) => decoder.push(&data),
            Err(frame) => {
                let Ok(trailers) = frame.into_trailers() else {
                    continue;
                };
                while let Some(message) = decoder.next_message().map_err(|e| e.to_string())? {
                    messages.push(message);
                }
                if decoder.pending() > 0 {
                    return Err("the answer ended inside a message".into());
                }
                let status = status_of(&trailers).ok_or("the trailers carry no valid grpc-status")?;
                return Ok(Answer { messages, status });
            }
        }
        while let Some(message) = decoder.next_message().map_err(|e| e.to_string())? {
            messages.push(message);
        }
    }
    Err("the answer ended without a gRPC status".into())
}
