//! The one rule for bundling the contract's schema files into one set of
//! definitions, and for following references inside the bundle. The generator
//! bundles with it before typify sees the schemas; the contract crate bundles its
//! embedded copy with it; clients and the conformance suite read that copy.
//!
//! Cross-file references (`a2a.json#/definitions/X`) and `$defs` references
//! (`#/$defs/X`) both become local `#/definitions/X`; definition names are
//! unique across the files, so merging loses nothing.

use serde_json::{Map, Value};

/// The prefix of a local reference to a definition.
pub const DEFINITIONS_REF: &str = "#/definitions/";

/// How many bare `$ref`s [`resolve`] follows before it stops: a cycle made
/// only of references must not loop forever.
const MAX_REF_CHAIN: usize = 32;

/// Rewrites every reference in `value` into a local `#/definitions/X`, in place.
pub fn localize_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref") {
                if let Some(pos) = target.find("#/") {
                    *target = target[pos..].replace("#/$defs/", DEFINITIONS_REF);
                }
            }
            map.values_mut().for_each(localize_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(localize_refs),
        _ => {}
    }
}

/// The definition name a `{"$ref": "#/definitions/X"}` points at.
pub fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix(DEFINITIONS_REF)
}

/// Follows bare `$ref`s through `definitions` to the schema they name; a
/// reference to no definition stays where it is.
pub fn resolve<'a>(definitions: &'a Map<String, Value>, mut schema: &'a Value) -> &'a Value {
    for _ in 0..MAX_REF_CHAIN {
        match ref_name(schema).and_then(|name| definitions.get(name)) {
            Some(next) => schema = next,
            None => return schema,
        }
    }
    schema
}

/// Merges the `definitions` of already localized documents, in order. Returns
/// the first name two documents both define, which the bundle cannot hold.
pub fn merge_definitions<'a>(
    documents: impl IntoIterator<Item = &'a Value>,
) -> Result<Map<String, Value>, String> {
    let mut merged = Map::new();
    for definitions in documents
        .into_iter()
        .filter_map(|document| document.get("definitions")?.as_object())
    {
        for (name, definition) in definitions {
            if merged.insert(name.clone(), definition.clone()).is_some() {
                return Err(name.clone());
            }
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cross_file_and_defs_refs_become_local() {
        let mut doc = json!({"a": {"$ref": "a2a.json#/definitions/Task"}, "b": [{"$ref": "#/$defs/Part"}]});
        localize_refs(&mut doc);
        assert_eq!(
            doc,
            json!({"a": {"$ref": "#/definitions/Task"}, "b": [{"$ref": "#/definitions/Part"}]})
        );
    }

    #[test]
    fn resolve_follows_bare_refs_and_stops_at_cycles() {
        let defs = json!({"A": {"$ref": "#/definitions/B"}, "B": {"type": "string"},
                          "C": {"$ref": "#/definitions/C"}});
        let defs = defs.as_object().cloned().unwrap_or_default();
        assert_eq!(
            resolve(&defs, &json!({"$ref": "#/definitions/A"})),
            &json!({"type": "string"})
        );
        assert_eq!(resolve(&defs, &defs["C"]), &json!({"$ref": "#/definitions/C"}));
    }

    #[test]
    fn a_name_defined_twice_is_refused() {
        let a = json!({"definitions": {"X": {}}});
        let b = json!({"definitions": {"X": {}}});
        assert_eq!(merge_definitions([&a, &b]), Err("X".to_string()));
    }
}
