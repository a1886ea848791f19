//! Protobuf ⇄ JSON for an rpc's messages. The JSON is ProtoJSON (camelCase
//! names, enum names, RFC 3339 timestamps, base64 bytes), which is the wire
//! JSON of the contract itself, so the router takes it as it takes a JSON-RPC
//! call's params (64-bit integers are numbers, as the contract writes them).
//! A field without presence (a proto3 scalar, enum, repeated
//! or map field outside a `oneof` and not `optional`) that the contract's
//! schema requires is written even at its default: protobuf cannot tell it
//! unset from its default, and the contract's JSON needs it (`nextPageToken`,
//! a request's `id`). Other defaults stay out, as JSON-RPC leaves them out,
//! so a value stored from a gRPC call is the one a JSON-RPC call stores. Unknown protobuf fields are kept by the decoder (proto3) and
//! left out of the JSON; fields the contract's JSON has and the message does
//! not (none, for the standard service) are left out of the protobuf.
//!
//! Both directions take the direct paths first (`json_to_proto`,
//! `proto_to_json`: one pass, driven by plans compiled once per message
//! type), and a dynamic message of prost-reflect for what those leave: a
//! type they have no rule for, or input they do not take, whose error the
//! reflective path names.

use a2a::rpc::Error;
use a2a::ErrorKind;
use prost::Message;
use prost_reflect::{DeserializeOptions, DynamicMessage, Kind, MessageDescriptor, SerializeOptions};
use serde_json::Value;

/// ProtoJSON as the contract writes it: 64-bit integers as JSON numbers (the
/// contract's integers are numbers; ProtoJSON readers take both).
fn options() -> SerializeOptions {
    SerializeOptions::new().stringify_64_bit_integers(false)
}

/// The JSON of a protobuf `message` of type `descriptor`; a message that does
/// not decode is the caller's parse error.
pub fn to_json(descriptor: &MessageDescriptor, message: &[u8]) -> Result<Value, Error> {
    match crate::proto_to_json::decode(descriptor, message) {
        Some(json) => Ok(json),
        None => reflective_to_json(descriptor, message),
    }
}

/// [`to_json`] through a dynamic message: every message type, and the error
/// that names what does not decode.
pub(crate) fn reflective_to_json(descriptor: &MessageDescriptor, message: &[u8]) -> Result<Value, Error> {
    let decoded = DynamicMessage::decode(descriptor.clone(), message).map_err(|e| {
        Error::new(
            ErrorKind::ParseError,
            format!("the message is not a valid {}: {e}", descriptor.full_name()),
        )
    })?;
    decoded
        .serialize_with_options(serde_json::value::Serializer, &options())
        .map(|mut json| {
            with_required_defaults(descriptor, &mut json);
            integral_numbers(&mut json);
            json
        })
        .map_err(|e| {
            Error::new(
                ErrorKind::InternalError,
                format!("a {} has no JSON form: {e}", descriptor.full_name()),
            )
        })
}

/// Writes into `json` (a message of type `descriptor`, and the messages in
/// it, a map's message values among them) the defaults of the fields without
/// presence its schema definition requires.
fn with_required_defaults(descriptor: &MessageDescriptor, json: &mut Value) {
    let Some(object) = json.as_object_mut() else {
        return;
    };
    let required = a2a::schema::definition(descriptor.name())
        .and_then(|definition| definition.get("required"))
        .and_then(Value::as_array);
    for field in descriptor.fields() {
        let name = field.json_name();
        match (object.get_mut(name), field.kind()) {
            (Some(Value::Object(entries)), Kind::Message(entry)) if field.is_map() => {
                if let Kind::Message(inner) = entry.map_entry_value_field().kind() {
                    for value in entries.values_mut() {
                        with_required_defaults(&inner, value);
                    }
                }
            }
            (Some(value), Kind::Message(inner)) if !field.is_map() => {
                let items: Vec<&mut Value> = match value {
                    Value::Array(items) if field.is_list() => items.iter_mut().collect(),
                    other => vec![other],
                };
                for item in items {
                    with_required_defaults(&inner, item);
                }
            }
            (Some(_), _) => {}
            (None, kind) => {
                let required = required.is_some_and(|r| r.iter().any(|n| n == name));
                if required && !field.supports_presence() {
                    object.insert(name.to_string(), default_of(&field, &kind));
                }
            }
        }
    }
}

/// Numbers protobuf carried as doubles (every number of a `Struct` or
/// `Value`) written as the integers they are, as the contract's JSON has them
/// (`1`, not `1.0`); JSON does not tell the two apart, its readers may.
fn integral_numbers(json: &mut Value) {
    match json {
        Value::Number(number) => {
            if let Some(n) = number
                .as_f64()
                .filter(|_| number.is_f64())
                .and_then(crate::proto_to_json::integral)
            {
                *json = Value::from(n);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_numbers),
        Value::Object(members) => members.values_mut().for_each(integral_numbers),
        _ => {}
    }
}

/// The ProtoJSON of a field's default value.
fn default_of(field: &prost_reflect::FieldDescriptor, kind: &Kind) -> Value {
    if field.is_list() {
        return Value::Array(Vec::new());
    }
    if field.is_map() {
        return Value::Object(serde_json::Map::new());
    }
    match kind {
        Kind::String | Kind::Bytes => Value::String(String::new()),
        Kind::Bool => Value::Bool(false),
        Kind::Enum(values) => Value::String(values.default_value().name().to_string()),
        _ => Value::from(0),
    }
}

/// The protobuf of a JSON `value` (text) as a message of type `descriptor`.
/// `what` says whose JSON it is, for the error when it does not fit: the
/// caller's (`InvalidParams`) or the agent's own answer (`InternalError`).
pub fn from_json(descriptor: &MessageDescriptor, json: &str, what: ErrorKind) -> Result<Vec<u8>, Error> {
    if let Some(bytes) = crate::json_to_proto::encode(descriptor, json) {
        return Ok(bytes);
    }
    reflective_from_json(descriptor, json, what)
}

/// [`from_json`] through a dynamic message: every message type, and the
/// error that names what does not fit.
pub(crate) fn reflective_from_json(
    descriptor: &MessageDescriptor,
    json: &str,
    what: ErrorKind,
) -> Result<Vec<u8>, Error> {
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let options = DeserializeOptions::new().deny_unknown_fields(false);
    let message = DynamicMessage::deserialize_with_options(descriptor.clone(), &mut deserializer, &options)
        .and_then(|message| deserializer.end().map(|()| message))
        .map_err(|e| {
            Error::new(
                what,
                format!("the JSON is not a valid {}: {e}", descriptor.full_name()),
            )
        })?;
    Ok(message.encode_to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Service;
    use serde_json::json;

    fn message(name: &str) -> MessageDescriptor {
        let service = Service::contract().expect("compiles");
        service
            .rpcs()
            .flat_map(|r| [r.input.clone(), r.output.clone()])
            .find(|m| m.full_name() == name)
            .expect(name)
    }

    #[test]
    fn a_send_message_request_keeps_its_wire_json() {
        let request = json!({
            "tenant": "acme",
            "message": {
                "messageId": "m-1",
                "role": "ROLE_USER",
                "parts": [
                    {"text": "hello", "mediaType": "text/plain"},
                    {"raw": "AAEC", "filename": "b.bin"},
                    {"data": {"n": 1.5, "list": [true, null]}}
                ],
                "metadata": {"k": "v"}
            },
            "configuration": {"historyLength": 0, "acceptedOutputModes": ["text/plain"]}
        });
        let descriptor = message("lf.a2a.v1.SendMessageRequest");
        let bytes = from_json(&descriptor, &request.to_string(), ErrorKind::InvalidParams).unwrap();
        assert_eq!(to_json(&descriptor, &bytes).unwrap(), request);
    }

    #[test]
    fn a_task_with_a_timestamp_round_trips() {
        let task = json!({
            "id": "t-1",
            "contextId": "c-1",
            "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2026-12-03T14:14:36.123Z"},
            "history": [],
        });
        let descriptor = message("lf.a2a.v1.Task");
        let bytes = from_json(&descriptor, &task.to_string(), ErrorKind::InternalError).unwrap();
        let mut expected = task.clone();
        // An empty list is the default, which ProtoJSON leaves out.
        expected.as_object_mut().unwrap().remove("history");
        assert_eq!(to_json(&descriptor, &bytes).unwrap(), expected);
    }

    #[test]
    fn what_does_not_fit_is_the_named_error() {
        let descriptor = message("lf.a2a.v1.GetTaskRequest");
        let error = to_json(&descriptor, &[0x0a, 0x05, b'a']).unwrap_err();
        assert!(error.is(ErrorKind::ParseError), "{error}");
        assert!(error
            .message
            .starts_with("the message is not a valid lf.a2a.v1.GetTaskRequest"));
        let error = from_json(
            &descriptor,
            r#"{"historyLength": "many"}"#,
            ErrorKind::InvalidParams,
        )
        .unwrap_err();
        assert!(error.is(ErrorKind::InvalidParams), "{error}");
        // Unknown JSON fields are dropped, unknown protobuf fields ignored.
        let bytes = from_json(&descriptor, r#"{"id": "t", "x": 1}"#, ErrorKind::InvalidParams).unwrap();
        let mut with_unknown = bytes.clone();
        with_unknown.extend_from_slice(&[0xf8, 0x3e, 0x07]); // field 999, varint 7
        assert_eq!(to_json(&descriptor, &with_unknown).unwrap(), json!({"id": "t"}));
        // What the schema requires is written at its default.
        let empty = message("lf.a2a.v1.ListTasksResponse");
        assert_eq!(
            to_json(&empty, &[]).unwrap(),
            json!({"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0})
        );
        assert_eq!(to_json(&descriptor, &[]).unwrap(), json!({"id": ""}));
    }
}
