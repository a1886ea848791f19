//! The direct path against the reflective one: seeded random ProtoJSON for
//! every message type of the contract's protos, each encoded both ways and
//! compared as decoded messages; JSON the reflective path refuses is never
//! encoded here, and every well-formed message is (no silent fallback).

use super::encode;
use crate::random_json::{message, pool, Rng};
use crate::transcode::reflective_from_json;
use a2a::ErrorKind;
use prost::Message;
use prost_reflect::{DynamicMessage, MessageDescriptor};

/// A message as its decoded, re-encoded and decoded again form: the same for
/// two encodings of one message, whatever their field order or defaults.
fn normal(descriptor: &MessageDescriptor, bytes: &[u8]) -> DynamicMessage {
    let once = DynamicMessage::decode(descriptor.clone(), bytes).expect("decodes");
    DynamicMessage::decode(descriptor.clone(), once.encode_to_vec().as_slice()).expect("decodes again")
}

#[test]
fn every_message_encodes_as_the_reflective_path_does() {
    let pool = pool();
    let mut rng = Rng(7);
    let (mut compared, mut refused) = (0, 0);
    for descriptor in pool.all_messages().filter(|m| !m.is_map_entry()) {
        if descriptor.full_name().starts_with("google.protobuf.") {
            continue;
        }
        for _ in 0..40 {
            let text = message(&mut rng, &descriptor, 0).to_string();
            let fast = encode(&descriptor, &text);
            match reflective_from_json(&descriptor, &text, ErrorKind::InternalError) {
                Ok(slow) => {
                    let fast = fast
                        .unwrap_or_else(|| panic!("{} not encoded directly: {text}", descriptor.full_name()));
                    assert_eq!(
                        normal(&descriptor, &fast),
                        normal(&descriptor, &slow),
                        "{}: {text}",
                        descriptor.full_name()
                    );
                    compared += 1;
                }
                Err(error) => {
                    assert_eq!(
                        fast,
                        None,
                        "{} refused ({error}) but encoded: {text}",
                        descriptor.full_name()
                    );
                    refused += 1;
                }
            }
        }
    }
    // Most generated messages are valid; the few refused are timestamps an
    // offset moves out of range, and members of one oneof given together.
    assert!(compared > 10 * refused, "{compared} compared, {refused} refused");
}

#[test]
fn what_the_direct_path_does_not_take_falls_back() {
    let pool = pool();
    let get = pool
        .get_message_by_name("lf.a2a.v1.GetTaskRequest")
        .expect("GetTaskRequest");
    let task = pool.get_message_by_name("lf.a2a.v1.Task").expect("Task");
    // A field twice, a wrong type, an unknown enum name, text after the value.
    for text in [
        r#"{"id": "t", "id": "u"}"#,
        r#"{"id": "t", "historyLength": "many"}"#,
        r#"{"id": 5}"#,
        r#"{"id": "t"} x"#,
    ] {
        assert_eq!(encode(&get, text), None, "{text}");
    }
    let unknown_state = r#"{"id": "t", "status": {"state": "TASK_STATE_NAPPING"}}"#;
    assert_eq!(encode(&task, unknown_state), None);
    // The reflective path takes it (an unknown enum name is left unset).
    assert!(reflective_from_json(&task, unknown_state, ErrorKind::InternalError).is_ok());
}

#[test]
fn fields_are_written_as_protobuf_has_them() {
    let pool = pool();
    let get = pool
        .get_message_by_name("lf.a2a.v1.GetTaskRequest")
        .expect("GetTaskRequest");
    let id = get.get_field_by_name("id").expect("id").number();
    // A string: tag, length, bytes; unknown members skipped; an absent
    // optional field is nothing, an optional zero is written.
    let bytes = encode(&get, r#"{"id": "ab", "unknown": [1, {"x": null}]}"#).expect("encoded");
    assert_eq!(bytes, [(id << 3 | 2) as u8, 2, b'a', b'b']);
    let length = get
        .get_field_by_json_name("historyLength")
        .expect("historyLength");
    assert!(length.supports_presence());
    let bytes = encode(&get, r#"{"historyLength": 0}"#).expect("encoded");
    assert_eq!(bytes, [(length.number() << 3) as u8, 0]);
    // An empty id (no presence) is left out; null is unset.
    assert_eq!(
        encode(&get, r#"{"id": "", "historyLength": null}"#),
        Some(Vec::new())
    );
}
