//! Coverage-guided fuzz targets. Each takes arbitrary bytes and drives one
//! decoder or transport of the contract the way a peer's bytes reach it, and
//! checks what must hold for every input: nothing panics or hangs, a value
//! accepted once is accepted again unchanged (canonical forms are stable), and
//! every refusal is a well-formed error.
//!
//! `fuzz-target` runs a target under AFL++ (`scripts/fuzz`) or on files; the
//! test suite replays the seeds derived from the schemas' examples, every
//! committed corpus input and every regression input (`tests/replay.rs`).

pub mod seeds;
mod targets;

/// One fuzz target.
pub struct Target {
    /// Directory name of its corpus and regressions (`fuzz/corpus/<name>`).
    pub name: &'static str,
    pub about: &'static str,
    /// Runs one input; panics when a property does not hold.
    pub run: fn(&[u8]),
    /// Its starting inputs, derived from the schemas (see [`seeds`]).
    pub seeds: fn() -> Vec<Vec<u8>>,
}

/// Every target, in the order reports list them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "envelope",
        about: "the JSON-RPC 2.0 request decoder both transports share",
        run: targets::envelope::run,
        seeds: seeds::envelope,
    },
    Target {
        name: "protojson",
        about: "every method's params and result types (ProtoJSON), chosen from the method table",
        run: targets::protojson::run,
        seeds: seeds::protojson,
    },
    Target {
        name: "stdio",
        about: "a whole stdio session (framing, initialize, requests) against the application",
        run: targets::stdio::run,
        seeds: seeds::stdio,
    },
    Target {
        name: "sse",
        about: "the client's Server-Sent Events reader over both HTTP bindings",
        run: targets::sse::run,
        seeds: seeds::sse,
    },
    Target {
        name: "conversion",
        about: "the conversions between A2A 0.3 and 1.0, both ways, of every 0.3 method's params and results",
        run: targets::conversion::run,
        seeds: seeds::conversion,
    },
    Target {
        name: "card",
        about: "Agent Card decoding",
        run: targets::card::run,
        seeds: seeds::card,
    },
    Target {
        name: "push-url",
        about: "the webhook URL check that keeps push deliveries off internal addresses",
        run: targets::push_url::run,
        seeds: seeds::push_url,
    },
    Target {
        name: "grpc",
        about: "the gRPC binding's request framing and protobuf transcoding, of every rpc's messages",
        run: targets::grpc::run,
        seeds: seeds::grpc,
    },
    Target {
        name: "rest-route",
        about: "HTTP+JSON route matching, query reading and rendering",
        run: targets::rest_route::run,
        seeds: seeds::rest_route,
    },
];

/// The target called `name`.
pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Bytes as JSON, or `None` when they are not (most properties only speak of
/// inputs a decoder accepted).
fn json(data: &[u8]) -> Option<serde_json::Value> {
    serde_json::from_slice(data).ok()
}
