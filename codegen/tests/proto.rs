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

fn protos(schemas: &[(String, Value)]) -> Vec<String> {
    let output = codegen::generate(schemas).expect("generation succeeds");
    output
        .files
        .keys()
        .filter(|name| name.ends_with(".proto"))
        .cloned()
        .collect()
}

#[test]
fn only_a_schema_declaring_its_package_gets_a_proto() {
    let mut schemas = schemas();
    assert_eq!(protos(&schemas), ["a2a.proto", "cleveragents-ext.proto"]);
    schemas[1].1.as_object_mut().expect("an object").remove("x-proto");
    assert_eq!(protos(&schemas), ["a2a.proto"]);
}

#[test]
fn the_extension_gets_a_service_of_its_own_and_the_rpcs_a_table() {
    let output = codegen::generate(&schemas()).expect("generation succeeds");
    let text = &output.files["cleveragents-ext.proto"];
    for line in [
        "package cleveragents.v1;\n",
        "import \"a2a.proto\";\n",
        "service CleverAgentsService {\n",
        "  rpc PlanUse(PlanUseParams) returns (Plan);\n",
        // Another file's types are qualified; streaming methods are server streams.
        "  rpc SessionTell(SessionTellParams) returns (lf.a2a.v1.SendMessageResponse);\n",
        "  rpc EventsSubscribe(EventsSubscribeParams) returns (stream DomainEvent);\n",
        // A string enum is carried as its JSON text; an inline object is a nested message.
        "  string phase = ",
        "  message Session {\n",
        "  Session session = 4;\n",
        // Integers by their format; a non-required scalar keeps its presence.
        "  int64 revision = ",
        "    optional string title = 2;\n",
        // ProjectFile's content is one of text or raw.
        "  oneof content {\n",
    ] {
        assert!(text.contains(line), "missing `{}`", line.trim_end());
    }
    assert!(!text.contains("rpc Initialize("), "binding methods have no rpc");
    let table = &output.files["rpcs.rs"];
    assert!(
        table.contains("(\"a2a.proto\", include_str!(\"a2a.proto\"))"),
        "{table}"
    );
    assert!(
        table.contains("\"/cleveragents.v1.CleverAgentsService/PlanUse\""),
        "{table}"
    );
    assert!(table.contains("\"_cleveragents/plan/use\""), "{table}");
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
                let property = &mut s["definitions"]["GetTaskRequest"]["properties"]["historyLength"];
                property["x-proto"].as_object_mut().expect("an object").remove("type");
                property.as_object_mut().expect("an object").remove("format");
            }),
            "a2a.json: GetTaskRequest.historyLength: an integer needs a format (int32, int64, …) or x-proto.type",
        ),
        (
            Box::new(|s| {
                s["definitions"]["TaskStatus"].as_object_mut().expect("an object").remove("x-proto");
            }),
            "a2a.json: x-proto: `TaskStatus` is referenced by the proto but has no x-proto (a message, or a name it stands for)",
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
