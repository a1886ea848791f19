//! The plans the direct transcoding paths (`json_to_proto`, `proto_to_json`)
//! work by: for every message type of a pool, how its JSON reads (an object
//! of fields, or one of the well-known types' own forms) and, per field, its
//! names, number, type, presence and cardinality. Compiled once, for the
//! first pool asked about (the contract's).

use prost_reflect::{DescriptorPool, FieldDescriptor, Kind, MessageDescriptor};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The plans of the first pool asked about.
static PLANS: OnceLock<Plans> = OnceLock::new();

/// The plans `descriptor` belongs to and its index in them; `None` for a
/// message of another pool.
pub(crate) fn of(descriptor: &MessageDescriptor) -> Option<(&'static Plans, usize)> {
    let plans = PLANS.get_or_init(|| Plans::compile(descriptor.parent_pool()));
    if plans.pool != *descriptor.parent_pool() {
        return None;
    }
    Some((plans, *plans.by_name.get(descriptor.full_name())?))
}

/// The plans of every message and enum of one pool.
pub(crate) struct Plans {
    pub(crate) pool: DescriptorPool,
    pub(crate) messages: Vec<Shape>,
    pub(crate) enums: Vec<EnumPlan>,
    pub(crate) by_name: HashMap<String, usize>,
}

/// How a message's JSON is read.
pub(crate) enum Shape {
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

pub(crate) struct FieldPlan {
    pub(crate) json_name: Box<str>,
    pub(crate) proto_name: Box<str>,
    pub(crate) number: u32,
    /// The field's oneof (its index in the message), of which JSON may give one member.
    pub(crate) oneof: Option<u32>,
    /// The field has no presence and the contract's schema requires it: its
    /// JSON is written even at its default (see `transcode`).
    pub(crate) required_default: bool,
    pub(crate) ty: Type,
    pub(crate) cardinality: Cardinality,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Type {
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
pub(crate) enum Cardinality {
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

pub(crate) struct EnumPlan {
    pub(crate) values: Vec<(Box<str>, i32)>,
}

/// The most fields a message may have here (the duplicate check is a bit set).
pub(crate) const MAX_FIELDS: usize = 64;

impl Plans {
    fn compile(pool: &DescriptorPool) -> Plans {
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
    let required = a2a::schema::definition(message.name())
        .and_then(|definition| definition.get("required"))
        .and_then(serde_json::Value::as_array);
    let fields: Option<Vec<FieldPlan>> = message
        .fields()
        .map(|f| {
            let mut plan = field(&f, messages, enums)?;
            let named = required.is_some_and(|names| names.iter().any(|n| n == f.json_name()));
            plan.required_default = named && !f.supports_presence();
            Some(plan)
        })
        .collect();
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
        required_default: false,
        ty: value_ty,
        cardinality,
    })
}
