//! A call's status on the gRPC wire: `grpc-status`, `grpc-message`
//! (percent-encoded) and `grpc-status-details-bin` (a base64
//! `google.rpc.Status` whose details carry the error's `google.rpc.ErrorInfo`
//! and `google.rpc.BadRequest`, spec §10.6). A contract error's code is the one
//! its registry entry names (`x-errors[].grpcStatus`, spec §5.4); the client
//! reads the ErrorInfo back into the same contract error.

use crate::headers;
use a2a::rpc::{Error, ErrorRegistry, BAD_REQUEST_TYPE, ERROR_INFO_TYPE};
use a2a::ErrorKind;
use base64::Engine;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, CONTROLS};
use prost::Message;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The gRPC status codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Code {
    Ok = 0,
    Cancelled = 1,
    Unknown = 2,
    InvalidArgument = 3,
    DeadlineExceeded = 4,
    NotFound = 5,
    AlreadyExists = 6,
    PermissionDenied = 7,
    ResourceExhausted = 8,
    FailedPrecondition = 9,
    Aborted = 10,
    OutOfRange = 11,
    Unimplemented = 12,
    Internal = 13,
    Unavailable = 14,
    DataLoss = 15,
    Unauthenticated = 16,
}

/// Each code with its canonical name, in number order.
const CODES: [(Code, &str); 17] = [
    (Code::Ok, "OK"),
    (Code::Cancelled, "CANCELLED"),
    (Code::Unknown, "UNKNOWN"),
    (Code::InvalidArgument, "INVALID_ARGUMENT"),
    (Code::DeadlineExceeded, "DEADLINE_EXCEEDED"),
    (Code::NotFound, "NOT_FOUND"),
    (Code::AlreadyExists, "ALREADY_EXISTS"),
    (Code::PermissionDenied, "PERMISSION_DENIED"),
    (Code::ResourceExhausted, "RESOURCE_EXHAUSTED"),
    (Code::FailedPrecondition, "FAILED_PRECONDITION"),
    (Code::Aborted, "ABORTED"),
    (Code::OutOfRange, "OUT_OF_RANGE"),
    (Code::Unimplemented, "UNIMPLEMENTED"),
    (Code::Internal, "INTERNAL"),
    (Code::Unavailable, "UNAVAILABLE"),
    (Code::DataLoss, "DATA_LOSS"),
    (Code::Unauthenticated, "UNAUTHENTICATED"),
];

impl Code {
    /// The code of a canonical name (`NOT_FOUND`).
    pub fn from_name(name: &str) -> Option<Code> {
        CODES.iter().find(|(_, n)| *n == name).map(|(code, _)| *code)
    }

    /// The code of a number; an unknown number is `UNKNOWN` (as gRPC reads it).
    pub fn from_number(number: i32) -> Code {
        usize::try_from(number)
            .ok()
            .and_then(|i| CODES.get(i))
            .map_or(Code::Unknown, |(code, _)| *code)
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        CODES[self as usize].1
    }

    /// The number.
    pub fn number(self) -> i32 {
        self as i32
    }
}

/// A call's outcome other than a message: its code, message and, for a
/// contract error, the error itself (whose details travel in
/// `grpc-status-details-bin`).
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    /// The status code.
    pub code: Code,
    /// The human-readable message.
    pub message: String,
    /// The contract error the status carries, with its ErrorInfo (boxed:
    /// statuses travel in `Result`s, and most carry none).
    pub error: Option<Box<Error>>,
}

/// Bytes `grpc-message` percent-encodes: controls, non-ASCII (always) and `%`.
const MESSAGE_ESCAPES: &AsciiSet = &CONTROLS.add(b'%');

impl Status {
    /// A status of the transport itself, with no contract error.
    pub fn new(code: Code, message: impl Into<String>) -> Status {
        Status {
            code,
            message: message.into(),
            error: None,
        }
    }

    /// The status of a contract error: the code its registry entry names,
    /// `INTERNAL` for an error no entry describes.
    pub fn from_error(error: Error) -> Status {
        let code = error
            .kind::<ErrorKind>()
            .and_then(|kind| Code::from_name(kind.grpc_status()))
            .unwrap_or(Code::Internal);
        Status {
            code,
            message: error.message.clone(),
            error: Some(Box::new(error)),
        }
    }

    /// A contract error under a code of the transport's own choosing (a
    /// budget spent is `RESOURCE_EXHAUSTED`, as HTTP's 429), its ErrorInfo kept.
    pub fn with_code(code: Code, error: Error) -> Status {
        Status {
            code,
            message: error.message.clone(),
            error: Some(Box::new(error)),
        }
    }

    /// The status's headers (trailers of a response, or headers of a
    /// trailers-only one), names lowercase.
    pub fn to_headers(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![(headers::STATUS, self.code.number().to_string())];
        if !self.message.is_empty() {
            out.push((
                headers::MESSAGE,
                utf8_percent_encode(&self.message, MESSAGE_ESCAPES).to_string(),
            ));
        }
        if let Some(error) = &self.error {
            let status = wire::Status {
                code: self.code.number(),
                message: self.message.clone(),
                details: details_of(error),
            };
            let encoded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(status.encode_to_vec());
            out.push((headers::STATUS_DETAILS, encoded));
        }
        out
    }

    /// The status the headers of a response carry (`get` looks a header up
    /// by its lowercase name); `None` without `grpc-status`. An ErrorInfo in
    /// the details makes it the contract error it names.
    pub fn from_headers<'h>(get: impl Fn(&str) -> Option<&'h str>) -> Option<Status> {
        let number: i32 = get(headers::STATUS)?.trim().parse().ok()?;
        let code = Code::from_number(number);
        let message = get(headers::MESSAGE)
            .map(|m| percent_decode_str(m).decode_utf8_lossy().into_owned())
            .unwrap_or_default();
        let error = get(headers::STATUS_DETAILS).and_then(|encoded| {
            let bytes = base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(encoded.trim().trim_end_matches('='))
                .ok()?;
            let status = wire::Status::decode(bytes.as_slice()).ok()?;
            error_of(&status).map(Box::new)
        });
        Some(Status { code, message, error })
    }

    /// The contract error the status stands for: the one it carries, else
    /// `fallback` with the status's message (and code name in its metadata).
    pub fn into_error(self, fallback: impl ErrorRegistry) -> Error {
        match self.error {
            Some(error) => *error,
            None => Error::new(
                fallback,
                if self.message.is_empty() {
                    format!("the call ended with gRPC status {}", self.code.name())
                } else {
                    self.message
                },
            )
            .with_metadata("grpcStatus", self.code.name()),
        }
    }
}

/// The `google.rpc` details of a contract error, from its JSON `data`.
fn details_of(error: &Error) -> Vec<wire::Any> {
    let Some(Value::Array(details)) = &error.data else {
        return Vec::new();
    };
    let text = |detail: &Map<String, Value>, key: &str| {
        detail
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    details
        .iter()
        .filter_map(Value::as_object)
        .filter_map(|detail| match detail.get("@type").and_then(Value::as_str)? {
            ERROR_INFO_TYPE => {
                let metadata = detail
                    .get("metadata")
                    .and_then(Value::as_object)
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| {
                                (
                                    k.clone(),
                                    v.as_str().map_or_else(|| v.to_string(), str::to_string),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let info = wire::ErrorInfo {
                    reason: text(detail, "reason"),
                    domain: text(detail, "domain"),
                    metadata,
                };
                Some(wire::Any::of(ERROR_INFO_TYPE, &info))
            }
            BAD_REQUEST_TYPE => {
                let field_violations = detail
                    .get("fieldViolations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_object)
                    .map(|v| wire::FieldViolation {
                        field: text(v, "field"),
                        description: text(v, "description"),
                    })
                    .collect();
                Some(wire::Any::of(
                    BAD_REQUEST_TYPE,
                    &wire::BadRequest { field_violations },
                ))
            }
            _ => None,
        })
        .collect()
}

/// The contract error a `google.rpc.Status` carries: its ErrorInfo names the
/// registry entry (and so the JSON-RPC code); details keep their JSON form.
fn error_of(status: &wire::Status) -> Option<Error> {
    let mut kind = None;
    let mut data = Vec::new();
    for any in &status.details {
        match any.type_url.as_str() {
            ERROR_INFO_TYPE => {
                let info = wire::ErrorInfo::decode(any.value.as_slice()).ok()?;
                kind = kind.or_else(|| ErrorKind::from_reason(&info.domain, &info.reason));
                let mut detail =
                    json!({"@type": ERROR_INFO_TYPE, "reason": info.reason, "domain": info.domain});
                if !info.metadata.is_empty() {
                    detail["metadata"] = json!(info.metadata);
                }
                data.push(detail);
            }
            BAD_REQUEST_TYPE => {
                let request = wire::BadRequest::decode(any.value.as_slice()).ok()?;
                let violations: Vec<Value> = request
                    .field_violations
                    .iter()
                    .map(|v| json!({"field": v.field, "description": v.description}))
                    .collect();
                data.push(json!({"@type": BAD_REQUEST_TYPE, "fieldViolations": violations}));
            }
            _ => {}
        }
    }
    Some(Error {
        code: kind?.code(),
        message: status.message.clone(),
        data: Some(Value::Array(data)),
    })
}

/// The `google.rpc` and `google.protobuf.Any` messages of a status, as protobuf.
mod wire {
    use super::*;

    #[derive(Clone, PartialEq, Message)]
    pub struct Status {
        #[prost(int32, tag = "1")]
        pub code: i32,
        #[prost(string, tag = "2")]
        pub message: String,
        #[prost(message, repeated, tag = "3")]
        pub details: Vec<Any>,
    }

    #[derive(Clone, PartialEq, Message)]
    pub struct Any {
        #[prost(string, tag = "1")]
        pub type_url: String,
        #[prost(bytes = "vec", tag = "2")]
        pub value: Vec<u8>,
    }

    impl Any {
        pub fn of(type_url: &str, message: &impl Message) -> Any {
            Any {
                type_url: type_url.to_string(),
                value: message.encode_to_vec(),
            }
        }
    }

    #[derive(Clone, PartialEq, Message)]
    pub struct ErrorInfo {
        #[prost(string, tag = "1")]
        pub reason: String,
        #[prost(string, tag = "2")]
        pub domain: String,
        #[prost(btree_map = "string, string", tag = "3")]
        pub metadata: BTreeMap<String, String>,
    }

    #[derive(Clone, PartialEq, Message)]
    pub struct BadRequest {
        #[prost(message, repeated, tag = "1")]
        pub field_violations: Vec<FieldViolation>,
    }

    #[derive(Clone, PartialEq, Message)]
    pub struct FieldViolation {
        #[prost(string, tag = "1")]
        pub field: String,
        #[prost(string, tag = "2")]
        pub description: String,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header<'a>(headers: &'a [(&'static str, String)]) -> impl Fn(&str) -> Option<&'a str> {
        move |name| headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn a_contract_error_travels_with_its_registry_code_and_error_info() {
        let error = Error::new(ErrorKind::TaskNotFound, "Task `t-1` was not found: 100% gone")
            .with_metadata("taskId", "t-1")
            .with_field_violation("id", "no such task");
        let status = Status::from_error(error.clone());
        assert_eq!(status.code, Code::NotFound);
        let headers = status.to_headers();
        assert_eq!(headers[0], ("grpc-status", "5".to_string()));
        assert_eq!(
            headers[1],
            (
                "grpc-message",
                "Task `t-1` was not found: 100%25 gone".to_string()
            )
        );
        let back = Status::from_headers(header(&headers)).expect("a status");
        assert_eq!(back.code, Code::NotFound);
        assert_eq!(back.message, error.message);
        assert_eq!(back.error, Some(Box::new(error)));
    }

    #[test]
    fn a_transport_status_has_no_details_and_maps_to_the_fallback() {
        let status = Status::new(Code::ResourceExhausted, "too big");
        let headers = status.to_headers();
        assert_eq!(headers.len(), 2);
        let back = Status::from_headers(header(&headers)).expect("a status");
        assert_eq!(back, status);
        let error = back.into_error(ErrorKind::InvalidRequest);
        assert_eq!(error.code, ErrorKind::InvalidRequest.code());
        assert_eq!(error.metadata("grpcStatus"), Some("RESOURCE_EXHAUSTED"));
    }

    #[test]
    fn codes_have_their_canonical_numbers() {
        assert_eq!(Code::from_name("UNAUTHENTICATED").map(Code::number), Some(16));
        assert_eq!(Code::from_number(9), Code::FailedPrecondition);
        assert_eq!(Code::from_number(99), Code::Unknown);
        assert_eq!(Code::from_number(-1), Code::Unknown);
        for (i, (code, name)) in CODES.iter().enumerate() {
            assert_eq!(code.number() as usize, i);
            assert_eq!(code.name(), *name);
        }
    }
}
