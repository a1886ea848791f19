//! Conformance suite derived from the contract's schemas, and the runner that
//! gates any implementation with it — ours or a third party's, over HTTP or
//! over the stdio binding.
//!
//! - [`schema`]: both schema files embedded, bundled, validators compiled once;
//! - [`cases`]: the cases derived from the method tables and definitions;
//! - [`check`]: how an answer is judged (registry-exact errors, valid results);
//! - [`scenarios`]: multi-step checks built from the examples;
//! - [`transport`]: raw JSON-RPC over HTTP/SSE and stdio;
//! - [`runner`], [`report`], [`baseline`]: running, reporting, the
//!   expected-failures gate.
//!
//! The `a2a-conformance` binary is the command-line front end (see the README).

pub mod baseline;
pub mod cases;
pub mod check;
pub mod report;
pub mod runner;
pub mod scenarios;
pub mod schema;
pub mod session;
pub mod transport;

pub use baseline::Baseline;
pub use report::{Outcome, Report};
pub use runner::{run, RunOptions};
