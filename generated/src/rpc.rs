//! The hand-written runtime under the generated code: the wire error value, the
//! call context, method descriptors, the dispatch outcome, and the client
//! plumbing. Nothing here knows a method name; the generated table does.

use crate::errors::ErrorKind;
use crate::methods::Contract;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub use futures_core::Stream;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The JSON-RPC `id` of a request.
pub type RequestId = crate::types::JsonrpcId;

/// `@type` of a `google.rpc.ErrorInfo` detail.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";
/// `@type` of a `google.rpc.BadRequest` detail.
pub const BAD_REQUEST_TYPE: &str = "type.googleapis.com/google.rpc.BadRequest";

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// A JSON-RPC error object exactly as on the wire: `code`, `message` and `data`.
///
/// Errors built here carry `data` as an array whose first element is a
/// `google.rpc.ErrorInfo` (`reason`, `domain`), optionally followed by a
/// `google.rpc.BadRequest`. An error received from elsewhere keeps whatever `data`
/// it had, so conversion to and from the wire is lossless.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Error {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Error {
    /// An error of `kind` with a specific message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
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
    pub fn from_kind(kind: ErrorKind) -> Self {
        Error::new(kind, kind.default_message())
    }

    /// Method-not-found in the registry of the contract the name belongs to.
    pub fn method_not_found(method: &str) -> Self {
        let kind = contract_of_name(method).method_not_found();
        Error::new(kind, format!("{}: `{method}`", kind.default_message()))
    }

    /// The answer of a handler method that the backend does not implement.
    pub fn unimplemented(descriptor: &MethodDescriptor) -> Self {
        let kind = descriptor.contract.method_not_found();
        Error::new(
            kind,
            format!("`{}` is not implemented by this agent", descriptor.name),
        )
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
    pub fn kind(&self) -> Option<ErrorKind> {
        let (domain, reason) = self.domain_reason()?;
        ErrorKind::from_reason(domain, reason).filter(|kind| kind.code() == self.code)
    }

    /// True when the error is exactly `kind`.
    pub fn is(&self, kind: ErrorKind) -> bool {
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

    /// The HTTP status a binding that maps errors to HTTP uses.
    pub fn http_status(&self) -> u16 {
        self.kind().map(ErrorKind::http_status).unwrap_or(500)
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

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::from_kind(kind)
    }
}

/// The contract a wire method name belongs to: the one whose declared prefix it
/// carries, else the base protocol.
pub fn contract_of_name(method: &str) -> Contract {
    Contract::ALL
        .iter()
        .copied()
        .find(|c| c.method_prefix().is_some_and(|p| method.starts_with(p)))
        .or_else(|| {
            Contract::ALL
                .iter()
                .copied()
                .find(|c| c.method_prefix().is_none())
        })
        .unwrap_or(Contract::ALL[0])
}

/// Error from a generated `TryFrom`/`FromStr` conversion or a content check.
#[derive(Clone, PartialEq, Eq)]
pub struct ConversionError(std::borrow::Cow<'static, str>);

impl ConversionError {
    pub fn unknown_enum_name(type_name: &str, name: &str) -> Self {
        ConversionError(format!("unknown {type_name} value `{name}`").into())
    }
    pub fn unknown_enum_number(type_name: &str, number: i64) -> Self {
        ConversionError(format!("unknown {type_name} number {number}").into())
    }
}

impl std::error::Error for ConversionError {}
impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl fmt::Debug for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}
impl From<&'static str> for ConversionError {
    fn from(value: &'static str) -> Self {
        ConversionError(value.into())
    }
}
impl From<String> for ConversionError {
    fn from(value: String) -> Self {
        ConversionError(value.into())
    }
}

// ---------------------------------------------------------------------------
// ProtoJSON support for the generated types
// ---------------------------------------------------------------------------

/// What a proto enum may look like on input: its name or its number.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum ProtoEnumRepr {
    Name(String),
    Number(i64),
}

/// A content one-of (e.g. `PartContent`): the alternatives its host must carry
/// exactly one of.
pub trait OneOfContent: DeserializeOwned {
    const HOST: &'static str;
    const ALTERNATIVES: &'static [&'static str];
}

/// Deserializes the flattened content of a host: the keys the host's own fields
/// did not take must be exactly one alternative, and nothing else.
pub fn exactly_one_content<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: OneOfContent,
{
    let rest = Map::<String, Value>::deserialize(deserializer)?;
    if let Some(unknown) = rest.keys().find(|k| !T::ALTERNATIVES.contains(&k.as_str())) {
        return Err(D::Error::custom(format_args!(
            "unknown field `{unknown}` in {}",
            T::HOST
        )));
    }
    let present: Vec<&str> = T::ALTERNATIVES
        .iter()
        .copied()
        .filter(|k| rest.contains_key(*k))
        .collect();
    let expected = T::ALTERNATIVES.join("`, `");
    match present.as_slice() {
        [_] => T::deserialize(Value::Object(rest)).map_err(D::Error::custom),
        [] => Err(D::Error::custom(format_args!(
            "{} needs exactly one of `{expected}`; found none",
            T::HOST
        ))),
        _ => Err(D::Error::custom(format_args!(
            "{} needs exactly one of `{expected}`; found `{}`",
            T::HOST,
            present.join("` and `")
        ))),
    }
}

/// Decodes `value` as `T` and encodes it again: the canonical wire form of an
/// instance, or the precise reason it is not one.
pub fn roundtrip<T: Serialize + DeserializeOwned>(value: Value) -> Result<Value, String> {
    let typed: T = serde_path_to_error::deserialize(value).map_err(|e| describe_decode_error(&e))?;
    serde_json::to_value(typed).map_err(|e| e.to_string())
}

fn describe_decode_error(error: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = error.path().to_string();
    if path == "." {
        error.inner().to_string()
    } else {
        format!("{path}: {}", error.inner())
    }
}

// ---------------------------------------------------------------------------
// Versions, principals, call context
// ---------------------------------------------------------------------------

/// A `major.minor` version (A2A protocol or extension minor version).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
}

impl Version {
    /// Parses `"1.1"`; anything else is `None`.
    pub fn parse(text: &str) -> Option<Version> {
        let (major, minor) = text.trim().split_once('.')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(major) || !digits(minor) {
            return None;
        }
        Some(Version {
            major: major.parse().ok()?,
            minor: minor.parse().ok()?,
        })
    }

    /// The newest version a contract declares.
    pub fn latest_of(contract: Contract) -> Option<Version> {
        contract.versions().iter().filter_map(|v| Version::parse(v)).max()
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// What a principal may do in a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    Reader,
    Writer,
    Admin,
}

/// An authenticated caller and its roles per namespace.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Principal {
    pub subject: String,
    /// Namespace → role. The namespace `*` applies to every namespace.
    #[serde(default)]
    pub namespaces: BTreeMap<String, Access>,
}

impl Principal {
    /// The role this principal holds in `namespace`, if any.
    pub fn access(&self, namespace: &str) -> Option<Access> {
        let exact = self.namespaces.get(namespace).copied();
        let wildcard = self.namespaces.get("*").copied();
        exact.max(wildcard)
    }

    /// True when the principal holds at least `needed` in `namespace`.
    pub fn can(&self, namespace: &str, needed: Access) -> bool {
        self.access(namespace).is_some_and(|held| held >= needed)
    }
}

/// Everything a handler knows about a call besides its params.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallContext {
    /// The JSON-RPC id of the request (`None` for notifications and internal calls).
    pub request_id: Option<RequestId>,
    /// The authenticated caller; `None` in local mode, where the user runs the agent.
    pub principal: Option<Principal>,
    /// Negotiated minor version of each activated extension contract; a contract
    /// absent here runs at its latest version.
    pub extension_versions: BTreeMap<Contract, Version>,
    /// Extension URIs the caller activated (`A2A-Extensions`).
    pub activated_extensions: Vec<String>,
    /// For subscriptions: the last event sequence number the caller has seen
    /// (SSE `Last-Event-ID`, or the stdio resume parameter).
    pub resume_after: Option<u64>,
}

impl CallContext {
    /// The minor version of `contract` this call runs at.
    pub fn version_of(&self, contract: Contract) -> Option<Version> {
        self.extension_versions
            .get(&contract)
            .copied()
            .or_else(|| Version::latest_of(contract))
    }

    /// True when `descriptor` exists at the caller's version of its contract.
    pub fn can_see(&self, descriptor: &MethodDescriptor) -> bool {
        match (
            descriptor.since.and_then(Version::parse),
            self.version_of(descriptor.contract),
        ) {
            (Some(since), Some(current)) => since <= current,
            _ => true,
        }
    }
}

// ---------------------------------------------------------------------------
// Method table
// ---------------------------------------------------------------------------

/// Everything the schema says about one method.
#[derive(Debug)]
pub struct MethodDescriptor {
    /// Wire name.
    pub name: &'static str,
    pub contract: Contract,
    /// `x-services` key of the handling service.
    pub service: &'static str,
    /// Schema definition of the params.
    pub params_type: &'static str,
    /// Schema definition of the result (of one event, for streaming methods).
    pub result_type: &'static str,
    pub streaming: bool,
    /// A notification: no response.
    pub notification: bool,
    /// The binding that owns the method (handled by the transport, not dispatched).
    pub binding: Option<&'static str>,
    /// Agent capability the method needs.
    pub capability: Option<&'static str>,
    /// Role the caller needs in the namespace the call targets; `None` for binding
    /// methods. Methods needing only `Reader` change nothing, so clients may retry them.
    pub access: Option<Access>,
    /// False when the method acts on no namespace's resources (the caller's own
    /// namespaces, health, the extended card): any authenticated caller may call it.
    pub namespaced: bool,
    /// Extension minor version that introduced the method.
    pub since: Option<&'static str>,
    /// Errors the method may return beyond the JSON-RPC standard ones.
    pub errors: &'static [ErrorKind],
    pub description: &'static str,
    /// Decodes params into the Rust type and encodes them again.
    pub roundtrip_params: fn(Value) -> Result<Value, String>,
    /// Decodes a result (or one event) into the Rust type and encodes it again.
    pub roundtrip_result: fn(Value) -> Result<Value, String>,
    /// Decodes a whole JSON-RPC request for this method (envelope with `jsonrpc`,
    /// `id`, the exact `method` and its params) and encodes it again.
    pub roundtrip_request: fn(Value) -> Result<Value, String>,
}

impl MethodDescriptor {
    /// True when the dispatcher routes this method (it is not a binding method).
    pub fn is_dispatched(&self) -> bool {
        self.binding.is_none()
    }

    /// True when the method only reads (safe to retry).
    pub fn is_read_only(&self) -> bool {
        self.access == Some(Access::Reader)
    }
}

/// A method at the type level.
pub trait Method {
    const NAME: &'static str;
    type Params: Serialize + DeserializeOwned + Send + 'static;
    type Result: Serialize + DeserializeOwned + Send + 'static;
    fn descriptor() -> &'static MethodDescriptor;
}

/// Finds the dispatchable method `name` as the caller sees it.
pub fn resolve(name: &str, ctx: &CallContext) -> Result<&'static MethodDescriptor, Error> {
    match crate::methods::find_method(name) {
        Some(d) if d.is_dispatched() && ctx.can_see(d) => Ok(d),
        _ => Err(Error::method_not_found(name)),
    }
}

/// Decodes params for `descriptor`; absent params read as `{}`. A mismatch is
/// invalid-params in the method's contract, with a BadRequest field violation.
pub fn decode_params<T: DeserializeOwned>(
    descriptor: &MethodDescriptor,
    params: Option<Value>,
) -> Result<T, Error> {
    let value = params.unwrap_or_else(|| Value::Object(Map::new()));
    // Every method takes named params; serde would otherwise read an array
    // positionally into the struct's fields.
    if !value.is_object() {
        let kind = descriptor.contract.invalid_params();
        let description = "params must be a JSON object of named fields";
        return Err(Error::new(
            kind,
            format!("Invalid params for `{}`: {description}", descriptor.name),
        )
        .with_field_violation("", description));
    }
    serde_path_to_error::deserialize(value).map_err(|error| {
        let kind = descriptor.contract.invalid_params();
        let field = error.path().to_string();
        let field = if field == "." { String::new() } else { field };
        let description = error.inner().to_string();
        let message = if field.is_empty() {
            format!("Invalid params for `{}`: {description}", descriptor.name)
        } else {
            format!("Invalid params for `{}`: {field}: {description}", descriptor.name)
        };
        Error::new(kind, message).with_field_violation(&field, description)
    })
}

// ---------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------

/// One event of a stream, with the sequence number the producer gave it (a
/// task's event sequence, used to resume).
#[derive(Clone, Debug, PartialEq)]
pub struct Event<T> {
    pub seq: Option<u64>,
    pub data: T,
}

impl<T> Event<T> {
    pub fn new(data: T) -> Self {
        Event { seq: None, data }
    }
    pub fn with_seq(seq: u64, data: T) -> Self {
        Event { seq: Some(seq), data }
    }
}

/// The events of a streaming method, as a handler produces them.
pub type EventStream<T> = Pin<Box<dyn Stream<Item = Result<Event<T>, Error>> + Send>>;

/// The answer of the dispatcher: one result, or a stream of JSON events.
pub enum Outcome {
    Single(Result<Value, Error>),
    Stream(EventStream<Value>),
}

impl fmt::Debug for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Single(result) => f.debug_tuple("Single").field(result).finish(),
            Outcome::Stream(_) => f.write_str("Stream(..)"),
        }
    }
}

impl Outcome {
    /// Encodes a handler's unary result.
    pub fn from_result<T: Serialize>(result: Result<T, Error>) -> Self {
        Outcome::Single(result.and_then(|value| encode(&value)))
    }

    /// Encodes a handler's stream, event by event.
    pub fn from_stream<T: Serialize + 'static>(result: Result<EventStream<T>, Error>) -> Self {
        match result {
            Err(error) => Outcome::Single(Err(error)),
            Ok(stream) => Outcome::Stream(Box::pin(MapStream::new(
                stream,
                |item: Result<Event<T>, Error>| {
                    item.and_then(|event| {
                        Ok(Event {
                            seq: event.seq,
                            data: encode(&event.data)?,
                        })
                    })
                },
            ))),
        }
    }

    /// The unary result; a stream is an internal error here.
    pub fn into_single(self) -> Result<Value, Error> {
        match self {
            Outcome::Single(result) => result,
            Outcome::Stream(_) => Err(Error::new(
                crate::methods::Contract::ALL[0].internal_error(),
                "expected a single result, got a stream",
            )),
        }
    }
}

fn encode<T: Serialize>(value: &T) -> Result<Value, Error> {
    serde_json::to_value(value).map_err(|e| {
        Error::new(
            crate::methods::Contract::ALL[0].internal_error(),
            format!("result could not be encoded: {e}"),
        )
    })
}

/// A JSON-level dispatcher: what transports call. Implemented by the generated
/// [`crate::Router`].
pub trait Dispatch: Send + Sync + 'static {
    fn dispatch<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Option<Value>,
    ) -> BoxFuture<'a, Outcome>;
}

/// Maps the items of a stream (a tiny adapter so the crate needs no futures-util).
pub struct MapStream<S, F> {
    inner: S,
    map: F,
}

impl<S, F> MapStream<S, F> {
    pub fn new(inner: S, map: F) -> Self {
        MapStream { inner, map }
    }
}

impl<S, F, A, B> Stream for MapStream<S, F>
where
    S: Stream<Item = A> + Unpin,
    F: FnMut(A) -> B + Unpin,
{
    type Item = B;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<B>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(Some(item)) => Poll::Ready(Some((this.map)(item))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

// ---------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------

/// Why a client call failed.
#[derive(Debug)]
pub enum CallError {
    /// The agent answered with a JSON-RPC error.
    Rpc(Error),
    /// The transport failed (connection, process, framing).
    Transport(String),
    /// The agent's answer did not match the method's result schema.
    Decode(String),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Rpc(e) => write!(f, "{e}"),
            CallError::Transport(e) => write!(f, "transport error: {e}"),
            CallError::Decode(e) => write!(f, "unexpected answer: {e}"),
        }
    }
}

impl std::error::Error for CallError {}

impl From<Error> for CallError {
    fn from(error: Error) -> Self {
        CallError::Rpc(error)
    }
}

/// Raw JSON events from a transport.
pub type RawEventStream = Pin<Box<dyn Stream<Item = Result<Event<Value>, CallError>> + Send>>;

/// Typed events for a client.
pub type ClientStream<T> = Pin<Box<dyn Stream<Item = Result<Event<T>, CallError>> + Send>>;

/// Carries JSON-RPC calls to an agent. Implemented by the HTTP and stdio clients.
pub trait Transport: Send + Sync {
    /// Sends a request and waits for its result.
    fn call<'a>(&'a self, method: &'static str, params: Value) -> BoxFuture<'a, Result<Value, CallError>>;
    /// Sends a streaming request; the stream ends with the method's final response.
    fn subscribe<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>>;
}

/// The typed client: one generated method per callable method (see [`crate::client`]).
pub struct Client<T> {
    transport: T,
}

impl<T: Transport> Client<T> {
    pub fn new(transport: T) -> Self {
        Client { transport }
    }

    pub fn transport(&self) -> &T {
        &self.transport
    }

    /// Calls method `M`.
    pub async fn call<M: Method>(&self, params: M::Params) -> Result<M::Result, CallError> {
        let params = serde_json::to_value(params).map_err(|e| CallError::Decode(e.to_string()))?;
        let value = self.transport.call(M::NAME, params).await?;
        serde_json::from_value(value).map_err(|e| CallError::Decode(format!("{}: {e}", M::NAME)))
    }

    /// Calls streaming method `M`.
    pub async fn subscribe<M: Method>(&self, params: M::Params) -> Result<ClientStream<M::Result>, CallError>
    where
        M::Result: 'static,
    {
        let params = serde_json::to_value(params).map_err(|e| CallError::Decode(e.to_string()))?;
        let raw = self.transport.subscribe(M::NAME, params).await?;
        Ok(Box::pin(MapStream::new(
            raw,
            |item: Result<Event<Value>, CallError>| {
                item.and_then(|event| {
                    let data = serde_json::from_value(event.data)
                        .map_err(|e| CallError::Decode(format!("{}: {e}", M::NAME)))?;
                    Ok(Event { seq: event.seq, data })
                })
            },
        )))
    }
}

/// Unwraps a contract fact at compile time, for constants such as
/// `const H: &str = declared(Contract::A2a.version_header());` — a schema without
/// the fact fails the build instead of a request.
pub const fn declared(value: Option<&'static str>) -> &'static str {
    match value {
        Some(value) => value,
        None => panic!("the schema does not declare this contract fact"),
    }
}

/// ProtoJSON integers: a JSON number or a decimal string (`10` or `"10"`);
/// output stays a number. Used by the generated types on every integer field.
pub fn proto_int<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<i64> + TryFrom<u64>,
{
    deserializer.deserialize_any(ProtoIntVisitor(std::marker::PhantomData))
}

/// [`proto_int`] for optional fields: absent or `null` is `None`.
pub fn proto_int_opt<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<i64> + TryFrom<u64>,
{
    struct Present<T>(T);
    impl<'de, T: TryFrom<i64> + TryFrom<u64>> Deserialize<'de> for Present<T> {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            proto_int(deserializer).map(Present)
        }
    }
    Ok(Option::<Present<T>>::deserialize(deserializer)?.map(|p| p.0))
}

struct ProtoIntVisitor<T>(std::marker::PhantomData<T>);

impl<T: TryFrom<i64> + TryFrom<u64>> serde::de::Visitor<'_> for ProtoIntVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer (a JSON number or a decimal string)")
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
        if let Ok(n) = v.parse::<i64>() {
            return self.visit_i64(n);
        }
        match v.parse::<u64>() {
            Ok(n) => self.visit_u64(n),
            Err(_) => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
        }
    }
}
