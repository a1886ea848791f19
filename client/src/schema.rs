//! The contract's JSON Schemas, embedded and bundled into one document, so the
//! CLI can derive flags from a method's params type and tests can validate
//! results against a method's result type.

use serde_json::{Map, Value};

/// Both schema files' `definitions` in one map, with cross-file references
/// made local (bundled once by the contract crate).
pub fn definitions() -> &'static Map<String, Value> {
    a2a::schema::definitions()
}

/// The definition called `name`.
pub fn definition(name: &str) -> Option<&'static Value> {
    definitions().get(name)
}

/// Follows `$ref`s until a definition that is not a bare reference.
pub fn resolve(schema: &'static Value) -> &'static Value {
    a2a::schema::resolve(schema)
}

pub use a2a::schema::ref_name;

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
        let event = definition("DomainEvent").and_then(|d| d.pointer("/properties/event/$ref"));
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
