//! Seeded random ProtoJSON for any message type of a pool (tests only): the
//! inputs both direct transcoding paths are checked on against the
//! reflective one. Well-formed in the main, with the odd form the
//! reflective path refuses (a timestamp an offset moves out of range, two
//! members of one oneof).

use crate::Service;
use base64::Engine as _;
use prost_reflect::{DescriptorPool, FieldDescriptor, Kind, MessageDescriptor};
use serde_json::{json, Map, Value};

/// A small seeded generator (splitmix64): the same cases on every run.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub(crate) fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
    pub(crate) fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize].clone()
    }
}

pub(crate) fn pool() -> DescriptorPool {
    let service = Service::contract().expect("the generated protos compile");
    let rpc = service.rpcs().next().expect("an rpc");
    rpc.input.parent_pool().clone()
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
pub(crate) fn message(rng: &mut Rng, descriptor: &MessageDescriptor, depth: u32) -> Value {
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
