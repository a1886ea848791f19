//! Scalars from their ProtoJSON forms: numbers (or their decimal text),
//! floats with `NaN` and the infinities as text, bools, enums by name or
//! number, and bytes as base64; each read into the wire form its type writes.

use super::give_up;
use crate::plan::{EnumPlan, Plans, Type};
use crate::protowire::{put_varint, I32, I64, VARINT};
use base64::Engine as _;
use serde::de::{self, Deserializer, Visitor};
use std::fmt;

/// ProtoJSON's bytes: base64, standard or URL-safe, padded or not.
pub(super) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
    use base64::engine::DecodePaddingMode;
    const LENIENT: GeneralPurposeConfig = GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent);
    const STANDARD: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, LENIENT);
    const URL_SAFE: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, LENIENT);
    STANDARD.decode(text).or_else(|_| URL_SAFE.decode(text)).ok()
}

/// A scalar's value, in the wire form its type writes.
#[derive(Clone, Copy)]
pub(super) enum Scalar {
    Varint(u64),
    Fixed32(u32),
    Fixed64(u64),
}

impl Scalar {
    /// Whether the value is its type's default (a float's zero of either sign).
    pub(super) fn is_default(self, ty: Type) -> bool {
        match (self, ty) {
            (Scalar::Fixed64(v), Type::Double) => f64::from_bits(v) == 0.0,
            (Scalar::Fixed32(v), Type::Float) => f32::from_bits(v) == 0.0,
            (Scalar::Varint(v) | Scalar::Fixed64(v), _) => v == 0,
            (Scalar::Fixed32(v), _) => v == 0,
        }
    }
    pub(super) fn wire(self) -> u32 {
        match self {
            Scalar::Varint(_) => VARINT,
            Scalar::Fixed32(_) => I32,
            Scalar::Fixed64(_) => I64,
        }
    }
}

pub(super) fn write_scalar(out: &mut Vec<u8>, scalar: Scalar) {
    match scalar {
        Scalar::Varint(v) => put_varint(out, v),
        Scalar::Fixed32(v) => out.extend_from_slice(&v.to_le_bytes()),
        Scalar::Fixed64(v) => out.extend_from_slice(&v.to_le_bytes()),
    }
}

/// A JSON number or string as one of the numeric kinds (or a bool, or an
/// enum by name or number).
pub(super) fn read_scalar<'de, D: Deserializer<'de>>(
    plans: &Plans,
    ty: Type,
    deserializer: D,
) -> Result<Scalar, D::Error> {
    match ty {
        Type::Bool => deserializer.deserialize_bool(BoolVisitor),
        Type::Enum(e) => deserializer.deserialize_any(EnumVisitor(&plans.enums[e])),
        Type::Double | Type::Float => {
            let x = deserializer.deserialize_any(FloatVisitor)?;
            if ty == Type::Double {
                Ok(Scalar::Fixed64(x.to_bits()))
            } else if x.is_finite() && x.abs() > f64::from(f32::MAX) {
                Err(give_up())
            } else {
                Ok(Scalar::Fixed32((x as f32).to_bits()))
            }
        }
        _ => {
            let n = deserializer.deserialize_any(IntVisitor)?;
            integer(ty, n).ok_or_else(give_up)
        }
    }
}

/// `n` as an integer field of type `ty`, when in its range.
pub(super) fn integer(ty: Type, n: i128) -> Option<Scalar> {
    Some(match ty {
        Type::Int32 => Scalar::Varint(i64::from(i32::try_from(n).ok()?) as u64),
        Type::Int64 => Scalar::Varint(i64::try_from(n).ok()? as u64),
        Type::Uint32 => Scalar::Varint(u64::from(u32::try_from(n).ok()?)),
        Type::Uint64 => Scalar::Varint(u64::try_from(n).ok()?),
        Type::Sint32 => {
            let n = i32::try_from(n).ok()?;
            Scalar::Varint(u64::from(((n << 1) ^ (n >> 31)) as u32))
        }
        Type::Sint64 => {
            let n = i64::try_from(n).ok()?;
            Scalar::Varint(((n << 1) ^ (n >> 63)) as u64)
        }
        Type::Fixed32 => Scalar::Fixed32(u32::try_from(n).ok()?),
        Type::Sfixed32 => Scalar::Fixed32(i32::try_from(n).ok()? as u32),
        Type::Fixed64 => Scalar::Fixed64(u64::try_from(n).ok()?),
        Type::Sfixed64 => Scalar::Fixed64(i64::try_from(n).ok()? as u64),
        _ => return None,
    })
}

pub(super) struct BoolVisitor;

impl Visitor<'_> for BoolVisitor {
    type Value = Scalar;
    expecting!("a bool");
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Scalar, E> {
        Ok(Scalar::Varint(u64::from(b)))
    }
}

pub(super) struct EnumVisitor<'p>(&'p EnumPlan);

impl Visitor<'_> for EnumVisitor<'_> {
    type Value = Scalar;
    expecting!("an enum value's name or number");
    fn visit_str<E: de::Error>(self, name: &str) -> Result<Scalar, E> {
        let (_, number) = self
            .0
            .values
            .iter()
            .find(|(n, _)| &**n == name)
            .ok_or_else(give_up)?;
        Ok(Scalar::Varint(i64::from(*number) as u64))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Scalar, E> {
        let n = i32::try_from(n).map_err(|_| give_up())?;
        Ok(Scalar::Varint(i64::from(n) as u64))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Scalar, E> {
        let n = i32::try_from(n).map_err(|_| give_up())?;
        Ok(Scalar::Varint(i64::from(n) as u64))
    }
}

/// An integer from a JSON number, an integral float, or a decimal string.
pub(super) struct IntVisitor;

impl Visitor<'_> for IntVisitor {
    type Value = i128;
    expecting!("an integer");
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<i128, E> {
        Ok(i128::from(n))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<i128, E> {
        Ok(i128::from(n))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<i128, E> {
        // Exact integers only; anything else is the reflective path's to judge.
        if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
            Ok(x as i128)
        } else {
            Err(give_up())
        }
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<i128, E> {
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.is_empty() || digits.len() > 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(give_up());
        }
        text.parse().map_err(|_| give_up())
    }
}

pub(super) struct FloatVisitor;

impl Visitor<'_> for FloatVisitor {
    type Value = f64;
    expecting!("a number");
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<f64, E> {
        Ok(n as f64)
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<f64, E> {
        Ok(n as f64)
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<f64, E> {
        Ok(x)
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<f64, E> {
        match text {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => Err(give_up()),
        }
    }
}
