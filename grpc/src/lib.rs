//! The gRPC binding's wire, shared by the server's gRPC front and the client's
//! gRPC transport; it opens no connection (it reads an HTTP body it is given).
//!
//! The contract stays JSON inside: a call arrives as a protobuf message, is
//! transcoded to the ProtoJSON the generated router already takes (A2A 1.0's
//! JSON *is* the ProtoJSON of its proto, spec §5.5), and its result or events
//! are transcoded back. So every binding shares one dispatch, with its
//! authorization, capability gates, limits and metrics.
//!
//! - [`service`]: the services and their rpcs, compiled once from the `.proto`
//!   the generator wrote (`a2a::proto`), each rpc tied to the contract method
//!   of the same name;
//! - [`transcode`]: protobuf ⇄ JSON for an rpc's messages (each way in one
//!   pass where `json_to_proto` and `proto_to_json` cover the message, as
//!   they do every message of the contract's protos; by reflection otherwise);
//! - [`frame`]: gRPC's length-prefixed messages;
//! - [`sequence`]: the event sequence a streamed message carries, to resume after;
//! - [`status`]: `grpc-status`, `grpc-message` and `grpc-status-details-bin`
//!   (a `google.rpc.Status` with the error's `google.rpc.ErrorInfo`) from a
//!   contract error and back, with the status code the error registry gives;
//! - [`timeout`]: the `grpc-timeout` header;
//! - [`answer`]: a whole answer read from any HTTP body.

#![warn(missing_docs)]

pub mod answer;
pub mod frame;
mod json_to_proto;
mod plan;
mod proto_to_json;
mod protowire;
#[cfg(test)]
mod random_json;
mod rfc3339;
pub mod sequence;
pub mod service;
pub mod status;
pub mod timeout;
pub mod transcode;

pub use prost_reflect::MessageDescriptor;
pub use service::{Rpc, Service};
pub use status::{Code, Status};

/// The content type of gRPC over HTTP/2 with protobuf messages.
pub const CONTENT_TYPE: &str = "application/grpc";

/// True when `content_type` is gRPC's with the protobuf codec (`application/grpc`,
/// `application/grpc+proto`, with or without parameters).
pub fn is_grpc_content_type(content_type: &str) -> bool {
    let media = content_type.split(';').next().unwrap_or("").trim();
    media.eq_ignore_ascii_case(CONTENT_TYPE) || media.eq_ignore_ascii_case("application/grpc+proto")
}

/// Response and request header names of the gRPC protocol.
pub mod headers {
    /// The call's status code (a trailer, or a header of a trailers-only response).
    pub const STATUS: &str = "grpc-status";
    /// The status message, percent-encoded.
    pub const MESSAGE: &str = "grpc-message";
    /// The `google.rpc.Status`, base64-encoded protobuf.
    pub const STATUS_DETAILS: &str = "grpc-status-details-bin";
    /// The caller's deadline.
    pub const TIMEOUT: &str = "grpc-timeout";
    /// The compression of the request's messages.
    pub const ENCODING: &str = "grpc-encoding";
    /// The compressions a peer accepts.
    pub const ACCEPT_ENCODING: &str = "grpc-accept-encoding";
}
