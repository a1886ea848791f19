//! The JSON-RPC 2.0 envelope, shared by both transports: validating an incoming
//! message into a request (or the exact error to answer), and encoding
//! responses and notifications.
//!
//! Batches (JSON arrays) are rejected with -32600: A2A defines no batch
//! semantics for streaming methods, and one request per message keeps the two
//! transports identical.

mod message;

use a2a::rpc::{contract_of_name, Error, Notification, Params, RequestId, Response, JSONRPC_VERSION};
use a2a::Contract;
use message::Message;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// A validated request.
#[derive(Debug)]
pub struct Request {
    /// The raw id to echo; `None` for a notification.
    pub id: Option<Value>,
    /// The id decoded; `None` for a notification.
    pub request_id: Option<RequestId>,
    /// The wire name of the method called.
    pub method: String,
    /// The params as sent (their text).
    pub params: Params,
}

/// A message that is not a valid request, with the id to answer it under.
#[derive(Debug)]
pub struct Rejected {
    /// The id to answer under: the request's, or `null` when it could not be read.
    pub id: Value,
    /// The error to answer with.
    pub error: Error,
}

/// The contract used for errors that cannot be attributed to a method.
const BASE: Contract = Contract::A2a;

/// Parses and validates one message.
pub fn parse(bytes: &[u8], max_depth: usize) -> Result<Request, Box<Rejected>> {
    let message = parse_json::<Message>(bytes, max_depth).map_err(|error| {
        Box::new(Rejected {
            id: Value::Null,
            error,
        })
    })?;
    validate(message)
}

/// Parses a JSON document no deeper than `max_depth`: the first step of every
/// message, whichever binding carries it. A request is read straight into a
/// [`Message`] (no map for its envelope); other bodies into what they are.
pub(crate) fn parse_json<T: DeserializeOwned>(bytes: &[u8], max_depth: usize) -> Result<T, Error> {
    if exceeds_depth(bytes, max_depth) {
        return Err(Error::new(
            BASE.invalid_request(),
            format!("JSON nesting exceeds the limit of {max_depth} levels"),
        )
        .with_metadata("limit", max_depth.to_string()));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| Error::new(BASE.parse_error(), format!("Invalid JSON payload: {e}")))
}

/// Validates a parsed message as a single JSON-RPC 2.0 request.
fn validate(message: Message) -> Result<Request, Box<Rejected>> {
    let members = match message {
        Message::Object(members) => members,
        Message::Array => {
            return Err(Box::new(Rejected {
                id: Value::Null,
                error: Error::new(
                    BASE.invalid_request(),
                    "Batch requests are not supported: send one JSON-RPC request object per message",
                ),
            }))
        }
        Message::Other => {
            return Err(Box::new(Rejected {
                id: Value::Null,
                error: Error::new(BASE.invalid_request(), "A request must be a JSON object"),
            }))
        }
    };
    let contract = match &members.method {
        Some(Value::String(name)) => contract_of_name(name),
        _ => BASE,
    };
    let invalid = |id: Value, message: String| {
        Box::new(Rejected {
            id,
            error: Error::new(contract.invalid_request(), message),
        })
    };
    let (id, request_id) = match members.id {
        None => (None, None),
        Some(Value::Null) => (Some(Value::Null), Some(RequestId::Null)),
        Some(Value::String(s)) => (Some(Value::String(s.clone())), Some(RequestId::String(s))),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(i) => (Some(Value::Number(n)), Some(RequestId::Integer(i))),
            None => {
                return Err(invalid(
                    Value::Null,
                    "`id` must be a string, an integer or null".into(),
                ))
            }
        },
        Some(_) => {
            return Err(invalid(
                Value::Null,
                "`id` must be a string, an integer or null".into(),
            ))
        }
    };
    let echo = id.clone().unwrap_or(Value::Null);
    match members.jsonrpc {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(_) => return Err(invalid(echo, "`jsonrpc` must be exactly \"2.0\"".into())),
        None => return Err(invalid(echo, "`jsonrpc` is missing; it must be \"2.0\"".into())),
    }
    let method = match members.method {
        Some(Value::String(m)) if !m.is_empty() => m,
        Some(Value::String(_)) => return Err(invalid(echo, "`method` must not be empty".into())),
        Some(_) => return Err(invalid(echo, "`method` must be a string".into())),
        None => return Err(invalid(echo, "`method` is missing".into())),
    };
    let params = match members.params {
        None => Params::Absent,
        Some(text) if text.get().starts_with(['{', '[']) => Params::Text(text),
        Some(_) => {
            return Err(invalid(
                echo,
                "`params` must be an object (or an array) when present".into(),
            ))
        }
    };
    if let Some(unknown) = members.unknown {
        return Err(invalid(
            echo,
            format!("unknown member `{unknown}` in the request"),
        ));
    }
    Ok(Request {
        id,
        request_id,
        method,
        params,
    })
}

/// Best effort: the id of a message that is otherwise not looked at (used to
/// address 401 answers).
pub(crate) fn peek_id(bytes: &[u8], max_depth: usize) -> Value {
    if exceeds_depth(bytes, max_depth) {
        return Value::Null;
    }
    match serde_json::from_slice::<Map<String, Value>>(bytes) {
        Ok(mut object) => match object.remove("id") {
            Some(v @ (Value::String(_) | Value::Number(_))) => v,
            _ => Value::Null,
        },
        Err(_) => Value::Null,
    }
}

/// True when the JSON text nests arrays/objects deeper than `max`. A byte scan,
/// so deep input is refused before a recursive parser sees it.
pub(crate) fn exceeds_depth(bytes: &[u8], max: usize) -> bool {
    // Nesting is never deeper than the brackets that open it. Most messages
    // hold fewer than `max` of them, which a count the compiler vectorizes
    // tells; only the others are followed byte by byte. (`{` and `[` differ
    // in one bit alone, 0x20.)
    let openers: usize = bytes.iter().map(|&b| usize::from(b | 0x20 == b'{')).sum();
    openers > max && nests_deeper(bytes, max)
}

/// [`exceeds_depth`] by following strings and brackets.
fn nests_deeper(bytes: &[u8], max: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in bytes {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// `{"jsonrpc":"2.0","id":…,"result":…}`, encoded.
pub fn success<R: Serialize>(id: &Value, result: R) -> Vec<u8> {
    response(id, Ok(result))
}

/// `{"jsonrpc":"2.0","id":…,"error":…}`, encoded.
pub fn failure(id: &Value, error: &Error) -> Vec<u8> {
    response::<Value>(id, Err(error.clone()))
}

/// A response for a result, through the runtime's one [`Response`] envelope,
/// encoded in one pass (a result already encoded is copied in as it is).
/// `id` is the raw id the request carried (validated by [`validate`], so it is
/// a string, an integer or null; anything else is answered as `null`).
pub(crate) fn response<R: Serialize>(id: &Value, result: Result<R, Error>) -> Vec<u8> {
    let id = RequestId::from_value(id).unwrap_or(RequestId::Null);
    encode(&Response::new(id, result))
}

/// `{"jsonrpc":"2.0","method":…,"params":…}`, encoded.
pub(crate) fn notification<P: Serialize>(method: &str, params: P) -> Vec<u8> {
    encode(&Notification::new(method, params))
}

fn encode(message: &impl Serialize) -> Vec<u8> {
    // Every member is already JSON or a generated type that encodes to it; an
    // encoding failure is the server's own internal error, never a panic.
    serde_json::to_vec(message).unwrap_or_else(|e| {
        let error = json!({"jsonrpc": JSONRPC_VERSION, "id": null, "error": {
            "code": -32603, "message": format!("response could not be encoded: {e}")}});
        error.to_string().into_bytes()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_scan_ignores_brackets_in_strings() {
        assert!(!exceeds_depth(br#"{"a":"[[[[[[[[[[["}"#, 2));
        assert!(exceeds_depth(br#"[[["#, 2));
        assert!(!exceeds_depth(br#"[["\"[[["]]"#, 2));
        // More brackets than the limit, side by side: not deep.
        assert!(!exceeds_depth(br#"[{},{},[],{"a":[]}]"#, 3));
        assert!(!exceeds_depth(br#"{"a":{"b":[1]}}"#, 3));
        assert!(exceeds_depth(br#"{"a":{"b":[1]}}"#, 2));
        // Both kinds of opener count toward the depth.
        assert!(exceeds_depth(b"[{", 1));
        assert!(exceeds_depth(b"{[", 1));
    }

    fn refused(message: &str) -> (Value, i64, String) {
        let r = parse(message.as_bytes(), 8).unwrap_err();
        (r.id, r.error.code, r.error.message)
    }

    #[test]
    fn a_member_given_twice_keeps_its_last_value() {
        let request = parse(
            br#"{"jsonrpc":"2.0","id":1,"method":"A","method":"GetTask","id":"x"}"#,
            8,
        )
        .unwrap();
        assert_eq!(request.method, "GetTask");
        assert_eq!(request.id, Some(json!("x")));
        assert!(request.params.is_absent());
    }

    #[test]
    fn the_first_unknown_member_is_named() {
        let (id, code, message) = refused(r#"{"b":1,"jsonrpc":"2.0","id":7,"a":2,"method":"GetTask","b":3}"#);
        assert_eq!((id, code), (json!(7), -32600));
        assert_eq!(message, "unknown member `b` in the request");
    }

    #[test]
    fn every_value_is_parsed_in_full_wherever_it_is() {
        for message in [
            r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","extra":1e400}"#,
            r#"[{"jsonrpc":"2.0"}, 1e400]"#,
            // Params are kept as their text, and read in full all the same.
            r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t","x":[-1e400]}}"#,
            r#"{"params":{"metadata":{"1e999":1e999}},"jsonrpc":"2.0","id":1,"method":"GetTask"}"#,
        ] {
            let (id, code, text) = refused(message);
            assert_eq!((id, code), (Value::Null, -32700), "{message}");
            assert!(
                text.starts_with("Invalid JSON payload: number out of range"),
                "{text}"
            );
        }
    }

    #[test]
    fn shapes_other_than_one_object_are_invalid_requests() {
        for (message, text) in [
            ("[]", "Batch requests are not supported"),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]"#,
                "Batch requests are not supported",
            ),
            ("null", "A request must be a JSON object"),
            ("\"GetTask\"", "A request must be a JSON object"),
            ("-1.5", "A request must be a JSON object"),
            ("true", "A request must be a JSON object"),
        ] {
            let (id, code, message_text) = refused(message);
            assert_eq!((id, code), (Value::Null, -32600), "{message}");
            assert!(message_text.starts_with(text), "{message}: {message_text}");
        }
    }

    #[test]
    fn syntax_errors_and_trailing_input_are_parse_errors() {
        for message in [
            r#"{"jsonrpc":"2.0","id":1"#,
            r#"{"jsonrpc":"2.0"} {}"#,
            r#"{"id\x":1}"#,
        ] {
            assert_eq!(refused(message).1, -32700, "{message}");
        }
    }

    #[test]
    fn escaped_member_names_are_read_as_their_text() {
        let request = parse(
            br#"{"json\u0072pc":"2.0","\u0069d":3,"method":"GetTask","params":{"id":"t"}}"#,
            8,
        )
        .unwrap();
        assert_eq!(request.request_id, Some(RequestId::Integer(3)));
        assert_eq!(request.params.into_json().unwrap(), Some(json!({"id": "t"})));
    }

    #[test]
    fn params_are_an_object_or_an_array_kept_as_sent() {
        for params in ["7", "\"x\"", "null", "true"] {
            let (id, code, message) = refused(&format!(
                r#"{{"jsonrpc":"2.0","id":4,"method":"GetTask","params":{params}}}"#
            ));
            assert_eq!((id, code), (json!(4), -32600), "{params}");
            assert_eq!(message, "`params` must be an object (or an array) when present");
        }
        for params in [r#"{ "id" : "t" }"#, r#"[1,{"a":[]}]"#] {
            let request = parse(
                format!(r#"{{"jsonrpc":"2.0","id":4,"method":"GetTask","params": {params} }}"#).as_bytes(),
                8,
            )
            .unwrap();
            match request.params {
                Params::Text(text) => assert_eq!(text.get(), params),
                other => panic!("{params}: read as {other:?}"),
            }
        }
    }

    #[test]
    fn fractional_id_is_invalid() {
        let r = parse(br#"{"jsonrpc":"2.0","id":1.5,"method":"GetTask"}"#, 8).unwrap_err();
        assert_eq!(r.error.code, -32600);
        assert_eq!(r.id, Value::Null);
    }
}
