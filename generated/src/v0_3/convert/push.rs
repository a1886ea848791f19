//! Push-notification configurations and the requests that get, list and delete
//! them, in both versions.

use super::{each, unconvertible, Unconvertible};
use crate::types as v1;
use crate::v0_3::types as v03;

pub(super) fn upgrade_push_config(
    task_id: Option<String>,
    c: v03::PushNotificationConfig,
) -> Result<v1::TaskPushNotificationConfig, Unconvertible> {
    let authentication = match c.authentication {
        None => None,
        Some(auth) => {
            let scheme = auth.schemes.into_iter().next().ok_or_else(|| {
                unconvertible("pushNotificationConfig.authentication.schemes: at least one scheme")
            })?;
            Some(v1::AuthenticationInfo {
                credentials: auth.credentials,
                scheme,
            })
        }
    };
    Ok(v1::TaskPushNotificationConfig {
        authentication,
        id: c.id.or_else(|| task_id.clone()),
        task_id,
        tenant: None,
        token: c.token,
        url: c.url,
    })
}

pub(super) fn downgrade_push_config(c: v1::TaskPushNotificationConfig) -> v03::PushNotificationConfig {
    v03::PushNotificationConfig {
        authentication: c
            .authentication
            .map(|auth| v03::PushNotificationAuthenticationInfo {
                credentials: auth.credentials,
                schemes: vec![auth.scheme],
            }),
        id: c.id,
        token: c.token,
        url: c.url,
    }
}

impl TryFrom<v03::TaskPushNotificationConfig> for v1::TaskPushNotificationConfig {
    type Error = Unconvertible;
    fn try_from(c: v03::TaskPushNotificationConfig) -> Result<Self, Unconvertible> {
        upgrade_push_config(Some(c.task_id), c.push_notification_config)
    }
}

impl TryFrom<v1::TaskPushNotificationConfig> for v03::TaskPushNotificationConfig {
    type Error = Unconvertible;
    fn try_from(c: v1::TaskPushNotificationConfig) -> Result<Self, Unconvertible> {
        Ok(v03::TaskPushNotificationConfig {
            push_notification_config: v03::PushNotificationConfig {
                authentication: c
                    .authentication
                    .map(|auth| v03::PushNotificationAuthenticationInfo {
                        credentials: auth.credentials,
                        schemes: vec![auth.scheme],
                    }),
                id: c.id,
                token: c.token,
                url: c.url,
            },
            task_id: c
                .task_id
                .ok_or_else(|| unconvertible("a push-notification configuration without its task"))?,
        })
    }
}

impl TryFrom<v03::GetTaskPushNotificationConfigParams> for v1::GetTaskPushNotificationConfigRequest {
    type Error = Unconvertible;
    fn try_from(p: v03::GetTaskPushNotificationConfigParams) -> Result<Self, Unconvertible> {
        Ok(v1::GetTaskPushNotificationConfigRequest {
            id: p.push_notification_config_id.unwrap_or_else(|| p.id.clone()),
            task_id: p.id,
            tenant: None,
        })
    }
}

impl TryFrom<v1::GetTaskPushNotificationConfigRequest> for v03::GetTaskPushNotificationConfigParams {
    type Error = Unconvertible;
    fn try_from(r: v1::GetTaskPushNotificationConfigRequest) -> Result<Self, Unconvertible> {
        Ok(v03::GetTaskPushNotificationConfigParams {
            id: r.task_id,
            metadata: None,
            push_notification_config_id: Some(r.id),
        })
    }
}

impl TryFrom<v03::ListTaskPushNotificationConfigParams> for v1::ListTaskPushNotificationConfigsRequest {
    type Error = Unconvertible;
    fn try_from(p: v03::ListTaskPushNotificationConfigParams) -> Result<Self, Unconvertible> {
        Ok(v1::ListTaskPushNotificationConfigsRequest {
            page_size: None,
            page_token: None,
            task_id: p.id,
            tenant: None,
        })
    }
}

impl TryFrom<v1::ListTaskPushNotificationConfigsRequest> for v03::ListTaskPushNotificationConfigParams {
    type Error = Unconvertible;
    fn try_from(r: v1::ListTaskPushNotificationConfigsRequest) -> Result<Self, Unconvertible> {
        Ok(v03::ListTaskPushNotificationConfigParams {
            id: r.task_id,
            metadata: None,
        })
    }
}

impl TryFrom<v1::ListTaskPushNotificationConfigsResponse> for v03::TaskPushNotificationConfigList {
    type Error = Unconvertible;
    fn try_from(r: v1::ListTaskPushNotificationConfigsResponse) -> Result<Self, Unconvertible> {
        Ok(v03::TaskPushNotificationConfigList(each(r.configs)?))
    }
}

impl TryFrom<v03::TaskPushNotificationConfigList> for v1::ListTaskPushNotificationConfigsResponse {
    type Error = Unconvertible;
    fn try_from(list: v03::TaskPushNotificationConfigList) -> Result<Self, Unconvertible> {
        Ok(v1::ListTaskPushNotificationConfigsResponse {
            configs: each(list.0)?,
            next_page_token: None,
        })
    }
}

impl TryFrom<v03::DeleteTaskPushNotificationConfigParams> for v1::DeleteTaskPushNotificationConfigRequest {
    type Error = Unconvertible;
    fn try_from(p: v03::DeleteTaskPushNotificationConfigParams) -> Result<Self, Unconvertible> {
        Ok(v1::DeleteTaskPushNotificationConfigRequest {
            id: p.push_notification_config_id,
            task_id: p.id,
            tenant: None,
        })
    }
}

impl TryFrom<v1::DeleteTaskPushNotificationConfigRequest> for v03::DeleteTaskPushNotificationConfigParams {
    type Error = Unconvertible;
    fn try_from(r: v1::DeleteTaskPushNotificationConfigRequest) -> Result<Self, Unconvertible> {
        Ok(v03::DeleteTaskPushNotificationConfigParams {
            id: r.task_id,
            metadata: None,
            push_notification_config_id: r.id,
        })
    }
}

impl TryFrom<v1::Empty> for v03::NoResult {
    type Error = Unconvertible;
    fn try_from(_: v1::Empty) -> Result<Self, Unconvertible> {
        Ok(v03::NoResult(()))
    }
}

impl TryFrom<v03::NoResult> for v1::Empty {
    type Error = Unconvertible;
    fn try_from(_: v03::NoResult) -> Result<Self, Unconvertible> {
        Ok(v1::Empty {})
    }
}
