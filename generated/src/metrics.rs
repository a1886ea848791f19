//! The agent's Prometheus metrics: one registry that the transports (calls,
//! open streams) and the application (store commits, push deliveries) record
//! into, and its rendering in the text exposition format 0.0.4.
//!
//! Recording is cheap enough for every call: each series is a fixed set of
//! atomics laid out when the registry is built, indexed by the method's
//! position in [`METHODS`] (see [`method_index`]) and by the error code's
//! position among the registry's codes, so a call takes no lock, allocates
//! nothing and hashes no string. Series appear in the output once they have
//! been recorded (like the labelled metric families of Prometheus clients),
//! except the gauges and totals that are meaningful at zero.
//!
//! The crate performs no I/O: the server serves [`Metrics::render`] at
//! `GET /metrics`.

use crate::methods::{method_index, METHODS};
use crate::ErrorKind;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The media type of [`Metrics::render`]'s output.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds (seconds) of the latency histograms' buckets: from half a
/// millisecond (an in-memory read) to ten seconds (a slow remote or disk).
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The `method` label of a call of a name outside the method table.
const UNKNOWN_METHOD: &str = "unknown";
/// The `outcome` label of a call answered with a result (or a stream).
const OK: &str = "ok";
/// The `outcome` label of an error code outside the error registry.
const OTHER_CODE: &str = "other";

/// The transports whose open streams are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamTransport {
    /// SSE responses of the HTTP bindings (JSON-RPC and HTTP+JSON).
    Http,
    /// Streams of stdio sessions (`stream/event` notifications).
    Stdio,
}

impl StreamTransport {
    const ALL: [StreamTransport; 2] = [StreamTransport::Http, StreamTransport::Stdio];

    fn label(self) -> &'static str {
        match self {
            StreamTransport::Http => "http",
            StreamTransport::Stdio => "stdio",
        }
    }
}

/// A latency histogram: one counter per bucket (not cumulative; the rendering
/// adds them up) and the sum of the observations in nanoseconds.
#[derive(Debug, Default)]
struct Histogram {
    counts: [AtomicU64; BUCKETS.len() + 1],
    sum_nanos: AtomicU64,
}

impl Histogram {
    fn observe(&self, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let bucket = BUCKETS
            .iter()
            .position(|bound| seconds <= *bound)
            .unwrap_or(BUCKETS.len());
        self.counts[bucket].fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    fn count(&self) -> u64 {
        self.counts.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    /// Appends the `_bucket`, `_sum` and `_count` lines of one series.
    fn render(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut cumulative = 0u64;
        for (bound, count) in BUCKETS.iter().zip(&self.counts) {
            cumulative += count.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{bound}\"}} {cumulative}");
        }
        cumulative += self.counts[BUCKETS.len()].load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {cumulative}");
        let sum = self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let braces = |text: &str| {
            if text.is_empty() {
                String::new()
            } else {
                format!("{{{text}}}")
            }
        };
        let _ = writeln!(out, "{name}_sum{} {sum}", braces(labels));
        let _ = writeln!(out, "{name}_count{} {cumulative}", braces(labels));
    }
}

/// The metrics of one agent. Shared (`Arc`) between the transports and the
/// application; every recording method takes `&self`.
#[derive(Debug)]
pub struct Metrics {
    /// The distinct error codes of the registry, ascending: outcome slot
    /// `1 + i` is `codes[i]`, slot 0 is success, the last slot any other code.
    codes: Box<[i64]>,
    /// Calls per (method slot × outcome slot), row-major by method.
    requests: Box<[AtomicU64]>,
    /// Call latency per method slot.
    latency: Box<[Histogram]>,
    open_streams: [AtomicI64; StreamTransport::ALL.len()],
    /// The store backend's name, set by the first commit recorded.
    store: OnceLock<&'static str>,
    store_commits: Histogram,
    push_attempts: AtomicU64,
    push_failures: AtomicU64,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// An empty registry laid out for the method table and the error registry.
    pub fn new() -> Metrics {
        let mut codes: Vec<i64> = ErrorKind::ALL.iter().map(|kind| kind.code()).collect();
        codes.sort_unstable();
        codes.dedup();
        let methods = Self::method_slots();
        let outcomes = codes.len() + 2;
        Metrics {
            codes: codes.into_boxed_slice(),
            requests: (0..methods * outcomes).map(|_| AtomicU64::new(0)).collect(),
            latency: (0..methods).map(|_| Histogram::default()).collect(),
            open_streams: Default::default(),
            store: OnceLock::new(),
            store_commits: Histogram::default(),
            push_attempts: AtomicU64::new(0),
            push_failures: AtomicU64::new(0),
        }
    }

    /// Every method of the table, then `rpc.discover` (answered by the
    /// transports, not in the table), then names outside both.
    fn method_slots() -> usize {
        METHODS.len() + 2
    }

    fn method_slot(method: &str) -> usize {
        match method_index(method) {
            Some(index) => index,
            None if method == crate::openrpc::DISCOVER_METHOD => METHODS.len(),
            None => METHODS.len() + 1,
        }
    }

    fn method_label(slot: usize) -> &'static str {
        match METHODS.get(slot) {
            Some(descriptor) => descriptor.name,
            None if slot == METHODS.len() => crate::openrpc::DISCOVER_METHOD,
            None => UNKNOWN_METHOD,
        }
    }

    fn outcome_slots(&self) -> usize {
        self.codes.len() + 2
    }

    fn outcome_slot(&self, error_code: Option<i64>) -> usize {
        match error_code {
            None => 0,
            Some(code) => match self.codes.binary_search(&code) {
                Ok(index) => index + 1,
                Err(_) => self.codes.len() + 1,
            },
        }
    }

    fn outcome_label(&self, slot: usize) -> String {
        match slot {
            0 => OK.to_string(),
            slot => match self.codes.get(slot - 1) {
                Some(code) => code.to_string(),
                None => OTHER_CODE.to_string(),
            },
        }
    }

    /// Records one call of `method` (its wire name, as the method table spells
    /// it), answered with `error_code` (`None`: a result or a stream), after
    /// `elapsed`.
    pub fn record_request(&self, method: &str, error_code: Option<i64>, elapsed: Duration) {
        let slot = Self::method_slot(method);
        let index = slot * self.outcome_slots() + self.outcome_slot(error_code);
        if let Some(counter) = self.requests.get(index) {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(histogram) = self.latency.get(slot) {
            histogram.observe(elapsed);
        }
    }

    /// Counts a stream open on `transport` until the returned guard is dropped.
    pub fn stream_opened(self: &Arc<Self>, transport: StreamTransport) -> OpenStream {
        self.open_streams[transport as usize].fetch_add(1, Ordering::Relaxed);
        OpenStream {
            metrics: self.clone(),
            transport,
        }
    }

    /// Records one store commit on the backend `store` (`sqlite`,
    /// `postgres`, `memory`), durable (or refused) after `elapsed`.
    pub fn record_store_commit(&self, store: &'static str, elapsed: Duration) {
        let _ = self.store.set(store);
        self.store_commits.observe(elapsed);
    }

    /// Records one push delivery attempt; `failed` when the webhook did not
    /// take the event.
    pub fn record_push_attempt(&self, failed: bool) {
        self.push_attempts.fetch_add(1, Ordering::Relaxed);
        if failed {
            self.push_failures.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The calls recorded for `method` with `error_code` (for tests and diagnostics).
    pub fn requests(&self, method: &str, error_code: Option<i64>) -> u64 {
        let index = Self::method_slot(method) * self.outcome_slots() + self.outcome_slot(error_code);
        self.requests
            .get(index)
            .map_or(0, |counter| counter.load(Ordering::Relaxed))
    }

    /// Every series in the text exposition format 0.0.4.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(4096);
        let outcomes = self.outcome_slots();

        out.push_str("# HELP cleveragents_requests_total Calls answered, by method and outcome (ok, or the JSON-RPC error code).\n");
        out.push_str("# TYPE cleveragents_requests_total counter\n");
        for method in 0..Self::method_slots() {
            for outcome in 0..outcomes {
                let count = self.requests[method * outcomes + outcome].load(Ordering::Relaxed);
                if count > 0 {
                    let _ = writeln!(
                        out,
                        "cleveragents_requests_total{{method=\"{}\",outcome=\"{}\"}} {count}",
                        escape(Self::method_label(method)),
                        self.outcome_label(outcome)
                    );
                }
            }
        }

        out.push_str("# HELP cleveragents_request_duration_seconds Time from a call's dispatch to its answer (or its stream's opening), by method.\n");
        out.push_str("# TYPE cleveragents_request_duration_seconds histogram\n");
        for (method, histogram) in self.latency.iter().enumerate() {
            if histogram.count() > 0 {
                let labels = format!("method=\"{}\"", escape(Self::method_label(method)));
                histogram.render(&mut out, "cleveragents_request_duration_seconds", &labels);
            }
        }

        out.push_str("# HELP cleveragents_open_streams Streams open now, by transport.\n");
        out.push_str("# TYPE cleveragents_open_streams gauge\n");
        for transport in StreamTransport::ALL {
            let open = self.open_streams[transport as usize].load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "cleveragents_open_streams{{transport=\"{}\"}} {open}",
                transport.label()
            );
        }

        out.push_str("# HELP cleveragents_store_commit_duration_seconds Time from a commit's submission to its durable outcome, by store backend.\n");
        out.push_str("# TYPE cleveragents_store_commit_duration_seconds histogram\n");
        if let Some(store) = self.store.get() {
            let labels = format!("store=\"{}\"", escape(store));
            self.store_commits
                .render(&mut out, "cleveragents_store_commit_duration_seconds", &labels);
        }

        out.push_str("# HELP cleveragents_push_delivery_attempts_total Push notification POSTs attempted.\n");
        out.push_str("# TYPE cleveragents_push_delivery_attempts_total counter\n");
        let _ = writeln!(
            out,
            "cleveragents_push_delivery_attempts_total {}",
            self.push_attempts.load(Ordering::Relaxed)
        );
        out.push_str("# HELP cleveragents_push_delivery_failures_total Push notification attempts the webhook did not take.\n");
        out.push_str("# TYPE cleveragents_push_delivery_failures_total counter\n");
        let _ = writeln!(
            out,
            "cleveragents_push_delivery_failures_total {}",
            self.push_failures.load(Ordering::Relaxed)
        );
        out
    }
}

/// A stream counted as open; the count goes down when it is dropped.
#[derive(Debug)]
pub struct OpenStream {
    metrics: Arc<Metrics>,
    transport: StreamTransport,
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.metrics.open_streams[self.transport as usize].fetch_sub(1, Ordering::Relaxed);
    }
}

/// A label value as the exposition format quotes it.
fn escape(value: &str) -> std::borrow::Cow<'_, str> {
    if value.contains(['\\', '"', '\n']) {
        value
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
            .into()
    } else {
        value.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_counted_by_method_and_outcome() {
        let metrics = Metrics::new();
        metrics.record_request("GetTask", None, Duration::from_micros(300));
        metrics.record_request("GetTask", Some(-32001), Duration::from_millis(2));
        metrics.record_request("GetTask", Some(-32001), Duration::from_secs(20));
        metrics.record_request("no/such", Some(-32601), Duration::ZERO);
        metrics.record_request("GetTask", Some(-1), Duration::ZERO);
        let text = metrics.render();
        let lines: Vec<&str> = text.lines().collect();
        for expected in [
            "cleveragents_requests_total{method=\"GetTask\",outcome=\"ok\"} 1",
            "cleveragents_requests_total{method=\"GetTask\",outcome=\"-32001\"} 2",
            "cleveragents_requests_total{method=\"GetTask\",outcome=\"other\"} 1",
            "cleveragents_requests_total{method=\"unknown\",outcome=\"-32601\"} 1",
            "cleveragents_request_duration_seconds_bucket{method=\"GetTask\",le=\"0.0005\"} 2",
            "cleveragents_request_duration_seconds_bucket{method=\"GetTask\",le=\"0.0025\"} 3",
            "cleveragents_request_duration_seconds_bucket{method=\"GetTask\",le=\"10\"} 3",
            "cleveragents_request_duration_seconds_bucket{method=\"GetTask\",le=\"+Inf\"} 4",
            "cleveragents_request_duration_seconds_count{method=\"GetTask\"} 4",
            "cleveragents_open_streams{transport=\"http\"} 0",
            "cleveragents_push_delivery_attempts_total 0",
        ] {
            assert!(lines.contains(&expected), "missing `{expected}` in:\n{text}");
        }
        assert_eq!(metrics.requests("GetTask", Some(-32001)), 2);
        // No series for what was never recorded.
        assert!(!text.contains("SendMessage"));
        assert!(!text.contains("cleveragents_store_commit_duration_seconds_count"));
    }

    #[test]
    fn streams_are_counted_while_open() {
        let metrics = Arc::new(Metrics::new());
        let first = metrics.stream_opened(StreamTransport::Stdio);
        let second = metrics.stream_opened(StreamTransport::Stdio);
        assert!(metrics
            .render()
            .contains("cleveragents_open_streams{transport=\"stdio\"} 2\n"));
        drop(first);
        drop(second);
        assert!(metrics
            .render()
            .contains("cleveragents_open_streams{transport=\"stdio\"} 0\n"));
    }

    #[test]
    fn store_commits_and_push_attempts_are_counted() {
        let metrics = Metrics::new();
        metrics.record_store_commit("sqlite", Duration::from_millis(3));
        metrics.record_push_attempt(false);
        metrics.record_push_attempt(true);
        let text = metrics.render();
        assert!(text.contains("cleveragents_store_commit_duration_seconds_count{store=\"sqlite\"} 1\n"));
        assert!(text.contains("cleveragents_push_delivery_attempts_total 2\n"));
        assert!(text.contains("cleveragents_push_delivery_failures_total 1\n"));
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(escape("plain/name"), "plain/name");
    }
}
