//! Typed client for the CleverAgents A2A contract over HTTP (JSON-RPC or
//! HTTP+JSON, with SSE) and over a spawned stdio agent, and the library behind the `agents` CLI.
//!
//! ```no_run
//! # async fn demo() -> Result<(), a2a::rpc::CallError> {
//! use client::{Client, HttpConfig, HttpTransport};
//! let client = Client::new(HttpTransport::new(HttpConfig::new("http://127.0.0.1:8080/"))?);
//! let health = client.health_check(Default::default()).await?;
//! # let _ = health; Ok(()) }
//! ```

#![warn(missing_docs)]

pub mod any;
pub mod card_trust;
pub mod cli;
pub mod generation;
pub mod grpc;
pub mod http;
pub mod negotiate;
pub mod oauth;
pub mod policy;
pub mod schema;
pub mod sse;
pub mod stdio;
pub mod tls;
pub mod wire;

pub use a2a::rpc::{CallError, Client, Event};
pub use any::AnyTransport;
pub use card_trust::{CardTrustError, TrustedKeys};
pub use generation::{CheckedEventStream, EventSource, GenerationGap, StreamError};
pub use grpc::GrpcTransport;
pub use http::{HttpBinding, HttpConfig, HttpTransport};
pub use oauth::{AgentKey, OAuthClient, OAuthError, TokenStore};
pub use stdio::{StdioConfig, StdioTransport};
pub use tls::TlsFiles;
pub use wire::Credentials;

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
