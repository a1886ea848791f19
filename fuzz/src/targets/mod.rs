//! One module per fuzz target; see the crate docs for what each checks.

pub mod card;
pub mod conversion;
pub mod envelope;
pub mod grpc;
pub mod protojson;
pub mod push_url;
pub mod rest_route;
pub mod sse;
pub mod stdio;
