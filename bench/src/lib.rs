//! The pure parts of the benchmark, shared by its three binaries and tested
//! here: latency percentiles ([`stats`]), reading `/proc` ([`procfs`]),
//! HTTP/SSE framing ([`frames`]), checking JSON-RPC replies ([`reply`]) and
//! the canned answers of the floors ([`canned`]).
//!
//! The binaries:
//! - `a2a-bench`, the driver: starts each target pinned to one core, loads it
//!   from another, and prints the table (`scripts/bench` runs it);
//! - `bench-floor`, the HTTP floor: a bare hyper + serde_json server answering
//!   canned results of the agent's size and shape;
//! - `bench-echo`, the stdio floor: a raw NDJSON echo pipe.

pub mod canned;
pub mod frames;
pub mod procfs;
pub mod reply;
pub mod stats;
