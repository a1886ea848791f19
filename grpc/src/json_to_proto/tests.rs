//! The direct path against the reflective one: seeded random ProtoJSON for
//! every message type of the contract's protos, each encoded both ways and
//! compared as decoded messages; JSON the reflective path refuses is never
//! encoded here, and every well-formed message is (no silent fallback).

use super::encode;
use crate::transcode::reflective_from_json;
use crate::Service;
use a2a::ErrorKind;
use base64::Engine as _;
use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MessageDescriptor};
use serde_json::{json, Map, Value};

/// A small seeded generator (splitmix64): the same cases on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize].clone()
    }
}

fn pool() -> DescriptorPool {
    let service = Service::contract().expect("the generated protos compile");
    let rpc = service.rpcs().next().expect("an rpc");
    rpc.input.parent_pool().clone()
}

/// A message as its decoded, re-encoded and decoded again form: the same for
/// two encodings of one message, whatever their field order or defaults.
fn normal(descriptor: &MessageDescriptor, bytes: &[u8]) -> DynamicMessage {
    let once = DynamicMessage::decode(descriptor.clone(), bytes).expect("decodes");
    DynamicMessage::decode(descriptor.clone(), once.encode_to_vec().as_slice()).expect("decodes again")
}

const STRINGS: &[&str] = &[
    "",
    "a",
    "héllo ✓",
    "quote \" and \\ back",
    "line\nbreak",
    "😀 wide",
];

fn timestamp(rng: &mut Rng) -> Value {
    let year = 1 + rng.below(9999);
    let month = 1 + rng.below(12);
    let day = 1 + rng.below(28);
    let mut text = format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        rng.below(24),
        rng.below(60),
        rng.below(60)
    );
    let digits = rng.below(10) as usize;
    if digits > 0 {
        let fraction = format!("{:09}", rng.below(1_000_000_000));
        text.push('.');
        text.push_str(&fraction[..digits]);
    }
    if rng.one_in(3) {
        let sign = if rng.one_in(2) { '+' } else { '-' };
        text.push_str(&format!("{sign}{:02}:{:02}", rng.below(24), rng.below(60)));
    } else {
        text.push('Z');
    }
    Value::String(text)
}

fn any_json(rng: &mut Rng, depth: u32) -> Value {
    match rng.below(if depth < 3 { 8 } else { 6 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.one_in(2)),
        2 => json!(rng.pick(&[0i64, 1, -7, 1 << 40])),
        3 => json!(rng.pick(&[0.5f64, -2.25, 1e100])),
        4 | 5 => Value::String(rng.pick(STRINGS).to_string()),
        6 => Value::Object(
            (0..rng.below(4))
                .map(|_| (rng.pick(STRINGS).to_string(), any_json(rng, depth + 1)))
                .collect(),
        ),
        _ => Value::Array((0..rng.below(4)).map(|_| any_json(rng, depth + 1)).collect()),
    }
}

/// A number or, as ProtoJSON allows, its decimal text.
fn integer<T: Into<i128> + Copy>(rng: &mut Rng, values: &[T]) -> Value {
    let n: i128 = rng.pick(values).into();
    if rng.one_in(4) {
        Value::String(n.to_string())
    } else if let Ok(n) = i64::try_from(n) {
        json!(n)
    } else {
        json!(u64::try_from(n).expect("in u64"))
    }
}

fn value_of(rng: &mut Rng, kind: &Kind, depth: u32) -> Value {
    match kind {
        Kind::Double | Kind::Float => {
            if rng.one_in(8) {
                Value::String(rng.pick(&["NaN", "Infinity", "-Infinity"]).to_string())
            } else {
                json!(rng.pick(&[0.0f64, 1.5, -2.25, 1e10, 3.0]))
            }
        }
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
            integer(rng, &[0i32, 1, -1, 123_456, i32::MIN, i32::MAX])
        }
        Kind::Uint32 | Kind::Fixed32 => integer(rng, &[0u32, 1, u32::MAX]),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => {
            integer(rng, &[0i64, -1, i64::MIN, i64::MAX, (1 << 53) + 1])
        }
        Kind::Uint64 | Kind::Fixed64 => integer(rng, &[0u64, 7, u64::MAX]),
        Kind::Bool => Value::Bool(rng.one_in(2)),
        Kind::String => Value::String(rng.pick(STRINGS).to_string()),
        Kind::Bytes => {
            let bytes: Vec<u8> = (0..rng.below(6)).map(|_| rng.next() as u8).collect();
            Value::String(if rng.one_in(4) {
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
            } else {
                base64::engine::general_purpose::STANDARD.encode(bytes)
            })
        }
        Kind::Enum(e) => {
            let values: Vec<_> = e.values().collect();
            let value = rng.pick(&values);
            if rng.one_in(5) {
                json!(value.number())
            } else {
                json!(value.name())
            }
        }
        Kind::Message(m) => message(rng, m, depth + 1),
    }
}

fn field_value(rng: &mut Rng, field: &FieldDescriptor, depth: u32) -> Value {
    if rng.one_in(10) {
        return Value::Null;
    }
    if field.is_map() {
        let Kind::Message(entry) = field.kind() else {
            unreachable!("a map's kind is its entry")
        };
        let value = entry.map_entry_value_field().kind();
        let members: Map<String, Value> = (0..rng.below(3))
            .map(|_| (rng.pick(STRINGS).to_string(), value_of(rng, &value, depth)))
            .collect();
        return Value::Object(members);
    }
    if field.is_list() {
        return Value::Array(
            (0..rng.below(4))
                .map(|_| value_of(rng, &field.kind(), depth))
                .collect(),
        );
    }
    value_of(rng, &field.kind(), depth)
}

/// Random ProtoJSON for `descriptor`, nested messages to a bounded depth.
fn message(rng: &mut Rng, descriptor: &MessageDescriptor, depth: u32) -> Value {
    match descriptor.full_name() {
        "google.protobuf.Timestamp" => return timestamp(rng),
        "google.protobuf.Struct" => {
            return Value::Object(
                (0..rng.below(4))
                    .map(|_| (rng.pick(STRINGS).to_string(), any_json(rng, depth)))
                    .collect(),
            )
        }
        "google.protobuf.Value" => return any_json(rng, depth),
        "google.protobuf.ListValue" => {
            return Value::Array((0..rng.below(4)).map(|_| any_json(rng, depth)).collect())
        }
        _ => {}
    }
    let mut object = Map::new();
    for field in descriptor.fields() {
        let nested = matches!(field.kind(), Kind::Message(_));
        if rng.one_in(2) || (nested && depth >= 4) {
            continue;
        }
        let name = if rng.one_in(8) {
            field.name()
        } else {
            field.json_name()
        };
        object.insert(name.to_string(), field_value(rng, &field, depth));
    }
    Value::Object(object)
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
