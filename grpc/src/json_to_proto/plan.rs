//! The plans the direct path reads JSON by: for every message type of a
//! pool, how its JSON is read (an object of fields, or one of the well-known
//! types' own forms) and, per field, its names, number, type and cardinality.

use prost_reflect::{DescriptorPool, FieldDescriptor, Kind, MessageDescriptor};
use std::collections::HashMap;

/// The plans of every message and enum of one pool.
pub(super) struct Plans {
    pub(super) pool: DescriptorPool,
    pub(super) messages: Vec<Shape>,
    pub(super) enums: Vec<EnumPlan>,
    pub(super) by_name: HashMap<String, usize>,
}

/// How a message's JSON is read.
pub(super) enum Shape {
    /// An object of the message's fields.
    Fields(Vec<FieldPlan>),
    Timestamp,
    Struct,
    Value,
    ListValue,
    Empty,
    /// A type this path has no rule for (Any, Duration, wrappers, field masks, groups, ...).
    Unsupported,
}

pub(super) struct FieldPlan {
    pub(super) json_name: Box<str>,
    pub(super) proto_name: Box<str>,
    pub(super) number: u32,
    /// The field's oneof (its index in the message), of which JSON may give one member.
    pub(super) oneof: Option<u32>,
    pub(super) ty: Type,
    pub(super) cardinality: Cardinality,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Type {
    Double,
    Float,
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Fixed32,
    Fixed64,
    Sfixed32,
    Sfixed64,
    Bool,
    String,
    Bytes,
    Enum(usize),
    Message(usize),
}

#[derive(Clone, Copy)]
pub(super) enum Cardinality {
    /// One value; `presence` says whether its default is written too.
    Single {
        presence: bool,
    },
    Repeated {
        packed: bool,
    },
    /// A map with string keys; `value` is the entry's value type.
    Map {
        value: Type,
    },
}

pub(super) struct EnumPlan {
    pub(super) values: Vec<(Box<str>, i32)>,
}

/// The most fields a message may have here (the duplicate check is a bit set).
pub(super) const MAX_FIELDS: usize = 64;

impl Plans {
    pub(super) fn compile(pool: &DescriptorPool) -> Plans {
        let by_name: HashMap<String, usize> = pool
            .all_messages()
            .enumerate()
            .map(|(i, m)| (m.full_name().to_string(), i))
            .collect();
        let enum_index: HashMap<String, usize> = pool
            .all_enums()
            .enumerate()
            .map(|(i, e)| (e.full_name().to_string(), i))
            .collect();
        let enums = pool
            .all_enums()
            .map(|e| EnumPlan {
                values: e.values().map(|v| (v.name().into(), v.number())).collect(),
            })
            .collect();
        let messages = pool
            .all_messages()
            .map(|m| shape(&m, &by_name, &enum_index))
            .collect();
        Plans {
            pool: pool.clone(),
            messages,
            enums,
            by_name,
        }
    }
}

fn shape(
    message: &MessageDescriptor,
    messages: &HashMap<String, usize>,
    enums: &HashMap<String, usize>,
) -> Shape {
    match message.full_name() {
        "google.protobuf.Timestamp" => return Shape::Timestamp,
        "google.protobuf.Struct" => return Shape::Struct,
        "google.protobuf.Value" => return Shape::Value,
        "google.protobuf.ListValue" => return Shape::ListValue,
        "google.protobuf.Empty" => return Shape::Empty,
        name if name.starts_with("google.protobuf.") => return Shape::Unsupported,
        _ => {}
    }
    if message.fields().len() > MAX_FIELDS {
        return Shape::Unsupported;
    }
    let fields: Option<Vec<FieldPlan>> = message.fields().map(|f| field(&f, messages, enums)).collect();
    fields.map_or(Shape::Unsupported, Shape::Fields)
}

fn ty(kind: &Kind, messages: &HashMap<String, usize>, enums: &HashMap<String, usize>) -> Option<Type> {
    Some(match kind {
        Kind::Double => Type::Double,
        Kind::Float => Type::Float,
        Kind::Int32 => Type::Int32,
        Kind::Int64 => Type::Int64,
        Kind::Uint32 => Type::Uint32,
        Kind::Uint64 => Type::Uint64,
        Kind::Sint32 => Type::Sint32,
        Kind::Sint64 => Type::Sint64,
        Kind::Fixed32 => Type::Fixed32,
        Kind::Fixed64 => Type::Fixed64,
        Kind::Sfixed32 => Type::Sfixed32,
        Kind::Sfixed64 => Type::Sfixed64,
        Kind::Bool => Type::Bool,
        Kind::String => Type::String,
        Kind::Bytes => Type::Bytes,
        // NullValue reads `null`, which only `Value` takes here.
        Kind::Enum(e) if e.full_name() == "google.protobuf.NullValue" => return None,
        Kind::Enum(e) => Type::Enum(*enums.get(e.full_name())?),
        Kind::Message(m) => Type::Message(*messages.get(m.full_name())?),
    })
}

fn field(
    field: &FieldDescriptor,
    messages: &HashMap<String, usize>,
    enums: &HashMap<String, usize>,
) -> Option<FieldPlan> {
    if field.is_group() {
        return None;
    }
    let (value_ty, cardinality) = if field.is_map() {
        let Kind::Message(entry) = field.kind() else {
            return None;
        };
        if entry.map_entry_key_field().kind() != Kind::String {
            return None;
        }
        let value = ty(&entry.map_entry_value_field().kind(), messages, enums)?;
        (Type::String, Cardinality::Map { value })
    } else if field.is_list() {
        let packed = field.is_packed();
        (
            ty(&field.kind(), messages, enums)?,
            Cardinality::Repeated { packed },
        )
    } else {
        let presence = field.supports_presence();
        (
            ty(&field.kind(), messages, enums)?,
            Cardinality::Single { presence },
        )
    };
    let oneof = match field.containing_oneof() {
        Some(oneof) => {
            let index = field
                .parent_message()
                .oneofs()
                .position(|o| o.full_name() == oneof.full_name())?;
            if index >= MAX_FIELDS {
                return None;
            }
            Some(index as u32)
        }
        None => None,
    };
    Some(FieldPlan {
        json_name: field.json_name().into(),
        proto_name: field.name().into(),
        number: field.number(),
        oneof,
        ty: value_ty,
        cardinality,
    })
}
