//! One connected session with an agent: requests with fresh ids over its
//! transport, and the run-scoped unique strings cases and scenarios use.

use crate::cases::Message;
use crate::transport::{Answer, Transport};
use a2a::rpc::{Request, RequestId};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};

/// Unique, run-scoped strings: message ids and names must not collide with an
/// earlier run against the same (durable) agent.
pub fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{:x}-{}-{n}", nanos, std::process::id())
}

/// A connected session plus the id counter for its requests.
pub struct Session {
    pub transport: Box<dyn Transport>,
    next_id: AtomicU64,
}

impl Session {
    pub fn new(transport: Box<dyn Transport>) -> Session {
        Session {
            transport,
            next_id: AtomicU64::new(1),
        }
    }

    /// Calls `method` with `params` and returns the answer.
    pub async fn call(&self, method: &str, params: Value) -> Answer {
        self.send(&Message::Request {
            method: method.to_string(),
            params: Some(params),
        })
        .await
    }

    /// The text of a request for `method` with a fresh id, and that id.
    pub fn request(&self, method: &str, params: Option<&Value>) -> (String, Value) {
        let id = RequestId::String(format!("c{}", self.next_id.fetch_add(1, Ordering::Relaxed)));
        let request = match params {
            Some(p) => Request::new(id.clone(), method, p.clone()),
            None => Request::without_params(id.clone(), method),
        };
        // Every member is already JSON, so encoding cannot fail.
        (serde_json::to_string(&request).unwrap_or_default(), id.to_value())
    }

    /// Sends a case message.
    pub async fn send(&self, message: &Message) -> Answer {
        match message {
            Message::Request { method, params } => {
                let (text, id) = self.request(method, params.as_ref());
                self.transport.exchange(text, id).await
            }
            Message::Raw { text, expect_id } => {
                self.transport.exchange(text.clone(), expect_id.clone()).await
            }
        }
    }
}
