//! The gRPC binding's `.proto` files, as the generator wrote them from the
//! schemas that declare `x-proto` (see `schema/README.md`), and the contract
//! method each rpc of their services calls: what a gRPC front or client
//! compiles into descriptors and dispatches by, and what other languages'
//! tooling can be given.

pub use crate::generated::rpcs::{FILES, RPCS};
