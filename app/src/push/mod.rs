//! Push notifications: the configurations of a task's webhooks ([`configs`])
//! and the delivery of every task event to them ([`delivery`]).

pub mod configs;
pub mod delivery;

use crate::store::Fanout;
use crate::util::Family;
pub use configs::PushConfigs;
pub use delivery::{PushConfig, PushDelivery, SEQUENCE_HEADER};

/// Document collection of push configurations; key `taskId/configId`.
pub const COLL: &str = "push_config";
const FAMILY: Family = Family::A2a;

/// The key of configuration `id` of task `task_id`.
pub fn config_key(task_id: &str, id: &str) -> String {
    format!("{task_id}/{id}")
}

/// The prefix every configuration key of task `task_id` starts with.
pub fn configs_prefix(task_id: &str) -> String {
    config_key(task_id, "")
}

/// The deliveries a task's events owe: one per push configuration of the
/// task, named by the configuration's id.
pub fn fanout(task_id: &str) -> Fanout {
    Fanout {
        coll: COLL.to_string(),
        prefix: configs_prefix(task_id),
    }
}
