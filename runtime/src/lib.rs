//! The runtime the generated contract crate stands on.
//!
//! Everything here is hand-written and schema-agnostic: it knows no method name
//! and no generated type. Where it needs a fact of the schemas (an error's code
//! and ErrorInfo, a contract's versions and its standard errors) it asks through
//! the small traits [`ErrorRegistry`] and [`ContractFacts`], which the generated
//! `ErrorKind` and `Contract` implement. The dependency runs one way: generated
//! code uses this crate, never the reverse.
//!
//! - [`access`]: the namespace a call acts in and the caller's role there;
//! - [`error`]: the wire error object and the error-registry trait;
//! - [`protojson`]: serde helpers the generated types use for ProtoJSON;
//! - [`context`]: versions, principals and the call context;
//! - [`method`]: method descriptors, the method trait, params decoding;
//! - [`params`]: a call's params as a binding hands them over: absent, as sent, or a value;
//! - [`dialect`]: the method descriptor of an older protocol version served by the current one;
//! - [`dispatch`]: outcomes, event streams and the JSON-level dispatcher trait;
//! - [`client`]: the transport trait and typed calls over it;
//! - [`route`]: one HTTP+JSON route: matching a path, reading a query, rendering a call;
//! - [`rest`]: finding a request's method and route, a call's route, the Status error body;
//! - [`envelope`]: the JSON-RPC 2.0 request, response and notification objects;
//! - [`bundle`]: the rule that bundles the schema files and resolves references;
//! - [`local`]: where a local installation keeps its data and its admin key;
//! - [`since`]: members newer than the version a caller speaks, dropped for it.
//!
//! The crate performs no I/O.

#![warn(missing_docs)]

pub mod access;
pub mod bundle;
pub mod client;
pub mod context;
pub mod dialect;
pub mod dispatch;
pub mod envelope;
pub mod error;
pub mod local;
pub mod method;
pub mod params;
pub mod protojson;
pub mod rest;
pub mod route;
pub mod since;

pub use access::authorize;
pub use client::{CallError, ClientStream, RawEventStream, Transport};
pub use context::{CallContext, Principal, Version};
pub use dialect::{find_dialect_method, DialectMethod};
pub use dispatch::{
    in_handler_span, to_raw, BoxFuture, Dispatch, Event, EventStream, MapStream, Outcome, Prefixed, RawJson,
    Reply, Stream,
};
pub use envelope::{JsonRpcVersion, Notification, Request, RequestId, Response, JSONRPC_VERSION};
pub use error::{Error, ErrorRegistry, BAD_REQUEST_TYPE, ERROR_INFO_TYPE};
pub use method::{decode_named_params, decode_params, Access, ContractFacts, Method, MethodDescriptor};
pub use params::Params;
pub use protojson::{
    declared, exactly_one_content, proto_int, proto_int_opt, roundtrip, ConversionError, OneOfContent,
    ProtoEnumRepr,
};
pub use route::{HttpRoute, QueryField, QueryKind};
pub use since::{fit_result, fit_stream, FitVersion};

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
