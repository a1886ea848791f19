//! Bounds on what one caller can make the application hold, so no request,
//! however well-formed, grows a task, its configurations, a registry entity
//! or a project without end (a sync pull is held to the same bounds as the
//! caller who wrote the remote's entities). Each
//! refusal is invalid-params naming the field, the bound and its value (ErrorInfo
//! metadata `limit`), and changes nothing.

use crate::util::Family;
use a2a::rpc::Error;
use a2a::types::Message;
use serde_json::{Map, Value};

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
    /// Encoded size of one registry entity's spec (a project's files aside), in bytes.
    pub max_entity_bytes: usize,
    /// Files in one project revision.
    pub max_project_files: usize,
    /// Content of one project revision, all files together (decoded), in bytes.
    pub max_project_bytes: usize,
}

impl Default for DomainLimits {
    /// 64 parts, 1 MiB a part, 1,000 messages a task, 16 webhooks a task;
    /// 256 KiB an entity, 10,000 files and 64 MiB a project revision.
    fn default() -> Self {
        DomainLimits {
            max_parts_per_message: 64,
            max_part_bytes: 1 << 20,
            max_history_per_task: 1000,
            max_push_configs_per_task: 16,
            max_entity_bytes: 256 << 10,
            max_project_files: 10_000,
            max_project_bytes: 64 << 20,
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
    /// Checks a registry entity's spec without its files (`field` names the spec).
    pub(crate) fn check_entity(
        &self,
        family: Family,
        field: &str,
        spec: &Map<String, Value>,
    ) -> Result<(), Error> {
        let size = serde_json::to_vec(spec).map(|b| b.len()).unwrap_or(usize::MAX);
        if size > self.max_entity_bytes {
            return Err(exceeded(
                family,
                field,
                &format!(
                    "an entity is at most {} bytes encoded, its files aside",
                    self.max_entity_bytes
                ),
                self.max_entity_bytes,
            ));
        }
        Ok(())
    }

    /// Checks a project revision's files, each of `size` bytes of content.
    pub(crate) fn check_project_files(
        &self,
        family: Family,
        field: &str,
        sizes: impl ExactSizeIterator<Item = usize>,
    ) -> Result<(), Error> {
        if sizes.len() > self.max_project_files {
            return Err(exceeded(
                family,
                &format!("{field}.files"),
                &format!("a project holds at most {} files", self.max_project_files),
                self.max_project_files,
            ));
        }
        let total = sizes.fold(0usize, usize::saturating_add);
        if total > self.max_project_bytes {
            return Err(exceeded(
                family,
                &format!("{field}.files"),
                &format!(
                    "a project's files hold at most {} bytes together",
                    self.max_project_bytes
                ),
                self.max_project_bytes,
            ));
        }
        Ok(())
    }

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
