//! The contract's JSON Schemas, embedded and bundled into one document, so the
//! CLI can derive flags from a method's params type and tests can validate
//! results against a method's result type.

use serde_json::{Map, Value};
use std::sync::OnceLock;

const A2A_SCHEMA: &str = include_str!("../../schema/a2a.json");
const EXT_SCHEMA: &str = include_str!("../../schema/cleveragents-ext.json");

/// Both schema files' `definitions` in one map, with cross-file references
/// (`a2a.json#/definitions/X`) rewritten to local ones (`#/definitions/X`).
/// Definition names are unique across the files (a schema convention), so the
/// merge loses nothing.
pub fn definitions() -> &'static Map<String, Value> {
    static BUNDLE: OnceLock<Map<String, Value>> = OnceLock::new();
    BUNDLE.get_or_init(|| {
        let mut all = Map::new();
        for text in [A2A_SCHEMA, EXT_SCHEMA] {
            // The files are compiled in and checked by the generated crate's
            // tests; an unreadable one leaves the bundle without its types
            // rather than panicking.
            let Ok(mut doc) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            localize_refs(&mut doc);
            if let Some(Value::Object(defs)) = doc.get_mut("definitions").map(Value::take) {
                all.extend(defs);
            }
        }
        all
    })
}

fn localize_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref") {
                if let Some(pos) = target.find("#/") {
                    *target = target[pos..].to_string();
                }
            }
            map.values_mut().for_each(localize_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(localize_refs),
        _ => {}
    }
}

/// The definition called `name`.
pub fn definition(name: &str) -> Option<&'static Value> {
    definitions().get(name)
}

/// Follows `$ref`s until a definition that is not a bare reference.
pub fn resolve(schema: &'static Value) -> &'static Value {
    let mut current = schema;
    // Bounded: a cyclic chain of bare references cannot loop forever.
    for _ in 0..16 {
        let Some(name) = ref_name(current) else {
            return current;
        };
        match definition(name) {
            Some(next) => current = next,
            None => return current,
        }
    }
    current
}

/// The definition name a `{"$ref": "#/definitions/X"}` points at.
pub fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/definitions/")
}

/// A self-contained JSON Schema for definition `name`: a `$ref` to it next to
/// every definition of both files.
pub fn standalone(name: &str) -> Value {
    let mut root = Map::new();
    root.insert(
        "$schema".into(),
        Value::String("http://json-schema.org/draft-07/schema#".into()),
    );
    root.insert("$ref".into(), Value::String(format!("#/definitions/{name}")));
    root.insert("definitions".into(), Value::Object(definitions().clone()));
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_holds_both_files_with_local_refs() {
        assert!(definition("Task").is_some());
        assert!(definition("PlanExecution").is_some());
        let event = definition("StdioStreamEventParams").and_then(|d| d.pointer("/properties/event/$ref"));
        assert_eq!(event, Some(&Value::String("#/definitions/StreamResponse".into())));
    }

    #[test]
    fn resolve_follows_refs() {
        let status = definition("ListTasksRequest")
            .and_then(|d| d.pointer("/properties/status"))
            .map(resolve);
        assert_eq!(
            status.and_then(|s| s.get("enum")).and_then(|e| e.get(0)),
            Some(&Value::String("TASK_STATE_UNSPECIFIED".into()))
        );
    }
}
