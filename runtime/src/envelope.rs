//! The JSON-RPC 2.0 envelope, defined once for every side: the request id, a
//! request, a notification and a response (a result or an error). Server,
//! clients and the conformance suite build and read messages through these, so
//! the envelope cannot differ between them.

use crate::error::Error;
use serde::de::{DeserializeOwned, Error as _};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

/// The `jsonrpc` member: exactly `"2.0"`.
pub const JSONRPC_VERSION: &str = "2.0";

/// The `jsonrpc` member as a type: writes `"2.0"` and accepts nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(JSONRPC_VERSION)
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text == JSONRPC_VERSION {
            Ok(JsonRpcVersion)
        } else {
            Err(D::Error::custom(format_args!(
                "`jsonrpc` must be exactly \"{JSONRPC_VERSION}\", not \"{text}\""
            )))
        }
    }
}

/// The `id` of a request: a string, an integer, or null.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// `"id": null`.
    Null,
    /// A numeric id.
    Integer(i64),
    /// A string id.
    String(String),
}

impl RequestId {
    /// The id a JSON value is, if it is a valid one (no fractions, no other types).
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::Null => Some(RequestId::Null),
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Integer),
            _ => None,
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Null => Value::Null,
            RequestId::Integer(i) => Value::from(*i),
            RequestId::String(s) => Value::String(s.clone()),
        }
    }
}

impl From<i64> for RequestId {
    fn from(value: i64) -> Self {
        RequestId::Integer(value)
    }
}

impl From<u64> for RequestId {
    fn from(value: u64) -> Self {
        i64::try_from(value).map_or_else(|_| RequestId::String(value.to_string()), RequestId::Integer)
    }
}

impl From<String> for RequestId {
    fn from(value: String) -> Self {
        RequestId::String(value)
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Null => f.write_str("null"),
            RequestId::Integer(i) => write!(f, "{i}"),
            RequestId::String(s) => f.write_str(s),
        }
    }
}

/// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}`; `params` may be absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request<P = Value> {
    /// Always `"2.0"`; anything else is rejected on input.
    pub jsonrpc: JsonRpcVersion,
    /// The id the response echoes.
    pub id: RequestId,
    /// The wire name of the method called.
    pub method: String,
    /// The method's params; absent reads as `{}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> Request<P> {
    /// A JSON-RPC 2.0 request calling `method` with `params`.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: P) -> Self {
        Request {
            jsonrpc: JsonRpcVersion,
            id: id.into(),
            method: method.into(),
            params: Some(params),
        }
    }

    /// A request that carries no `params` member.
    pub fn without_params(id: impl Into<RequestId>, method: impl Into<String>) -> Self {
        Request {
            jsonrpc: JsonRpcVersion,
            id: id.into(),
            method: method.into(),
            params: None,
        }
    }
}

impl<P: Serialize> Request<P> {
    /// The request as a JSON value.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::to_value(self)
    }
}

impl<P: Serialize> Notification<P> {
    /// The notification as a JSON value.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::to_value(self)
    }
}

impl<R: Serialize> Response<R> {
    /// The response as a JSON value.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::to_value(self)
    }
}

/// `{"jsonrpc":"2.0","method":…,"params":…}`: a message that gets no response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Notification<P = Value> {
    /// Always `"2.0"`; anything else is rejected on input.
    pub jsonrpc: JsonRpcVersion,
    /// The wire name of the method called.
    pub method: String,
    /// The method's params.
    pub params: P,
}

impl<P> Notification<P> {
    /// A JSON-RPC 2.0 notification of `method` with `params`.
    pub fn new(method: impl Into<String>, params: P) -> Self {
        Notification {
            jsonrpc: JsonRpcVersion,
            method: method.into(),
            params,
        }
    }
}

/// `{"jsonrpc":"2.0","id":…,"result":…}` or `{"jsonrpc":"2.0","id":…,"error":…}`.
///
/// Reading one is lenient about everything but the outcome: a response carries
/// an `error` (which wins) or a `result` (`null` included), and the id when it
/// has one; a client matches on the outcome, not on the envelope's other members.
#[derive(Clone, Debug, PartialEq)]
pub struct Response<R = Value> {
    /// The id of the request answered (`null` when it could not be read).
    pub id: RequestId,
    /// The `result` member, or the `error` member.
    pub outcome: Result<R, Error>,
}

impl<R> Response<R> {
    /// A response to request `id`.
    pub fn new(id: RequestId, outcome: Result<R, Error>) -> Self {
        Response { id, outcome }
    }

    /// A success response to request `id`.
    pub fn success(id: RequestId, result: R) -> Self {
        Response::new(id, Ok(result))
    }

    /// An error response to request `id`.
    pub fn failure(id: RequestId, error: Error) -> Self {
        Response::new(id, Err(error))
    }
}

impl<R: Serialize> Serialize for Response<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", &JsonRpcVersion)?;
        map.serialize_entry("id", &self.id)?;
        match &self.outcome {
            Ok(result) => map.serialize_entry("result", result)?,
            Err(error) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

impl<'de, R: DeserializeOwned> Deserialize<'de> for Response<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut object = Map::<String, Value>::deserialize(deserializer)?;
        let id = object
            .get("id")
            .and_then(RequestId::from_value)
            .unwrap_or(RequestId::Null);
        let outcome = if let Some(error) = object.remove("error") {
            Err(serde_json::from_value::<Error>(error)
                .map_err(|e| D::Error::custom(format_args!("malformed JSON-RPC error: {e}")))?)
        } else if let Some(result) = object.remove("result") {
            Ok(serde_json::from_value::<R>(result).map_err(D::Error::custom)?)
        } else {
            return Err(D::Error::custom("JSON-RPC response has neither result nor error"));
        };
        Ok(Response { id, outcome })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_is_the_four_members() {
        let request = Request::new(7i64, "GetTask", json!({"id": "t1"}));
        assert_eq!(
            serde_json::to_value(&request).ok(),
            Some(json!({"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "t1"}}))
        );
    }

    #[test]
    fn jsonrpc_other_than_two_is_refused() {
        let wrong = json!({"jsonrpc": "1.0", "id": 1, "method": "GetTask", "params": {}});
        assert!(serde_json::from_value::<Request>(wrong).is_err());
    }

    #[test]
    fn response_carries_result_or_error() {
        let ok = Response::success(RequestId::from(1i64), json!({"a": 1}));
        assert_eq!(
            serde_json::to_value(&ok).ok(),
            Some(json!({"jsonrpc": "2.0", "id": 1, "result": {"a": 1}}))
        );
        let read: Response = serde_json::from_value(
            json!({"jsonrpc": "2.0", "id": "x", "error": {"code": -32001, "message": "Task not found"}}),
        )
        .expect("an error response");
        assert_eq!(read.id, RequestId::String("x".into()));
        assert_eq!(read.outcome.map_err(|e| e.code), Err(-32001));
        let null: Response = serde_json::from_value(json!({"jsonrpc": "2.0", "id": 1, "result": null}))
            .expect("a null result");
        assert_eq!(null.outcome, Ok(Value::Null));
    }

    #[test]
    fn notification_has_no_id() {
        let note = Notification::new("stream/event", json!({"seq": 1}));
        assert_eq!(
            serde_json::to_value(&note).ok(),
            Some(json!({"jsonrpc": "2.0", "method": "stream/event", "params": {"seq": 1}}))
        );
    }
}
