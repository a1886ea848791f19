//! The assertion language of ACTS (§5): exact matches, operator maps, nested
//! maps and arrays that mirror the response, dot-paths with indexes and
//! wildcards (§5.2), collection assertions (§5.5) and `until` expressions (§9.1).
//!
//! A map is an operator map when every key is an operator, and a map of
//! fields when none is. A map that mixes both is ambiguous: where the
//! grammar says "a map of field assertions" (`body`, `expect_parsed`, an
//! event's assertions, a collection's `match`) its keys are all field names;
//! anywhere else [`validate`] rejects it before the test runs.

use serde_json::{Map, Value};

/// The operators of an assertion object (§5.1).
const OPERATORS: [&str; 18] = [
    "type",
    "exists",
    "absent",
    "contains",
    "matches",
    "starts_with",
    "ends_with",
    "gte",
    "lte",
    "gt",
    "lt",
    "count",
    "count_gte",
    "count_lte",
    "one_of",
    "all_of",
    "any_of",
    "not",
];
/// The JSON types `type` names.
const TYPES: [&str; 6] = ["string", "number", "boolean", "array", "object", "null"];

/// Why an actual value does not satisfy an assertion (reported per §13.3).
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub path: String,
    pub message: String,
    pub expected: String,
    pub actual: String,
}

fn is_operator(key: &str) -> bool {
    OPERATORS.contains(&key)
}

fn operator_map(map: &Map<String, Value>) -> bool {
    !map.is_empty() && map.keys().all(|k| is_operator(k))
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Text of a value for reports; `(absent)` for a missing field.
pub fn show(value: Option<&Value>) -> String {
    match value {
        None => "(absent)".into(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            let text = v.to_string();
            if text.chars().count() > 300 {
                format!("{}…", text.chars().take(300).collect::<String>())
            } else {
                text
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------

/// Checks that an assertion as written is one the grammar defines: operator
/// values of the right kind, known types, no map that mixes operators with
/// field names. `at` names where it sits, for the message.
pub fn validate(assertion: &Value, at: &str) -> Result<(), String> {
    match assertion {
        Value::Object(map) if operator_map(map) => validate_operators(map, at),
        Value::Object(map) => {
            let operators: Vec<&str> = map
                .keys()
                .map(String::as_str)
                .filter(|k| is_operator(k))
                .collect();
            if !operators.is_empty() {
                let fields: Vec<&str> = map
                    .keys()
                    .map(String::as_str)
                    .filter(|k| !is_operator(k))
                    .collect();
                return Err(format!(
                    "`{at}` mixes assertion operators ({}) with field names ({}): an assertion map holds operators only (§5.1), a nested map field names only (§5.2)",
                    operators.join(", "),
                    fields.join(", ")
                ));
            }
            validate_fields(map, at)
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| validate(item, &format!("{at}[{i}]"))),
        _ => Ok(()),
    }
}

/// Validates a map whose keys are all field names.
pub fn validate_fields(map: &Map<String, Value>, at: &str) -> Result<(), String> {
    if operator_map(map) {
        return validate_operators(map, at);
    }
    map.iter().try_for_each(|(k, v)| validate(v, &join(at, k)))
}

fn validate_operators(map: &Map<String, Value>, at: &str) -> Result<(), String> {
    for (op, value) in map {
        let here = format!("{at}.{op}");
        let ok = match op.as_str() {
            "type" => value.as_str().is_some_and(|t| TYPES.contains(&t)),
            "exists" | "absent" => value == &Value::Bool(true),
            "contains" | "starts_with" | "ends_with" => value.is_string(),
            "matches" => match value.as_str() {
                Some(pattern) => regex::Regex::new(pattern)
                    .map(|_| true)
                    .map_err(|e| format!("`{here}` is not a regular expression: {e}"))?,
                None => false,
            },
            "gte" | "lte" | "gt" | "lt" => value.is_number(),
            "count" | "count_gte" | "count_lte" => value.as_u64().is_some(),
            "one_of" | "all_of" | "any_of" => match value.as_array() {
                Some(items) if !items.is_empty() => {
                    for (i, item) in items.iter().enumerate() {
                        validate(item, &format!("{here}[{i}]"))?;
                    }
                    true
                }
                _ => false,
            },
            "not" => {
                validate(value, &here)?;
                true
            }
            _ => false,
        };
        if !ok {
            return Err(format!(
                "`{here}` has a value the operator does not take: {value} (§5.1)"
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------

/// Checks `actual` (`None`: the field is absent) against `expected` at `path`.
pub fn check(expected: &Value, actual: Option<&Value>, path: &str) -> Result<(), Mismatch> {
    match expected {
        Value::Object(map) if operator_map(map) => check_operators(map, actual, path),
        Value::Object(map) => check_fields(map, actual, path),
        Value::Array(items) => check_items(items, actual, path),
        scalar => {
            if actual.is_some_and(|a| same_scalar(scalar, a)) {
                Ok(())
            } else {
                Err(mismatch(path, "value differs", show(Some(scalar)), actual))
            }
        }
    }
}

/// Checks a map of field assertions against an object (an operator map
/// applies to the value itself).
pub fn check_fields(map: &Map<String, Value>, actual: Option<&Value>, path: &str) -> Result<(), Mismatch> {
    if operator_map(map) {
        return check_operators(map, actual, path);
    }
    let Some(object) = actual.and_then(Value::as_object) else {
        return Err(mismatch(path, "expected an object", "an object".into(), actual));
    };
    map.iter()
        .try_for_each(|(key, expected)| check(expected, object.get(key), &join(path, key)))
}

fn check_items(items: &[Value], actual: Option<&Value>, path: &str) -> Result<(), Mismatch> {
    let Some(array) = actual.and_then(Value::as_array) else {
        return Err(mismatch(path, "expected an array", "an array".into(), actual));
    };
    if array.len() < items.len() {
        return Err(mismatch(
            path,
            "the array is shorter than the expectation",
            format!("at least {} element(s)", items.len()),
            actual,
        ));
    }
    items
        .iter()
        .zip(array)
        .enumerate()
        .try_for_each(|(i, (e, a))| check(e, Some(a), &format!("{path}[{i}]")))
}

/// Equality of scalars; numbers compare by value (`200` equals `200.0`).
fn same_scalar(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Number(e), Value::Number(a)) => e.as_f64() == a.as_f64(),
        _ => expected == actual,
    }
}

fn mismatch(path: &str, message: &str, expected: String, actual: Option<&Value>) -> Mismatch {
    Mismatch {
        path: path.to_string(),
        message: format!("{}: {message}", if path.is_empty() { "(root)" } else { path }),
        expected,
        actual: show(actual),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn check_operators(map: &Map<String, Value>, actual: Option<&Value>, path: &str) -> Result<(), Mismatch> {
    for (op, operand) in map {
        check_operator(op, operand, actual, path)?;
    }
    Ok(())
}

fn check_operator(op: &str, operand: &Value, actual: Option<&Value>, path: &str) -> Result<(), Mismatch> {
    let fail = |message: &str, expected: String| Err(mismatch(path, message, expected, actual));
    match op {
        "absent" => match actual {
            None => Ok(()),
            Some(_) => fail("the field is present", "absent".into()),
        },
        "exists" => match actual {
            Some(_) => Ok(()),
            None => fail("the field is absent", "present".into()),
        },
        "not" => match check(operand, actual, path) {
            Ok(()) => fail("the negated assertion holds", format!("not {operand}")),
            Err(_) => Ok(()),
        },
        "all_of" => {
            let items = operand.as_array().map(Vec::as_slice).unwrap_or_default();
            items.iter().try_for_each(|a| check(a, actual, path))
        }
        // `one_of` lists values, `any_of` assertions; a map or array among the
        // values is a pattern (as in the event examples of §7), so both hold
        // when one alternative matches.
        "one_of" | "any_of" => {
            let items = operand.as_array().map(Vec::as_slice).unwrap_or_default();
            if items.iter().any(|a| check(a, actual, path).is_ok()) {
                Ok(())
            } else {
                fail(
                    &format!("no alternative of {op} holds"),
                    format!("{op} {operand}"),
                )
            }
        }
        _ => {
            let Some(value) = actual else {
                return fail("the field is absent", format!("{op} {operand}"));
            };
            check_value_operator(op, operand, value, path)
        }
    }
}

fn check_value_operator(op: &str, operand: &Value, value: &Value, path: &str) -> Result<(), Mismatch> {
    let expected = format!("{op} {}", show(Some(operand)));
    let fail = |message: String| Err(mismatch(path, &message, expected.clone(), Some(value)));
    let text = || value.as_str();
    let operand_text = operand.as_str().unwrap_or_default();
    match op {
        "type" => {
            if type_name(value) == operand_text {
                Ok(())
            } else {
                fail(format!("is of type {}", type_name(value)))
            }
        }
        "contains" | "starts_with" | "ends_with" | "matches" => {
            let Some(s) = text() else {
                return fail(format!("{op} needs a string, found {}", type_name(value)));
            };
            let holds = match op {
                "contains" => s.contains(operand_text),
                "starts_with" => s.starts_with(operand_text),
                "ends_with" => s.ends_with(operand_text),
                // Validated before the run.
                _ => regex::Regex::new(operand_text).is_ok_and(|r| r.is_match(s)),
            };
            if holds {
                Ok(())
            } else {
                fail(format!("does not satisfy {op}"))
            }
        }
        "gte" | "lte" | "gt" | "lt" => {
            let (Some(v), Some(bound)) = (value.as_f64(), operand.as_f64()) else {
                return fail(format!("{op} needs a number, found {}", type_name(value)));
            };
            let holds = match op {
                "gte" => v >= bound,
                "lte" => v <= bound,
                "gt" => v > bound,
                _ => v < bound,
            };
            if holds {
                Ok(())
            } else {
                fail(format!("does not satisfy {op}"))
            }
        }
        "count" | "count_gte" | "count_lte" => {
            let Some(items) = value.as_array() else {
                return fail(format!("{op} needs an array, found {}", type_name(value)));
            };
            let n = operand.as_u64().unwrap_or_default() as usize;
            let holds = match op {
                "count" => items.len() == n,
                "count_gte" => items.len() >= n,
                _ => items.len() <= n,
            };
            if holds {
                Ok(())
            } else {
                fail(format!("has {} element(s)", items.len()))
            }
        }
        _ => fail(format!("unknown operator `{op}`")),
    }
}

// ---------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------

#[derive(Debug, PartialEq)]
enum Segment {
    Field(String),
    Index(usize),
    Every,
}

fn segments(path: &str) -> Result<Vec<Segment>, String> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            out.push(Segment::Field(name.to_string()));
        }
        while let Some(stripped) = rest.strip_prefix('[') {
            let Some(end) = stripped.find(']') else {
                return Err(format!("`{path}`: an unclosed `[`"));
            };
            let inner = &stripped[..end];
            out.push(match inner {
                "*" => Segment::Every,
                n => Segment::Index(
                    n.parse()
                        .map_err(|_| format!("`{path}`: `[{n}]` is not an index"))?,
                ),
            });
            rest = &stripped[end + 1..];
        }
        if !rest.is_empty() {
            return Err(format!("`{path}`: unexpected `{rest}`"));
        }
    }
    Ok(out)
}

/// Every value `path` reaches from `root` (several through `[*]`), each with
/// its concrete path. An empty path is the root itself.
pub fn select(root: &Value, path: &str) -> Result<Vec<(String, Value)>, String> {
    let mut current = vec![(String::new(), root.clone())];
    for segment in segments(path)? {
        let mut next = Vec::new();
        for (at, value) in current {
            match &segment {
                Segment::Field(name) => {
                    if let Some(v) = value.get(name) {
                        next.push((join(&at, name), v.clone()));
                    }
                }
                Segment::Index(i) => {
                    if let Some(v) = value.get(*i) {
                        next.push((format!("{at}[{i}]"), v.clone()));
                    }
                }
                Segment::Every => {
                    if let Some(items) = value.as_array() {
                        next.extend(
                            items
                                .iter()
                                .enumerate()
                                .map(|(i, v)| (format!("{at}[{i}]"), v.clone())),
                        );
                    }
                }
            }
        }
        current = next;
    }
    Ok(current)
}

/// The single value a path without wildcards reaches, if any.
pub fn lookup(root: &Value, path: &str) -> Result<Option<Value>, String> {
    if segments(path)?.contains(&Segment::Every) {
        return Err(format!(
            "`{path}`: a wildcard is allowed in collection assertions only (§5.2)"
        ));
    }
    Ok(select(root, path)?.into_iter().next().map(|(_, v)| v))
}

// ---------------------------------------------------------------------------
// until expressions (§9.1)
// ---------------------------------------------------------------------------

/// A parsed `until` condition.
#[derive(Debug, PartialEq)]
pub enum Until {
    Equals(String, Value),
    Differs(String, Value),
    In(String, Vec<Value>),
}

/// A literal of an `until` expression: JSON if it parses as JSON (numbers,
/// booleans, null, quoted strings), else the bare word as a string.
fn literal(text: &str) -> Value {
    let text = text.trim();
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.trim_matches('\'').to_string()))
}

impl Until {
    pub fn parse(expression: &str) -> Result<Until, String> {
        let bad =
            || format!("`{expression}` is not `path == value`, `path != value` or `path in [v1, …]` (§9.1)");
        if let Some((path, value)) = expression.split_once("!=") {
            return Ok(Until::Differs(path.trim().to_string(), literal(value)));
        }
        if let Some((path, value)) = expression.split_once("==") {
            return Ok(Until::Equals(path.trim().to_string(), literal(value)));
        }
        if let Some((path, list)) = expression.split_once(" in ") {
            let list = list.trim();
            let inner = list
                .strip_prefix('[')
                .and_then(|l| l.strip_suffix(']'))
                .ok_or_else(bad)?;
            let values = inner
                .split(',')
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(literal)
                .collect();
            return Ok(Until::In(path.trim().to_string(), values));
        }
        Err(bad())
    }

    fn path(&self) -> &str {
        match self {
            Until::Equals(p, _) | Until::Differs(p, _) | Until::In(p, _) => p,
        }
    }

    /// Whether the condition holds on `root`.
    pub fn holds(&self, root: &Value) -> Result<bool, String> {
        let value = lookup(root, self.path())?;
        let equal = |v: &Value| value.as_ref().is_some_and(|a| same_scalar(v, a));
        Ok(match self {
            Until::Equals(_, v) => equal(v),
            Until::Differs(_, v) => !equal(v),
            Until::In(_, vs) => vs.iter().any(equal),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_maps_and_operators_match_a_response() {
        let expected =
            json!({"task": {"id": {"type": "string"}, "status": {"state": {"one_of": ["A", "B"]}}}});
        let actual = json!({"task": {"id": "t1", "status": {"state": "B"}}});
        assert_eq!(check(&expected, Some(&actual), ""), Ok(()));
    }

    #[test]
    fn a_mismatch_names_path_expected_and_actual() {
        let expected = json!({"status": {"state": "TASK_STATE_COMPLETED"}});
        let actual = json!({"status": {"state": "TASK_STATE_WORKING"}});
        let m = check(&expected, Some(&actual), "").unwrap_err();
        assert_eq!(m.path, "status.state");
        assert_eq!(m.expected, "TASK_STATE_COMPLETED");
        assert_eq!(m.actual, "TASK_STATE_WORKING");
    }

    #[test]
    fn absent_exists_and_combinators() {
        let history = json!({"any_of": [{"absent": true}, {"type": "array", "count": 0}]});
        assert!(check(&history, None, "history").is_ok());
        assert!(check(&history, Some(&json!([])), "history").is_ok());
        assert!(check(&history, Some(&json!([1])), "history").is_err());
        assert!(check(&json!({"not": {"contains": "x"}}), Some(&json!("abc")), "").is_ok());
        assert!(check(&json!({"exists": true}), None, "a").is_err());
        assert!(check(&json!({"gte": 2, "lt": 3}), Some(&json!(2.5)), "").is_ok());
        assert!(check(&json!({"matches": "^\\d{4}-"}), Some(&json!("2026-01-01")), "").is_ok());
        assert!(check(&json!(200), Some(&json!(200.0)), "").is_ok());
    }

    #[test]
    fn arrays_assert_a_prefix_of_the_actual_array() {
        let expected = json!([{"text": {"type": "string"}}]);
        assert!(check(&expected, Some(&json!([{"text": "a"}, {"data": {}}])), "parts").is_ok());
        assert!(check(&expected, Some(&json!([])), "parts").is_err());
    }

    #[test]
    fn validation_rejects_mixed_maps_and_bad_operands() {
        let mixed = json!({"type": "array", "items": {"url": {"type": "string"}}});
        assert!(validate(&mixed, "body.supportedInterfaces")
            .unwrap_err()
            .contains("mixes assertion operators (type) with field names (items)"));
        assert!(validate(&json!({"type": "text"}), "a").is_err());
        assert!(validate(&json!({"count": -1}), "a").is_err());
        assert!(validate(&json!({"task": {"id": {"type": "string"}}}), "body").is_ok());
    }

    #[test]
    fn paths_index_and_wildcard() {
        let root = json!({"task": {"artifacts": [{"parts": [{"text": "a"}, {"text": "b"}]}, {"parts": [{"data": 1}]}]}});
        let all = select(&root, "task.artifacts[*].parts[*]").unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[2].0, "task.artifacts[1].parts[0]");
        assert_eq!(
            lookup(&root, "task.artifacts[0].parts[1].text").unwrap(),
            Some(json!("b"))
        );
        assert!(lookup(&root, "task.artifacts[*]").is_err());
    }

    #[test]
    fn until_expressions() {
        let root = json!({"status": {"state": "TASK_STATE_WORKING"}});
        let working = Until::parse("status.state == TASK_STATE_WORKING").unwrap();
        assert!(working.holds(&root).unwrap());
        let done = Until::parse("status.state in [TASK_STATE_COMPLETED, TASK_STATE_FAILED]").unwrap();
        assert!(!done.holds(&root).unwrap());
        assert!(Until::parse("status.state != TASK_STATE_SUBMITTED")
            .unwrap()
            .holds(&root)
            .unwrap());
        assert!(Until::parse("status.state").is_err());
    }
}
