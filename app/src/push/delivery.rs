//! Push delivery from the persisted outbox. The commit that appends a task
//! event also records one outbox row per webhook of the task
//! ([`fanout`](super::fanout)), so an acknowledged event's deliveries are as
//! durable as the event. A deliverer per agent leases due rows from the
//! store ([`Store::claim_deliveries`]), POSTs each row's StreamResponse with
//! the token header and the event's sequence number
//! ([`SEQUENCE_HEADER`]), and commits the outcome: the row goes once
//! delivered (or given up), or waits for its next attempt with exponential
//! backoff. Delivery is at least once: an agent that dies between a POST and
//! its commit leaves the row to be delivered again, after its lease expires,
//! by whichever agent then claims it, with the same sequence number, so a
//! receiver can drop the duplicate. While an agent lives it renews its
//! leases, so nobody else delivers what it is delivering. A webhook gets a
//! task's events in order: only the oldest pending row of each (task,
//! webhook) is ever due.
//!
//! Targets on loopback, private, link-local or otherwise internal addresses
//! are refused (when the URL is registered and again after DNS resolution,
//! and redirects are not followed) unless their host is allow-listed.

use super::{config_key, COLL};
use crate::store::{Commit, Delivery, DeliveryChange, Store};
use crate::util::{millis, now_ms};
use a2a::metrics::Metrics;
use a2a::types::TaskPushNotificationConfig;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use telemetry::TraceContext;
use tokio::sync::Notify;
use tracing::Instrument;

/// The header that carries the delivered event's per-task sequence number
/// (the number an SSE `id:` and `Last-Event-ID` use): a redelivery repeats
/// it, so a receiver drops what it has already had.
pub const SEQUENCE_HEADER: &str = "X-CleverAgents-Event-Sequence";

/// The most deliveries one agent has in flight at once.
const MAX_IN_FLIGHT: usize = 64;

/// How often the outbox is read when nothing wakes the deliverer: for
/// retries falling due, and for rows other agents left (their lease expired).
const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// The shortest lease: renewed every third of it, a shorter one would keep
/// the deliverer busy renewing.
const MIN_LEASE: Duration = Duration::from_millis(300);

/// Delivery policy.
#[derive(Clone, Debug)]
pub struct PushConfig {
    /// Hosts (`host` or `host:port`) that may be targeted even though they are
    /// loopback or private.
    pub allow_list: Vec<String>,
    /// Attempts per event and webhook (at least 1).
    pub max_attempts: u32,
    /// Delay before the first retry; doubled for each further one.
    pub initial_backoff: Duration,
    pub timeout: Duration,
    /// How long a claimed delivery stays this agent's without a renewal:
    /// after an agent dies, another takes its deliveries over this long after
    /// its last renewal (renewed every third of it).
    pub lease: Duration,
}

impl Default for PushConfig {
    fn default() -> Self {
        PushConfig {
            allow_list: vec![],
            max_attempts: 4,
            initial_backoff: Duration::from_millis(200),
            timeout: Duration::from_secs(10),
            lease: Duration::from_secs(30),
        }
    }
}

impl PushConfig {
    fn allow_listed(&self, url: &reqwest::Url) -> bool {
        let host = url
            .host_str()
            .unwrap_or_default()
            .trim_matches(|c| c == '[' || c == ']');
        let with_port = url.port_or_known_default().map(|p| format!("{host}:{p}"));
        self.allow_list
            .iter()
            .any(|a| a == host || Some(a.as_str()) == with_port.as_deref())
    }

    /// Checks a webhook URL as registered; the reason when refused.
    pub fn check_url(&self, url: &str) -> Result<(), String> {
        let parsed = reqwest::Url::parse(url).map_err(|e| format!("is not a valid URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err("must be an http or https URL".into());
        }
        let Some(host) = parsed.host() else {
            return Err("must name a host".into());
        };
        if self.allow_listed(&parsed) {
            return Ok(());
        }
        let internal = match host {
            url::Host::Ipv4(ip) => is_internal(IpAddr::V4(ip)),
            url::Host::Ipv6(ip) => is_internal(IpAddr::V6(ip)),
            url::Host::Domain(name) => {
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                name == "localhost" || name.ends_with(".localhost") || name.ends_with(".internal")
            }
        };
        if internal {
            return Err("targets a loopback or private address, which this agent does not call".into());
        }
        Ok(())
    }
}

/// What the deliverer and every delivery in flight share: one HTTP client
/// (its connection pool and TLS roots are built once), the policy, the store
/// and this agent's name as a lease holder.
struct Shared {
    store: Arc<dyn Store>,
    config: PushConfig,
    client: Option<reqwest::Client>,
    holder: String,
    in_flight: AtomicUsize,
    /// Wakes the deliverer: rows were written, or a delivery finished.
    wake: Arc<Notify>,
    /// Where each attempt is counted.
    metrics: Arc<Metrics>,
    /// The trace each task's latest events were appended in (task id →
    /// W3C trace context), so their deliveries continue it. Only traced
    /// requests write here; it lives in memory, so a delivery made after a
    /// restart, or by another agent, starts a trace of its own.
    traces: Mutex<HashMap<String, TraceContext>>,
}

/// The most tasks whose trace is remembered; past it the memory starts over
/// (a delivery without its trace is still made, untraced).
const MAX_TRACED_TASKS: usize = 4096;

/// The delivery machinery of one agent.
pub struct PushDelivery {
    shared: Arc<Shared>,
    started: AtomicBool,
}

fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.octets()[0] == 100 && (v4.octets()[1] & 0xc0) == 64 // carrier-grade NAT
                || v4.octets()[0] == 0
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_internal(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local
                || (first & 0xffc0) == 0xfe80 // link local
        }
    }
}

impl PushDelivery {
    /// The deliverer on `store`, counting its attempts in `metrics`; it
    /// starts (within a runtime) at once, so rows left by an earlier run or
    /// another agent are delivered.
    pub fn new(store: Arc<dyn Store>, mut config: PushConfig, metrics: Arc<Metrics>) -> Self {
        config.lease = config.lease.max(MIN_LEASE);
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout)
            .build()
            .ok();
        let delivery = PushDelivery {
            shared: Arc::new(Shared {
                store,
                config,
                client,
                holder: crate::util::new_id(),
                in_flight: AtomicUsize::new(0),
                wake: Arc::new(Notify::new()),
                metrics,
                traces: Mutex::new(HashMap::new()),
            }),
            started: AtomicBool::new(false),
        };
        delivery.start();
        delivery
    }

    /// Starts the deliverer once, when there is a runtime to run it on.
    fn start(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.shared.client.is_none() || self.started.swap(true, Ordering::AcqRel) {
            return;
        }
        runtime.spawn(deliverer(Arc::downgrade(&self.shared), self.shared.wake.clone()));
    }

    /// Checks a webhook URL as registered; the reason when refused.
    pub fn check_url(&self, url: &str) -> Result<(), String> {
        self.shared.config.check_url(url)
    }

    /// Health probe: the number of deliveries in flight, or why delivery
    /// cannot work.
    pub fn probe(&self) -> Result<usize, String> {
        if self.shared.client.is_none() {
            return Err("the HTTP client could not be built; webhooks are not called".into());
        }
        Ok(self.in_flight())
    }

    /// Deliveries under way in this process now.
    pub fn in_flight(&self) -> usize {
        self.shared.in_flight.load(Ordering::Relaxed)
    }

    /// Remembers the current trace (if the request is traced) as the one the
    /// deliveries of `task_id`'s next events belong to.
    pub fn note_trace(&self, task_id: &str) {
        let Some(context) = telemetry::current() else {
            return;
        };
        let mut traces = self.shared.traces.lock().unwrap_or_else(|p| p.into_inner());
        if traces.len() >= MAX_TRACED_TASKS && !traces.contains_key(task_id) {
            traces.clear();
        }
        traces.insert(task_id.to_string(), context);
    }

    /// Tells the deliverer that a commit recorded deliveries.
    pub fn wake(&self) {
        self.start();
        self.shared.wake.notify_one();
    }
}

/// The deliverer's loop, until the agent's delivery machinery is gone:
/// renews this agent's leases, claims what is due (as many as may be in
/// flight), and starts a delivery for each.
async fn deliverer(shared: Weak<Shared>, wake: Arc<Notify>) {
    let mut renewed = std::time::Instant::now();
    loop {
        let Some(s) = shared.upgrade() else {
            return;
        };
        let poll = POLL_INTERVAL.min(s.config.lease / 3);
        let now = now_ms();
        let lease = millis(s.config.lease);
        if renewed.elapsed() >= s.config.lease / 3 {
            renewed = std::time::Instant::now();
            if s.in_flight.load(Ordering::Relaxed) > 0 {
                let _ = s
                    .store
                    .renew_deliveries(&s.holder, now.saturating_add(lease))
                    .await;
            }
        }
        let room = MAX_IN_FLIGHT.saturating_sub(s.in_flight.load(Ordering::Relaxed));
        if room > 0 {
            let claimed = s
                .store
                .claim_deliveries(&s.holder, now, now.saturating_add(lease), room)
                .await
                .unwrap_or_default();
            for delivery in claimed {
                s.in_flight.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(deliver_one(s.clone(), delivery));
            }
        }
        drop(s);
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(poll) => {}
        }
    }
}

/// What one attempt came to.
enum Attempt {
    Delivered,
    /// Will not improve on retry (no such webhook any more, a refused
    /// target, a client error other than throttling).
    Refused,
    Failed,
}

/// Makes one attempt at `delivery` and commits its outcome.
async fn deliver_one(shared: Arc<Shared>, delivery: Delivery) {
    let attempts = delivery.attempts.saturating_add(1);
    let outcome = attempt(&shared, &delivery).await;
    shared
        .metrics
        .record_push_attempt(!matches!(outcome, Attempt::Delivered));
    let change = match outcome {
        Attempt::Delivered | Attempt::Refused => DeliveryChange::Done(delivery.key),
        Attempt::Failed if attempts >= shared.config.max_attempts.max(1) => {
            DeliveryChange::Done(delivery.key)
        }
        Attempt::Failed => {
            let doublings = (attempts - 1).min(30);
            let delay = shared.config.initial_backoff.saturating_mul(1 << doublings);
            DeliveryChange::Retry {
                key: delivery.key,
                holder: shared.holder.clone(),
                attempts,
                next_attempt_ms: now_ms().saturating_add(millis(delay)),
            }
        }
    };
    let commit = Commit {
        deliveries: vec![change],
        ..Commit::default()
    };
    // A failed commit leaves the row leased until the lease expires; it is
    // then delivered again, which at-least-once allows.
    let _ = shared.store.commit(commit).await;
    shared.in_flight.fetch_sub(1, Ordering::Relaxed);
    shared.wake.notify_one();
}

/// POSTs `delivery` to its webhook once.
async fn attempt(shared: &Shared, delivery: &Delivery) -> Attempt {
    let Some(client) = &shared.client else {
        return Attempt::Failed;
    };
    let key = &delivery.key;
    let doc = match shared
        .store
        .get_doc(COLL, &key.namespace, &config_key(&key.task_id, &key.config_id))
        .await
    {
        Ok(Some(doc)) => doc,
        Ok(None) => return Attempt::Refused,
        Err(_) => return Attempt::Failed,
    };
    let Ok(target) = serde_json::from_value::<TaskPushNotificationConfig>(doc.value) else {
        return Attempt::Refused;
    };
    let Ok(url) = reqwest::Url::parse(&target.url) else {
        return Attempt::Refused;
    };
    if shared.config.check_url(&target.url).is_err() || !resolves_safely(&shared.config, &url).await {
        return Attempt::Refused;
    }
    let Ok(payload) = serde_json::to_vec(&delivery.body) else {
        return Attempt::Refused;
    };
    let mut request = client
        .post(url)
        .header("Content-Type", "application/a2a+json")
        .header(SEQUENCE_HEADER, key.seq.to_string())
        .body(payload);
    if let Some(token) = &target.token {
        request = request.header("X-A2A-Notification-Token", token);
    }
    if let Some(auth) = &target.authentication {
        let value = match &auth.credentials {
            Some(c) => format!("{} {c}", auth.scheme),
            None => auth.scheme.clone(),
        };
        request = request.header("Authorization", value);
    }
    // The POST is a span of the trace the event was appended in, and the
    // receiver gets that trace's context in the W3C headers.
    let span =
        tracing::info_span!("push.deliver", otel.kind = "client", task_id = %key.task_id, seq = key.seq);
    let trace = shared
        .traces
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key.task_id)
        .cloned();
    if let Some(parent) = trace {
        telemetry::set_parent(&span, &parent);
        if let Some(context) = telemetry::context_of(&span) {
            for (name, value) in context.fields() {
                request = request.header(name, value);
            }
        }
    }
    match request.send().instrument(span).await {
        Ok(response) if response.status().is_success() => Attempt::Delivered,
        Ok(response) if response.status().is_client_error() && response.status().as_u16() != 429 => {
            Attempt::Refused
        }
        _ => Attempt::Failed,
    }
}

/// Resolves the host and refuses internal addresses unless allow-listed.
async fn resolves_safely(config: &PushConfig, url: &reqwest::Url) -> bool {
    if config.allow_listed(url) {
        return true;
    }
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
        return false;
    };
    let host = host.trim_matches(|c| c == '[' || c == ']').to_string();
    let addrs: Vec<std::net::SocketAddr> = match tokio::net::lookup_host(format!("{host}:{port}")).await {
        Ok(addrs) => addrs.collect(),
        Err(_) => return false,
    };
    !addrs.is_empty() && addrs.iter().all(|a| !is_internal(a.ip()))
}
