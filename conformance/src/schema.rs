//! The contract's bundled schema definitions (the contract crate's embedded
//! copy), with `jsonschema` validators compiled once per definition and
//! cached: the suite validates every result against the definition the method
//! table names, and derives its negative cases from the same definitions.
//! A2A 0.3 has a set of its own ([`schemas_v0_3`]): its definitions share
//! names with 1.0's (`Task`, `AgentCard`) in another shape.

use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The bundled definitions (the contract crate's one embedded copy) and the
/// validator cache.
pub struct Schemas {
    definitions: &'static Map<String, Value>,
    /// The one document of a dialect (A2A 0.3), whose `x-methods` and
    /// `x-errors` are its own; `None` for the contract's two files, which the
    /// contract crate looks methods up in.
    dialect: Option<&'static Value>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

/// The process-wide schema set (parsing and bundling happen once, in the
/// contract crate).
pub fn schemas() -> &'static Schemas {
    static SCHEMAS: OnceLock<Schemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| Schemas {
        definitions: a2a::schema::definitions(),
        dialect: None,
        validators: Mutex::new(HashMap::new()),
    })
}

/// The A2A 0.3 schema (`schema/a2a-v0.3.json`, the contract crate's embedded copy).
pub fn schemas_v0_3() -> &'static Schemas {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    static SCHEMAS: OnceLock<Schemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let document = DOCUMENT.get_or_init(|| {
            // The crate was generated from this very file (its drift gate checks
            // it); an unreadable copy yields an empty schema rather than a panic.
            let mut document = serde_json::from_str(a2a::schema::A2A_V0_3_JSON).unwrap_or(Value::Null);
            a2a::schema::localize_refs(&mut document);
            document
        });
        static EMPTY: OnceLock<Map<String, Value>> = OnceLock::new();
        let definitions = document
            .get("definitions")
            .and_then(Value::as_object)
            .unwrap_or_else(|| EMPTY.get_or_init(Map::new));
        Schemas {
            definitions,
            dialect: Some(document),
            validators: Mutex::new(HashMap::new()),
        }
    })
}

/// The schema set of an extension beyond the contract, for
/// [`crate::extension`]: the contract's definitions with the extension's
/// (references made local), and the extension document, whose `x-methods` and
/// `x-errors` are its own. Built once per extension a run is given, and kept
/// for the process (the suite holds its schemas as `'static`).
pub fn with_extension(mut document: Value) -> Result<&'static Schemas, String> {
    a2a::schema::localize_refs(&mut document);
    let documents: Vec<&Value> = a2a::schema::documents().iter().chain([&document]).collect();
    let definitions = a2a::rpc::bundle::merge_definitions(documents)?;
    let definitions: &'static Map<String, Value> = Box::leak(Box::new(definitions));
    let dialect: &'static Value = Box::leak(Box::new(document));
    Ok(Box::leak(Box::new(Schemas {
        definitions,
        dialect: Some(dialect),
        validators: Mutex::new(HashMap::new()),
    })))
}

impl Schemas {
    /// The `x-methods` entry of a wire method name, from whichever file has it.
    pub fn method(&self, name: &str) -> Option<&Map<String, Value>> {
        match self.dialect {
            Some(document) => document.get("x-methods")?.get(name)?.as_object(),
            None => a2a::schema::method_entry(name),
        }
    }

    /// The JSON-RPC code of error `name` of a dialect's registry (`x-errors`).
    pub fn dialect_error_code(&self, name: &str) -> Option<i64> {
        self.dialect?.get("x-errors")?.get(name)?.get("code")?.as_i64()
    }

    /// The `x-capabilities` entry of a dialect.
    pub fn dialect_capability(&self, name: &str) -> Option<&Map<String, Value>> {
        self.dialect?.get("x-capabilities")?.get(name)?.as_object()
    }

    /// The examples of a method (`params` plus `result` or `events`).
    pub fn examples(&self, name: &str) -> Vec<&Value> {
        self.method(name)
            .and_then(|m| m.get("examples"))
            .and_then(Value::as_array)
            .map(|list| list.iter().collect())
            .unwrap_or_default()
    }

    /// The named definition.
    pub fn definition(&self, name: &str) -> Option<&Value> {
        self.definitions.get(name)
    }

    /// Follows `$ref`s (local `#/definitions/X`) to the schema they name.
    pub fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        a2a::rpc::bundle::resolve(self.definitions, schema)
    }

    /// The validator of definition `name`, compiled on first use.
    pub fn validator(&self, name: &str) -> Result<Arc<jsonschema::Validator>, String> {
        if !self.definitions.contains_key(name) {
            return Err(format!("the schemas have no definition `{name}`"));
        }
        self.validator_at(&format!("/definitions/{name}"))
    }

    /// The validator of the schema at JSON pointer `pointer` of the bundle
    /// (`/definitions/AgentCard/properties/url`), compiled on first use.
    fn validator_at(&self, pointer: &str) -> Result<Arc<jsonschema::Validator>, String> {
        let mut cache = self
            .validators
            .lock()
            .map_err(|_| "validator cache poisoned".to_string())?;
        if let Some(v) = cache.get(pointer) {
            return Ok(v.clone());
        }
        let definitions = Value::Object(self.definitions.clone());
        let inner = pointer.strip_prefix("/definitions").unwrap_or(pointer);
        if definitions.pointer(inner).is_none() {
            return Err(format!("the schemas have nothing at `{pointer}`"));
        }
        let root = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": definitions,
            "$ref": format!("#{pointer}"),
        });
        let validator =
            jsonschema::validator_for(&root).map_err(|e| format!("cannot compile `{pointer}`: {e}"))?;
        let validator = Arc::new(validator);
        cache.insert(pointer.to_string(), validator.clone());
        Ok(validator)
    }

    /// Validates `instance` against definition `name`; the violations, each with
    /// its JSON pointer, when it does not.
    pub fn validate(&self, name: &str, instance: &Value) -> Result<(), Vec<String>> {
        let validator = self.validator(name).map_err(|e| vec![e])?;
        Self::violations(&validator, instance)
    }

    /// Validates `instance` against property `property` of definition `name`.
    pub fn validate_property(&self, name: &str, property: &str, instance: &Value) -> Result<(), Vec<String>> {
        let pointer = format!("/definitions/{name}/properties/{property}");
        let validator = self.validator_at(&pointer).map_err(|e| vec![e])?;
        Self::violations(&validator, instance)
    }

    fn violations(validator: &jsonschema::Validator, instance: &Value) -> Result<(), Vec<String>> {
        let errors: Vec<String> = validator
            .iter_errors(instance)
            .take(5)
            .map(|e| {
                let at = e.instance_path().to_string();
                format!("{}: {e}", if at.is_empty() { "/" } else { at.as_str() })
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_result_type_compiles_and_accepts_its_examples() {
        let s = schemas();
        for d in a2a::METHODS.iter().filter(|d| d.is_dispatched()) {
            for example in s.examples(d.name) {
                if let Some(result) = example.get("result") {
                    assert_eq!(s.validate(d.result_type, result), Ok(()), "{}", d.name);
                }
                for event in example
                    .get("events")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    assert_eq!(s.validate(d.result_type, event), Ok(()), "{}", d.name);
                }
            }
        }
    }

    #[test]
    fn a_wrong_shape_is_reported_with_its_pointer() {
        let errors = schemas()
            .validate("Task", &json!({"id": 7}))
            .expect_err("a number is not a task id");
        assert!(errors.iter().any(|e| e.starts_with("/id:")), "{errors:?}");
    }
}
