//! `--acts-draft`: reads tests written in the dialect of the current draft
//! files (a2aproject/A2A, branch `conformance-spec`), which departs from the
//! draft's own grammar in a few recurring ways, by rewriting each departure
//! into the grammar's form before the test is validated. Off by default: a
//! runner executes ACTS as specified, and these tests are then errors.
//!
//! Each rewrite has one reading the test's intent leaves no doubt about:
//!
//! - `expect_error.code: <ErrorName>` → `error_type` (§6.2); `data` → `details`;
//!   an `expect_error` naming no error type accepts any error;
//! - `expect: {error: …}` or `expect: {status: error}` → an `expect_error` of
//!   any type; `expect` members besides `status`/`body` → inside `body` (§6.1);
//! - the push operations named `*_push_notification_config(s)` → the
//!   abstract `*_push_config(s)` (§4.1), with the 0.3-style
//!   `pushNotificationConfig` wrapper's members lifted into the params;
//! - `taskId`/`contextId` beside the message of a send → inside the message
//!   (where A2A 1.0 has them, and where §4.3 puts them), in an operation's
//!   params and in a raw JSON-RPC body of a send method alike;
//! - a raw JSON-RPC body whose `params.message` has no `messageId` gets one,
//!   as §12.4 requires of abstract operations;
//! - `items: [ … ]` among an array's operators → the array pattern it lists
//!   (§5.2), combined with the other operators by `all_of`; `items: {…}` (every
//!   element) in an `expect.body` → a step assertion `all` over that array (§5.5);
//! - `expect_error.code: {one_of: [names]}` → any of those error types;
//! - `get_agent_card` with `extended: true` → `get_extended_agent_card`;
//! - `{{webhookUrl}}`, which no draft document defines, where a push config
//!   needs the URL notifications are delivered to → the runner's
//!   `{{webhook.url}}`, the test then needing `webhook_endpoint` (§3.2).
//!
//! Everything else stays as written (and is reported as the grammar judges it).

use a2a::methods::markers;
use a2a::rpc::Method;
use serde_json::{json, Map, Value};

/// The draft files' names for the push operations, and the abstract names.
const OPERATION_ALIASES: [(&str, &str); 4] = [
    ("set_push_notification_config", "create_push_config"),
    ("get_push_notification_config", "get_push_config"),
    ("list_push_notification_configs", "list_push_configs"),
    ("delete_push_notification_config", "delete_push_config"),
];
const SEND_OPERATIONS: [&str; 2] = ["send_message", "send_streaming_message"];
/// The JSON-RPC methods of the send operations, for raw bodies.
const SEND_METHODS: [&str; 2] = [markers::SendMessage::NAME, markers::SendStreamingMessage::NAME];
/// Where a rewritten `expect_error` lists several error types (not a member
/// of the grammar: a test written with it is an error unless read as draft).
pub const ERROR_TYPE_ONE_OF: &str = "x-draft-error-types";

/// The draft files' name for the runner's webhook URL, and the grammar's.
const DRAFT_WEBHOOK_URL: &str = "{{webhookUrl}}";
const WEBHOOK_URL: &str = "{{webhook.url}}";

/// The test rewritten into the grammar's form, and a note per rewrite.
pub fn normalize(test: &Value) -> (Value, Vec<String>) {
    let mut test = test.clone();
    let mut notes = Vec::new();
    webhook_url(&mut test, &mut notes);
    if let Some(steps) = test.get_mut("steps").and_then(Value::as_array_mut) {
        for step in steps.iter_mut().filter_map(Value::as_object_mut) {
            let id = step.get("id").and_then(Value::as_str).unwrap_or("?").to_string();
            let mut note = |what: &str| notes.push(format!("step `{id}`: {what}"));
            rename_operation(step, &mut note);
            extended_card(step, &mut note);
            each_item_assertions(step, &id, &mut note);
            lift_push_config(step, &mut note);
            move_message_ids(step, &mut note);
            normalize_expect(step, &mut note);
            normalize_expect_error(step, &mut note);
            give_raw_message_id(step, &mut note);
            for key in ["expect", "expect_stream", "expect_error"] {
                if let Some(tree) = step.get_mut(key) {
                    if rewrite_items(tree) {
                        note(&format!("`items` in {key} read as an array pattern"));
                    }
                }
            }
        }
    }
    (test, notes)
}

/// `{{webhookUrl}}` in the steps → the runner's webhook, which the test
/// then requires.
fn webhook_url(test: &mut Value, notes: &mut Vec<String>) {
    let Some(steps) = test.get_mut("steps") else {
        return;
    };
    if !replace_text(steps, DRAFT_WEBHOOK_URL, WEBHOOK_URL) {
        return;
    }
    if let Some(test) = test.as_object_mut() {
        let requirements = test.entry("runner_requirements").or_insert_with(|| json!([]));
        if let Some(list) = requirements.as_array_mut() {
            let wanted = json!("webhook_endpoint");
            if !list.contains(&wanted) {
                list.push(wanted);
            }
        }
    }
    notes.push(format!(
        "{DRAFT_WEBHOOK_URL} read as {WEBHOOK_URL}, the test needing a webhook_endpoint"
    ));
}

/// Replaces `from` by `to` in every string of `tree`; true when one changed.
fn replace_text(tree: &mut Value, from: &str, to: &str) -> bool {
    match tree {
        Value::String(text) if text.contains(from) => {
            *text = text.replace(from, to);
            true
        }
        Value::Object(map) => map
            .values_mut()
            .fold(false, |changed, v| replace_text(v, from, to) | changed),
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, v| replace_text(v, from, to) | changed),
        _ => false,
    }
}

fn rename_operation(step: &mut Map<String, Value>, note: &mut impl FnMut(&str)) {
    let Some(op) = step.get("operation").and_then(Value::as_str) else {
        return;
    };
    if let Some((from, to)) = OPERATION_ALIASES.iter().find(|(from, _)| *from == op) {
        note(&format!("operation {from} read as {to}"));
        step.insert("operation".into(), json!(to));
    }
}

fn extended_card(step: &mut Map<String, Value>, note: &mut impl FnMut(&str)) {
    let public = step.get("operation").and_then(Value::as_str) == Some("get_agent_card");
    let extended = step.get("params").and_then(|p| p.get("extended")) == Some(&json!(true));
    if public && extended {
        step.insert("operation".into(), json!("get_extended_agent_card"));
        step.insert("params".into(), json!({}));
        note("get_agent_card with extended: true read as get_extended_agent_card");
    }
}

/// Moves each `items: {…}` of `expect.body` into a step assertion on every
/// element of that array.
fn each_item_assertions(step: &mut Map<String, Value>, id: &str, note: &mut impl FnMut(&str)) {
    let mut found = Vec::new();
    if let Some(body) = step.get_mut("expect").and_then(|e| e.get_mut("body")) {
        take_item_maps(body, "", &mut found);
    }
    if found.is_empty() {
        return;
    }
    let assertions = step
        .entry("assertions")
        .or_insert_with(|| json!([]))
        .as_array_mut();
    let Some(assertions) = assertions else { return };
    for (path, matches) in found {
        note(&format!(
            "`items` at {path} read as an assertion on every element"
        ));
        assertions.push(json!({
            "source": format!("{{{{{id}.response}}}}"),
            "all": {"path": format!("{path}[*]"), "match": matches},
        }));
    }
}

fn take_item_maps(tree: &mut Value, path: &str, found: &mut Vec<(String, Value)>) {
    let Some(map) = tree.as_object_mut() else { return };
    if matches!(map.get("items"), Some(Value::Object(_))) {
        if let Some(items) = map.remove("items") {
            found.push((path.to_string(), items));
        }
    }
    for (key, value) in map.iter_mut() {
        let child = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        take_item_maps(value, &child, found);
    }
}

fn is_push_operation(step: &Map<String, Value>) -> bool {
    let op = step.get("operation").and_then(Value::as_str).unwrap_or_default();
    OPERATION_ALIASES.iter().any(|(_, to)| *to == op)
}

fn lift_push_config(step: &mut Map<String, Value>, note: &mut impl FnMut(&str)) {
    if !is_push_operation(step) {
        return;
    }
    let Some(params) = step.get_mut("params").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(Value::Object(config)) = params.remove("pushNotificationConfig") {
        for (k, v) in config {
            params.entry(k).or_insert(v);
        }
        note("pushNotificationConfig's members lifted into the params");
    }
}

fn move_message_ids(step: &mut Map<String, Value>, note: &mut impl FnMut(&str)) {
    let op = step.get("operation").and_then(Value::as_str).unwrap_or_default();
    if SEND_OPERATIONS.contains(&op) {
        if let Some(params) = step.get_mut("params").and_then(Value::as_object_mut) {
            move_into_message(params, "params", note);
        }
        return;
    }
    let Some(body) = step.get_mut("raw").and_then(|r| r.get_mut("body")) else {
        return;
    };
    let method = body.get("method").and_then(Value::as_str).unwrap_or_default();
    if !SEND_METHODS.contains(&method) {
        return;
    }
    if let Some(params) = body.get_mut("params").and_then(Value::as_object_mut) {
        move_into_message(params, "the raw body's params", note);
    }
}

/// `taskId` and `contextId` of a send's params moved into its message.
fn move_into_message(params: &mut Map<String, Value>, at: &str, note: &mut impl FnMut(&str)) {
    for key in ["taskId", "contextId"] {
        if !params.contains_key(key) || !params.get("message").is_some_and(Value::is_object) {
            continue;
        }
        let Some(value) = params.remove(key) else { continue };
        if let Some(message) = params.get_mut("message").and_then(Value::as_object_mut) {
            message.entry(key).or_insert(value);
            note(&format!("{at}.{key} moved into the message"));
        }
    }
}

fn normalize_expect(step: &mut Map<String, Value>, note: &mut impl FnMut(&str)) {
    let Some(Value::Object(expect)) = step.get("expect") else {
        return;
    };
    let mut expect = expect.clone();
    let wants_error = expect.contains_key("error") && !expect.contains_key("body")
        || expect.get("status") == Some(&json!("error"));
    if wants_error && !step.contains_key("expect_error") {
        step.remove("expect");
        step.insert("expect_error".into(), json!({}));
        note("expect of an error read as an expect_error of any type");
        return;
    }
    let extra: Vec<String> = expect
        .keys()
        .filter(|k| *k != "status" && *k != "body")
        .cloned()
        .collect();
    if extra.is_empty() {
        return;
    }
    let mut body = match expect.remove("body") {
        Some(Value::Object(b)) => b,
        _ => Map::new(),
    };
    for key in &extra {
        if let Some(v) = expect.remove(key) {
            body.insert(key.clone(), v);
        }
    }
    expect.insert("body".into(), Value::Object(body));
    step.insert("expect".into(), Value::Object(expect));
    note(&format!("expect members {} moved into body", extra.join(", ")));
}

fn normalize_expect_error(step: &mut Map<String, Value>, note: &mut impl FnMut(&str)) {
    let Some(expect) = step.get_mut("expect_error").and_then(Value::as_object_mut) else {
        return;
    };
    match expect.get("code").cloned() {
        Some(Value::String(name)) => {
            expect.remove("code");
            expect.insert("error_type".into(), Value::String(name.clone()));
            note(&format!("expect_error.code {name} read as error_type"));
        }
        Some(Value::Object(code)) => {
            if let Some(names) = code.get("one_of").filter(|n| n.is_array()) {
                expect.insert(ERROR_TYPE_ONE_OF.into(), names.clone());
                expect.remove("code");
                note(&format!(
                    "expect_error.code one_of {names} read as any of those error types"
                ));
            }
        }
        _ => {}
    }
    if let Some(data) = expect.remove("data") {
        expect.entry("details").or_insert(data);
        note("expect_error.data read as details");
    }
}

fn give_raw_message_id(step: &mut Map<String, Value>, note: &mut impl FnMut(&str)) {
    let message = step
        .get_mut("raw")
        .and_then(|r| r.get_mut("body"))
        .and_then(|b| b.get_mut("params"))
        .and_then(|p| p.get_mut("message"))
        .and_then(Value::as_object_mut);
    if let Some(message) = message {
        if !message.contains_key("messageId") {
            message.insert("messageId".into(), json!(uuid::Uuid::new_v4().to_string()));
            note("a messageId given to the raw body's message");
        }
    }
}

/// Rewrites `{…operators…, items: [..]}` maps; true when one was rewritten.
fn rewrite_items(tree: &mut Value) -> bool {
    let mut changed = false;
    match tree {
        Value::Object(map) => {
            if let Some(Value::Array(pattern)) = map.get("items").cloned() {
                map.remove("items");
                let rest = Value::Object(std::mem::take(map));
                map.insert("all_of".into(), json!([rest, pattern]));
                changed = true;
            }
            for v in map.values_mut() {
                changed |= rewrite_items(v);
            }
        }
        Value::Array(items) => {
            for v in items {
                changed |= rewrite_items(v);
            }
        }
        _ => {}
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drafts_dialect_becomes_the_grammar() {
        let written = json!({"id": "T", "steps": [
            {"id": "a", "operation": "send_message",
             "params": {"taskId": "t1", "message": {"role": "ROLE_USER", "parts": [{"text": "x"}]}},
             "expect": {"task": {"id": "t1"}}},
            {"id": "b", "operation": "set_push_notification_config",
             "params": {"taskId": "t1", "pushNotificationConfig": {"url": "u"}},
             "expect_error": {"code": "UnsupportedOperationError", "data": {"type": "object"}}},
            {"id": "c", "operation": "get_task", "params": {"id": "x"},
             "expect": {"status": "error", "error": {"exists": true}}},
            {"id": "d", "raw": {"method": "POST", "path": "/",
             "body": {"params": {"message": {"parts": []}}}},
             "expect": {"body": {"list": {"type": "array", "items": [{"a": 1}]}}}},
            {"id": "e", "raw": {"method": "POST", "path": "/",
             "body": {"method": markers::SendMessage::NAME,
                      "params": {"taskId": "t2", "message": {"messageId": "m", "parts": []}}}},
             "expect": {"status": 200}}
        ]});
        let (test, notes) = normalize(&written);
        let steps = &test["steps"];
        assert_eq!(steps[0]["params"]["message"]["taskId"], "t1");
        assert!(steps[0]["params"].get("taskId").is_none());
        assert_eq!(steps[0]["expect"], json!({"body": {"task": {"id": "t1"}}}));
        assert_eq!(steps[1]["operation"], "create_push_config");
        assert_eq!(steps[1]["params"], json!({"taskId": "t1", "url": "u"}));
        assert_eq!(
            steps[1]["expect_error"],
            json!({"error_type": "UnsupportedOperationError", "details": {"type": "object"}})
        );
        assert_eq!(steps[2]["expect_error"], json!({}));
        assert!(steps[2].get("expect").is_none());
        assert!(steps[3]["raw"]["body"]["params"]["message"]["messageId"].is_string());
        assert_eq!(
            steps[3]["expect"]["body"]["list"],
            json!({"all_of": [{"type": "array"}, [{"a": 1}]]})
        );
        assert_eq!(steps[4]["raw"]["body"]["params"]["message"]["taskId"], "t2");
        assert!(steps[4]["raw"]["body"]["params"].get("taskId").is_none());
        assert_eq!(notes.len(), 10, "{notes:?}");

        let each = json!({"id": "T", "steps": [
            {"id": "card", "operation": "get_agent_card", "params": {"extended": true},
             "expect": {"body": {"skills": {"type": "array", "items": {"id": {"exists": true}}}}}},
            {"id": "cancel", "operation": "cancel_task", "params": {"id": "x"},
             "expect_error": {"code": {"one_of": ["TaskNotFoundError", "TaskNotCancelableError"]}}}
        ]});
        let (test, _) = normalize(&each);
        let card = &test["steps"][0];
        let hook = json!({"id": "H", "steps": [
            {"id": "set", "operation": "create_push_config",
             "params": {"taskId": "t", "url": DRAFT_WEBHOOK_URL}}]});
        let (hook, notes) = normalize(&hook);
        assert_eq!(hook["steps"][0]["params"]["url"], WEBHOOK_URL);
        assert_eq!(hook["runner_requirements"], json!(["webhook_endpoint"]));
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(card["operation"], "get_extended_agent_card");
        assert_eq!(card["expect"]["body"]["skills"], json!({"type": "array"}));
        assert_eq!(
            card["assertions"][0],
            json!({"source": "{{card.response}}", "all": {"path": "skills[*]", "match": {"id": {"exists": true}}}})
        );
        assert_eq!(
            test["steps"][1]["expect_error"],
            json!({ERROR_TYPE_ONE_OF: ["TaskNotFoundError", "TaskNotCancelableError"]})
        );
    }
}
