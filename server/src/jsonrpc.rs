//! The JSON-RPC 2.0 envelope, shared by both transports: validating an incoming
//! message into a request (or the exact error to answer), and encoding
//! responses and notifications.
//!
//! Batches (JSON arrays) are rejected with -32600: A2A defines no batch
//! semantics for streaming methods, and one request per message keeps the two
//! transports identical.

use a2a::rpc::{contract_of_name, Error, Notification, RequestId, Response, JSONRPC_VERSION};
use a2a::Contract;
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
    /// The params as sent; `None` when absent.
    pub params: Option<Value>,
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
    let value = parse_json(bytes, max_depth).map_err(|error| {
        Box::new(Rejected {
            id: Value::Null,
            error,
        })
    })?;
    validate(value)
}

/// Parses a JSON document no deeper than `max_depth`: the first step of every
/// message, whichever binding carries it.
pub(crate) fn parse_json(bytes: &[u8], max_depth: usize) -> Result<Value, Error> {
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
pub(crate) fn validate(value: Value) -> Result<Request, Box<Rejected>> {
    let mut object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(Box::new(Rejected {
                id: Value::Null,
                error: Error::new(
                    BASE.invalid_request(),
                    "Batch requests are not supported: send one JSON-RPC request object per message",
                ),
            }))
        }
        _ => {
            return Err(Box::new(Rejected {
                id: Value::Null,
                error: Error::new(BASE.invalid_request(), "A request must be a JSON object"),
            }))
        }
    };
    let contract = match object.get("method") {
        Some(Value::String(name)) => contract_of_name(name),
        _ => BASE,
    };
    let invalid = |id: Value, message: String| {
        Box::new(Rejected {
            id,
            error: Error::new(contract.invalid_request(), message),
        })
    };
    let (id, request_id) = match object.remove("id") {
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
    match object.remove("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(_) => return Err(invalid(echo, "`jsonrpc` must be exactly \"2.0\"".into())),
        None => return Err(invalid(echo, "`jsonrpc` is missing; it must be \"2.0\"".into())),
    }
    let method = match object.remove("method") {
        Some(Value::String(m)) if !m.is_empty() => m,
        Some(Value::String(_)) => return Err(invalid(echo, "`method` must not be empty".into())),
        Some(_) => return Err(invalid(echo, "`method` must be a string".into())),
        None => return Err(invalid(echo, "`method` is missing".into())),
    };
    let params = match object.remove("params") {
        None => None,
        Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p),
        Some(_) => {
            return Err(invalid(
                echo,
                "`params` must be an object (or an array) when present".into(),
            ))
        }
    };
    if let Some(unknown) = object.keys().next() {
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
    }

    #[test]
    fn fractional_id_is_invalid() {
        let r = validate(json!({"jsonrpc":"2.0","id":1.5,"method":"GetTask"})).unwrap_err();
        assert_eq!(r.error.code, -32600);
        assert_eq!(r.id, Value::Null);
    }
}
