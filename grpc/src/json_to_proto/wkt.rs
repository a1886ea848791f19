//! The well-known types in their own JSON forms: `Timestamp` as RFC 3339
//! text, `Struct` as an object, `Value` as any JSON value, `ListValue` as an
//! array, `Empty` as `{}`.

use super::give_up;
use crate::protowire::{put_bytes, put_nested, put_tag, put_varint, I64, VARINT};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// `google.protobuf.Timestamp` from RFC 3339 text.
pub(super) struct TimestampVisitor<'o>(pub(super) &'o mut Vec<u8>);

impl Visitor<'_> for TimestampVisitor<'_> {
    type Value = ();
    expecting!("an RFC 3339 timestamp");
    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        let (seconds, nanos) = crate::rfc3339::parse(text).ok_or_else(give_up)?;
        if seconds != 0 {
            put_tag(self.0, 1, VARINT);
            put_varint(self.0, seconds as u64);
        }
        if nanos != 0 {
            put_tag(self.0, 2, VARINT);
            put_varint(self.0, nanos as u64);
        }
        Ok(())
    }
}

/// `google.protobuf.Struct`: an object, each member an entry of its field 1.
pub(super) struct StructVisitor<'o> {
    pub(super) out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for StructVisitor<'_> {
    type Value = ();
    expecting!("an object");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Key<'de>>()? {
            put_nested(self.out, 1, |out| {
                put_bytes(out, 1, key.0.as_bytes());
                put_nested(out, 2, |out| map.next_value_seed(AnyValue { out }))
            })?;
        }
        Ok(())
    }
}

/// An object key, borrowed from the text when it has no escapes.
pub(super) struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            expecting!("a key");
            fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(key.into()))
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(key.to_string().into()))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// Any JSON value as a `google.protobuf.Value`'s body.
pub(super) struct AnyValue<'o> {
    pub(super) out: &'o mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for AnyValue<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(ValueVisitor { out: self.out })
    }
}

/// `google.protobuf.Value`: its `kind` oneof, written even at a default.
pub(super) struct ValueVisitor<'o> {
    pub(super) out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for ValueVisitor<'_> {
    type Value = ();
    expecting!("any JSON value");
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        put_tag(self.out, 1, VARINT);
        self.out.push(0);
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<(), E> {
        put_tag(self.out, 2, I64);
        self.out.extend_from_slice(&x.to_bits().to_le_bytes());
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<(), E> {
        self.visit_f64(n as f64)
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<(), E> {
        self.visit_f64(n as f64)
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        put_bytes(self.out, 3, text.as_bytes());
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<(), E> {
        put_tag(self.out, 4, VARINT);
        self.out.push(u8::from(b));
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        put_nested(self.out, 5, |out| StructVisitor { out }.visit_map(map))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        put_nested(self.out, 6, |out| ListVisitor { out }.visit_seq(seq))
    }
}

/// `google.protobuf.ListValue`: an array, each item a `Value` of its field 1.
pub(super) struct ListVisitor<'o> {
    pub(super) out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for ListVisitor<'_> {
    type Value = ();
    expecting!("an array");
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let mut more = true;
            let start = self.out.len();
            put_nested(self.out, 1, |out| {
                let item = AnyValue { out };
                more = seq.next_element_seed(item)?.is_some();
                Ok(())
            })?;
            if !more {
                // The item opened for an element that was not there.
                self.out.truncate(start);
                return Ok(());
            }
        }
    }
}

/// `google.protobuf.Empty`: `{}`.
pub(super) struct EmptyVisitor;

impl<'de> Visitor<'de> for EmptyVisitor {
    type Value = ();
    expecting!("an empty object");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        match map.next_key::<IgnoredAny>()? {
            None => Ok(()),
            Some(_) => Err(give_up()),
        }
    }
}
