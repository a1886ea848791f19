//! Bounds on what one caller can make the application hold, so no request,
//! however well-formed, grows a task or its configurations without end. Each
//! refusal is invalid-params naming the field, the bound and its value (ErrorInfo
//! metadata `limit`), and changes nothing.

use crate::util::Family;
use a2a::rpc::Error;
use a2a::types::Message;

/// The application's bounds (see [`DomainLimits::default`] for the values);
/// the agent's config file sets them under `task_limits`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DomainLimits {
    /// Parts in one message.
    pub max_parts_per_message: usize,
    /// Encoded size of one part (text, raw bytes as base64, URL or data), in bytes.
    pub max_part_bytes: usize,
    /// Messages in one task's history: a message continuing a task that holds
    /// this many is refused (start a new task in the same context instead).
    pub max_history_per_task: usize,
    /// Push-notification configurations of one task.
    pub max_push_configs_per_task: usize,
}

impl Default for DomainLimits {
    /// 64 parts, 1 MiB a part, 1,000 messages a task, 16 webhooks a task.
    fn default() -> Self {
        DomainLimits {
            max_parts_per_message: 64,
            max_part_bytes: 1 << 20,
            max_history_per_task: 1000,
            max_push_configs_per_task: 16,
        }
    }
}

/// The refusal of `field` over `limit`.
pub(crate) fn exceeded(family: Family, field: &str, description: &str, limit: usize) -> Error {
    family
        .invalid_params(field, description)
        .with_metadata("limit", limit.to_string())
}

impl DomainLimits {
    /// Checks a message a caller sends (`field` names it in the params).
    pub(crate) fn check_message(&self, family: Family, field: &str, message: &Message) -> Result<(), Error> {
        if message.parts.len() > self.max_parts_per_message {
            return Err(exceeded(
                family,
                &format!("{field}.parts"),
                &format!("a message holds at most {} parts", self.max_parts_per_message),
                self.max_parts_per_message,
            ));
        }
        for (index, part) in message.parts.iter().enumerate() {
            // The encoded size is what is stored and sent again; a part that
            // cannot be encoded is refused by the decoder before this point.
            let size = serde_json::to_vec(part).map(|b| b.len()).unwrap_or(usize::MAX);
            if size > self.max_part_bytes {
                return Err(exceeded(
                    family,
                    &format!("{field}.parts[{index}]"),
                    &format!("a part is at most {} bytes encoded", self.max_part_bytes),
                    self.max_part_bytes,
                ));
            }
        }
        Ok(())
    }
}
