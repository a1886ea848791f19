//! The one conversion layer between A2A 0.3 and A2A 1.0.
//!
//! *Upgrades* turn what a 0.3 client sends into the 1.0 params the handlers
//! take; *downgrades* turn 1.0 results and stream events into their 0.3 form.
//! Each is a `TryFrom` between a generated 0.3 type and a generated 1.0 type,
//! so the compiler checks every field of both versions; the generated dialect
//! method table ([`super::methods`]) picks the pair for each method.
//!
//! What one version says and the other cannot is decided here, once:
//!
//! - 0.3 `blocking` is the negation of 1.0 `returnImmediately`;
//! - a 0.3 file part is a 1.0 `raw` (bytes) or `url` part, its `name` and
//!   `mimeType` the part's `filename` and `mediaType`; a 0.3 text part has no
//!   media type, so a 1.0 text part's is dropped;
//! - 1.0 data may be any JSON value, 0.3 data is an object: another value is
//!   carried under [`DATA_VALUE_KEY`];
//! - a 0.3 status update is `final` when its state ends the stream (terminal or
//!   interrupted), which is when a 1.0 stream ends;
//! - a 0.3 push configuration without an id is the task's default one, whose id
//!   is the task id (so `tasks/pushNotificationConfig/get` without an id finds it);
//!   0.3 lists authentication schemes, 1.0 names one: the first;
//! - 1.0 `TASK_STATE_UNSPECIFIED` is 0.3 `unknown`;
//! - 1.0 has no `stateTransitionHistory` capability (it is dropped); a 1.0
//!   OAuth 2.0 scheme names one flow (the first of a 0.3 scheme's).
//!
//! Each submodule holds both directions for its types: 0.3 params in 1.0 and
//! 1.0 results in 0.3, and the reverse, 1.0 params in 0.3 and 0.3 results in
//! 1.0 (what a 0.3 client sends a 1.0 server, and what it reads back); the two
//! directions together are what the round-trip tests hold to.
//!
//! - `content`: task states, roles, parts, messages, artifacts;
//! - `tasks`: tasks, status and artifact update events, message results,
//!   stream events, the task requests and the task list;
//! - `push`: push-notification configurations and their requests;
//! - `card`: the Agent Card, its security schemes and the extended-card
//!   request.

mod card;
mod content;
mod push;
mod tasks;

use crate::rpc::Error;
use crate::ErrorKind;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// The key a non-object 1.0 data value travels under in a 0.3 data part.
pub const DATA_VALUE_KEY: &str = "value";

/// The A2A protocol version a 0.3 Agent Card states (0.3 cards carry the patch).
pub const CARD_PROTOCOL_VERSION: &str = "0.3.0";

/// Why a value of one version has no form in the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unconvertible(pub String);

impl std::fmt::Display for Unconvertible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unconvertible {}

fn unconvertible(why: impl Into<String>) -> Unconvertible {
    Unconvertible(why.into())
}

/// Decodes 0.3 params (absent: `{}`) and encodes them as the 1.0 params `V1`.
pub fn upgrade_params<V03, V1>(method: &str, params: crate::rpc::Params) -> Result<Value, Error>
where
    V03: DeserializeOwned,
    V1: TryFrom<V03, Error = Unconvertible> + Serialize,
{
    let params: V03 = crate::rpc::decode_named_params(method, ErrorKind::InvalidParams, params)?;
    let upgraded = V1::try_from(params).map_err(|why| {
        Error::new(
            ErrorKind::InvalidParams,
            format!("Invalid params for `{method}`: {why}"),
        )
    })?;
    serde_json::to_value(upgraded).map_err(internal)
}

/// Decodes a 1.0 result (or stream event) and encodes it in its 0.3 form.
pub fn downgrade_result<V1, V03>(result: Value) -> Result<Value, Error>
where
    V1: DeserializeOwned,
    V03: TryFrom<V1, Error = Unconvertible> + Serialize,
{
    let result: V1 = serde_json::from_value(result).map_err(internal)?;
    let downgraded = V03::try_from(result).map_err(internal)?;
    serde_json::to_value(downgraded).map_err(internal)
}

/// Decodes a 0.3 result (or stream event) and encodes it in its 1.0 form.
pub fn upgrade_result<V03, V1>(result: Value) -> Result<Value, Error>
where
    V03: DeserializeOwned,
    V1: TryFrom<V03, Error = Unconvertible> + Serialize,
{
    let result: V03 = serde_json::from_value(result).map_err(internal)?;
    let upgraded = V1::try_from(result).map_err(internal)?;
    serde_json::to_value(upgraded).map_err(internal)
}

fn internal(why: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::InternalError,
        format!("the value has no form in the other A2A version: {why}"),
    )
}

fn each<A, B: TryFrom<A, Error = Unconvertible>>(items: Vec<A>) -> Result<Vec<B>, Unconvertible> {
    items.into_iter().map(B::try_from).collect()
}

fn maybe<A, B: TryFrom<A, Error = Unconvertible>>(item: Option<A>) -> Result<Option<B>, Unconvertible> {
    item.map(B::try_from).transpose()
}
