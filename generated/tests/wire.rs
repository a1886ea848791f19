//! Wire behaviour of the generated types: ProtoJSON leniency on input, canonical
//! output, and precise rejection of malformed values.

use a2a::methods::markers::GetTask;
use a2a::rpc::Method;
use a2a::types::{
    GetTaskRpcRequest, Message, Part, PartContent, Role, SendMessageRequest, StreamResponse, Task, TaskState,
};
use serde_json::{json, Value};

fn decode<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| e.to_string())
}

fn roundtrip_request(value: Value) -> Result<Value, String> {
    (GetTask::descriptor().roundtrip_request)(value)
}

#[test]
fn request_with_wrong_jsonrpc_version_is_rejected() {
    let error =
        roundtrip_request(json!({"jsonrpc": "1.0", "id": 1, "method": "GetTask", "params": {"id": "t"}}))
            .unwrap_err();
    assert_eq!(error, "jsonrpc: unknown variant `1.0`, expected `2.0`");
}

#[test]
fn request_naming_another_method_is_rejected() {
    let error =
        roundtrip_request(json!({"jsonrpc": "2.0", "id": 1, "method": "CancelTask", "params": {"id": "t"}}))
            .unwrap_err();
    assert_eq!(error, "method: unknown variant `CancelTask`, expected `GetTask`");
}

#[test]
fn request_envelope_round_trips_exactly() {
    let request = json!({"jsonrpc": "2.0", "id": "abc", "method": "GetTask", "params": {"id": "t", "historyLength": 2}});
    let typed: GetTaskRpcRequest = decode(request.clone()).expect("decodes");
    assert_eq!(serde_json::to_value(typed).expect("encodes"), request);
}

#[test]
fn missing_required_field_names_the_field() {
    let error = (GetTask::descriptor().roundtrip_params)(json!({"historyLength": 1})).unwrap_err();
    assert_eq!(error, "missing field `id`");
    let nested = json!({"message": {"role": "ROLE_USER", "parts": [{"text": "hi"}]}});
    let error = a2a::rpc::roundtrip::<SendMessageRequest>(nested).unwrap_err();
    assert_eq!(error, "message: missing field `messageId`");
}

#[test]
fn part_with_two_contents_is_rejected() {
    let error = decode::<Part>(json!({"text": "a", "url": "https://example.com/x"})).unwrap_err();
    assert_eq!(
        error,
        "Part needs exactly one of `text`, `raw`, `url`, `data`; found `text` and `url`"
    );
}

#[test]
fn part_without_content_is_rejected() {
    let error = decode::<Part>(json!({"mediaType": "text/plain"})).unwrap_err();
    assert_eq!(
        error,
        "Part needs exactly one of `text`, `raw`, `url`, `data`; found none"
    );
}

#[test]
fn part_ignores_a_field_it_does_not_name_but_still_needs_exactly_one_content() {
    let part: Part = decode(json!({"text": "a", "kind": "text", "future": {"x": 1}})).expect("decodes");
    assert_eq!(serde_json::to_value(part).expect("encodes"), json!({"text": "a"}));
    let error = decode::<Part>(json!({"kind": "text", "mediaType": "text/plain"})).unwrap_err();
    assert_eq!(
        error,
        "Part needs exactly one of `text`, `raw`, `url`, `data`; found none"
    );
    let error = decode::<Part>(json!({"text": "a", "url": "https://x", "kind": "text"})).unwrap_err();
    assert_eq!(
        error,
        "Part needs exactly one of `text`, `raw`, `url`, `data`; found `text` and `url`"
    );
}

#[test]
fn part_serializes_its_content_inline() {
    let part = Part {
        content: PartContent::Data(json!({"k": [1, 2]})),
        filename: None,
        media_type: Some("application/json".into()),
        metadata: None,
    };
    assert_eq!(
        serde_json::to_value(&part).expect("encodes"),
        json!({"data": {"k": [1, 2]}, "mediaType": "application/json"})
    );
}

#[test]
fn unknown_enum_name_is_rejected() {
    let error = decode::<TaskState>(json!("TASK_STATE_BOGUS")).unwrap_err();
    assert_eq!(error, "unknown TaskState value `TASK_STATE_BOGUS`");
    let error = decode::<Role>(json!("user")).unwrap_err();
    assert_eq!(error, "unknown Role value `user`");
}

#[test]
fn integer_enum_values_are_accepted_and_written_as_names() {
    assert_eq!(decode::<TaskState>(json!(3)), Ok(TaskState::Completed));
    assert_eq!(decode::<Role>(json!(2)), Ok(Role::Agent));
    assert_eq!(
        serde_json::to_value(TaskState::Completed).expect("encodes"),
        json!("TASK_STATE_COMPLETED")
    );
    assert_eq!(
        decode::<TaskState>(json!(9)).unwrap_err(),
        "unknown TaskState number 9"
    );
    assert_eq!(
        decode::<TaskState>(json!(-1)).unwrap_err(),
        "unknown TaskState number -1"
    );
}

#[test]
fn snake_case_field_names_are_accepted_and_written_camel_case() {
    let input = json!({
        "message_id": "m1",
        "context_id": "c1",
        "task_id": "t1",
        "role": 1,
        "parts": [{"text": "hello", "media_type": "text/plain"}],
        "reference_task_ids": ["t0"]
    });
    let message: Message = decode(input).expect("snake_case decodes");
    assert_eq!(
        serde_json::to_value(&message).expect("encodes"),
        json!({
            "messageId": "m1",
            "contextId": "c1",
            "taskId": "t1",
            "role": "ROLE_USER",
            "parts": [{"text": "hello", "mediaType": "text/plain"}],
            "referenceTaskIds": ["t0"]
        })
    );
}

#[test]
fn snake_case_variant_keys_are_accepted() {
    let event = json!({"status_update": {"task_id": "t", "context_id": "c", "status": {"state": "TASK_STATE_WORKING"}}});
    let decoded: StreamResponse = decode(event).expect("decodes");
    assert_eq!(
        serde_json::to_value(&decoded).expect("encodes"),
        json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}})
    );
}

#[test]
fn both_spellings_of_one_field_are_a_duplicate() {
    let error = decode::<Message>(json!({
        "messageId": "m1", "message_id": "m1", "role": "ROLE_USER", "parts": [{"text": "x"}]
    }))
    .unwrap_err();
    assert_eq!(error, "duplicate field `messageId`");
}

#[test]
fn stream_response_with_two_payloads_is_rejected() {
    let error = decode::<StreamResponse>(json!({
        "task": {"id": "t", "status": {"state": "TASK_STATE_WORKING"}},
        "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}]}
    }))
    .unwrap_err();
    assert_eq!(error, "invalid value: map, expected map with a single key");
}

#[test]
fn empty_metadata_object_round_trips() {
    let task = json!({"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}, "metadata": {}});
    let decoded: Task = decode(task.clone()).expect("decodes");
    assert_eq!(serde_json::to_value(decoded).expect("encodes"), task);
}

#[test]
fn a_field_the_schema_does_not_name_is_ignored_and_not_written_back() {
    let task: Task = decode(json!({
        "id": "t",
        "status": {"state": "TASK_STATE_SUBMITTED", "later": true},
        "kind": "task"
    }))
    .expect("decodes");
    assert_eq!(
        serde_json::to_value(task).expect("encodes"),
        json!({"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}})
    );
}

#[test]
fn ignoring_unknown_fields_leaves_enums_and_required_fields_strict() {
    let error = decode::<Task>(json!({"id": "t", "status": {"state": "TASK_STATE_LATER"}})).unwrap_err();
    assert_eq!(error, "unknown TaskState value `TASK_STATE_LATER`");
    let error = decode::<Task>(json!({"id": "t", "state": "TASK_STATE_SUBMITTED"})).unwrap_err();
    assert!(error.contains("missing field `status`"), "{error}");
}

#[test]
fn integers_may_be_decimal_strings_and_are_written_as_numbers() {
    let request: a2a::types::ListTasksRequest =
        decode(json!({"pageSize": "25", "history_length": 3})).expect("decodes");
    assert_eq!(request.page_size, Some(25));
    assert_eq!(request.history_length, Some(3));
    assert_eq!(
        serde_json::to_value(&request).expect("encodes"),
        json!({"pageSize": 25, "historyLength": 3})
    );
    assert_eq!(
        decode::<a2a::types::ListTasksRequest>(json!({"pageSize": null}))
            .expect("null")
            .page_size,
        None
    );
}

#[test]
fn malformed_integers_are_rejected_precisely() {
    let error = decode::<a2a::types::ListTasksRequest>(json!({"pageSize": "ten"})).unwrap_err();
    assert_eq!(
        error,
        "invalid value: string \"ten\", expected an integer (a JSON number or a decimal string)"
    );
    let error = decode::<a2a::types::ListTasksRequest>(json!({"pageSize": 3000000000u64})).unwrap_err();
    assert_eq!(
        error,
        "invalid value: integer `3000000000`, expected an integer (a JSON number or a decimal string)"
    );
    let error = decode::<a2a::types::ListTasksRequest>(json!({"pageSize": true})).unwrap_err();
    assert_eq!(
        error,
        "invalid type: boolean `true`, expected an integer (a JSON number or a decimal string)"
    );
}
