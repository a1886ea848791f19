//! The crate's error type: what can stop a transport from starting or running.
//! Per-request failures are JSON-RPC errors on the wire, never this type.

use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("invalid server configuration: {0}")]
    Config(String),
    #[error(
        "refusing to listen on {addr} without authentication: anonymous callers there would have every right. \
         Listen on a loopback address (127.0.0.1, ::1), configure an authentication scheme \
         (auth.api_keys, auth.bearer_tokens or auth.jwt), or set auth.insecure_no_auth to serve anonymous callers anyway"
    )]
    AnonymousOnNetwork { addr: SocketAddr },
    #[error("cannot load JWKS file {path}: {reason}")]
    Jwks { path: PathBuf, reason: String },
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}
