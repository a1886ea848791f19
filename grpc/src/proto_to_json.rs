//! Protobuf bytes straight to ProtoJSON, in one pass: what the gRPC front
//! does to every request it takes. The plans of [`crate::plan`] tell each
//! field's name and type; the message is read field by field into the JSON
//! value the router takes, with no dynamic message between.
//!
//! It writes what the reflective path writes (checked field for field by
//! this module's tests): JSON names, enums by name (a number the enum does
//! not name as the number), 64-bit integers as numbers, bytes as padded
//! standard base64, non-finite floats as `"NaN"` and `"Infinity"`, fields
//! without presence left out at their default, unknown fields dropped. What
//! it does not cover (a type with no rule, a wire type that does not fit the
//! field, a singular message field given twice, which protobuf merges) gives
//! `None`, and [`crate::transcode::to_json`] takes the reflective path, which
//! decodes it or names the error.

use crate::plan::{self, Cardinality, FieldPlan, Plans, Shape, Type};
use crate::protowire::{I32, I64, LEN, VARINT};
use base64::Engine as _;
use prost_reflect::MessageDescriptor;
use serde_json::{Map, Value};

/// The JSON of `bytes`, a protobuf message of type `descriptor`; `None` when
/// this path does not cover it (see the module doc).
pub fn decode(descriptor: &MessageDescriptor, bytes: &[u8]) -> Option<Value> {
    let (plans, message) = plan::of(descriptor)?;
    read_message(plans, message, bytes)
}

/// A cursor over a message's bytes.
struct Reader<'b>(&'b [u8]);

impl<'b> Reader<'b> {
    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for (i, byte) in self.0.iter().enumerate().take(10) {
            // The tenth byte carries one bit; more would overflow 64 bits.
            if i == 9 && *byte > 1 {
                return None;
            }
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                self.0 = &self.0[i + 1..];
                return Some(value);
            }
        }
        None
    }
    fn bytes(&mut self, n: usize) -> Option<&'b [u8]> {
        let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(head)
    }
    fn fixed32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.bytes(4)?.try_into().ok()?))
    }
    fn fixed64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }
    fn delimited(&mut self) -> Option<&'b [u8]> {
        let len = usize::try_from(self.varint()?).ok()?;
        self.bytes(len)
    }
    /// The next field's number and wire type.
    fn tag(&mut self) -> Option<(u32, u32)> {
        let tag = self.varint()?;
        // Field numbers are 1 to 2^29 - 1; any other is the reflective path's to refuse.
        let number = u32::try_from(tag >> 3)
            .ok()
            .filter(|n| (1..1 << 29).contains(n))?;
        Some((number, (tag & 7) as u32))
    }
    /// Skips a field of an unknown number (groups are not covered).
    fn skip(&mut self, wire: u32) -> Option<()> {
        match wire {
            VARINT => self.varint().map(drop),
            I64 => self.bytes(8).map(drop),
            LEN => self.delimited().map(drop),
            I32 => self.bytes(4).map(drop),
            _ => None,
        }
    }
}

/// What a field of the message being read holds so far.
enum Slot {
    Empty,
    One(Value),
    Many(Vec<Value>),
    Entries(Map<String, Value>),
}

fn read_message(plans: &Plans, message: usize, bytes: &[u8]) -> Option<Value> {
    match &plans.messages[message] {
        Shape::Fields(fields) => read_fields(plans, fields, bytes),
        Shape::Timestamp => read_timestamp(bytes),
        Shape::Struct => read_struct(bytes),
        Shape::Value => read_value(bytes),
        Shape::ListValue => read_list(bytes),
        Shape::Empty => {
            let mut reader = Reader(bytes);
            while !reader.0.is_empty() {
                let (_, wire) = reader.tag()?;
                reader.skip(wire)?;
            }
            Some(Value::Object(Map::new()))
        }
        Shape::Unsupported => None,
    }
}

fn read_fields(plans: &Plans, fields: &[FieldPlan], bytes: &[u8]) -> Option<Value> {
    let mut slots: Vec<Slot> = fields.iter().map(|_| Slot::Empty).collect();
    let mut reader = Reader(bytes);
    while !reader.0.is_empty() {
        let (number, wire) = reader.tag()?;
        let Some(index) = fields.iter().position(|f| f.number == number) else {
            reader.skip(wire)?;
            continue;
        };
        let field = &fields[index];
        match field.cardinality {
            Cardinality::Single { .. } => {
                // A message given twice is merged by protobuf: not covered.
                if matches!(field.ty, Type::Message(_)) && !matches!(slots[index], Slot::Empty) {
                    return None;
                }
                let value = read_typed(plans, field.ty, wire, &mut reader)?;
                // The last member of a oneof read is the one set.
                if let Some(oneof) = field.oneof {
                    for (slot, other) in slots.iter_mut().zip(fields) {
                        if other.oneof == Some(oneof) {
                            *slot = Slot::Empty;
                        }
                    }
                }
                slots[index] = Slot::One(value);
            }
            Cardinality::Repeated { .. } => {
                let mut items = match std::mem::replace(&mut slots[index], Slot::Empty) {
                    Slot::Many(items) => items,
                    _ => Vec::new(),
                };
                if wire == LEN && packable(field.ty) {
                    let mut packed = Reader(reader.delimited()?);
                    let item_wire = scalar_wire(field.ty);
                    while !packed.0.is_empty() {
                        items.push(read_typed(plans, field.ty, item_wire, &mut packed)?);
                    }
                } else {
                    items.push(read_typed(plans, field.ty, wire, &mut reader)?);
                }
                slots[index] = Slot::Many(items);
            }
            Cardinality::Map { value } => {
                if wire != LEN {
                    return None;
                }
                let (key, value) = read_entry(plans, value, reader.delimited()?)?;
                let mut entries = match std::mem::replace(&mut slots[index], Slot::Empty) {
                    Slot::Entries(entries) => entries,
                    _ => Map::new(),
                };
                entries.insert(key, value);
                slots[index] = Slot::Entries(entries);
            }
        }
    }
    let mut object = Map::new();
    for (slot, field) in slots.into_iter().zip(fields) {
        let value = match slot {
            Slot::Empty => continue,
            Slot::One(value) => {
                let presence = matches!(field.cardinality, Cardinality::Single { presence: true });
                if !presence && is_default(plans, field.ty, &value) {
                    continue;
                }
                value
            }
            Slot::Many(items) if items.is_empty() => continue,
            Slot::Many(items) => Value::Array(items),
            Slot::Entries(entries) => Value::Object(entries),
        };
        object.insert(field.json_name.to_string(), value);
    }
    // What the contract requires is written even at its default.
    for field in fields.iter().filter(|f| f.required_default) {
        if !object.contains_key(&*field.json_name) {
            let default = match field.cardinality {
                Cardinality::Repeated { .. } => Value::Array(Vec::new()),
                Cardinality::Map { .. } => Value::Object(Map::new()),
                Cardinality::Single { .. } => default_of(plans, field.ty)?,
            };
            object.insert(field.json_name.to_string(), default);
        }
    }
    Some(Value::Object(object))
}

/// Whether `value` is its type's default, as ProtoJSON leaves it out.
fn is_default(plans: &Plans, ty: Type, value: &Value) -> bool {
    match (ty, value) {
        (Type::Message(_), _) => false,
        (Type::Enum(e), Value::String(name)) => plans.enums[e]
            .values
            .iter()
            .any(|(n, number)| **n == **name && *number == 0),
        (_, Value::Bool(b)) => !b,
        (_, Value::String(s)) => s.is_empty(),
        (_, Value::Number(n)) => n.as_f64() == Some(0.0),
        _ => false,
    }
}

/// The numeric kinds, bools and enums: what a packed list may hold.
fn packable(ty: Type) -> bool {
    !matches!(ty, Type::String | Type::Bytes | Type::Message(_))
}

/// The wire type a scalar of `ty` is written with.
fn scalar_wire(ty: Type) -> u32 {
    match ty {
        Type::Double | Type::Fixed64 | Type::Sfixed64 => I64,
        Type::Float | Type::Fixed32 | Type::Sfixed32 => I32,
        _ => VARINT,
    }
}

/// A float as ProtoJSON writes it: a number (an integral one as the integer
/// it is, as the contract's JSON has it), or the name of a non-finite one.
fn float(x: f64) -> Value {
    if let Some(n) = integral(x) {
        Value::from(n)
    } else if x.is_finite() {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    } else if x.is_nan() {
        Value::String("NaN".into())
    } else if x > 0.0 {
        Value::String("Infinity".into())
    } else {
        Value::String("-Infinity".into())
    }
}

/// `x` as an integer, when it is one that a double holds exactly.
pub(crate) fn integral(x: f64) -> Option<i64> {
    /// 2^53: every integer below it is exact in a double.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    (x.fract() == 0.0 && x.abs() < EXACT).then_some(x as i64)
}

/// One value of type `ty`, sent with `wire`.
fn read_typed(plans: &Plans, ty: Type, wire: u32, reader: &mut Reader<'_>) -> Option<Value> {
    if wire != if packable(ty) { scalar_wire(ty) } else { LEN } {
        return None;
    }
    Some(match ty {
        Type::Double => float(f64::from_bits(reader.fixed64()?)),
        Type::Float => float(f64::from(f32::from_bits(reader.fixed32()?))),
        Type::Int32 => Value::from(reader.varint()? as i32),
        Type::Int64 => Value::from(reader.varint()? as i64),
        Type::Uint32 => Value::from(reader.varint()? as u32),
        Type::Uint64 => Value::from(reader.varint()?),
        Type::Sint32 => {
            let n = reader.varint()? as u32;
            Value::from(((n >> 1) as i32) ^ -((n & 1) as i32))
        }
        Type::Sint64 => {
            let n = reader.varint()?;
            Value::from(((n >> 1) as i64) ^ -((n & 1) as i64))
        }
        Type::Fixed32 => Value::from(reader.fixed32()?),
        Type::Fixed64 => Value::from(reader.fixed64()?),
        Type::Sfixed32 => Value::from(reader.fixed32()? as i32),
        Type::Sfixed64 => Value::from(reader.fixed64()? as i64),
        Type::Bool => Value::Bool(reader.varint()? != 0),
        Type::String => Value::String(std::str::from_utf8(reader.delimited()?).ok()?.to_string()),
        Type::Bytes => Value::String(base64::engine::general_purpose::STANDARD.encode(reader.delimited()?)),
        Type::Enum(e) => {
            let number = reader.varint()? as i32;
            let values = &plans.enums[e].values;
            match values.iter().find(|(_, n)| *n == number) {
                Some((name, _)) => Value::String(name.to_string()),
                None => Value::from(number),
            }
        }
        Type::Message(m) => read_message(plans, m, reader.delimited()?)?,
    })
}

/// A map entry: its key (field 1) and value (field 2), each its default when absent.
fn read_entry(plans: &Plans, value_ty: Type, bytes: &[u8]) -> Option<(String, Value)> {
    let mut reader = Reader(bytes);
    let (mut key, mut value) = (String::new(), None);
    while !reader.0.is_empty() {
        match reader.tag()? {
            (1, LEN) => key = std::str::from_utf8(reader.delimited()?).ok()?.to_string(),
            (2, wire) => value = Some(read_typed(plans, value_ty, wire, &mut reader)?),
            (number, wire) => skip_unknown(&mut reader, number, wire, 2)?,
        }
    }
    let value = match value {
        Some(value) => value,
        // Written at its default, the value is left out of the entry.
        None => default_of(plans, value_ty)?,
    };
    Some((key, value))
}

/// The JSON of a value of type `ty` at its default, as the reflective path writes it.
fn default_of(plans: &Plans, ty: Type) -> Option<Value> {
    Some(match ty {
        Type::Message(m) => read_message(plans, m, &[])?,
        Type::String | Type::Bytes => Value::String(String::new()),
        Type::Bool => Value::Bool(false),
        Type::Double | Type::Float => float(0.0),
        Type::Enum(e) => match plans.enums[e].values.iter().find(|(_, n)| *n == 0) {
            Some((name, _)) => Value::String(name.to_string()),
            None => Value::from(0),
        },
        _ => Value::from(0),
    })
}

// ---- the well-known types ----

/// Skips a field a well-known type (whose fields are numbered 1 to `known`)
/// does not have; one of its own fields with another wire type is the
/// reflective path's to refuse.
fn skip_unknown(reader: &mut Reader<'_>, number: u32, wire: u32, known: u32) -> Option<()> {
    if number <= known {
        return None;
    }
    reader.skip(wire)
}

/// `google.protobuf.Timestamp` as RFC 3339 text.
fn read_timestamp(bytes: &[u8]) -> Option<Value> {
    let mut reader = Reader(bytes);
    let mut timestamp = prost_types::Timestamp::default();
    while !reader.0.is_empty() {
        match reader.tag()? {
            (1, VARINT) => timestamp.seconds = reader.varint()? as i64,
            (2, VARINT) => timestamp.nanos = reader.varint()? as i32,
            (number, wire) => skip_unknown(&mut reader, number, wire, 2)?,
        }
    }
    // What no RFC 3339 text can say is the reflective path's to refuse.
    let in_range =
        crate::rfc3339::in_range(timestamp.seconds) && (0..1_000_000_000).contains(&timestamp.nanos);
    in_range.then(|| Value::String(timestamp.to_string()))
}

/// `google.protobuf.Struct`: its entries (field 1) as an object.
fn read_struct(bytes: &[u8]) -> Option<Value> {
    let mut reader = Reader(bytes);
    let mut object = Map::new();
    while !reader.0.is_empty() {
        match reader.tag()? {
            (1, LEN) => {
                let mut entry = Reader(reader.delimited()?);
                let (mut key, mut value) = (String::new(), Value::Null);
                while !entry.0.is_empty() {
                    match entry.tag()? {
                        (1, LEN) => key = std::str::from_utf8(entry.delimited()?).ok()?.to_string(),
                        (2, LEN) => value = read_value(entry.delimited()?)?,
                        (number, wire) => skip_unknown(&mut entry, number, wire, 2)?,
                    }
                }
                object.insert(key, value);
            }
            (number, wire) => skip_unknown(&mut reader, number, wire, 1)?,
        }
    }
    Some(Value::Object(object))
}

/// `google.protobuf.Value`: the JSON value its `kind` holds.
fn read_value(bytes: &[u8]) -> Option<Value> {
    let mut reader = Reader(bytes);
    let mut value = None;
    while !reader.0.is_empty() {
        value = Some(match reader.tag()? {
            (1, VARINT) => {
                reader.varint()?;
                Value::Null
            }
            (2, I64) => {
                let x = f64::from_bits(reader.fixed64()?);
                // A non-finite number has no JSON form: the reflective path decides.
                match integral(x) {
                    Some(n) => Value::from(n),
                    None => Value::Number(serde_json::Number::from_f64(x)?),
                }
            }
            (3, LEN) => Value::String(std::str::from_utf8(reader.delimited()?).ok()?.to_string()),
            (4, VARINT) => Value::Bool(reader.varint()? != 0),
            (5, LEN) => read_struct(reader.delimited()?)?,
            (6, LEN) => read_list(reader.delimited()?)?,
            (number, wire) => {
                skip_unknown(&mut reader, number, wire, 6)?;
                continue;
            }
        });
    }
    // A Value with no kind set: the reflective path decides.
    value
}

/// `google.protobuf.ListValue`: its values (field 1) as an array.
fn read_list(bytes: &[u8]) -> Option<Value> {
    let mut reader = Reader(bytes);
    let mut items = Vec::new();
    while !reader.0.is_empty() {
        match reader.tag()? {
            (1, LEN) => items.push(read_value(reader.delimited()?)?),
            (number, wire) => skip_unknown(&mut reader, number, wire, 1)?,
        }
    }
    Some(Value::Array(items))
}

#[cfg(test)]
mod tests;
