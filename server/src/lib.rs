//! Transports for the contract: the HTTP binding (JSON-RPC 2.0 + SSE, on hyper,
//! over TLS when configured) and the stdio binding (newline-delimited JSON-RPC), both over any
//! [`a2a::rpc::Dispatch`] — normally the generated [`a2a::Router`] over the
//! application's handlers. The crate knows nothing of storage.
//!
//! ```no_run
//! # async fn run(dispatch: std::sync::Arc<dyn a2a::rpc::Dispatch>) -> Result<(), server::ServerError> {
//! let config = server::ServerConfig::default();
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! # drop(stop);
//! server::serve_http(config, dispatch, async {
//!     let _ = stopped.await;
//! })
//! .await
//! # }
//! ```

#![warn(missing_docs)]

pub mod auth;
mod body;
pub mod card;
pub mod config;
mod dialect;
mod error;
mod grpc_stream;
mod http;
pub mod jsonrpc;
pub mod negotiate;
mod pipeline;
mod pump;
pub mod signal;
pub mod signing;
mod sse;
mod stdio;
mod tls;

pub use auth::{AuthFailure, Authenticated, Authenticator, ClientCertificate, RequestCredentials};
pub use card::{agent_card, extended_agent_card, Binding};
pub use config::{
    AgentInfo, ApiKeyLocation, AuthConfig, CapabilityFlags, CardSigningKey, CertificateName, CorsConfig,
    CredentialConfig, HttpConfig, JwtConfig, Limits, MtlsConfig, OAuth2Config, OpenIdConnectConfig,
    PrincipalConfig, Secret, ServerConfig, TlsConfig,
};
pub use error::ServerError;
pub use http::{serve_http, HttpServer, METRICS_PATH};
pub use signal::shutdown_signal;
pub use stdio::{pipes, serve_stdio};

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
