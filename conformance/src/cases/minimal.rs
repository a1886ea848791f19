//! The generator behind the `generated-minimal` cases: the smallest instance
//! of a schema definition it can make, kept apart because it walks schemas
//! rather than cases.

use crate::schema::Schemas;
use serde_json::{json, Value};

/// A minimal instance of `schema`: required properties only, the first
/// meaningful enum value, the first one-of alternative. `None` where the
/// schema asks for something this simple generator cannot make.
pub fn generate(s: &Schemas, schema: &Value, depth: usize) -> Option<Value> {
    if depth > 12 {
        return None;
    }
    let schema = s.resolve(schema);
    if let Some(c) = schema.get("const") {
        return Some(c.clone());
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        // `*_UNSPECIFIED` is the proto's "not set" value, which methods reject.
        return values
            .iter()
            .find(|v| !v.as_str().is_some_and(|t| t.ends_with("_UNSPECIFIED")))
            .or_else(|| values.first())
            .cloned();
    }
    let alternatives = schema.get("oneOf").and_then(Value::as_array);
    let ty = schema.get("type").and_then(Value::as_str);
    if ty.is_none() {
        // A wrapper one-of: its first alternative; an untyped value: a string.
        return match alternatives.and_then(|a| a.first()) {
            Some(first) => generate(s, first, depth + 1),
            None => Some(json!("conformance")),
        };
    }
    match ty? {
        "object" => {
            let props = schema.get("properties").and_then(Value::as_object);
            let mut required: Vec<String> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).map(String::from).collect())
                .unwrap_or_default();
            // A content one-of (`Part`): the fields its first alternative requires.
            if let Some(first) = alternatives.and_then(|a| a.first()) {
                for name in first
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(n) = name.as_str() {
                        required.push(n.to_string());
                    }
                }
            }
            let mut out = serde_json::Map::new();
            for name in required {
                let prop = props.and_then(|p| p.get(&name))?;
                out.insert(name, generate(s, prop, depth + 1)?);
            }
            Some(Value::Object(out))
        }
        "array" => {
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            if min == 0 {
                Some(json!([]))
            } else {
                let item = generate(s, schema.get("items")?, depth + 1)?;
                Some(Value::Array(vec![item; min as usize]))
            }
        }
        "string" => Some(match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => json!("2025-01-01T00:00:00Z"),
            _ if schema.get("contentEncoding").is_some() => json!("Y29uZm9ybWFuY2U="),
            _ => json!("conformance-generated"),
        }),
        "integer" | "number" => Some(json!(schema
            .get("minimum")
            .and_then(Value::as_i64)
            .unwrap_or(1)
            .max(1))),
        "boolean" => Some(json!(false)),
        _ => None,
    }
}
