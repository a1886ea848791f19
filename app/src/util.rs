//! Small shared helpers: timestamps, identifiers, the namespace of a call,
//! and the error constructors every service uses.

use a2a::rpc::{Access, CallContext, Error};
use a2a::ErrorKind;

/// The extension's URI, under which plan task events carry their domain event.
pub const EXTENSION_URI: &str = a2a::rpc::declared(a2a::Contract::Cleveragents.extension_uri());

/// The params field naming the namespace of an extension call.
pub const NAMESPACE_FIELD: &str = a2a::rpc::declared(a2a::Contract::Cleveragents.namespace_field());

/// Milliseconds since the Unix epoch: the clock of leases and of the outbox.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, millis)
}

/// A duration in whole milliseconds, saturating.
pub fn millis(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Ticks every third of `lease`, the pace at which a lease is renewed or
/// swept for; the first tick (which is immediate) already taken, and a late
/// tick delays the next rather than bunching them.
pub async fn lease_ticks(lease: std::time::Duration) -> tokio::time::Interval {
    let mut tick = tokio::time::interval(lease / 3);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    tick
}

pub use store::timestamp::{normalize_ts, now};

/// A fresh identifier: a UUIDv7, i.e. a millisecond timestamp then random
/// bits. Ids made later sort later, so a store's indexes on them grow at
/// their end instead of touching a random page per new row.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The namespace the call acts in, as the router resolved and authorized it
/// (the contract's default for a call that reached a handler another way).
pub fn namespace(ctx: &CallContext) -> String {
    ctx.namespace
        .clone()
        .unwrap_or_else(|| a2a::DEFAULT_NAMESPACE.to_string())
}

/// True when the caller may read `namespace` (local mode reads everything):
/// for listings that show only what the caller can see.
pub fn can_read(ctx: &CallContext, namespace: &str) -> bool {
    ctx.principal
        .as_ref()
        .is_none_or(|p| p.can(namespace, Access::Reader))
}

/// Which error family a check answers in: the A2A one or the extension's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    A2a,
    Ext,
}

impl Family {
    pub fn not_found(self, what: &str) -> Error {
        match self {
            Family::A2a => Error::new(ErrorKind::TaskNotFound, format!("{what} not found")),
            Family::Ext => Error::new(ErrorKind::ExtNotFound, format!("{what} not found")),
        }
    }
    pub fn invalid_params(self, field: &str, description: &str) -> Error {
        let kind = match self {
            Family::A2a => ErrorKind::InvalidParams,
            Family::Ext => ErrorKind::ExtInvalidParams,
        };
        Error::new(kind, format!("Invalid params: {field}: {description}"))
            .with_field_violation(field, description)
    }
    pub fn internal(self, message: impl Into<String>) -> Error {
        let kind = match self {
            Family::A2a => ErrorKind::InternalError,
            Family::Ext => ErrorKind::ExtInternalError,
        };
        Error::new(kind, message)
    }
}

/// Serializes a value the contract defines; a failure is a bug, reported as an
/// internal error rather than a panic.
pub fn to_json<T: serde::Serialize>(value: &T, family: Family) -> Result<serde_json::Value, Error> {
    serde_json::to_value(value).map_err(|e| family.internal(format!("encoding failed: {e}")))
}

/// Decodes a stored value; corruption is an internal error.
pub fn from_json<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
    family: Family,
) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|e| family.internal(format!("stored data is unreadable: {e}")))
}
