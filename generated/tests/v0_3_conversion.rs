//! The conversion layer between A2A 0.3 and 1.0 round-trips every example of
//! both schemas: each 0.3 example goes to 1.0 and back unchanged, and each 1.0
//! example of a method a 0.3 method is served by goes to 0.3 and back unchanged
//! but for what 0.3 cannot say (listed in `without_what_0_3_cannot_say`).
//! Every converted value is also a valid instance of the other version's type.

use a2a::rpc::DialectMethod;
use serde_json::{Map, Value};

fn examples_of(document: &Value, method: &str) -> Vec<Value> {
    document["x-methods"][method]["examples"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn outputs(example: &Value) -> Vec<Value> {
    match example.get("events") {
        Some(events) => events.as_array().cloned().unwrap_or_default(),
        None => vec![example["result"].clone()],
    }
}

fn v0_3_document() -> Value {
    serde_json::from_str(a2a::schema::A2A_V0_3_JSON).expect("the 0.3 schema is JSON")
}

fn v1_0_document() -> Value {
    serde_json::from_str(a2a::schema::A2A_JSON).expect("the 1.0 schema is JSON")
}

/// A 1.0 push configuration as 0.3 stores it: without an id it is the task's
/// default one, whose id is the task id.
fn with_the_0_3_default_config_id(value: &Value) -> Value {
    let mut value = value.clone();
    if let Some(object) = value.as_object_mut() {
        if object.contains_key("url") && !object.contains_key("id") {
            if let Some(task_id) = object.get("taskId").cloned() {
                object.insert("id".into(), task_id);
            }
        }
    }
    value
}

/// A 1.0 value without what has no 0.3 form: `tenant`, the media type and file
/// name of text and data parts, and the paging of push-configuration lists.
fn without_what_0_3_cannot_say(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let is_part = object.contains_key("text") || object.contains_key("data");
            let kept: Map<String, Value> = object
                .iter()
                .filter(|(key, _)| {
                    let key = key.as_str();
                    !(key == "tenant"
                        || (key == "pageSize" || key == "pageToken") && object.contains_key("taskId")
                        || key == "nextPageToken" && object.contains_key("configs")
                        || is_part && (key == "mediaType" || key == "filename"))
                })
                .map(|(key, value)| (key.clone(), without_what_0_3_cannot_say(value)))
                .collect();
            Value::Object(kept)
        }
        Value::Array(items) => Value::Array(items.iter().map(without_what_0_3_cannot_say).collect()),
        other => other.clone(),
    }
}

fn current(method: &DialectMethod) -> &'static a2a::MethodDescriptor {
    a2a::find_method(method.serves).expect("the served method is in the 1.0 table")
}

#[test]
fn every_0_3_example_goes_to_1_0_and_back_unchanged() {
    let document = v0_3_document();
    let mut checked = 0;
    for method in a2a::v0_3::METHODS {
        let served = current(method);
        for example in examples_of(&document, method.name) {
            let params = (method.roundtrip_params)(example["params"].clone())
                .unwrap_or_else(|e| panic!("{}: params do not decode: {e}", method.name));
            let upgraded = (method.upgrade_params)(params.clone().into())
                .unwrap_or_else(|e| panic!("{}: params do not upgrade: {e:?}", method.name));
            (served.roundtrip_params)(upgraded.clone()).unwrap_or_else(|e| {
                panic!(
                    "{}: upgraded params are no {}: {e}",
                    method.name, served.params_type
                )
            });
            let back = (method.downgrade_params)(upgraded).expect("params downgrade");
            assert_eq!(back, params, "{}: params changed", method.name);
            for output in outputs(&example) {
                let output = (method.roundtrip_result)(output).expect("the result decodes");
                let upgraded = (method.upgrade_result)(output.clone())
                    .unwrap_or_else(|e| panic!("{}: result does not upgrade: {e:?}", method.name));
                (served.roundtrip_result)(upgraded.clone()).unwrap_or_else(|e| {
                    panic!(
                        "{}: upgraded result is no {}: {e}",
                        method.name, served.result_type
                    )
                });
                let back = (method.downgrade_result)(upgraded).expect("result downgrades");
                assert_eq!(back, output, "{}: result changed", method.name);
                checked += 1;
            }
        }
    }
    let outputs_in_schema: usize = document["x-methods"]
        .as_object()
        .expect("x-methods")
        .values()
        .flat_map(|m| m["examples"].as_array().cloned().unwrap_or_default())
        .map(|example| outputs(&example).len())
        .sum();
    assert_eq!(checked, outputs_in_schema, "every 0.3 example output was checked");
}

#[test]
fn every_1_0_example_of_a_served_method_goes_to_0_3_and_back() {
    let document = v1_0_document();
    let mut checked = 0;
    for method in a2a::v0_3::METHODS {
        let served = current(method);
        for example in examples_of(&document, method.serves) {
            let params = example["params"].clone();
            let downgraded = (method.downgrade_params)(params.clone())
                .unwrap_or_else(|e| panic!("{}: params do not downgrade: {e:?}", method.serves));
            (method.roundtrip_params)(downgraded.clone()).unwrap_or_else(|e| {
                panic!(
                    "{}: downgraded params are no {}: {e}",
                    method.serves, method.params_type
                )
            });
            let back = (method.upgrade_params)(downgraded.into()).expect("params upgrade");
            let expected = without_what_0_3_cannot_say(&with_the_0_3_default_config_id(&params));
            let expected = (served.roundtrip_params)(expected).expect("canonical");
            assert_eq!(back, expected, "{}: params changed", method.serves);
            for output in outputs(&example) {
                let downgraded = (method.downgrade_result)(output.clone())
                    .unwrap_or_else(|e| panic!("{}: result does not downgrade: {e:?}", method.serves));
                (method.roundtrip_result)(downgraded.clone()).unwrap_or_else(|e| {
                    panic!(
                        "{}: downgraded result is no {}: {e}",
                        method.serves, method.result_type
                    )
                });
                // A card's interfaces name their versions, which a 0.3 card cannot:
                // it is checked to convert, not to come back the same.
                if method.result_type != "AgentCard" {
                    let back = (method.upgrade_result)(downgraded).expect("result upgrades");
                    let expected =
                        (served.roundtrip_result)(without_what_0_3_cannot_say(&output)).expect("canonical");
                    assert_eq!(back, expected, "{}: result changed", method.serves);
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked >= a2a::v0_3::METHODS.len(),
        "at least one output per method, got {checked}"
    );
}

#[test]
fn a_0_3_status_update_is_final_exactly_when_its_state_ends_the_stream() {
    let update =
        |state: &str| serde_json::json!({"taskId": "t", "contextId": "c", "status": {"state": state}});
    let downgrade = a2a::v0_3::find_method("message/stream")
        .expect("message/stream")
        .downgrade_result;
    let finals: Vec<(String, Value)> = [
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_AUTH_REQUIRED",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_FAILED",
        "TASK_STATE_REJECTED",
    ]
    .iter()
    .map(|state| {
        let event = downgrade(serde_json::json!({"statusUpdate": update(state)})).expect("downgrades");
        (
            event["status"]["state"].as_str().unwrap_or_default().to_string(),
            event["final"].clone(),
        )
    })
    .collect();
    let expected: Vec<(String, Value)> = [
        ("submitted", false),
        ("working", false),
        ("input-required", true),
        ("auth-required", true),
        ("completed", true),
        ("canceled", true),
        ("failed", true),
        ("rejected", true),
    ]
    .iter()
    .map(|(s, f)| (s.to_string(), Value::Bool(*f)))
    .collect();
    assert_eq!(finals, expected);
}

#[test]
fn the_decision_records_names_resolve_to_their_0_3_methods() {
    let pairs = [
        ("tasks/subscribe", "tasks/resubscribe"),
        (
            "pushNotificationConfig/create",
            "tasks/pushNotificationConfig/set",
        ),
        ("pushNotificationConfig/get", "tasks/pushNotificationConfig/get"),
        ("pushNotificationConfig/list", "tasks/pushNotificationConfig/list"),
        (
            "pushNotificationConfig/delete",
            "tasks/pushNotificationConfig/delete",
        ),
        ("getExtendedAgentCard", "agent/getAuthenticatedExtendedCard"),
        ("message/send", "message/send"),
        ("tasks/list", "tasks/list"),
    ];
    for (alias, name) in pairs {
        assert_eq!(
            a2a::v0_3::find_method(alias).map(|m| m.name),
            Some(name),
            "{alias}"
        );
    }
    assert!(a2a::v0_3::find_method("SendMessage").is_none());
}

#[test]
fn bad_0_3_params_are_invalid_params_naming_the_field() {
    let upgrade = a2a::v0_3::find_method("message/send")
        .expect("message/send")
        .upgrade_params;
    let error = upgrade(serde_json::json!({"message": {"messageId": "m", "role": "ROLE_USER", "kind": "message", "parts": []}}).into())
        .unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(
        error
            .message
            .starts_with("Invalid params for `message/send`: message.role:"),
        "{}",
        error.message
    );
}
