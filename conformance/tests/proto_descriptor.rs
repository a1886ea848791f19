//! The `.proto` generated from `schema/a2a.json` is wire-identical to the
//! official `a2a.proto` of A2A v1.0.1: the package, every message's fields
//! (number, name, type, label, oneof, proto3 optional), every enum's values
//! and the service's methods. Ours is compiled here (protox, no protoc); the
//! official one is read from the descriptor the official Python SDK ships
//! (`a2a.types.a2a_pb2`, installed by `interop/sdk-venv.sh`), and both are
//! printed in the one shape of `proto/descriptor.py`. Options, comments and
//! imports are not compared: they change no byte on the wire.
//!
//! The schema is A2A 1.1 (a draft), 1.0 plus the members marked `x-since:
//! "1.1"`: those are set aside for the comparison with the 1.0 descriptor and
//! checked on their own against the numbers and types of the 1.1 proto
//! (branch dev-1.1 of the specification, which no SDK ships yet).

use prost_types::field_descriptor_proto::Label;
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorProto};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The official descriptor's shape, printed by the SDK's own Python.
fn official() -> Value {
    let script = format!("{ROOT}/conformance/interop/sdk-venv.sh");
    let venv = Command::new("bash")
        .args([&script, "1.0"])
        .output()
        .expect("sdk-venv.sh runs");
    assert!(venv.status.success(), "{}", String::from_utf8_lossy(&venv.stderr));
    let python = String::from_utf8(venv.stdout).expect("a path").trim().to_string();
    let printed = Command::new(python)
        .args([
            &format!("{ROOT}/conformance/proto/descriptor.py"),
            "a2a.types.a2a_pb2",
        ])
        .output()
        .expect("descriptor.py runs");
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    serde_json::from_slice(&printed.stdout).expect("JSON")
}

/// Our generated proto, compiled.
fn ours() -> FileDescriptorProto {
    let dir = Path::new(ROOT).join("generated/src/gen");
    let set = protox::compile(["a2a.proto"], [&dir]).expect("the generated proto compiles");
    set.file
        .into_iter()
        .find(|file| file.name() == "a2a.proto")
        .expect("a2a.proto among the compiled files")
}

fn type_name(
    field: &FieldDescriptorProto,
    entries: &BTreeMap<String, (FieldDescriptorProto, FieldDescriptorProto)>,
) -> String {
    if let Some((key, value)) = entries.get(field.type_name()) {
        return format!("map<{},{}>", type_name(key, entries), type_name(value, entries));
    }
    if !field.type_name().is_empty() {
        return field.type_name().to_string();
    }
    field
        .r#type()
        .as_str_name()
        .trim_start_matches("TYPE_")
        .to_lowercase()
}

fn message(
    proto: &DescriptorProto,
    prefix: &str,
    out: &mut Map<String, Value>,
    entries: &mut BTreeMap<String, (FieldDescriptorProto, FieldDescriptorProto)>,
) {
    let name = format!("{prefix}.{}", proto.name());
    for nested in &proto.nested_type {
        if nested.options.as_ref().is_some_and(|o| o.map_entry()) {
            entries.insert(
                format!("{name}.{}", nested.name()),
                (nested.field[0].clone(), nested.field[1].clone()),
            );
        }
    }
    for nested in &proto.nested_type {
        if !nested.options.as_ref().is_some_and(|o| o.map_entry()) {
            message(nested, &name, out, entries);
        }
    }
    let mut fields: Vec<&FieldDescriptorProto> = proto.field.iter().collect();
    fields.sort_by_key(|f| f.number());
    let fields: Vec<Value> = fields
        .into_iter()
        .map(|field| {
            let is_map = entries.contains_key(field.type_name());
            let oneof = match (field.oneof_index, field.proto3_optional()) {
                (Some(index), false) => json!(proto.oneof_decl[index as usize].name()),
                _ => Value::Null,
            };
            let label = match (is_map, field.label()) {
                (true, _) => "map",
                (false, Label::Repeated) => "repeated",
                (false, Label::Required) => "required",
                (false, Label::Optional) => "optional",
            };
            json!({
                "number": field.number(),
                "name": field.name(),
                "type": type_name(field, entries),
                "label": label,
                "oneof": oneof,
                "proto3Optional": field.proto3_optional(),
            })
        })
        .collect();
    out.insert(name, Value::Array(fields));
}

/// `file` in the shape `proto/descriptor.py` prints.
fn shape(file: &FileDescriptorProto) -> Value {
    let prefix = format!(".{}", file.package());
    let (mut messages, mut entries) = (Map::new(), BTreeMap::new());
    for proto in &file.message_type {
        message(proto, &prefix, &mut messages, &mut entries);
    }
    let enums: Map<String, Value> = file
        .enum_type
        .iter()
        .map(|e| {
            let values: Map<String, Value> = e
                .value
                .iter()
                .map(|v| (v.name().to_string(), json!(v.number())))
                .collect();
            (format!("{prefix}.{}", e.name()), Value::Object(values))
        })
        .collect();
    let services: Map<String, Value> = file
        .service
        .iter()
        .map(|s| {
            let methods: Map<String, Value> = s
                .method
                .iter()
                .map(|m| {
                    let method = json!({
                        "input": m.input_type(),
                        "output": m.output_type(),
                        "clientStreaming": m.client_streaming(),
                        "serverStreaming": m.server_streaming(),
                    });
                    (m.name().to_string(), method)
                })
                .collect();
            (format!("{prefix}.{}", s.name()), Value::Object(methods))
        })
        .collect();
    json!({"package": file.package(), "messages": messages, "enums": enums, "services": services})
}

/// The members the schema marks as added after 1.0: (proto message, json name).
fn members_since_1_0() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(format!("{ROOT}/schema/a2a.json")).expect("schema");
    let schema: Value = serde_json::from_str(&text).expect("schema JSON");
    let mut found = Vec::new();
    for (name, definition) in schema["definitions"].as_object().expect("definitions") {
        for (member, property) in definition["properties"].as_object().into_iter().flatten() {
            if property.get("x-since").is_some() {
                found.push((format!(".lf.a2a.v1.{name}"), member.clone()));
            }
        }
    }
    found
}

/// `ours` without the fields the schema added after 1.0, and those fields.
fn split_newer(ours: &mut Value) -> Vec<Value> {
    let newer = members_since_1_0();
    let mut taken = Vec::new();
    for (message, member) in &newer {
        let fields = ours["messages"][message]
            .as_array_mut()
            .expect("message of a newer member");
        let proto_name = heck_snake(member);
        let at = fields
            .iter()
            .position(|f| f["name"] == proto_name.as_str())
            .unwrap_or_else(|| panic!("{message}.{proto_name} in the generated proto"));
        let mut field = fields.remove(at);
        field["message"] = json!(message);
        taken.push(field);
    }
    taken
}

fn heck_snake(camel: &str) -> String {
    let mut out = String::new();
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn the_fields_added_by_1_1_are_those_of_the_1_1_proto() {
    let mut ours = shape(&ours());
    let mut added = split_newer(&mut ours);
    added.sort_by(|a, b| a["message"].as_str().cmp(&b["message"].as_str()));
    let field = |message: &str, number: i64, name: &str, optional: bool| {
        json!({"message": format!(".lf.a2a.v1.{message}"), "number": number, "name": name,
               "type": "int64", "label": "optional", "oneof": null, "proto3Optional": optional})
    };
    // specification/a2a.proto at dev-1.1 (A2A PR #1810).
    assert_eq!(
        added,
        vec![
            field("GetTaskRequest", 4, "current_generation", true),
            field("SendMessageConfiguration", 5, "if_generation_match", true),
            field("Task", 7, "generation", false),
            field("TaskArtifactUpdateEvent", 7, "generation", false),
            field("TaskStatusUpdateEvent", 5, "generation", false),
        ]
    );
}

#[test]
fn the_generated_proto_is_wire_identical_to_the_official_one() {
    let official = official();
    let mut ours = shape(&ours());
    // 1.0 is the schema without what 1.1 added (checked above).
    split_newer(&mut ours);
    assert_eq!(ours["package"], "lf.a2a.v1");
    assert_eq!(ours["package"], official["package"]);
    assert_eq!(ours["enums"], official["enums"]);
    assert_eq!(ours["services"], official["services"]);
    let names = |shape: &Value| -> Vec<String> {
        let mut names: Vec<String> = shape["messages"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        names.sort();
        names
    };
    assert_eq!(names(&ours), names(&official), "the same messages");
    for name in names(&official) {
        assert_eq!(
            ours["messages"][&name], official["messages"][&name],
            "message {name}"
        );
    }
    // What the comparison covers, so a shape that lost its content fails.
    assert_eq!(names(&official).len(), 44);
    assert_eq!(
        official["services"][".lf.a2a.v1.A2AService"]
            .as_object()
            .map(|m| m.len()),
        Some(11)
    );
    assert_eq!(
        ours["messages"][".lf.a2a.v1.AgentCard"][7],
        json!({"number": 8, "name": "security_schemes", "type": "map<string,.lf.a2a.v1.SecurityScheme>",
               "label": "map", "oneof": null, "proto3Optional": false})
    );
}
