//! The one place that decides which methods are safe to repeat: the retry rule
//! for unary calls and the resume rule for streams, read off the generated
//! method table.
//!
//! **Rule.** A method is an *idempotent read* when the table says it needs only
//! the `reader` role (`MethodDescriptor::access == Some(Access::Reader)`, i.e.
//! [`a2a::MethodDescriptor::is_read_only`]), it is dispatched (not a binding
//! method) and it is not a notification. Only such methods are retried after a
//! transient transport failure, and only such streams are resumed by sending
//! the same request again (with `Last-Event-ID`). Everything else — sends,
//! creates, adds, updates, removes, applies, executes — is never repeated: a
//! lost answer might mean the change happened. (A stream of a non-repeatable
//! method, `SendStreamingMessage`, is resumed with `SubscribeToTask` on the task
//! it reported, which is a read.) A long-poll read (GetTask with
//! `currentGeneration`) is not retried either: its wait is the caller's whole
//! time, and running out of it is its answer, not a failure to repeat.

use a2a::rpc::CallError;
use a2a::MethodDescriptor;
use serde_json::Value;
use std::future::Future;
use std::time::Duration;

/// A failed attempt of a call, and whether repeating it could help.
pub(crate) struct Attempt {
    pub(crate) error: CallError,
    pub(crate) transient: bool,
}

impl From<CallError> for Attempt {
    fn from(error: CallError) -> Self {
        Attempt {
            error,
            transient: false,
        }
    }
}

/// The wait before retry or resume number `attempt` (from 0): `base`,
/// doubled each time, at most 64 times `base`.
pub(crate) fn backoff(base: Duration, attempt: u32) -> Duration {
    base.saturating_mul(1 << attempt.min(6))
}

/// The retries a call with `params` gets: none for a long-poll, else `retries`.
pub(crate) fn retries_of(retries: u32, params: &Value) -> u32 {
    if params.get(crate::generation::LONG_POLL_FIELD).is_some() {
        0
    } else {
        retries
    }
}

/// Runs `once` until it succeeds, fails for good, or — for an idempotent
/// read of `method` only — has failed transiently `retries` more times.
pub(crate) async fn with_retries<F, Fut>(
    method: &str,
    retries: u32,
    base: Duration,
    mut once: F,
) -> Result<Value, CallError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Value, Attempt>>,
{
    let attempts = if is_idempotent_read_name(method) {
        retries.saturating_add(1)
    } else {
        1
    };
    let mut attempt = 0;
    loop {
        match once().await {
            Ok(value) => return Ok(value),
            Err(failed) if failed.transient && attempt + 1 < attempts => {
                tokio::time::sleep(backoff(base, attempt)).await;
                attempt += 1;
            }
            Err(failed) => return Err(failed.error),
        }
    }
}

/// True when a failed attempt of `method` may be repeated (unary) or resumed
/// by re-sending the same request (streams).
pub fn is_idempotent_read(method: &MethodDescriptor) -> bool {
    method.is_dispatched() && !method.notification && method.is_read_only()
}

/// True when `name` is an idempotent read (unknown names are not).
pub fn is_idempotent_read_name(name: &str) -> bool {
    a2a::find_method(name).is_some_and(is_idempotent_read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes() {
        for read in [
            "GetTask",
            "ListTasks",
            "SubscribeToTask",
            "_cleveragents/plan/status",
            "_cleveragents/registry/actors/show",
            "_cleveragents/health/check",
        ] {
            assert!(is_idempotent_read_name(read), "{read} should be a read");
        }
        for write in [
            "SendMessage",
            "SendStreamingMessage",
            "CancelTask",
            "_cleveragents/plan/execute",
            "_cleveragents/registry/actors/add",
            "initialize",
            "stream/event",
            "NoSuchMethod",
        ] {
            assert!(!is_idempotent_read_name(write), "{write} should not be retried");
        }
    }
}
