//! Push delivery: each committed task event is queued on that task's ordered delivery queue;
//! a worker per task POSTs the StreamResponse to every configuration of the
//! task, in order, with the token header and bounded retries with exponential
//! backoff. Targets on loopback, private, link-local or otherwise internal
//! addresses are refused (when the URL is registered and again after DNS
//! resolution, and redirects are not followed) unless their host is
//! allow-listed.

use super::{configs_prefix, COLL};
use crate::store::{Doc, Store};
use a2a::types::{StreamResponse, TaskPushNotificationConfig};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

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
}

impl Default for PushConfig {
    fn default() -> Self {
        PushConfig {
            allow_list: vec![],
            max_attempts: 4,
            initial_backoff: Duration::from_millis(200),
            timeout: Duration::from_secs(10),
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

struct Job {
    namespace: String,
    task_id: String,
    body: serde_json::Value,
    last: bool,
}

/// What every delivery worker shares: one HTTP client (its connection pool
/// and TLS roots are built once), the policy and the store.
struct Shared {
    store: Arc<dyn Store>,
    config: PushConfig,
    client: Option<reqwest::Client>,
}

impl Shared {
    /// Up to `limit` push configurations of a task (none when unreadable).
    fn configs(&self, namespace: &str, task_id: &str, limit: usize) -> Vec<Doc> {
        self.store
            .list_docs(COLL, namespace, &configs_prefix(task_id), None, limit)
            .unwrap_or_default()
    }
}

/// The delivery machinery.
pub struct PushDelivery {
    shared: Arc<Shared>,
    queues: Mutex<HashMap<String, mpsc::UnboundedSender<Job>>>,
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
    pub fn new(store: Arc<dyn Store>, config: PushConfig) -> Self {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout)
            .build()
            .ok();
        PushDelivery {
            shared: Arc::new(Shared {
                store,
                config,
                client,
            }),
            queues: Mutex::new(HashMap::new()),
        }
    }

    /// Checks a webhook URL as registered; the reason when refused.
    pub fn check_url(&self, url: &str) -> Result<(), String> {
        self.shared.config.check_url(url)
    }

    /// Health probe: the number of tasks with a delivery queue, or why
    /// delivery cannot work.
    pub fn probe(&self) -> Result<usize, String> {
        if self.shared.client.is_none() {
            return Err("the HTTP client could not be built; webhooks are not called".into());
        }
        self.queues
            .lock()
            .map(|queues| queues.len())
            .map_err(|_| "the delivery queue lock is poisoned".to_string())
    }

    /// Queues an event of a task for delivery to its webhooks. A task with
    /// no push configuration (the common case) costs one indexed read.
    pub fn enqueue(&self, namespace: &str, task_id: &str, _seq: u64, event: &StreamResponse) {
        let last = match event {
            StreamResponse::Task(t) => crate::tasks::is_terminal(t.status.state),
            StreamResponse::StatusUpdate(s) => crate::tasks::is_terminal(s.status.state),
            _ => false,
        };
        // The store is read outside the queue lock, which every task's
        // events pass through.
        let queued = self.queues.lock().is_ok_and(|q| q.contains_key(task_id));
        if !queued && self.shared.configs(namespace, task_id, 1).is_empty() {
            return;
        }
        let Ok(body) = serde_json::to_value(event) else {
            return;
        };
        let Ok(mut queues) = self.queues.lock() else {
            return;
        };
        let job = Job {
            namespace: namespace.into(),
            task_id: task_id.into(),
            body,
            last,
        };
        let sender = queues.entry(task_id.to_string()).or_insert_with(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(worker(self.shared.clone(), rx));
            }
            tx
        });
        let _ = sender.send(job);
        if last {
            // The worker drains what is queued and ends.
            queues.remove(task_id);
        }
    }
}

async fn worker(shared: Arc<Shared>, mut rx: mpsc::UnboundedReceiver<Job>) {
    let Some(client) = shared.client.clone() else {
        return;
    };
    while let Some(job) = rx.recv().await {
        for doc in shared.configs(&job.namespace, &job.task_id, 1000) {
            let Ok(target) = serde_json::from_value::<TaskPushNotificationConfig>(doc.value) else {
                continue;
            };
            deliver(&client, &shared.config, &target, &job.body).await;
        }
        if job.last {
            break;
        }
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

async fn deliver(
    client: &reqwest::Client,
    config: &PushConfig,
    target: &TaskPushNotificationConfig,
    body: &serde_json::Value,
) {
    let Ok(url) = reqwest::Url::parse(&target.url) else {
        return;
    };
    if config.check_url(&target.url).is_err() || !resolves_safely(config, &url).await {
        return;
    }
    let Ok(payload) = serde_json::to_vec(body) else {
        return;
    };
    let mut delay = config.initial_backoff;
    for attempt in 1..=config.max_attempts.max(1) {
        let mut request = client
            .post(url.clone())
            .header("Content-Type", "application/a2a+json")
            .body(payload.clone());
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
        match request.send().await {
            Ok(response) if response.status().is_success() => return,
            // A client error other than throttling will not improve on retry.
            Ok(response) if response.status().is_client_error() && response.status().as_u16() != 429 => {
                return
            }
            _ => {}
        }
        if attempt < config.max_attempts {
            tokio::time::sleep(delay).await;
            delay = delay.saturating_mul(2);
        }
    }
}
