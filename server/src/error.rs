//! The crate's error type: what can stop a transport from starting or running.
//! Per-request failures are JSON-RPC errors on the wire, never this type.

use std::net::SocketAddr;
use std::path::PathBuf;

/// Why a transport could not start or stopped running.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The listening socket could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// What the operating system answered.
        source: std::io::Error,
    },
    /// The configuration is inconsistent; the text says which setting and why.
    #[error("invalid server configuration: {0}")]
    Config(String),
    /// The HTTP binding would serve anonymous callers, who hold every right,
    /// on an address other machines can reach.
    #[error(
        "refusing to listen on {addr} without authentication: anonymous callers there would have every right. \
         Listen on a loopback address (127.0.0.1, ::1), configure an authentication scheme \
         (auth.api_keys, auth.bearer_tokens or auth.jwt), or set auth.insecure_no_auth to serve anonymous callers anyway"
    )]
    AnonymousOnNetwork {
        /// The non-loopback address asked for.
        addr: SocketAddr,
    },
    /// The HTTP binding would accept credentials in clear text on an address
    /// other machines can reach.
    #[error(
        "refusing to listen on {addr} without TLS: callers there would send their credentials in clear text. \
         Give the listener a certificate (http.tls.cert_file and http.tls.key_file), listen on a loopback \
         address (127.0.0.1, ::1), or set http.behind_tls_proxy when a TLS-terminating proxy forwards to it"
    )]
    ClearTextCredentials {
        /// The non-loopback address asked for.
        addr: SocketAddr,
    },
    /// The TLS certificate, key or client CA could not be loaded.
    #[error("TLS: {0}")]
    Tls(String),
    /// The JWKS file of `auth.jwt.jwks_file` could not be read or holds no usable key.
    #[error("cannot load JWKS file {path}: {reason}")]
    Jwks {
        /// The file named in the configuration.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// An I/O operation of a transport failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}
