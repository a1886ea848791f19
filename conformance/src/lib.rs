//! Conformance suite derived from the contract's schemas, and the runner that
//! gates any implementation with it — ours or a third party's, over HTTP or
//! over the stdio binding.
//!
//! - [`schema`]: both schema files embedded, bundled, validators compiled once;
//! - [`level`], [`rules`]: requirement levels (MUST / SHOULD / MAY, or the
//!   project's stricter rules), the profiles that gate on them, and which
//!   requirement each kind of check holds an agent to;
//! - [`card`]: what the Agent Card declares, and so which cases apply (the
//!   contract gated, the capabilities);
//! - [`cases`]: the cases derived from the method tables and definitions;
//! - [`check`], [`verdict`]: how an answer is judged (registry errors by code,
//!   their ErrorInfo at its own level; valid results);
//! - [`scenarios`]: multi-step checks built from the examples;
//! - [`extension`]: the cases of an extension schema beyond the contract
//!   (one a downstream crate generated its code from), judged by its own registry;
//! - [`draft`]: the cases of the A2A draft versions (1.1: generations,
//!   long-polling, conditional sends), derived from what the schema says
//!   each adds, run when the Agent Card offers the draft;
//! - [`v0_3`]: the A2A 0.3 cases and scenarios, derived from the 0.3 schema
//!   and sent as a 0.3 client sends them;
//! - [`transport`]: raw JSON-RPC over HTTP/SSE and stdio; [`rest`]: the same
//!   messages carried over the HTTP+JSON (REST) binding;
//! - [`runner`], [`report`], [`junit`], [`baseline`]: running, reporting, the
//!   expected-failures gate;
//! - [`acts`]: the runner of ACTS documents (the A2A project's declarative
//!   conformance tests).
//!
//! The `a2a-conformance` binary is the command-line front end (see the README).

pub mod acts;
pub mod baseline;
pub mod card;
pub mod cases;
pub mod check;
pub mod draft;
pub mod extension;
pub mod grpc;
pub mod junit;
pub mod level;
pub mod report;
pub mod rest;
pub mod rules;
pub mod runner;
pub mod scenarios;
pub mod schema;
pub mod session;
pub mod transport;
pub mod v0_3;
pub mod verdict;

pub use baseline::Baseline;
pub use card::ContractChoice;
pub use level::{Level, Profile, Requirement};
pub use report::{Outcome, Report};
pub use runner::{run, RunOptions};
