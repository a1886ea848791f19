//! The push-notification config scenario: create, get, list and delete a
//! task's webhook config, and the errors of a deleted config and an unknown
//! task. Where the card does not declare push notifications, every config
//! method answers the "not supported" error instead (§3.3.4).

use super::steps::{equal, field, Step, Steps};
use crate::session::unique;
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::{capabilities, ErrorKind};
use serde_json::json;

pub async fn push_config_crud(s: &mut Steps<'_>) -> Step<String> {
    let task = s.new_task("conformance: push config").await?;
    let task_id = field(&task, "/id", "task")?.to_string();
    if !s.offers(capabilities::PUSH_NOTIFICATIONS) {
        return refused(s, &task_id).await;
    }
    let created = s
        .ok(
            markers::CreateTaskPushNotificationConfig::NAME,
            json!({"taskId": task_id, "url": "https://push.example.com/conformance", "token": "conformance-token"}),
        )
        .await?;
    let config_id = field(&created, "/id", "created config")?.to_string();
    equal("created taskId", &created["taskId"], &json!(task_id))?;
    let config = json!({"taskId": task_id, "id": config_id});
    let got = s
        .ok(markers::GetTaskPushNotificationConfig::NAME, config.clone())
        .await?;
    equal(markers::GetTaskPushNotificationConfig::NAME, &got, &created)?;
    let listed = s
        .ok(
            markers::ListTaskPushNotificationConfigs::NAME,
            json!({"taskId": task_id}),
        )
        .await?;
    let configs = listed["configs"].as_array().cloned().unwrap_or_default();
    if !configs.iter().any(|c| c["id"] == json!(config_id)) {
        return Err(format!(
            "ListTaskPushNotificationConfigs does not list {config_id}"
        ));
    }
    // Any confirmation passes; `ok` holds a form other than `{}` to its strict rule.
    s.ok(markers::DeleteTaskPushNotificationConfig::NAME, config.clone())
        .await?;
    let after = s
        .declared_err(markers::GetTaskPushNotificationConfig::NAME, config)
        .await?;
    s.err(
        markers::CreateTaskPushNotificationConfig::NAME,
        json!({"taskId": unique("conformance-missing"), "url": "https://push.example.com/x"}),
        ErrorKind::TaskNotFound,
    )
    .await?;
    Ok(format!(
        "create, get, list, delete; a deleted config answers {}",
        after.reason()
    ))
}

/// Push notifications not declared: each config method, on a real task,
/// answers the capability's error.
async fn refused(s: &mut Steps<'_>, task_id: &str) -> Step<String> {
    let config = json!({"taskId": task_id, "id": "conformance-config"});
    let calls = [
        (
            markers::CreateTaskPushNotificationConfig::NAME,
            json!({"taskId": task_id, "url": "https://push.example.com/conformance"}),
        ),
        (markers::GetTaskPushNotificationConfig::NAME, config.clone()),
        (
            markers::ListTaskPushNotificationConfigs::NAME,
            json!({"taskId": task_id}),
        ),
        (markers::DeleteTaskPushNotificationConfig::NAME, config),
    ];
    let mut answered = None;
    for (name, params) in calls {
        answered = Some(s.unsupported(name, params).await?);
    }
    let kind = answered.map(|k| format!("{} {}", k.code(), k.reason()));
    Ok(format!(
        "push notifications are not declared: create, get, list and delete answer {}",
        kind.unwrap_or_default()
    ))
}
