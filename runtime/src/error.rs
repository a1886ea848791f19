//! The JSON-RPC error object exactly as on the wire, and the trait through which
//! it learns the facts of an error registry (code, ErrorInfo reason and domain,
//! HTTP status) without knowing the generated `ErrorKind`.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::fmt;

/// `@type` of a `google.rpc.ErrorInfo` detail.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";
/// `@type` of a `google.rpc.BadRequest` detail.
pub const BAD_REQUEST_TYPE: &str = "type.googleapis.com/google.rpc.BadRequest";

/// An error registry: one value per error the schemas declare. Implemented by the
/// generated `ErrorKind`; the runtime reads the facts through it.
pub trait ErrorRegistry: Copy + Eq + Unpin + fmt::Debug + Send + Sync + 'static {
    /// The JSON-RPC error code.
    fn code(self) -> i64;
    /// The `google.rpc.ErrorInfo` reason.
    fn reason(self) -> &'static str;
    /// The `google.rpc.ErrorInfo` domain.
    fn domain(self) -> &'static str;
    /// The HTTP status a binding that maps errors to HTTP uses.
    fn http_status(self) -> u16;
    /// The gRPC status name (spec §5.4), the `status` of an HTTP+JSON error body.
    fn grpc_status(self) -> &'static str;
    /// The default human-readable message.
    fn default_message(self) -> &'static str;
    /// The error with this ErrorInfo domain and reason.
    fn from_reason(domain: &str, reason: &str) -> Option<Self>;
}

/// A JSON-RPC error object exactly as on the wire: `code`, `message` and `data`.
///
/// Errors built here carry `data` as an array whose first element is a
/// `google.rpc.ErrorInfo` (`reason`, `domain`), optionally followed by a
/// `google.rpc.BadRequest`. An error received from elsewhere keeps whatever `data`
/// it had, so conversion to and from the wire is lossless.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Error {
    /// The JSON-RPC error code.
    pub code: i64,
    /// Human-readable message; clients switch on the ErrorInfo reason in `data`, not on this text.
    pub message: String,
    /// Error details: for errors built here, an array of `google.rpc` detail objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Error {
    /// An error of `kind` with a specific message.
    pub fn new(kind: impl ErrorRegistry, message: impl Into<String>) -> Self {
        Error {
            code: kind.code(),
            message: message.into(),
            data: Some(json!([{
                "@type": ERROR_INFO_TYPE,
                "reason": kind.reason(),
                "domain": kind.domain(),
            }])),
        }
    }

    /// An error of `kind` with its default message.
    pub fn from_kind(kind: impl ErrorRegistry) -> Self {
        Error::new(kind, kind.default_message())
    }

    /// Adds an entry to the ErrorInfo `metadata` map.
    pub fn with_metadata(mut self, key: &str, value: impl Into<String>) -> Self {
        if let Some(info) = self.detail_mut(ERROR_INFO_TYPE) {
            let metadata = info.entry("metadata").or_insert_with(|| json!({}));
            if let Some(metadata) = metadata.as_object_mut() {
                metadata.insert(key.to_string(), Value::String(value.into()));
            }
        }
        self
    }

    /// Adds a `google.rpc.BadRequest` field violation.
    pub fn with_field_violation(mut self, field: &str, description: impl Into<String>) -> Self {
        let violation = json!({ "field": field, "description": description.into() });
        if self.detail_mut(BAD_REQUEST_TYPE).is_none() {
            let details = self.details_mut();
            details.push(json!({ "@type": BAD_REQUEST_TYPE, "fieldViolations": [] }));
        }
        if let Some(list) = self
            .detail_mut(BAD_REQUEST_TYPE)
            .and_then(|d| d.get_mut("fieldViolations"))
            .and_then(Value::as_array_mut)
        {
            list.push(violation);
        }
        self
    }

    /// The ErrorInfo `(domain, reason)`, when present.
    pub fn domain_reason(&self) -> Option<(&str, &str)> {
        let info = self.detail(ERROR_INFO_TYPE)?;
        Some((info.get("domain")?.as_str()?, info.get("reason")?.as_str()?))
    }

    /// The registry entry this error is, matched on `(domain, reason)` and code.
    pub fn kind<K: ErrorRegistry>(&self) -> Option<K> {
        let (domain, reason) = self.domain_reason()?;
        K::from_reason(domain, reason).filter(|kind| kind.code() == self.code)
    }

    /// True when the error is exactly `kind`.
    pub fn is<K: ErrorRegistry>(&self, kind: K) -> bool {
        self.kind() == Some(kind)
    }

    /// The `(field, description)` pairs of a BadRequest detail.
    pub fn field_violations(&self) -> Vec<(String, String)> {
        self.detail(BAD_REQUEST_TYPE)
            .and_then(|d| d.get("fieldViolations"))
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .map(|v| {
                        let get = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                        (get("field"), get("description"))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A metadata entry of the ErrorInfo detail.
    pub fn metadata(&self, key: &str) -> Option<&str> {
        self.detail(ERROR_INFO_TYPE)?.get("metadata")?.get(key)?.as_str()
    }

    /// The HTTP status of this error in registry `K`; 500 for an error that is
    /// no entry of it.
    pub fn http_status<K: ErrorRegistry>(&self) -> u16 {
        self.kind::<K>().map(K::http_status).unwrap_or(500)
    }

    fn detail(&self, type_url: &str) -> Option<&Map<String, Value>> {
        self.data
            .as_ref()?
            .as_array()?
            .iter()
            .filter_map(Value::as_object)
            .find(|d| d.get("@type").and_then(Value::as_str) == Some(type_url))
    }

    fn detail_mut(&mut self, type_url: &str) -> Option<&mut Map<String, Value>> {
        self.data
            .as_mut()?
            .as_array_mut()?
            .iter_mut()
            .filter_map(Value::as_object_mut)
            .find(|d| d.get("@type").and_then(Value::as_str) == Some(type_url))
    }

    fn details_mut(&mut self) -> &mut Vec<Value> {
        // `data` from elsewhere may be any value; keep it as the first detail.
        if !matches!(self.data, Some(Value::Array(_))) {
            let previous = self.data.take();
            self.data = Some(Value::Array(previous.into_iter().collect()));
        }
        match &mut self.data {
            Some(Value::Array(list)) => list,
            _ => unreachable!("data was just made an array"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.domain_reason() {
            Some((domain, reason)) => write!(f, "{} ({reason}, {domain}, code {})", self.message, self.code),
            None => write!(f, "{} (code {})", self.message, self.code),
        }
    }
}

impl std::error::Error for Error {}

impl<K: ErrorRegistry> From<K> for Error {
    fn from(kind: K) -> Self {
        Error::from_kind(kind)
    }
}
