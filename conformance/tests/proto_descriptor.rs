//! The `.proto` generated from `schema/a2a.json` is wire-identical to the
//! official `a2a.proto` of A2A v1.0.1: the package, every message's fields
//! (number, name, type, label, oneof, proto3 optional), every enum's values
//! and the service's methods. Ours is compiled here (protox, no protoc); the
//! official one is read from the descriptor the official Python SDK ships
//! (`a2a.types.a2a_pb2`, installed by `interop/sdk-venv.sh`), and both are
//! printed in the one shape of `proto/descriptor.py`. Options, comments and
//! imports are not compared: they change no byte on the wire.

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

#[test]
fn the_generated_proto_is_wire_identical_to_the_official_one() {
    let official = official();
    let ours = shape(&ours());
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
