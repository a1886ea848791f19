//! One incoming message read straight into the members of a JSON-RPC request
//! object, as [`validate`](super::validate) needs them: three of the members
//! the protocol names as JSON values, `params` as its text (which the method's
//! params type is decoded from, with no value tree between), and the name of
//! the first other member. The envelope itself never becomes a map, whose
//! keys would each be allocated and hashed only to be taken out again.
//!
//! It reads exactly what a `serde_json::Value` would: every value is parsed
//! in full (a number out of range is a parse error wherever it is, in the
//! params too), and a member given twice keeps its last value.

use a2a::rpc::Params;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;

/// A message as read: a request object's members, or the shape it has instead.
// It lives on the stack for the one call that validates it; boxing the
// members would add back an allocation per message.
#[allow(clippy::large_enum_variant)]
pub(super) enum Message {
    Object(Members),
    /// A batch, which the server does not take.
    Array,
    /// A string, number, boolean or null.
    Other,
}

/// The members of a request object.
#[derive(Default)]
pub(super) struct Members {
    pub(super) jsonrpc: Option<Value>,
    pub(super) id: Option<Value>,
    pub(super) method: Option<Value>,
    /// The params' text, its numbers checked.
    pub(super) params: Option<Box<RawValue>>,
    /// The first member the protocol does not name.
    pub(super) unknown: Option<String>,
}

/// A member's name: one of the protocol's, or another.
enum Name {
    Jsonrpc,
    Id,
    Method,
    Params,
    Other(String),
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Name, E> {
                Ok(match name {
                    "jsonrpc" => Name::Jsonrpc,
                    "id" => Name::Id,
                    "method" => Name::Method,
                    "params" => Name::Params,
                    other => Name::Other(other.to_owned()),
                })
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let mut members = Members::default();
        while let Some(name) = map.next_key::<Name>()? {
            if let Name::Params = name {
                let text = map.next_value::<Box<RawValue>>()?;
                Params::check_text(&text).map_err(de::Error::custom)?;
                members.params = Some(text);
                continue;
            }
            let value = map.next_value::<Value>()?;
            match name {
                Name::Jsonrpc => members.jsonrpc = Some(value),
                Name::Id => members.id = Some(value),
                Name::Method => members.method = Some(value),
                Name::Params => {}
                Name::Other(name) => {
                    members.unknown.get_or_insert(name);
                }
            }
        }
        Ok(Message::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Message, A::Error> {
        while seq.next_element::<Value>()?.is_some() {}
        Ok(Message::Array)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Message, E> {
        Ok(Message::Other)
    }
}
