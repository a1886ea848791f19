//! Variables of one test (§8, §12.2): `{{stepId.var}}` captured by a prior
//! step (and `{{stepId.response}}`, `{{stepId.status}}`, `{{stepId.headers}}`,
//! what that step received), `{{name}}` from the document's `variables`,
//! `{{env.NAME}}`, `{{$uuid}}`, and the runner's own (`{{webhook.url}}`,
//! `{{webhook.received}}` when the test asked for a webhook endpoint) — in that
//! order of precedence. A string that is exactly one reference takes the
//! referenced value as it is (an object stays an object); references inside
//! a longer string are replaced by their text.

use super::assertion::lookup;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// How deep document variables may refer to one another.
const MAX_DEPTH: usize = 8;

/// What a test's references resolve against.
#[derive(Default)]
pub struct Scope {
    /// The document's `variables`.
    pub document: BTreeMap<String, String>,
    /// Per step id: what it captured and what it received.
    pub steps: BTreeMap<String, Map<String, Value>>,
    /// The runner's own variables, by name (each an object of fields).
    pub runner: BTreeMap<String, Value>,
}

impl Scope {
    /// Records what step `id` captured or received under `name`.
    pub fn set(&mut self, id: &str, name: &str, value: Value) {
        self.steps
            .entry(id.to_string())
            .or_default()
            .insert(name.to_string(), value);
    }

    /// Replaces every reference in `value` (strings at any depth; keys stay).
    pub fn interpolate(&self, value: &Value) -> Result<Value, String> {
        self.interpolate_at(value, 0)
    }

    fn interpolate_at(&self, value: &Value, depth: usize) -> Result<Value, String> {
        Ok(match value {
            Value::String(s) => self.interpolate_text(s, depth)?,
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.interpolate_at(v, depth))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| Ok((k.clone(), self.interpolate_at(v, depth)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }

    /// Interpolates one string of the document.
    pub fn interpolate_str(&self, text: &str) -> Result<String, String> {
        Ok(match self.interpolate_text(text, 0)? {
            Value::String(s) => s,
            other => other.to_string(),
        })
    }

    fn interpolate_text(&self, text: &str, depth: usize) -> Result<Value, String> {
        let trimmed = text.trim();
        if let Some(inner) = trimmed.strip_prefix("{{").and_then(|t| t.strip_suffix("}}")) {
            if !inner.contains("{{") && !inner.contains("}}") {
                return self.resolve(inner.trim(), depth);
            }
        }
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("{{") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find("}}") else {
                return Err(format!("`{text}`: an unclosed `{{{{`"));
            };
            match self.resolve(after[..end].trim(), depth)? {
                Value::String(s) => out.push_str(&s),
                other => out.push_str(&other.to_string()),
            }
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        Ok(Value::String(out))
    }

    /// Resolves one reference (§12.2's order of precedence).
    fn resolve(&self, expression: &str, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "variable `{expression}` refers to itself through other variables"
            ));
        }
        let (head, tail) = match expression.split_once('.') {
            Some((h, t)) => (h, Some(t)),
            None => (expression, None),
        };
        if let (Some(step), Some(path)) = (self.steps.get(head), tail) {
            return lookup(&Value::Object(step.clone()), path)?.ok_or_else(|| {
                format!("variable `{expression}`: step `{head}` captured or received no `{path}`")
            });
        }
        if let Some(text) = self.document.get(expression) {
            return self.interpolate_text(text, depth + 1);
        }
        if let (Some(fields), Some(path)) = (self.runner.get(head), tail) {
            return lookup(fields, path)?
                .ok_or_else(|| format!("variable `{expression}`: the runner has no `{path}`"));
        }
        if let (Some(name), "env") = (tail, head) {
            return std::env::var(name)
                .map(Value::String)
                .map_err(|_| format!("variable `{expression}`: the environment has no {name}"));
        }
        if expression == "$uuid" {
            return Ok(Value::String(uuid::Uuid::new_v4().to_string()));
        }
        Err(format!(
            "variable `{expression}` cannot be resolved (no step capture, document variable, environment variable or generator of that name; §12.2)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scope() -> Scope {
        let mut scope = Scope::default();
        scope.document.insert(
            "url".into(),
            "https://example.com/{{env.ACTS_TEST_UNSET_X}}".into(),
        );
        scope.document.insert("plain".into(), "p".into());
        scope.set("send", "taskId", json!("t-1"));
        scope.set("send", "response", json!({"task": {"id": "t-1"}}));
        scope
    }

    #[test]
    fn a_whole_reference_keeps_its_value_and_parts_become_text() {
        let s = scope();
        assert_eq!(
            s.interpolate(&json!("{{send.response}}")).unwrap(),
            json!({"task": {"id": "t-1"}})
        );
        assert_eq!(
            s.interpolate(&json!("id={{send.taskId}}/{{plain}}")).unwrap(),
            json!("id=t-1/p")
        );
        assert_eq!(
            s.interpolate(&json!({"a": ["{{send.response.task.id}}"]}))
                .unwrap(),
            json!({"a": ["t-1"]})
        );
    }

    #[test]
    fn an_unresolvable_reference_is_a_clear_error() {
        let s = scope();
        let e = s.interpolate(&json!("{{nope}}")).unwrap_err();
        assert!(e.contains("variable `nope` cannot be resolved"), "{e}");
        let e = s.interpolate(&json!("{{url}}")).unwrap_err();
        assert!(e.contains("the environment has no ACTS_TEST_UNSET_X"), "{e}");
        let e = s.interpolate(&json!("{{send.contextId}}")).unwrap_err();
        assert!(
            e.contains("step `send` captured or received no `contextId`"),
            "{e}"
        );
    }

    #[test]
    fn uuid_is_fresh_each_time() {
        let s = scope();
        let a = s.interpolate_str("{{$uuid}}").unwrap();
        let b = s.interpolate_str("{{$uuid}}").unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
    }
}
