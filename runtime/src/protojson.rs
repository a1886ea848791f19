//! ProtoJSON support for the generated types: enum names or numbers on input,
//! content one-ofs that carry exactly one alternative, integers as numbers or
//! decimal strings, and the conversion error of generated `TryFrom`/`FromStr`.

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// Error from a generated `TryFrom`/`FromStr` conversion or a content check.
#[derive(Clone, PartialEq, Eq)]
pub struct ConversionError(std::borrow::Cow<'static, str>);

impl ConversionError {
    /// `name` is not a value of the proto enum `type_name`.
    pub fn unknown_enum_name(type_name: &str, name: &str) -> Self {
        ConversionError(format!("unknown {type_name} value `{name}`").into())
    }
    /// `number` is not a value of the proto enum `type_name`.
    pub fn unknown_enum_number(type_name: &str, number: i64) -> Self {
        ConversionError(format!("unknown {type_name} number {number}").into())
    }
}

impl std::error::Error for ConversionError {}
impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl fmt::Debug for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}
impl From<&'static str> for ConversionError {
    fn from(value: &'static str) -> Self {
        ConversionError(value.into())
    }
}
impl From<String> for ConversionError {
    fn from(value: String) -> Self {
        ConversionError(value.into())
    }
}

/// What a proto enum may look like on input: its name or its number.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum ProtoEnumRepr {
    /// The enum value's name (`TASK_STATE_COMPLETED`).
    Name(String),
    /// The enum value's proto number (`3`).
    Number(i64),
}

/// A content one-of (e.g. `PartContent`): the alternatives its host must carry
/// exactly one of.
pub trait OneOfContent: DeserializeOwned {
    /// The host type's name, for error messages.
    const HOST: &'static str;
    /// The wire names of the alternatives, exactly one of which the host carries.
    const ALTERNATIVES: &'static [&'static str];
}

/// Deserializes the flattened content of a host: the keys the host's own fields
/// did not take must hold exactly one alternative; keys that are no alternative
/// are ignored.
pub fn exactly_one_content<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: OneOfContent,
{
    let mut rest = Map::<String, Value>::deserialize(deserializer)?;
    // What the host does not name is ignored, as on every object (spec §5.7).
    rest.retain(|k, _| T::ALTERNATIVES.contains(&k.as_str()));
    let present: Vec<&str> = T::ALTERNATIVES
        .iter()
        .copied()
        .filter(|k| rest.contains_key(*k))
        .collect();
    let expected = T::ALTERNATIVES.join("`, `");
    match present.as_slice() {
        [_] => T::deserialize(Value::Object(rest)).map_err(D::Error::custom),
        [] => Err(D::Error::custom(format_args!(
            "{} needs exactly one of `{expected}`; found none",
            T::HOST
        ))),
        _ => Err(D::Error::custom(format_args!(
            "{} needs exactly one of `{expected}`; found `{}`",
            T::HOST,
            present.join("` and `")
        ))),
    }
}

/// Decodes `value` as `T` and encodes it again: the canonical wire form of an
/// instance, or the precise reason it is not one.
pub fn roundtrip<T: Serialize + DeserializeOwned>(value: Value) -> Result<Value, String> {
    let typed: T = serde_path_to_error::deserialize(value).map_err(|e| describe_decode_error(&e))?;
    serde_json::to_value(typed).map_err(|e| e.to_string())
}

fn describe_decode_error(error: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = error.path().to_string();
    if path == "." {
        error.inner().to_string()
    } else {
        format!("{path}: {}", error.inner())
    }
}

/// Unwraps a contract fact at compile time, for constants such as
/// `const H: &str = declared(Contract::A2a.version_header());` — a schema without
/// the fact fails the build instead of a request.
pub const fn declared(value: Option<&'static str>) -> &'static str {
    match value {
        Some(value) => value,
        None => panic!("the schema does not declare this contract fact"),
    }
}

/// ProtoJSON integers: a JSON number or a decimal string (`10` or `"10"`);
/// output stays a number. Used by the generated types on every integer field.
pub fn proto_int<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<i64> + TryFrom<u64>,
{
    deserializer.deserialize_any(ProtoIntVisitor(std::marker::PhantomData))
}

/// [`proto_int`] for optional fields: absent or `null` is `None`.
pub fn proto_int_opt<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<i64> + TryFrom<u64>,
{
    struct Present<T>(T);
    impl<'de, T: TryFrom<i64> + TryFrom<u64>> Deserialize<'de> for Present<T> {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            proto_int(deserializer).map(Present)
        }
    }
    Ok(Option::<Present<T>>::deserialize(deserializer)?.map(|p| p.0))
}

struct ProtoIntVisitor<T>(std::marker::PhantomData<T>);

impl<T: TryFrom<i64> + TryFrom<u64>> serde::de::Visitor<'_> for ProtoIntVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer (a JSON number or a decimal string)")
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
        if let Ok(n) = v.parse::<i64>() {
            return self.visit_i64(n);
        }
        match v.parse::<u64>() {
            Ok(n) => self.visit_u64(n),
            Err(_) => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
        }
    }
}
