//! The CleverAgents A2A contract crate.
//!
//! Everything here is derived from `schema/a2a.json` and
//! `schema/cleveragents-ext.json`:
//!
//! - [`types`]: every payload type, serialized as ProtoJSON (camelCase, enum names)
//!   and accepting snake_case field names and integer enum values on input;
//! - [`methods`]: the method table — [`methods::METHODS`], one marker type per
//!   method in [`methods::markers`] implementing [`rpc::Method`];
//! - [`bindings`]: the protocol bindings an Agent Card interface names
//!   ([`Binding`]: `JSONRPC`, `GRPC`, `HTTP+JSON`);
//! - [`errors`]: the error registry ([`ErrorKind`]), each error with the name
//!   the specification gives it ([`ErrorKind::spec_name`]);
//! - [`handlers`]: one async trait per service and the [`Router`] dispatcher;
//! - [`registry`]: one descriptor per registry kind and [`registry::RegistryEntity`]
//!   on every entity type, for one generic registry;
//! - [`client`]: the typed [`rpc::Client`] over any [`rpc::Transport`];
//! - [`openrpc`]: the OpenRPC document of all of it;
//! - [`proto`]: the gRPC binding's `.proto`, from the schemas that declare one;
//! - [`metrics`]: the agent's Prometheus metrics, laid out by the method table;
//! - [`v0_3`]: A2A 0.3 (`schema/a2a-v0.3.json`), served through the 1.0
//!   handlers by one conversion layer;
//! - [`signing`]: what an Agent Card signature covers (its canonical form,
//!   read from the schema's presence rules, and the JWS signing input).
//!
//! [`rpc`] re-exports the hand-written runtime the generated code stands on
//! (crate `cleveragents-a2a-runtime`, which knows no generated type; the
//! generated `ErrorKind` and `Contract` implement its traits). The crate
//! performs no I/O: transports live in the server and client crates.

#![warn(missing_docs)]

// Generated code is formatted by the generator (prettyplease), not rustfmt.
#[rustfmt::skip]
#[path = "gen/mod.rs"]
// The one-ofs hold their alternatives by value, as the schema shows them:
// boxing the largest (a Task) would cost every reader an allocation.
#[allow(clippy::large_enum_variant)]
mod generated;
pub mod metrics;
pub mod openrpc;
pub mod proto;
pub mod rpc;
pub mod schema;
pub mod signing;
pub mod v0_3;

/// The runtime crate itself, for code generated outside this crate (a
/// downstream extension's build script) that names it by path.
pub use a2a_runtime as runtime;
pub use errors::ErrorKind;
pub use generated::{client, errors, handlers, methods, registry, types};
pub use handlers::{Handler, Router};
pub use methods::bindings::{self, Binding};
pub use methods::{
    capabilities, find_method, method_index, Contract, DEFAULT_NAMESPACE, METHODS, STDIO_BINDING_URI,
};
pub use rpc::{CallContext, Error, Method, MethodDescriptor, Outcome};

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
