//! The contract's OpenRPC 1.3 document, generated from the schemas beside the
//! Rust code (`cargo run -p cleveragents-codegen -- --openrpc` prints it): every
//! method of the table with its named params, result, errors and examples,
//! and every definition as a component schema. Servers answer it at
//! `GET /openrpc.json` and to the JSON-RPC method [`DISCOVER_METHOD`].

/// The document, as generated.
pub const DOCUMENT: &str = include_str!("gen/openrpc.json");

/// The service-discovery method of the OpenRPC specification, whose result
/// is the document.
pub const DISCOVER_METHOD: &str = "rpc.discover";
