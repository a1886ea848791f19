//! The cases of group `envelope`: raw bytes that are not a well-formed
//! JSON-RPC request, each expected to draw a parse error or an invalid
//! request.

use super::case::{Case, Expect, Message};
use crate::rules;
use a2a::methods::markers;
use a2a::rpc::Method as _;
use serde_json::{json, Value};

/// A request cut off inside its object: not JSON at all, so a parse error.
const TRUNCATED_REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"#;

pub(super) fn envelope_cases(out: &mut Vec<Case>) {
    let raw = |id: &str, text: &str, expect_id: Value, code: i64| Case {
        id: format!("envelope/{id}"),
        group: "envelope".into(),
        method: None,
        message: Message::Raw {
            text: text.to_string(),
            expect_id,
        },
        ext_version: None,
        since: None,
        expect: Expect::EnvelopeError(code),
        requirement: rules::envelope(),
        capability: None,
        on_fixture: false,
    };
    let get = format!(
        r#""method":"{}","params":{{"id":"conformance-envelope"}}"#,
        markers::GetTask::NAME
    );
    out.push(raw("not-json", TRUNCATED_REQUEST, Value::Null, -32700));
    out.push(raw("not-an-object", "42", Value::Null, -32600));
    out.push(raw(
        "wrong-jsonrpc",
        &format!(r#"{{"jsonrpc":"1.0","id":"env-1",{get}}}"#),
        json!("env-1"),
        -32600,
    ));
    out.push(raw(
        "missing-jsonrpc",
        &format!(r#"{{"id":"env-2",{get}}}"#),
        json!("env-2"),
        -32600,
    ));
    out.push(raw(
        "id-object",
        &format!(r#"{{"jsonrpc":"2.0","id":{{"a":1}},{get}}}"#),
        Value::Null,
        -32600,
    ));
    out.push(raw(
        "id-array",
        &format!(r#"{{"jsonrpc":"2.0","id":[1],{get}}}"#),
        Value::Null,
        -32600,
    ));
    out.push(raw(
        "missing-method",
        r#"{"jsonrpc":"2.0","id":"env-3","params":{}}"#,
        json!("env-3"),
        -32600,
    ));
    out.push(raw(
        "method-not-string",
        r#"{"jsonrpc":"2.0","id":"env-4","method":7,"params":{}}"#,
        json!("env-4"),
        -32600,
    ));
}
