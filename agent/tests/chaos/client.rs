//! What a client of the history checker calls through, whatever the mode:
//! a unary JSON-RPC call and a followed `SubscribeToTask` stream, each
//! classified as the checker needs it (see `wire.rs`). The workload and the
//! final reads are written against [`Client`]; [`Http`] reaches agents over
//! HTTP (PostgreSQL mode), `stdio::Local` through a front it spawns (local
//! mode).

use crate::nemesis::Agents;
use crate::wire::{self, Outcome, Stream};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// One client's way to the agents.
pub trait Client: Send {
    /// How many agents the client chooses among; each call names one
    /// (`0..agents()`), and the history records which.
    fn agents(&self) -> usize;

    /// One unary call of `method` on agent `agent`.
    fn call(&mut self, agent: usize, method: &str, params: Value) -> Outcome;

    /// Follows task `task` on agent `agent` (resuming after `after`, if
    /// given) until the stream ends, `window` has passed, or `enough` holds
    /// of what it delivered; then drops it, as a client that goes away does.
    fn follow(
        &mut self,
        agent: usize,
        task: &str,
        after: Option<u64>,
        window: Duration,
        enough: &dyn Fn(&Stream) -> bool,
    ) -> Stream;

    /// [`Client::follow`] for a fixed window.
    fn subscribe(&mut self, agent: usize, task: &str, after: Option<u64>, window: Duration) -> Stream {
        self.follow(agent, task, after, window, &|_| false)
    }
}

/// A client of agents listening on HTTP: each call opens a connection to
/// the agent it names, where that agent listens now.
pub struct Http(pub Arc<Agents>);

impl Client for Http {
    fn agents(&self) -> usize {
        self.0.count()
    }

    fn call(&mut self, agent: usize, method: &str, params: Value) -> Outcome {
        wire::call(&self.0.addr(agent), method, params)
    }

    fn follow(
        &mut self,
        agent: usize,
        task: &str,
        after: Option<u64>,
        window: Duration,
        enough: &dyn Fn(&Stream) -> bool,
    ) -> Stream {
        wire::follow(&self.0.addr(agent), task, after, window, enough)
    }
}
