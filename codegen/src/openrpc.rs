//! The OpenRPC 1.3 document of the contract: every method of every schema's
//! table with its named params (the properties of its params type), its
//! result, its errors, its examples and the facts OpenRPC has no field for
//! (`x-` members: streaming, the extension version it needs, the binding
//! that owns it, the access it requires, its spec section), and every
//! definition as a component schema, references pointing into
//! `#/components/schemas/`.

use crate::model::{Contract, MethodDef};
use crate::{Error, Result};
use serde_json::{json, Map, Value};

/// The OpenRPC version the document is written to.
const OPENRPC_VERSION: &str = "1.3.2";
/// Where a bundled definition reference points, and where OpenRPC wants it.
const DEFINITIONS: &str = "#/definitions/";
const COMPONENTS: &str = "#/components/schemas/";

/// The document, pretty-printed with a final newline.
pub fn render(contracts: &[Contract], definitions: &Map<String, Value>) -> Result<String> {
    let document = document(contracts, definitions)?;
    let text = serde_json::to_string_pretty(&document)
        .map_err(|e| Error::schema("openrpc.json", format!("cannot encode: {e}")))?;
    Ok(text + "\n")
}

fn document(contracts: &[Contract], definitions: &Map<String, Value>) -> Result<Value> {
    let mut methods = Vec::new();
    let mut errors = Map::new();
    for contract in contracts {
        for (name, error) in &contract.errors {
            errors.insert(
                name.clone(),
                json!({
                    "code": error.code,
                    "message": error.message,
                    "data": { "reason": error.reason, "domain": contract.info.error_domain },
                }),
            );
        }
        for method in &contract.methods {
            methods.push(method_object(contract, method, definitions)?);
        }
    }
    let mut schemas = definitions.clone();
    for schema in schemas.values_mut() {
        point_refs_at_components(schema);
    }
    let protocol = contracts
        .iter()
        .find_map(|c| c.info.protocol_version.clone())
        .unwrap_or_default();
    let extensions: Vec<Value> = contracts
        .iter()
        .filter_map(|c| {
            c.info
                .extension_uri
                .as_ref()
                .map(|uri| json!({ "uri": uri, "versions": c.info.versions }))
        })
        .collect();
    Ok(json!({
        "openrpc": OPENRPC_VERSION,
        "info": {
            "title": "CleverAgents A2A contract",
            "description": "A2A over JSON-RPC 2.0 and the CleverAgents extension methods, generated from the contract's JSON Schemas.",
            "version": protocol,
            "x-extensions": extensions,
        },
        "methods": methods,
        "components": { "schemas": schemas, "errors": errors },
    }))
}

fn method_object(contract: &Contract, method: &MethodDef, definitions: &Map<String, Value>) -> Result<Value> {
    let params_type = definitions.get(&method.params).ok_or_else(|| {
        Error::schema(
            &contract.file,
            format!("x-methods.{}: no definition `{}`", method.name, method.params),
        )
    })?;
    let required: Vec<&str> = params_type
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut params = Vec::new();
    if let Some(properties) = params_type.get("properties").and_then(Value::as_object) {
        for (name, schema) in properties {
            let mut schema = schema.clone();
            point_refs_at_components(&mut schema);
            params.push(
                json!({ "name": name, "required": required.contains(&name.as_str()), "schema": schema }),
            );
        }
    }
    let mut object = Map::new();
    object.insert("name".into(), json!(method.name));
    object.insert("summary".into(), json!(first_sentence(&method.description)));
    object.insert("description".into(), json!(method.description));
    object.insert("tags".into(), json!([{ "name": method.service }]));
    object.insert("paramStructure".into(), json!("by-name"));
    object.insert("params".into(), Value::Array(params));
    if !method.notification {
        object.insert(
            "result".into(),
            json!({ "name": "result", "schema": { "$ref": format!("{COMPONENTS}{}", method.result) } }),
        );
    }
    let errors: Vec<Value> = method
        .errors
        .iter()
        .map(|name| json!({ "$ref": format!("#/components/errors/{name}") }))
        .collect();
    object.insert("errors".into(), Value::Array(errors));
    let examples: Vec<Value> = method
        .examples
        .iter()
        .map(|example| example_object(method, example))
        .collect();
    object.insert("examples".into(), Value::Array(examples));
    object.insert("x-contract".into(), json!(contract.info.name));
    object.insert("x-streaming".into(), json!(method.streaming));
    let facts = [
        ("x-since", &method.since),
        ("x-binding", &method.binding),
        ("x-access", &method.access),
        ("x-specSection", &method.spec_section),
        ("x-capability", &method.capability),
    ];
    for (key, value) in facts {
        if let Some(value) = value {
            object.insert(key.into(), json!(value));
        }
    }
    if let Some(uri) = &contract.info.extension_uri {
        object.insert("x-extension".into(), json!(uri));
    }
    Ok(Value::Object(object))
}

/// An example pairing: the params by name; the result, or for a stream the
/// events in order (`x-events`), its first event standing as the result.
fn example_object(method: &MethodDef, example: &crate::model::Example) -> Value {
    let params: Vec<Value> = example
        .params
        .as_object()
        .map(|fields| {
            fields
                .iter()
                .map(|(name, value)| json!({ "name": name, "value": value }))
                .collect()
        })
        .unwrap_or_default();
    let mut object = Map::new();
    object.insert("name".into(), json!(example.summary));
    object.insert("params".into(), Value::Array(params));
    let result = match (&example.result, &example.events) {
        (Some(result), _) => Some(result.clone()),
        (None, Some(events)) => events.first().cloned(),
        (None, None) => None,
    };
    if let (Some(result), false) = (result, method.notification) {
        object.insert("result".into(), json!({ "name": "result", "value": result }));
    }
    if let Some(events) = &example.events {
        object.insert("x-events".into(), json!(events));
    }
    Value::Object(object)
}

/// The description's first sentence, for OpenRPC's one-line summary.
fn first_sentence(text: &str) -> String {
    match text.find(". ") {
        Some(end) => text[..=end].trim().to_string(),
        None => text.trim().to_string(),
    }
}

/// Rewrites every `$ref` into `#/definitions/` to the same name under
/// `#/components/schemas/`, and drops the `x-proto` annotations: they say
/// how the gRPC binding carries a value, which the generated `.proto` tells.
fn point_refs_at_components(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("x-proto");
            for (key, child) in map.iter_mut() {
                match child {
                    Value::String(target) if key == "$ref" => {
                        if let Some(name) = target.strip_prefix(DEFINITIONS) {
                            *target = format!("{COMPONENTS}{name}");
                        }
                    }
                    _ => point_refs_at_components(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(point_refs_at_components),
        _ => {}
    }
}
