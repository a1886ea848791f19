//! Shared test helpers: the schemas as JSON, bundled the way the generator
//! bundles them, and validators compiled from them.

#![allow(dead_code)]

use serde_json::{json, Map, Value};
use std::path::PathBuf;

pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Both schema files, as `(file name, document)`.
pub fn schemas() -> Vec<(String, Value)> {
    codegen::load_schemas(&workspace_root().join("schema"), codegen::SCHEMA_FILES).expect("schemas load")
}

/// The definitions of both files in one map, cross-file references made local.
pub fn bundled_definitions() -> Map<String, Value> {
    codegen::preprocess::bundle(&schemas()).expect("schemas bundle")
}

/// A validator for one named definition.
pub fn validator(definitions: &Map<String, Value>, name: &str) -> jsonschema::Validator {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$ref": format!("#/definitions/{name}"),
        "definitions": definitions,
    });
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("validator for {name}: {e}"))
}

/// Every `(method name, method entry)` of both schemas' method tables.
pub fn method_entries() -> Vec<(String, Value)> {
    schemas()
        .into_iter()
        .flat_map(|(_, schema)| {
            schema["x-methods"]
                .as_object()
                .expect("x-methods")
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}
