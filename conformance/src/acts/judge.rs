//! Judging what an ACTS step received: a unary answer or error against the
//! step's expectations (§5, §7), the HTTP status, the captures a step
//! leaves for later references (§8.2), and the verdict's shape ([`Problem`]).

use super::assertion::{check, check_fields, lookup, show, Mismatch};
use super::document::{ExpectBlock, ExpectError};
use super::operations::{describe, error_kinds};
use super::report::{Failure, Outcome};
use super::vars::Scope;
use super::wire::{rest_status_of, Reply};
use serde_json::{json, Map, Value};

/// A step that did not pass: failed (the agent's answer), or an error (the
/// runner could not execute it).
pub(super) struct Problem {
    pub(super) outcome: Outcome,
    pub(super) failure: Box<Failure>,
}

impl Problem {
    pub(super) fn fail(message: impl Into<String>) -> Problem {
        Problem {
            outcome: Outcome::Fail,
            failure: Box::new(Failure::message(message)),
        }
    }
    pub(super) fn failed(failure: Failure) -> Problem {
        Problem {
            outcome: Outcome::Fail,
            failure: Box::new(failure),
        }
    }
    pub(super) fn error(message: impl Into<String>) -> Problem {
        Problem {
            outcome: Outcome::Error,
            failure: Box::new(Failure::message(message)),
        }
    }
    pub(super) fn mismatch(context: &str, m: Mismatch) -> Problem {
        Problem {
            outcome: Outcome::Fail,
            failure: Box::new(Failure {
                message: if context.is_empty() {
                    m.message
                } else {
                    format!("{context}: {}", m.message)
                },
                step_id: None,
                expected: Some(m.expected),
                actual: Some(m.actual),
                assertion_path: Some(m.path),
            }),
        }
    }
}

/// What one executed operation gave: the assertion root (§4.2) and the
/// HTTP facts.
pub(super) struct Received {
    pub(super) root: Value,
    pub(super) status: u16,
    pub(super) headers: Map<String, Value>,
}

/// A JSON-RPC response: `Ok(result)` or `Err(error)`; anything else is an
/// `Err` describing what came back.
pub(super) fn envelope(body: &Value) -> Result<Value, Value> {
    let valid = body.get("jsonrpc") == Some(&json!("2.0"));
    match (valid, body.get("result"), body.get("error")) {
        (true, Some(result), None) => Ok(result.clone()),
        (true, None, Some(error)) => Err(error.clone()),
        _ => Err(json!({"notAJsonRpcResponse": body})),
    }
}

pub(super) fn describe_error(error: &Value) -> String {
    match (error.get("code"), error.get("message")) {
        (Some(code), Some(message)) => format!("{code} {}", show(Some(message))),
        _ => show(Some(error)),
    }
}

pub(super) fn check_status(expect: &ExpectBlock, status: u16) -> Result<(), Problem> {
    if let Some(wanted) = &expect.status {
        check(wanted, Some(&Value::from(status)), "status")
            .map_err(|m| Problem::mismatch("HTTP status", m))?;
    }
    Ok(())
}

/// Judges a unary answer: `outcome` is the result or the error.
/// `rest_status`: over HTTP+JSON, the HTTP status an error must match.
pub(super) fn judge_unary(
    expect: Option<&ExpectBlock>,
    expect_error: Option<&ExpectError>,
    scope: &Scope,
    reply: &Reply,
    outcome: Result<Value, Value>,
    rest_status: Option<u16>,
) -> Result<Received, Problem> {
    if let Some(expected) = expect_error {
        judge_error(expected, scope, &outcome, rest_status)?;
        return Ok(Received {
            root: outcome.err().unwrap_or_default(),
            status: reply.status,
            headers: reply.headers.clone(),
        });
    }
    let result =
        outcome.map_err(|e| Problem::fail(format!("expected a result, got error {}", describe_error(&e))))?;
    if let Some(expect) = expect {
        check_status(expect, reply.status)?;
        if let Some(body) = &expect.body {
            let body = interpolate_map(body, scope)?;
            check_fields(&body, Some(&result), "").map_err(|m| Problem::mismatch("", m))?;
        }
    }
    Ok(Received {
        root: result,
        status: reply.status,
        headers: reply.headers.clone(),
    })
}

/// Judges an expected error (§6.2): its code is one of the abstract error's
/// registry entries; `message` asserts the message, `details` the entries
/// of `data` (one of them must satisfy it).
/// The registry errors an expectation accepts (none listed: any error), and
/// how to name them.
pub(super) fn wanted_error(expected: &ExpectError) -> (Vec<a2a::ErrorKind>, String) {
    let kinds: Vec<a2a::ErrorKind> = expected
        .error_type
        .iter()
        .chain(&expected.error_types)
        .flat_map(|t| error_kinds(*t).iter().copied())
        .collect();
    let wanted = match kinds.as_slice() {
        [] => "an error".to_string(),
        kinds => format!("error {}", describe(kinds)),
    };
    (kinds, wanted)
}

pub(super) fn judge_error(
    expected: &ExpectError,
    scope: &Scope,
    outcome: &Result<Value, Value>,
    rest_status: Option<u16>,
) -> Result<(), Problem> {
    let (kinds, wanted) = wanted_error(expected);
    let error = match outcome {
        Ok(result) => {
            return Err(Problem::failed(Failure {
                message: format!("expected {wanted}, got a result"),
                step_id: None,
                expected: Some(wanted),
                actual: Some(show(Some(result))),
                assertion_path: Some("error.code".into()),
            }))
        }
        Err(e) => e,
    };
    let code = error.get("code").and_then(Value::as_i64);
    let accepted = match kinds.as_slice() {
        [] => code.is_some(),
        _ => kinds.iter().any(|k| Some(k.code()) == code),
    };
    if let (true, Some(status)) = (accepted, rest_status) {
        let kind = a2a::ErrorKind::ALL.iter().find(|k| Some(k.code()) == code);
        if let Some(kind) = kind.filter(|k| rest_status_of(**k) != status) {
            let want = rest_status_of(*kind);
            return Err(Problem::failed(Failure {
                message: format!(
                    "error {} {} came with HTTP {status}; over HTTP+JSON it is HTTP {want} (A2A §5.4, §11.6)",
                    kind.code(),
                    kind.reason()
                ),
                step_id: None,
                expected: Some(format!("HTTP {want}")),
                actual: Some(format!("HTTP {status}")),
                assertion_path: Some("status".into()),
            }));
        }
    }
    if !accepted {
        return Err(Problem::failed(Failure {
            message: format!("expected {wanted}, got {}", describe_error(error)),
            step_id: None,
            expected: Some(wanted),
            actual: Some(show(error.get("code"))),
            assertion_path: Some("error.code".into()),
        }));
    }
    if let Some(message) = &expected.message {
        let message = scope.interpolate(message).map_err(Problem::fail)?;
        check(&message, error.get("message"), "error.message").map_err(|m| Problem::mismatch("", m))?;
    }
    if let Some(details) = &expected.details {
        let details = interpolate_map(details, scope)?;
        let data = error.get("data");
        let entries: Vec<&Value> = match data {
            Some(Value::Array(items)) => items.iter().collect(),
            Some(other) => vec![other],
            None => vec![],
        };
        let mut last = None;
        for (i, entry) in entries.iter().enumerate() {
            match check_fields(&details, Some(entry), &format!("error.data[{i}]")) {
                Ok(()) => return Ok(()),
                Err(m) => last = Some(m),
            }
        }
        let m = last.unwrap_or(Mismatch {
            path: "error.data".into(),
            message: "error.data: the error carries no details".into(),
            expected: show(Some(&Value::Object(details.clone()))),
            actual: show(data),
        });
        return Err(Problem::mismatch("no error detail matches", m));
    }
    Ok(())
}

/// Captures (§8.2) and what the step received, for later references.
pub(super) fn finish_step(
    id: &str,
    capture: &std::collections::BTreeMap<String, String>,
    received: &Received,
    scope: &mut Scope,
) -> Result<(), Problem> {
    scope.set(id, "response", received.root.clone());
    scope.set(id, "status", Value::from(received.status));
    scope.set(id, "headers", Value::Object(received.headers.clone()));
    for (name, path) in capture {
        let value = lookup(&received.root, path)
            .map_err(Problem::error)?
            .ok_or_else(|| {
                Problem::fail(format!(
                    "capture `{name}`: `{path}` is absent from the response (§8.2)"
                ))
            })?;
        scope.set(id, name, value);
    }
    Ok(())
}

pub(super) fn interpolate_map(
    map: &Map<String, Value>,
    scope: &Scope,
) -> Result<Map<String, Value>, Problem> {
    match scope
        .interpolate(&Value::Object(map.clone()))
        .map_err(Problem::fail)?
    {
        Value::Object(m) => Ok(m),
        _ => Ok(Map::new()),
    }
}
