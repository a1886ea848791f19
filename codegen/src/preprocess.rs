//! Schema preparation before typify sees it: bundles the contract files into one
//! definition set, turns `const` into a real constraint, splits content one-ofs
//! into a separate enum, and adds the per-method request envelopes.

use crate::model::Contract;
use crate::{Error, Result};
use heck::ToUpperCamelCase;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Facts the post-pass needs about definitions it cannot recover from typify's output.
#[derive(Debug, Default, Clone)]
pub struct Notes {
    /// Host definition name → (content property name, content definition name, alternatives).
    pub content_hosts: BTreeMap<String, ContentHost>,
    /// Enum definition name → proto numbers in the order of the enum's names.
    pub proto_enums: BTreeMap<String, Vec<(String, i64)>>,
    /// (definition, camelCase property) → snake_case alias where the proto name differs
    /// from the mechanical conversion.
    pub proto_names: BTreeMap<(String, String), String>,
}

/// A definition of the "content" one-of shape.
#[derive(Debug, Clone)]
pub struct ContentHost {
    pub content_type: String,
    pub alternatives: Vec<String>,
}

/// The property that carries a content one-of after the split.
pub const CONTENT_FIELD: &str = "content";

/// The definition every request envelope uses for its `id`.
pub const REQUEST_ID: &str = "JSONRPCId";

/// Suffix of the synthesized per-method JSON-RPC request envelopes.
pub const ENVELOPE_SUFFIX: &str = "RpcRequest";

/// Merges the definitions of every schema into one map, rewriting cross-file
/// references (`a2a.json#/definitions/X`) into local ones.
pub fn bundle(schemas: &[(String, Value)]) -> Result<Map<String, Value>> {
    let mut merged = Map::new();
    for (file, schema) in schemas {
        let definitions = schema
            .get("definitions")
            .and_then(Value::as_object)
            .ok_or_else(|| Error::schema(file, "missing `definitions`"))?;
        for (name, definition) in definitions {
            if name.ends_with(ENVELOPE_SUFFIX) {
                return Err(Error::schema(
                    file,
                    format!("definition `{name}` uses the reserved suffix `{ENVELOPE_SUFFIX}`"),
                ));
            }
            if merged.contains_key(name) {
                return Err(Error::schema(
                    file,
                    format!("definition `{name}` is defined twice across the schemas"),
                ));
            }
            let mut definition = definition.clone();
            a2a_runtime::bundle::localize_refs(&mut definition);
            merged.insert(name.clone(), definition);
        }
    }
    let names: Vec<String> = merged.keys().cloned().collect();
    for (name, definition) in &merged {
        check_refs(name, definition, &names)?;
    }
    Ok(merged)
}

fn check_refs(owner: &str, value: &Value, names: &[String]) -> Result<()> {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                let target = reference.strip_prefix("#/definitions/").unwrap_or(reference);
                if !names.iter().any(|n| n == target) {
                    return Err(Error::schema(
                        "bundle",
                        format!("`{owner}` refers to unknown `{reference}`"),
                    ));
                }
            }
            map.values().try_for_each(|v| check_refs(owner, v, names))
        }
        Value::Array(items) => items.iter().try_for_each(|v| check_refs(owner, v, names)),
        _ => Ok(()),
    }
}

/// Rewrites the bundled definitions into the shapes typify handles exactly and
/// records what the post-pass must restore.
pub fn prepare(definitions: &mut Map<String, Value>, contracts: &[Contract]) -> Result<Notes> {
    let notes = prepare_types(definitions)?;
    add_envelopes(definitions, contracts)?;
    Ok(notes)
}

/// The rewrites of [`prepare`] without the request envelopes: what a dialect's
/// payload types need (its requests are decoded by the current contract's).
pub fn prepare_types(definitions: &mut Map<String, Value>) -> Result<Notes> {
    let mut notes = Notes::default();
    let names: Vec<String> = definitions.keys().cloned().collect();
    for name in names {
        let mut definition = definitions[&name].clone();
        collect_proto_names(&name, &definition, &mut notes);
        if let Some(numbers) = proto_numbers(&name, &definition)? {
            notes.proto_enums.insert(name.clone(), numbers);
        }
        if let Some((content_name, content)) = split_content(&name, &mut definition, &mut notes)? {
            if definitions.contains_key(&content_name) {
                return Err(Error::schema(
                    "bundle",
                    format!("`{content_name}` collides with the content enum of `{name}`"),
                ));
            }
            definitions.insert(content_name, content);
        }
        rewrite_constants(&mut definition);
        strip_string_formats(&mut definition);
        definitions.insert(name, definition);
    }
    Ok(notes)
}

/// Adds the per-method request envelopes to the prepared definitions.
fn add_envelopes(definitions: &mut Map<String, Value>, contracts: &[Contract]) -> Result<()> {
    if !definitions.contains_key(REQUEST_ID) {
        return Err(Error::schema(
            "bundle",
            format!("no `{REQUEST_ID}` definition for the request envelopes"),
        ));
    }
    for contract in contracts {
        for method in &contract.methods {
            // JSON-RPC lets a request omit `params`; allow it where an empty object
            // would be valid params anyway.
            let params_optional = definitions
                .get(&method.params)
                .and_then(|d| d.get("required"))
                .and_then(Value::as_array)
                .is_none_or(|required| required.is_empty());
            let mut envelope = envelope_definition(
                method.name.as_str(),
                &method.params,
                method.notification,
                params_optional,
            );
            rewrite_constants(&mut envelope);
            let envelope_name = envelope_name(&method.name);
            if definitions.contains_key(&envelope_name) {
                return Err(Error::schema(
                    &contract.file,
                    format!("envelope `{envelope_name}` collides"),
                ));
            }
            definitions.insert(envelope_name, envelope);
        }
    }
    Ok(())
}

/// The definition name of a method's request envelope, e.g. `GetTaskRpcRequest`,
/// `PlanUseRpcRequest` for `_cleveragents/plan/use`.
pub fn envelope_name(method: &str) -> String {
    format!("{}{ENVELOPE_SUFFIX}", method_type_name(method))
}

/// The PascalCase name of a wire method, without any leading underscore-prefixed
/// namespace segment: `_cleveragents/registry/resource-types/list` →
/// `RegistryResourceTypesList`, `GetTask` → `GetTask`.
pub fn method_type_name(method: &str) -> String {
    method
        .split('/')
        .filter(|segment| !segment.starts_with('_'))
        .map(|segment| segment.to_upper_camel_case())
        .collect()
}

fn envelope_definition(method: &str, params: &str, notification: bool, params_optional: bool) -> Value {
    let mut properties = json!({
        "jsonrpc": { "description": "JSON-RPC protocol version; always `2.0`.", "const": "2.0" },
        "method": { "description": "The method name.", "const": method },
        "params": { "description": "The method's parameters.", "$ref": format!("#/definitions/{params}") }
    });
    let mut required = vec!["jsonrpc", "method"];
    if !params_optional {
        required.push("params");
    }
    if !notification {
        properties["id"] = json!({ "description": "Request identifier echoed in the response.", "$ref": format!("#/definitions/{REQUEST_ID}") });
        required.insert(1, "id");
    }
    json!({
        "description": format!("A JSON-RPC request calling `{method}`."),
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

fn collect_proto_names(name: &str, definition: &Value, notes: &mut Notes) {
    if let Some(properties) = definition.get("properties").and_then(Value::as_object) {
        for (property, schema) in properties {
            if let Some(proto) = schema.get("x-proto-name").and_then(Value::as_str) {
                notes
                    .proto_names
                    .insert((name.to_string(), property.clone()), proto.to_string());
            }
        }
    }
}

pub(crate) fn proto_numbers(name: &str, definition: &Value) -> Result<Option<Vec<(String, i64)>>> {
    let Some(numbers) = definition.get("x-proto-numbers") else {
        return Ok(None);
    };
    let names = definition
        .get("enum")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::schema("bundle", format!("`{name}` has x-proto-numbers but no enum")))?;
    let numbers = numbers
        .as_array()
        .filter(|n| n.len() == names.len())
        .ok_or_else(|| Error::schema("bundle", format!("`{name}`: x-proto-numbers must parallel enum")))?;
    names
        .iter()
        .zip(numbers)
        .map(|(n, v)| match (n.as_str(), v.as_i64()) {
            (Some(n), Some(v)) => Ok((n.to_string(), v)),
            _ => Err(Error::schema(
                "bundle",
                format!("`{name}`: enum names must be strings and numbers integers"),
            )),
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// Splits a "properties + oneOf of required-only branches" definition into the
/// host (shared fields plus a required `content`) and a wrapper one-of enum.
fn split_content(name: &str, definition: &mut Value, notes: &mut Notes) -> Result<Option<(String, Value)>> {
    let Some(object) = definition.as_object_mut() else {
        return Ok(None);
    };
    let Some(branches) = object.get("oneOf").and_then(Value::as_array) else {
        return Ok(None);
    };
    if !object.contains_key("properties") {
        return Ok(None);
    }
    let mut alternatives = Vec::new();
    for branch in branches {
        let keys: Vec<&str> = branch
            .as_object()
            .filter(|b| b.len() == 1)
            .and_then(|b| b.get("required"))
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        match keys.as_slice() {
            [key] => alternatives.push(key.to_string()),
            _ => {
                return Err(Error::schema(
                    "bundle",
                    format!("`{name}`: a oneOf beside properties must list branches of the form {{\"required\": [one key]}}"),
                ))
            }
        }
    }
    object.remove("oneOf");
    let properties = object
        .get_mut("properties")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| Error::schema("bundle", format!("`{name}`: properties must be an object")))?;
    let mut variants = Vec::new();
    for key in &alternatives {
        let schema = properties.remove(key).ok_or_else(|| {
            Error::schema(
                "bundle",
                format!("`{name}`: alternative `{key}` is not a property"),
            )
        })?;
        // The arm carries the property's description, which typify makes the
        // variant's doc comment.
        let description = schema.get("description").cloned();
        let mut variant = json!({
            "type": "object",
            "properties": { key.as_str(): schema },
            "required": [key],
            "additionalProperties": false
        });
        if let Some(description) = description {
            variant["description"] = description;
        }
        variants.push(variant);
    }
    let content_name = format!("{name}Content");
    properties.insert(
        CONTENT_FIELD.to_string(),
        json!({ "description": format!("The content of the `{name}`: exactly one alternative."), "$ref": format!("#/definitions/{content_name}") }),
    );
    let required = object.entry("required").or_insert_with(|| json!([]));
    if let Some(required) = required.as_array_mut() {
        required.push(json!(CONTENT_FIELD));
    }
    notes.content_hosts.insert(
        name.to_string(),
        ContentHost {
            content_type: content_name.clone(),
            alternatives: alternatives.clone(),
        },
    );
    let content = json!({
        "description": format!("The content alternatives of `{name}`; exactly one is present."),
        "oneOf": variants
    });
    Ok(Some((content_name, content)))
}

/// `{"const": v}` → `{"type": …, "enum": [v]}`, a single-variant enum that rejects
/// any other value (typify ignores `const`).
fn rewrite_constants(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(constant) = map.remove("const") {
                let kind = match &constant {
                    Value::String(_) => "string",
                    Value::Bool(_) => "boolean",
                    Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
                    Value::Number(_) => "number",
                    Value::Null => "null",
                    Value::Array(_) => "array",
                    Value::Object(_) => "object",
                };
                map.insert("type".into(), json!(kind));
                map.insert("enum".into(), json!([constant]));
            }
            map.values_mut().for_each(rewrite_constants);
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_constants),
        _ => {}
    }
}

/// String formats stay in the schema for validation but must not change the Rust
/// type: a timestamp stays the exact string it was on the wire.
fn strip_string_formats(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("type").and_then(Value::as_str) == Some("string") {
                map.remove("format");
                map.remove("contentEncoding");
            }
            map.values_mut().for_each(strip_string_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_string_formats),
        _ => {}
    }
}
