//! JSON Schema checks of plan data: an action's `inputSchema` over the plan
//! inputs, a tool's `inputSchema` over a step's rendered arguments, and the
//! schema of a JSON_SCHEMA validation over a project file.
//!
//! The checking is `jsonschema`'s; this file only compiles a validator per
//! schema and words its first error the way clients already read it: the
//! offending place as a path below a root name (`inputs.tags[1]`), then what
//! is wrong with it (`is required`, `must be of type string`, ...).

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// A compiled schema.
pub struct Schema(Validator);

impl Schema {
    /// Compiles `schema`; a schema that is not one is an error naming why.
    /// A non-object schema (e.g. `true`) is compiled as it is.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        jsonschema::validator_for(schema)
            .map(Schema)
            .map_err(|e| format!("the schema is invalid: {e}"))
    }

    /// Checks `value`; the error names the first offending place below `root`.
    pub fn check(&self, value: &Value, root: &str) -> Result<(), String> {
        match self.0.iter_errors(value).next() {
            None => Ok(()),
            Some(error) => Err(describe(&error, root)),
        }
    }
}

/// Checks `value` against `schema` (compiled for this one check).
pub fn check_schema(schema: &Value, value: &Value, root: &str) -> Result<(), String> {
    Schema::compile(schema)?.check(value, root)
}

/// `root` followed by the instance path: `.name` for members, `[i]` for items.
fn place(error: &ValidationError<'_>, root: &str) -> String {
    let mut out = root.to_string();
    for segment in error.instance_path().iter() {
        match segment {
            LocationSegment::Property(name) => {
                out.push('.');
                out.push_str(&name);
            }
            LocationSegment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

fn describe(error: &ValidationError<'_>, root: &str) -> String {
    let at = place(error, root);
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_string);
            format!("{at}.{name} is required")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            format!(
                "{at}.{} is not allowed",
                unexpected.first().map_or("", String::as_str)
            )
        }
        ValidationErrorKind::Type { kind } => {
            let names: Vec<&str> = match kind {
                TypeKind::Single(t) => vec![t.as_str()],
                TypeKind::Multiple(set) => set.iter().map(|t| t.as_str()).collect(),
            };
            format!("{at} must be of type {}", names.join(" or "))
        }
        ValidationErrorKind::Enum { options } => format!("{at} must be one of {options}"),
        ValidationErrorKind::Constant { expected_value } => format!("{at} must be {expected_value}"),
        ValidationErrorKind::MinLength { .. } => format!("{at} is too short"),
        ValidationErrorKind::MaxLength { .. } => format!("{at} is too long"),
        ValidationErrorKind::Minimum { .. } | ValidationErrorKind::ExclusiveMinimum { .. } => {
            format!("{at} is below the minimum")
        }
        ValidationErrorKind::Maximum { .. } | ValidationErrorKind::ExclusiveMaximum { .. } => {
            format!("{at} is above the maximum")
        }
        _ => format!("{at}: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schema_subset_checks_types_required_and_extras() {
        let schema = json!({
            "type": "object",
            "required": ["version"],
            "properties": {
                "version": { "type": "string", "minLength": 1 },
                "count": { "type": "integer", "minimum": 0 },
                "mode": { "enum": ["fast", "slow"] },
                "tags": { "type": "array", "items": { "type": "string" } }
            },
            "additionalProperties": false
        });
        assert_eq!(
            check_schema(&schema, &json!({ "version": "1" }), "inputs"),
            Ok(())
        );
        assert_eq!(
            check_schema(&schema, &json!({}), "inputs"),
            Err("inputs.version is required".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({ "version": 2 }), "inputs"),
            Err("inputs.version must be of type string".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({ "version": "1", "count": -1 }), "inputs"),
            Err("inputs.count is below the minimum".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({ "version": "1", "mode": "warp" }), "inputs"),
            Err("inputs.mode must be one of [\"fast\",\"slow\"]".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({ "version": "1", "tags": ["a", 1] }), "inputs"),
            Err("inputs.tags[1] must be of type string".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({ "version": "1", "extra": true }), "inputs"),
            Err("inputs.extra is not allowed".into())
        );
    }
}
