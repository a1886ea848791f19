//! What the schemas say about one method, as plain data the generated method
//! table fills in; the trait through which the runtime reads a contract's facts;
//! the type-level method marker; and the decoding of params against a method.

use crate::error::{Error, ErrorRegistry};
use crate::params::{without_position, Params};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use std::hash::Hash;

/// A contract (one schema file). Implemented by the generated `Contract`; the
/// runtime reads its version list and its standard errors through it.
pub trait ContractFacts: Copy + Ord + Eq + Hash + fmt::Debug + Send + Sync + 'static {
    /// The error registry the contract's errors live in.
    type ErrorKind: ErrorRegistry;
    /// Short name (`x-contract.name`).
    fn name(self) -> &'static str;
    /// Minor versions of the contract, oldest first.
    fn versions(self) -> &'static [&'static str];
    /// JSON-RPC -32601 in this contract's registry.
    fn method_not_found(self) -> Self::ErrorKind;
    /// JSON-RPC -32602 in this contract's registry.
    fn invalid_params(self) -> Self::ErrorKind;
    /// The params field naming the namespace a call targets (`x-contract.namespaceField`).
    fn namespace_field(self) -> Option<&'static str>;
    /// The namespace of a call that names none.
    fn default_namespace(self) -> Option<&'static str>;
    /// What a caller with no role in the namespace gets: for it the namespace
    /// does not exist, so nothing about it leaks.
    fn namespace_not_found(self) -> Option<Self::ErrorKind>;
    /// What a caller whose role in the namespace is too small gets.
    fn forbidden(self) -> Option<Self::ErrorKind>;
}

/// What a principal may do in a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// May call the methods that only read (schema `access: read`).
    Reader,
    /// May also call the methods that change resources (`access: write`).
    Writer,
    /// May call every method in the namespace, the `access: admin` ones included.
    Admin,
}

impl Access {
    /// The role's name as configuration and error metadata spell it.
    pub fn name(self) -> &'static str {
        match self {
            Access::Reader => "reader",
            Access::Writer => "writer",
            Access::Admin => "admin",
        }
    }
}

/// The errors that name a method: the answers of the method table itself.
impl Error {
    /// Method-not-found in the registry of `contract`, naming the method.
    pub fn method_not_found_in(contract: impl ContractFacts, method: &str) -> Self {
        let kind = contract.method_not_found();
        Error::new(kind, format!("{}: `{method}`", kind.default_message()))
    }

    /// The answer of a handler method that the backend does not implement.
    pub fn unimplemented<C: ContractFacts>(descriptor: &MethodDescriptor<C>) -> Self {
        let kind = descriptor.contract.method_not_found();
        Error::new(
            kind,
            format!("`{}` is not implemented by this agent", descriptor.name),
        )
    }
}

/// Everything the schema says about one method.
#[derive(Debug)]
pub struct MethodDescriptor<C: ContractFacts> {
    /// Wire name.
    pub name: &'static str,
    /// The contract the method belongs to.
    pub contract: C,
    /// `x-services` key of the handling service.
    pub service: &'static str,
    /// Schema definition of the params.
    pub params_type: &'static str,
    /// Schema definition of the result (of one event, for streaming methods).
    pub result_type: &'static str,
    /// Whether the method answers with a stream of events (SSE over HTTP).
    pub streaming: bool,
    /// A notification: no response.
    pub notification: bool,
    /// The binding that owns the method (handled by the transport, not dispatched).
    pub binding: Option<&'static str>,
    /// Agent capability the method needs.
    pub capability: Option<&'static str>,
    /// Section of the specification that defines the method (`x-methods.specSection`).
    pub spec_section: Option<&'static str>,
    /// Role the caller needs in the namespace the call targets; `None` for binding
    /// methods. Methods needing only `Reader` change nothing, so clients may retry them.
    pub access: Option<Access>,
    /// False when the method acts on no namespace's resources (the caller's own
    /// namespaces, health, the extended card): any authenticated caller may call it.
    pub namespaced: bool,
    /// The HTTP+JSON routes (spec §11), most canonical first; empty for binding methods.
    pub http: &'static [crate::route::HttpRoute],
    /// Extension minor version that introduced the method.
    pub since: Option<&'static str>,
    /// Errors the method may return beyond the JSON-RPC standard ones.
    pub errors: &'static [C::ErrorKind],
    /// What the method does, from `x-methods`.
    pub description: &'static str,
    /// Decodes params into the Rust type and encodes them again.
    pub roundtrip_params: fn(Value) -> Result<Value, String>,
    /// Decodes a result (or one event) into the Rust type and encodes it again.
    pub roundtrip_result: fn(Value) -> Result<Value, String>,
    /// Decodes a whole JSON-RPC request for this method (envelope with `jsonrpc`,
    /// `id`, the exact `method` and its params) and encodes it again.
    pub roundtrip_request: fn(Value) -> Result<Value, String>,
}

impl<C: ContractFacts> MethodDescriptor<C> {
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
    /// The wire name callers put in `method`.
    const NAME: &'static str;
    /// The contracts' enum, whose facts (versions, errors) the method's descriptor names.
    type Contract: ContractFacts;
    /// What the method takes: a call's `params` decode into this.
    type Params: Serialize + DeserializeOwned + Send + 'static;
    /// What the method answers with: its `result`, or one event of its stream.
    type Result: Serialize + DeserializeOwned + Send + 'static;
    /// The method's entry in the method table, reached without a lookup by name.
    fn descriptor() -> &'static MethodDescriptor<Self::Contract>;
}

/// Decodes params for `descriptor`; absent params read as `{}`. A mismatch is
/// invalid-params in the method's contract, with a BadRequest field violation.
pub fn decode_params<T: DeserializeOwned>(
    descriptor: &MethodDescriptor<impl ContractFacts>,
    params: impl Into<Params>,
) -> Result<T, Error> {
    decode_named_params(descriptor.name, descriptor.contract.invalid_params(), params)
}

/// Decodes `value` tracking the path, so a refusal names its field: the
/// refusal as (field path, description).
fn decode_tracked<T: DeserializeOwned>(value: Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value)
        .map_err(|error| (error.path().to_string(), error.inner().to_string()))
}

/// Decodes the params of the method called `method` as [`decode_params`] does,
/// answering a mismatch with `invalid_params` (of the caller's registry).
/// Params sent as text are decoded from that text, with the same answers as
/// from a value.
pub fn decode_named_params<T: DeserializeOwned>(
    method: &str,
    invalid_params: impl ErrorRegistry,
    params: impl Into<Params>,
) -> Result<T, Error> {
    let kind = invalid_params;
    let params = params.into();
    // Every method takes named params; serde would otherwise read an array
    // positionally into the struct's fields.
    if !params.is_absent() && !params.is_object() {
        let description = "params must be a JSON object of named fields";
        return Err(
            Error::new(kind, format!("Invalid params for `{method}`: {description}"))
                .with_field_violation("", description),
        );
    }
    let decoded = match params {
        Params::Absent => decode_tracked(Value::Object(Map::new())),
        Params::Value(value) => decode_tracked(value),
        // Text is decoded without tracking the path: the tracking captures
        // every member name as a string of its own, a cost only a refusal
        // needs. Text that does not decode is read again as a value, so
        // every refusal names its field, and is worded (and the rare input
        // the two readings take differently, a member given twice, which a
        // value keeps the last of, is taken) exactly as for params sent as
        // a value: serde_json words some errors differently when it reads
        // text ("expected value" for an enum given a boolean), and those
        // words reach the caller.
        Params::Text(text) => match serde_json::from_str(text.get()) {
            Ok(decoded) => Ok(decoded),
            Err(_) => match serde_json::from_str::<Value>(text.get()) {
                Ok(value) => decode_tracked(value),
                Err(error) => Err((String::new(), without_position(&error))),
            },
        },
    };
    decoded.map_err(|(field, description)| {
        let field = if field == "." { String::new() } else { field };
        let message = if field.is_empty() {
            format!("Invalid params for `{method}`: {description}")
        } else {
            format!("Invalid params for `{method}`: {field}: {description}")
        };
        Error::new(kind, message).with_field_violation(&field, description)
    })
}
