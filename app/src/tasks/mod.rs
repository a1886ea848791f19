//! A2A tasks.
//!
//! - [`engine`]: the live machinery every task change goes through (used by
//!   the messaging service and by plans, which run as tasks);
//! - [`changes`]: states and the status and artifact changes of a task;
//! - [`stream`]: a task's events as a subscriber receives them;
//! - [`long_poll`]: GetTask held until the task's generation moves on;
//! - [`media`]: the media types a sent message's parts may name;
//! - [`service`]: the A2A messaging methods on the engine;
//! - `runs`: the leases of executor runs on a store shared by agents.

pub mod changes;
pub mod engine;
pub mod long_poll;
pub mod media;
mod runs;
pub mod service;
pub mod stream;
#[cfg(test)]
mod testing;

pub use crate::lifecycle::{is_interrupted, is_terminal};
pub use changes::{artifact_change, status_change, trim_history, Change};
pub use engine::TaskEngine;
pub use long_poll::DEFAULT_LONG_POLL_MAX;
pub use media::InputModes;
pub use service::TaskService;
