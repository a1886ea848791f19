//! What one Server-Sent Event of a stream says to the client: an event to
//! deliver (with its sequence number), one to skip (a keep-alive, or a replay
//! after a resume), or the error that ends the stream. Pure, so every byte a
//! server may send can be tried against it without a network.

use crate::wire::{self, HttpBinding};
use a2a::rpc::rest::error_from_status_body;
use a2a::rpc::{CallError, Event};
use a2a::ErrorKind;
use serde_json::Value;

/// The reading of one SSE event.
#[derive(Debug)]
pub enum SseRead {
    /// Nothing to deliver: an empty event, or one at or below the last sequence seen.
    Skip,
    /// An event to hand to the caller.
    Deliver(Event<Value>),
    /// The stream ends with this error.
    End(CallError),
}

/// Reads one event (`id:` and `data:` fields) of a stream on `binding`, the
/// last delivered sequence being `last_seq`.
pub fn read_event(binding: HttpBinding, id: &str, data: &str, last_seq: Option<u64>) -> SseRead {
    if data.trim().is_empty() {
        return SseRead::Skip;
    }
    let seq = id.trim().parse::<u64>().ok();
    if let (Some(seq), Some(last)) = (seq, last_seq) {
        if seq <= last {
            // Replayed after a resume: already delivered.
            return SseRead::Skip;
        }
    }
    let response: Value = match serde_json::from_str(data) {
        Ok(value) => value,
        Err(e) => return SseRead::End(CallError::Decode(format!("SSE data is not JSON: {e}"))),
    };
    match event_outcome(binding, response) {
        Ok(data) => SseRead::Deliver(Event { seq, data }),
        Err(error) => SseRead::End(error),
    }
}

/// The result a successful answer carries on `binding`.
pub(crate) fn outcome(binding: HttpBinding, mut value: Value) -> Result<Value, CallError> {
    match binding {
        HttpBinding::JsonRpc => wire::response_outcome(&mut value),
        // Only an event can be an error here: a successful unary answer is
        // the bare result, whatever its fields.
        HttpBinding::Rest => Ok(value),
    }
}

/// What one SSE event's data carries: an event, or the error ending the stream.
fn event_outcome(binding: HttpBinding, value: Value) -> Result<Value, CallError> {
    match (binding, status_body_error(&value)) {
        (HttpBinding::Rest, Some(error)) => Err(error),
        _ => outcome(binding, value),
    }
}

/// The error a `google.rpc.Status` body (spec §11.6) carries, if it is one.
pub(crate) fn status_body_error(value: &Value) -> Option<CallError> {
    value.get("error")?.get("code")?;
    Some(CallError::Rpc(error_from_status_body(
        value,
        ErrorKind::InternalError,
    )))
}
