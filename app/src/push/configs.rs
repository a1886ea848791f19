//! Push notification configurations (A2A §3.1.7–3.1.10): create, get, list
//! and delete the webhooks of a task, stored as documents of the task's namespace.

use super::{config_key, configs_prefix, PushDelivery, COLL, FAMILY};
use crate::limits::{exceeded, DomainLimits};
use crate::store::{Commit, DeliveryChange, DocWrite, Expect, Internal, StoreHandle};
use crate::tasks::TaskEngine;
use crate::util::{self, from_json, namespace, to_json};
use a2a::rpc::{CallContext, Error};
use a2a::types::{
    DeleteTaskPushNotificationConfigRequest, Empty, GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse,
    TaskPushNotificationConfig,
};
use a2a::ErrorKind;
use std::sync::Arc;

/// The push configuration service.
#[derive(Clone)]
pub struct PushConfigs {
    db: StoreHandle,
    engine: TaskEngine,
    delivery: Arc<PushDelivery>,
    limits: DomainLimits,
}

fn check_id(value: &str, field: &str) -> Result<(), Error> {
    if value.is_empty() || value.contains('/') {
        return Err(FAMILY.invalid_params(field, "must be a non-empty identifier without '/'"));
    }
    Ok(())
}

impl PushConfigs {
    pub fn new(
        db: StoreHandle,
        engine: TaskEngine,
        delivery: Arc<PushDelivery>,
        limits: DomainLimits,
    ) -> Self {
        PushConfigs {
            db,
            engine,
            delivery,
            limits,
        }
    }

    pub async fn create(
        &self,
        ctx: &CallContext,
        mut config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, Error> {
        let namespace = namespace(ctx);
        let task_id = config.task_id.clone().unwrap_or_default();
        check_id(&task_id, "taskId")?;
        self.engine.load_task(&namespace, &task_id).await?;
        self.delivery
            .check_url(&config.url)
            .map_err(|why| FAMILY.invalid_params("url", &why))?;
        let id = config
            .id
            .clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(util::new_id);
        check_id(&id, "id")?;
        config.id = Some(id.clone());
        let key = config_key(&task_id, &id);
        self.check_room(&namespace, &task_id, &key).await?;
        let commit = Commit {
            task: None,
            docs: vec![DocWrite::put(
                COLL,
                &namespace,
                &key,
                Expect::Any,
                to_json(&config, FAMILY)?,
            )],
            ..Commit::default()
        };
        self.db.commit_run(FAMILY, commit).await?;
        Ok(config)
    }

    /// Refuses a new configuration (not a replacement of `key`) for a task
    /// that already holds its limit. Two creates racing at the limit may both
    /// pass: the bound is on what a caller can accumulate, not exact.
    async fn check_room(&self, namespace: &str, task_id: &str, key: &str) -> Result<(), Error> {
        let max = self.limits.max_push_configs_per_task;
        let (ns, prefix) = (namespace.to_string(), configs_prefix(task_id));
        let held = self
            .db
            .store()
            .list_docs(COLL, &ns, &prefix, None, max + 1)
            .await
            .internal(FAMILY)?;
        if held.len() >= max && !held.iter().any(|doc| doc.key == key) {
            return Err(exceeded(
                FAMILY,
                "taskId",
                &format!("a task holds at most {max} push-notification configurations"),
                max,
            ));
        }
        Ok(())
    }

    pub async fn get(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, Error> {
        let namespace = namespace(ctx);
        self.engine.load_task(&namespace, &request.task_id).await?;
        let key = config_key(&request.task_id, &request.id);
        let ns = namespace.clone();
        match self.db.store().get_doc(COLL, &ns, &key).await.internal(FAMILY)? {
            Some(doc) => from_json(doc.value, FAMILY),
            None => Err(Error::new(
                ErrorKind::TaskNotFound,
                format!(
                    "push notification config `{}` not found for task `{}`",
                    request.id, request.task_id
                ),
            )),
        }
    }

    pub async fn list(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, Error> {
        let namespace = namespace(ctx);
        self.engine.load_task(&namespace, &request.task_id).await?;
        let limit = match request.page_size {
            None | Some(0) => 100,
            Some(n) if (1..=100).contains(&n) => n as usize,
            Some(_) => return Err(FAMILY.invalid_params("pageSize", "must be between 1 and 100")),
        };
        let prefix = configs_prefix(&request.task_id);
        let after = request
            .page_token
            .clone()
            .filter(|t| !t.is_empty())
            .map(|t| format!("{prefix}{t}"));
        let ns = namespace.clone();
        let docs = self
            .db
            .store()
            .list_docs(COLL, &ns, &prefix, after.as_deref(), limit + 1)
            .await
            .internal(FAMILY)?;
        let more = docs.len() > limit;
        let mut configs = Vec::new();
        for doc in docs.into_iter().take(limit) {
            configs.push(from_json::<TaskPushNotificationConfig>(doc.value, FAMILY)?);
        }
        let next_page_token = if more {
            configs.last().and_then(|c| c.id.clone())
        } else {
            None
        };
        Ok(ListTaskPushNotificationConfigsResponse {
            configs,
            next_page_token,
        })
    }

    pub async fn delete(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<Empty, Error> {
        let namespace = namespace(ctx);
        self.engine.load_task(&namespace, &request.task_id).await?;
        let key = config_key(&request.task_id, &request.id);
        let ns = namespace.clone();
        let existing = {
            let key = key.clone();
            self.db.store().get_doc(COLL, &ns, &key).await.internal(FAMILY)?
        };
        // Deleting is idempotent (A2A §3.1.10): an absent config is already deleted.
        let Some(doc) = existing else {
            return Ok(Empty {});
        };
        let commit = Commit {
            task: None,
            docs: vec![DocWrite::delete(
                COLL,
                &namespace,
                &key,
                Expect::Version(doc.version),
            )],
            // What the webhook was still owed goes with it.
            deliveries: vec![DeliveryChange::DropTarget {
                namespace: namespace.clone(),
                task_id: request.task_id.clone(),
                config_id: Some(request.id.clone()),
            }],
            ..Commit::default()
        };
        self.db.commit_run(FAMILY, commit).await?;
        Ok(Empty {})
    }
}
