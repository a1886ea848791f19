//! What an Agent Card signature covers (spec §8.4): the card's canonical form
//! and the JWS signing input built on it. The keys and the cryptography are
//! the server's (signing) and the client's (verifying); both build the bytes
//! they sign or check here, so they cannot disagree.
//!
//! The canonical form (§8.4.1) is the card without `signatures`, without the
//! fields the proto's presence rules call unset, serialized by RFC 8785 (JSON
//! Canonicalization Scheme). Which fields those are is read from
//! `schema/a2a.json` (`required`, `"x-presence": "explicit"`, the property
//! types; `schema/README.md`, "Field presence"), never listed here: a required
//! field or one of explicit presence stays as given; a message field stays when
//! present; a list or map stays unless empty; any other scalar is left out when
//! it holds its default (`""`, `false`, `0`). Members the schema does not name
//! (a newer peer's, or the 0.3 fields of the card served to 0.3 clients) are
//! kept as they are, so a card is checked as received.

use base64::Engine as _;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The card member that holds the signatures, itself outside what they cover.
pub const SIGNATURES_FIELD: &str = "signatures";
/// The JWS `typ` the spec recommends for card signatures.
pub const JWS_TYPE: &str = "JOSE";

const CARD_DEFINITION: &str = "AgentCard";

fn definitions() -> &'static Map<String, Value> {
    static DEFINITIONS: OnceLock<Map<String, Value>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| {
        serde_json::from_str::<Value>(crate::schema::A2A_JSON)
            .ok()
            .and_then(|schema| schema.get("definitions")?.as_object().cloned())
            .unwrap_or_default()
    })
}

/// The definition a `$ref` names (`#/definitions/X`), or the schema itself.
fn resolve(schema: &Value) -> &Value {
    let mut schema = schema;
    // A bounded walk: the schema's references never chain more than twice.
    for _ in 0..8 {
        let Some(name) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.rsplit('/').next())
        else {
            break;
        };
        match definitions().get(name) {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// Whether a present member is kept even when it holds its default: a
/// required field, one of explicit presence, or a message (a `$ref` to an
/// object, a one-of, `google.protobuf.Struct`). Lists, maps and other scalars
/// are left out when they hold their default (empty, `""`, `false`, `0`).
fn kept_when_default(property: &Value, target: &Value, required: bool) -> bool {
    let explicit = property.get("x-presence").and_then(Value::as_str) == Some("explicit");
    let is_message = target.get("properties").is_some()
        || target.get("oneOf").is_some()
        // A Struct is `additionalProperties: true`; a map's values have a schema.
        || (target.get("type").and_then(Value::as_str) == Some("object")
            && !matches!(target.get("additionalProperties"), Some(Value::Object(_))));
    required || explicit || is_message
}

fn is_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// Leaves out of `value` what `schema` calls unset, recursively.
fn prune(value: &mut Value, schema: &Value) {
    let schema = resolve(schema);
    match value {
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    prune(item, item_schema);
                }
            }
        }
        Value::Object(object) => {
            if let Some(alternatives) = schema.get("oneOf").and_then(Value::as_array) {
                // A wrapper one-of: the alternative naming the member present.
                if let Some(arm) = alternatives.iter().find(|arm| {
                    arm.get("properties")
                        .and_then(Value::as_object)
                        .is_some_and(|p| !object.is_empty() && object.keys().all(|k| p.contains_key(k)))
                }) {
                    prune_members(object, arm);
                    return;
                }
            }
            if schema.get("properties").is_some() {
                prune_members(object, schema);
            } else if let Some(values @ Value::Object(_)) = schema.get("additionalProperties") {
                for member in object.values_mut() {
                    prune(member, values);
                }
            }
        }
        _ => {}
    }
}

fn prune_members(object: &mut Map<String, Value>, schema: &Value) {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    object.retain(|name, member| {
        let Some(property) = properties.get(name) else {
            return true;
        };
        let target = resolve(property);
        prune(member, target);
        if kept_when_default(property, target, required.contains(&name.as_str())) {
            !member.is_null()
        } else {
            !is_default(member)
        }
    });
}

/// The canonical form of an Agent Card (given as JSON, as served or
/// received): what its signatures sign.
pub fn canonical_card(card: &Value) -> Vec<u8> {
    let mut card = card.clone();
    if let Some(object) = card.as_object_mut() {
        object.remove(SIGNATURES_FIELD);
    }
    if let Some(schema) = definitions().get(CARD_DEFINITION) {
        prune(&mut card, schema);
    }
    let mut out = Vec::new();
    write_canonical(&card, &mut out);
    out
}

/// The JWS protected header of a card signature, base64url-encoded.
pub fn protected_header(algorithm: &str, kid: &str, jku: Option<&str>) -> String {
    let mut header = Map::new();
    header.insert("alg".into(), Value::from(algorithm));
    header.insert("typ".into(), Value::from(JWS_TYPE));
    header.insert("kid".into(), Value::from(kid));
    if let Some(jku) = jku {
        header.insert("jku".into(), Value::from(jku));
    }
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Value::Object(header).to_string())
}

/// The decoded protected header of a signature, if it is base64url JSON.
pub fn decode_protected_header(protected: &str) -> Option<Map<String, Value>> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(protected.trim_end_matches('='))
        .ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(header) => Some(header),
        _ => None,
    }
}

/// The JWS signing input (RFC 7515 §5.1): `protected '.' BASE64URL(payload)`,
/// with the card's canonical form as the payload.
pub fn signing_input(protected: &str, card: &Value) -> Vec<u8> {
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(canonical_card(card));
    let mut input = Vec::with_capacity(protected.len() + 1 + payload.len());
    input.extend_from_slice(protected.as_bytes());
    input.push(b'.');
    input.extend_from_slice(payload.as_bytes());
    input
}

/// RFC 8785: members sorted by their UTF-16 code units, no insignificant
/// whitespace, ECMAScript number and string forms.
fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null | Value::Bool(_) | Value::String(_) => {
            // serde_json writes these as RFC 8785 does: `\b \t \n \f \r \" \\`,
            // other control characters as lower-case `\u00xx`, the rest as is.
            out.extend_from_slice(value.to_string().as_bytes());
        }
        Value::Number(number) => write_number(number, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        Value::Object(object) => {
            let mut members: Vec<(&String, &Value)> = object.iter().collect();
            members.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            out.push(b'{');
            for (i, (name, member)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(Value::from(name.as_str()).to_string().as_bytes());
                out.push(b':');
                write_canonical(member, out);
            }
            out.push(b'}');
        }
    }
}

/// A number as ECMAScript's `Number.prototype.toString` writes it.
fn write_number(number: &serde_json::Number, out: &mut Vec<u8>) {
    if number.is_i64() || number.is_u64() {
        out.extend_from_slice(number.to_string().as_bytes());
        return;
    }
    let x = number.as_f64().unwrap_or(0.0);
    let text = if x == 0.0 {
        "0".to_string()
    } else if x.fract() == 0.0 && x.abs() < 1e21 {
        format!("{x:.0}")
    } else if (1e-6..1e21).contains(&x.abs()) {
        // Rust's shortest round-trip digits, positional, as ECMAScript.
        format!("{x}")
    } else {
        // Exponent form: ECMAScript writes a sign on the exponent (`1e+21`).
        let text = format!("{x:e}");
        match text.split_once('e') {
            Some((mantissa, exponent)) if !exponent.starts_with('-') => format!("{mantissa}e+{exponent}"),
            _ => text,
        }
    };
    out.extend_from_slice(text.as_bytes());
}
