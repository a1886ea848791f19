//! A call's params as a binding hands them to the dispatcher: absent, the
//! JSON text the caller sent, or a JSON value a binding built.
//!
//! JSON-RPC carries params as text inside its envelope. Kept as that text,
//! they are decoded once, straight into the method's generated type: no
//! `serde_json::Value` tree (a map, a hashed key and an allocation per
//! member) is built only to be taken apart again. Bindings that assemble
//! params themselves (HTTP+JSON from a path, a query and a body; gRPC from a
//! protobuf message) hand over the value they built.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;

/// The params of one call.
#[derive(Debug, Default)]
pub enum Params {
    /// The call has no params; they read as `{}`.
    #[default]
    Absent,
    /// The params' JSON text, as sent: one complete JSON value whose numbers
    /// are all in range (the binding that captured it checked, see
    /// [`Params::check_text`]).
    Text(Box<RawValue>),
    /// The params as a JSON value.
    Value(Value),
}

impl From<Option<Value>> for Params {
    fn from(params: Option<Value>) -> Self {
        params.map_or(Params::Absent, Params::Value)
    }
}

impl From<Value> for Params {
    fn from(params: Value) -> Self {
        Params::Value(params)
    }
}

impl From<Box<RawValue>> for Params {
    fn from(text: Box<RawValue>) -> Self {
        Params::Text(text)
    }
}

impl Params {
    /// True when the call has no params.
    pub fn is_absent(&self) -> bool {
        matches!(self, Params::Absent)
    }

    /// True when the params are a JSON object (what every method takes).
    pub fn is_object(&self) -> bool {
        match self {
            Params::Absent => false,
            Params::Text(text) => text.get().trim_start().starts_with('{'),
            Params::Value(value) => value.is_object(),
        }
    }

    /// The string value of the top-level member `name`, when the params are
    /// an object that has it as a string (the last one, if given twice, as a
    /// value would keep it). Text is scanned, not decoded: only the member's
    /// own string is allocated, and text that cannot name it is not read.
    pub fn string_member(&self, name: &str) -> Option<String> {
        match self {
            Params::Absent => None,
            Params::Value(value) => value.get(name)?.as_str().map(str::to_owned),
            // Most params never name the member: a substring search tells,
            // before any JSON is read.
            Params::Text(_) if !self.may_have_member(name) => None,
            Params::Text(text) => {
                let mut reader = serde_json::Deserializer::from_str(text.get());
                reader.deserialize_any(MemberVisitor { name }).ok().flatten()
            }
        }
    }

    /// False only when the params surely lack a top-level member `name`,
    /// told without decoding text: text that never spells the name out nor
    /// escapes a character (which could spell it) cannot have it. A cheap
    /// test before [`Params::json_mut`], for members rarely sent.
    pub fn may_have_member(&self, name: &str) -> bool {
        match self {
            Params::Absent => false,
            Params::Value(value) => value.get(name).is_some(),
            Params::Text(text) => text.get().contains(name) || text.get().contains("\\u"),
        }
    }

    /// The params as a JSON value (`None` when absent); text is decoded.
    pub fn into_json(self) -> Result<Option<Value>, serde_json::Error> {
        match self {
            Params::Absent => Ok(None),
            Params::Value(value) => Ok(Some(value)),
            Params::Text(text) => serde_json::from_str(text.get()).map(Some),
        }
    }

    /// The params as a JSON value to change in place (`None` when absent);
    /// text is decoded into one first.
    pub fn json_mut(&mut self) -> Result<Option<&mut Value>, serde_json::Error> {
        if let Params::Text(text) = self {
            *self = Params::Value(serde_json::from_str(text.get())?);
        }
        match self {
            Params::Value(value) => Ok(Some(value)),
            _ => Ok(None),
        }
    }

    /// Checks that `text` reads as JSON as a value would read it: every
    /// number in range. Capturing text skips over numbers without reading
    /// them, so a binding that captures params checks them with this before
    /// it answers a parse error for nothing else.
    pub fn check_text(text: &RawValue) -> Result<(), String> {
        let mut reader = serde_json::Deserializer::from_str(text.get());
        Checked
            .deserialize(&mut reader)
            .map_err(|error| without_position(&error))
    }
}

/// What a JSON error says, without the line and column serde_json adds when
/// it reads text: positions within params mean nothing to a caller whose
/// params came in an envelope (or as a value), and the answer is the same
/// whichever way they came.
pub(crate) fn without_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    match text.strip_suffix(&position) {
        Some(bare) => bare.to_owned(),
        None => text,
    }
}

/// Reads a value in full and keeps nothing: numbers are parsed (so one out
/// of range is an error), strings are unescaped in place.
#[derive(Clone, Copy)]
struct Checked;

impl<'de> DeserializeSeed<'de> for Checked {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

/// Finds the string member `name` of an object, skipping everything else.
struct MemberVisitor<'n> {
    name: &'n str,
}

impl<'de> Visitor<'de> for MemberVisitor<'_> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<String>, A::Error> {
        let mut found = None;
        while let Some(is_name) = map.next_key_seed(KeyIs(self.name))? {
            if is_name {
                found = match map.next_value::<Value>()? {
                    Value::String(s) => Some(s),
                    _ => None,
                };
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
    // Any other shape has no members.
    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<Option<String>, A::Error> {
        Ok(None)
    }
}

/// A member name, read as whether it is `.0`.
struct KeyIs<'n>(&'n str);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIs<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        Ok(key == self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(json: &str) -> Params {
        Params::Text(RawValue::from_string(json.to_owned()).unwrap())
    }

    #[test]
    fn a_member_is_ruled_out_only_when_text_cannot_spell_it() {
        for (json, may) in [
            (r#"{"id":"t","_meta":{}}"#, true),
            (r#"{"_m\u0065ta":{}}"#, true),
            (r#"{"id":"caf\u00e9"}"#, true),
            (r#"{"id":"t"}"#, false),
            (r#"{}"#, false),
        ] {
            assert_eq!(text(json).may_have_member("_meta"), may, "{json}");
        }
        let value = |json: &str| Params::Value(serde_json::from_str(json).unwrap());
        assert!(value(r#"{"_meta":{}}"#).may_have_member("_meta"));
        assert!(!value(r#"{"id":"_meta"}"#).may_have_member("_meta"));
        assert!(!Params::Absent.may_have_member("_meta"));
    }

    #[test]
    fn a_string_member_is_found_in_text_as_in_a_value() {
        for (json, found) in [
            (r#"{"id":"t","tenant":"acme"}"#, Some("acme")),
            (r#"{"tenant":"a","x":{"tenant":"inner"},"tenant":"b"}"#, Some("b")),
            (r#"{"t\u0065nant":"esc\"aped"}"#, Some("esc\"aped")),
            (r#"{"tenant":7}"#, None),
            (r#"{"x":{"tenant":"inner"}}"#, None),
            (r#"[{"tenant":"a"}]"#, None),
            (r#"{}"#, None),
        ] {
            let value: Value = serde_json::from_str(json).unwrap();
            assert_eq!(text(json).string_member("tenant").as_deref(), found, "{json}");
            assert_eq!(
                Params::Value(value).string_member("tenant").as_deref(),
                found,
                "{json}"
            );
        }
        assert_eq!(Params::Absent.string_member("tenant"), None);
    }

    #[test]
    fn checking_text_reads_every_number() {
        for json in [r#"{"a":[1,{"b":1e400}]}"#, r#"{"1e999":-1e400}"#] {
            let raw = RawValue::from_string(json.to_owned()).unwrap();
            assert_eq!(
                Params::check_text(&raw).unwrap_err(),
                "number out of range",
                "{json}"
            );
        }
        let raw = RawValue::from_string(r#"{"a":[1,-2.5e10,"\u00e9",null,true],"b":{}}"#.into()).unwrap();
        Params::check_text(&raw).unwrap();
    }

    #[test]
    fn text_becomes_a_value_on_demand() {
        let mut params = text(r#"{"a":1}"#);
        assert!(params.is_object());
        params.json_mut().unwrap().unwrap()["b"] = json!(2);
        assert!(matches!(params, Params::Value(_)));
        assert_eq!(params.into_json().unwrap(), Some(json!({"a": 1, "b": 2})));
        assert_eq!(Params::from(None).into_json().unwrap(), None);
        assert!(!text("[1]").is_object());
        assert!(text(" \n{}").is_object());
        assert!(!Params::Absent.is_object());
    }
}
