//! The `.proto` generator on the workspace's schemas: what it writes for the
//! annotations, and the exact error for each annotation it cannot follow.

use serde_json::{json, Value};
use std::path::Path;

fn schemas() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
    codegen::load_schemas(&dir, codegen::SCHEMA_FILES).expect("schemas load")
}

fn proto(schemas: &[(String, Value)]) -> String {
    let output = codegen::generate(schemas).expect("generation succeeds");
    output.files["a2a.proto"].clone()
}

/// An edit of the A2A schema.
type Edit = Box<dyn FnOnce(&mut Value)>;

fn error_of(edit: impl FnOnce(&mut Value)) -> String {
    let mut schemas = schemas();
    edit(&mut schemas[0].1);
    codegen::generate(&schemas).expect_err("refused").to_string()
}

#[test]
fn only_a_schema_declaring_its_package_gets_a_proto() {
    let output = codegen::generate(&schemas()).expect("generation succeeds");
    let protos: Vec<&String> = output
        .files
        .keys()
        .filter(|name| name.ends_with(".proto"))
        .collect();
    assert_eq!(protos, ["a2a.proto"]);
}

#[test]
fn the_annotations_and_the_type_rule_become_fields() {
    let text = proto(&schemas());
    for line in [
        "package lf.a2a.v1;\n",
        "import \"google/protobuf/empty.proto\";\n",
        "  rpc SendStreamingMessage(SendMessageRequest) returns (stream StreamResponse);\n",
        "  rpc DeleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest) returns (google.protobuf.Empty);\n",
        "  oneof content {\n",
        "    bytes raw = 2;\n",
        "    google.protobuf.Value data = 4;\n",
        "  map<string, SecurityScheme> security_schemes = 8;\n",
        "  optional int32 history_length = 3;\n",
        "  google.protobuf.Timestamp timestamp = 3;\n",
        "  TASK_STATE_AUTH_REQUIRED = 8;\n",
    ] {
        assert!(text.contains(line), "missing `{}`", line.trim_end());
    }
    assert!(
        !text.contains("message Empty"),
        "a well-known type is named, not emitted"
    );
}

#[test]
fn annotations_it_cannot_follow_are_named() {
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|s| s["definitions"]["Task"]["properties"]["contextId"]["x-proto"]["number"] = json!(0)),
            "a2a.json: Task.contextId: x-proto.number must be a field number",
        ),
        (
            Box::new(|s| s["definitions"]["Task"]["properties"]["history"]["x-proto"]["number"] = json!(4)),
            "a2a.json: Task: field number 4 given twice",
        ),
        (
            Box::new(|s| {
                let annotation = &mut s["definitions"]["GetTaskRequest"]["properties"]["historyLength"]["x-proto"];
                annotation.as_object_mut().expect("an object").remove("type");
            }),
            "a2a.json: GetTaskRequest.historyLength: a property of type `integer` needs x-proto.type (int32, int64, …)",
        ),
        (
            Box::new(|s| s["definitions"]["Empty"]["x-proto"]["name"] = json!("google.protobuf.Any")),
            "a2a.json: x-proto: `google.protobuf.Any` is not a well-known type this generator knows",
        ),
        (
            Box::new(|s| s["x-proto"]["service"] = json!(7)),
            "a2a.json: x-proto.service must be a string",
        ),
    ];
    for (edit, message) in cases {
        assert_eq!(error_of(edit), message);
    }
}
