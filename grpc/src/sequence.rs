//! The event sequence of a streamed message, which a client resumes after
//! (as it does with an SSE event's `id`, spec §3.2.6 `Last-Event-ID`): gRPC
//! has no per-message metadata, so the server appends it to each streamed
//! message as field [`FIELD`] (a varint), a field the official messages do not
//! have. Protobuf readers keep or skip a field they do not know (proto3), so
//! a standard client reads the message as the official proto defines it; ours
//! reads the sequence and sends it back as `last-event-id` metadata to resume.

use bytes::Buf;
use prost::encoding::{
    decode_key, decode_varint, encode_key, encode_varint, skip_field, DecodeContext, WireType,
};

/// The field number of the event sequence: far above the official messages'
/// own fields.
pub const FIELD: u32 = 1000;

/// `message` with `sequence` appended as field [`FIELD`].
pub fn append(message: &mut Vec<u8>, sequence: u64) {
    encode_key(FIELD, WireType::Varint, message);
    encode_varint(sequence, message);
}

/// The event sequence a streamed message carries, if it carries one.
pub fn read(message: &[u8]) -> Option<u64> {
    let mut buf = message;
    let mut found = None;
    while buf.has_remaining() {
        let (number, wire_type) = decode_key(&mut buf).ok()?;
        if number == FIELD && wire_type == WireType::Varint {
            found = Some(decode_varint(&mut buf).ok()?);
        } else {
            skip_field(wire_type, number, &mut buf, DecodeContext::default()).ok()?;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_appended_is_read_back_and_changes_nothing_else() {
        let service = crate::Service::contract().expect("compiles");
        let rpc = service.rpc_of("SubscribeToTask").expect("rpc");
        let event = r#"{"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}"#;
        let mut message =
            crate::transcode::from_json(&rpc.output, event, a2a::ErrorKind::InternalError).unwrap();
        assert_eq!(read(&message), None);
        let plain = crate::transcode::to_json(&rpc.output, &message).unwrap();
        append(&mut message, 300);
        assert_eq!(read(&message), Some(300));
        assert_eq!(crate::transcode::to_json(&rpc.output, &message).unwrap(), plain);
        assert_eq!(read(&[0xff]), None, "not protobuf");
    }
}
