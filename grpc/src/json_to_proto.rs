//! ProtoJSON text straight to protobuf bytes, in one pass: what the gRPC
//! front does to every answer and event it writes. A plan compiled once per
//! message type of the pool (each field's JSON names, number, wire type and
//! presence) drives a serde visitor over the JSON text that writes the
//! encoding as it reads, with no dynamic message and no JSON tree between.
//!
//! The plan covers the kinds the contract's protos use: scalars, enums,
//! nested and repeated messages, maps with string keys, and the well-known
//! `Timestamp`, `Struct`, `Value`, `ListValue` and `Empty`. Anything else (a
//! type with no rule here, a value in a form the plan does not take, a field
//! given twice) gives `None`, and [`crate::transcode::from_json`] takes the
//! reflective path instead, which encodes it or names the error: this path
//! never decides that JSON is invalid, so it changes no answer.
//!
//! Fields are written in the order the JSON has them (protobuf readers take
//! any order), repeated numeric fields packed (proto3's default), and fields
//! without presence left out at their default value, as every encoder does.

/// A visitor's `expecting`: what it reads.
macro_rules! expecting {
    ($what:literal) => {
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str($what)
        }
    };
}

mod scalar;

mod wkt;

use crate::plan::{self, Cardinality, FieldPlan, Plans, Shape, Type};
use crate::protowire::{put_bytes, put_nested, put_tag, tag_len, VARINT};
use prost_reflect::MessageDescriptor;
use scalar::{decode_base64, read_scalar, write_scalar};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;
use wkt::{EmptyVisitor, ListVisitor, StructVisitor, TimestampVisitor, ValueVisitor};

/// The protobuf encoding of `json`, a message of type `descriptor`; `None`
/// when this path does not cover it (see the module doc).
pub fn encode(descriptor: &MessageDescriptor, json: &str) -> Option<Vec<u8>> {
    let (plans, message) = plan::of(descriptor)?;
    let mut out = Vec::with_capacity(json.len());
    let mut deserializer = serde_json::Deserializer::from_str(json);
    Body {
        plans,
        message,
        out: &mut out,
    }
    .deserialize(&mut deserializer)
    .ok()?;
    deserializer.end().ok()?;
    Some(out)
}

fn give_up<E: de::Error>() -> E {
    E::custom("not covered by the direct path")
}

// ---- the JSON reader ----

/// A message's body, read from its JSON.
struct Body<'p, 'o> {
    plans: &'p Plans,
    message: usize,
    out: &'o mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for Body<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match &self.plans.messages[self.message] {
            Shape::Fields(fields) => deserializer.deserialize_map(FieldsVisitor {
                plans: self.plans,
                fields,
                out: self.out,
            }),
            Shape::Timestamp => deserializer.deserialize_str(TimestampVisitor(self.out)),
            Shape::Struct => deserializer.deserialize_map(StructVisitor { out: self.out }),
            Shape::Value => deserializer.deserialize_any(ValueVisitor { out: self.out }),
            Shape::ListValue => deserializer.deserialize_seq(ListVisitor { out: self.out }),
            Shape::Empty => deserializer.deserialize_map(EmptyVisitor),
            Shape::Unsupported => Err(give_up()),
        }
    }
}

/// A key of a message's object: the index of its field (by JSON or proto
/// name), `None` for a member the message has not.
struct FieldKey<'p>(&'p [FieldPlan]);

impl<'de> DeserializeSeed<'de> for FieldKey<'_> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for FieldKey<'_> {
    type Value = Option<usize>;
    expecting!("a field name");
    fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<usize>, E> {
        Ok(self
            .0
            .iter()
            .position(|f| &*f.json_name == name || &*f.proto_name == name))
    }
}

struct FieldsVisitor<'p, 'o> {
    plans: &'p Plans,
    fields: &'p [FieldPlan],
    out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for FieldsVisitor<'_, '_> {
    type Value = ();
    expecting!("a message object");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (mut seen, mut oneofs) = (0u64, 0u64);
        while let Some(index) = map.next_key_seed(FieldKey(self.fields))? {
            let Some(index) = index else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            // A field given twice (by both its names, say), or two members
            // of one oneof: the reflective path decides.
            if seen & (1 << index) != 0 {
                return Err(give_up());
            }
            seen |= 1 << index;
            let field = &self.fields[index];
            let set = map.next_value_seed(FieldValue {
                plans: self.plans,
                field,
                out: self.out,
            })?;
            if let (true, Some(oneof)) = (set, field.oneof) {
                if oneofs & (1 << oneof) != 0 {
                    return Err(give_up());
                }
                oneofs |= 1 << oneof;
            }
        }
        Ok(())
    }
}

/// One member's value: `null` is the field unset (but for a `Value`, whose
/// `null` is its null value). Answers whether the field is set.
struct FieldValue<'p, 'o> {
    plans: &'p Plans,
    field: &'p FieldPlan,
    out: &'o mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for FieldValue<'_, '_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for FieldValue<'_, '_> {
    type Value = bool;
    expecting!("a field's value");
    fn visit_none<E: de::Error>(self) -> Result<bool, E> {
        match (self.field.ty, self.field.cardinality) {
            (Type::Message(m), Cardinality::Single { .. })
                if matches!(self.plans.messages[m], Shape::Value) =>
            {
                put_nested(self.out, self.field.number, |out| {
                    put_tag(out, 1, VARINT);
                    out.push(0);
                    Ok(())
                })
                .map(|()| true)
            }
            _ => Ok(false),
        }
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        self.visit_none()
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        self.write(deserializer).map(|()| true)
    }
}

impl FieldValue<'_, '_> {
    /// Writes a value that is not `null`.
    fn write<'de, D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let (plans, field, out) = (self.plans, self.field, self.out);
        match field.cardinality {
            Cardinality::Single { presence } => Typed {
                plans,
                ty: field.ty,
                number: field.number,
                presence,
                out,
            }
            .deserialize(deserializer),
            Cardinality::Repeated { packed: true } => {
                let start = out.len();
                put_nested(out, field.number, |out| {
                    deserializer.deserialize_seq(ItemsVisitor {
                        plans,
                        ty: field.ty,
                        number: field.number,
                        packed: true,
                        out,
                    })
                })?;
                // An empty packed list is no field at all.
                if out.len() == start + tag_len(field.number) + 1 {
                    out.truncate(start);
                }
                Ok(())
            }
            Cardinality::Repeated { packed: false } => deserializer.deserialize_seq(ItemsVisitor {
                plans,
                ty: field.ty,
                number: field.number,
                packed: false,
                out,
            }),
            Cardinality::Map { value } => deserializer.deserialize_map(MapVisitor {
                plans,
                value,
                number: field.number,
                out,
            }),
        }
    }
}

/// The items of a list: each its own field, or packed (written bare, in
/// the one length-delimited field the caller opened).
struct ItemsVisitor<'p, 'o> {
    plans: &'p Plans,
    ty: Type,
    number: u32,
    packed: bool,
    out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for ItemsVisitor<'_, '_> {
    type Value = ();
    expecting!("a list");
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let item = Typed {
                plans: self.plans,
                ty: self.ty,
                number: self.number,
                presence: true,
                out: &mut *self.out,
            };
            let more = if self.packed {
                seq.next_element_seed(Untagged(item))?
            } else {
                seq.next_element_seed(item)?
            };
            if more.is_none() {
                return Ok(());
            }
        }
    }
}

struct MapVisitor<'p, 'o> {
    plans: &'p Plans,
    value: Type,
    number: u32,
    out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for MapVisitor<'_, '_> {
    type Value = ();
    expecting!("a map object");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        loop {
            let mut more = true;
            let start = self.out.len();
            put_nested(self.out, self.number, |out| {
                match map.next_key_seed(KeyBytes(out))? {
                    None => more = false,
                    Some(()) => {
                        let value = Typed {
                            plans: self.plans,
                            ty: self.value,
                            number: 2,
                            presence: true,
                            out,
                        };
                        map.next_value_seed(value)?;
                    }
                }
                Ok(())
            })?;
            if !more {
                // The entry opened for a key that was not there.
                self.out.truncate(start);
                return Ok(());
            }
        }
    }
}

/// A map key, written as the entry's field 1.
struct KeyBytes<'o>(&'o mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for KeyBytes<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyBytes<'_> {
    type Value = ();
    expecting!("a map key");
    fn visit_str<E: de::Error>(self, key: &str) -> Result<(), E> {
        put_bytes(self.0, 1, key.as_bytes());
        Ok(())
    }
}

/// One value of a known type, written as field `number` (left out at its
/// default without `presence`).
struct Typed<'p, 'o> {
    plans: &'p Plans,
    ty: Type,
    number: u32,
    presence: bool,
    out: &'o mut Vec<u8>,
}

/// A [`Typed`] scalar written bare (an item of a packed list).
struct Untagged<'p, 'o>(Typed<'p, 'o>);

impl<'de> DeserializeSeed<'de> for Untagged<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let Untagged(typed) = self;
        let scalar = read_scalar(typed.plans, typed.ty, deserializer)?;
        write_scalar(typed.out, scalar);
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Typed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.ty {
            Type::String => deserializer.deserialize_str(StrVisitor(self)),
            Type::Bytes => deserializer.deserialize_str(StrVisitor(self)),
            Type::Message(message) => put_nested(self.out, self.number, |out| {
                Body {
                    plans: self.plans,
                    message,
                    out,
                }
                .deserialize(deserializer)
            }),
            _ => {
                let scalar = read_scalar(self.plans, self.ty, deserializer)?;
                if self.presence || !scalar.is_default(self.ty) {
                    put_tag(self.out, self.number, scalar.wire());
                    write_scalar(self.out, scalar);
                }
                Ok(())
            }
        }
    }
}

struct StrVisitor<'p, 'o>(Typed<'p, 'o>);

impl Visitor<'_> for StrVisitor<'_, '_> {
    type Value = ();
    expecting!("a string");
    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        let typed = self.0;
        let decoded;
        let bytes = if typed.ty == Type::Bytes {
            decoded = decode_base64(text).ok_or_else(give_up)?;
            &decoded[..]
        } else {
            text.as_bytes()
        };
        if typed.presence || !bytes.is_empty() {
            put_bytes(typed.out, typed.number, bytes);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
