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

use super::types as v03;
use crate::rpc::Error;
use crate::types as v1;
use crate::ErrorKind;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;

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
pub fn upgrade_params<V03, V1>(method: &str, params: Option<Value>) -> Result<Value, Error>
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

// ---- enums -------------------------------------------------------------

impl From<v03::TaskState> for v1::TaskState {
    fn from(state: v03::TaskState) -> Self {
        match state {
            v03::TaskState::Submitted => v1::TaskState::Submitted,
            v03::TaskState::Working => v1::TaskState::Working,
            v03::TaskState::InputRequired => v1::TaskState::InputRequired,
            v03::TaskState::Completed => v1::TaskState::Completed,
            v03::TaskState::Canceled => v1::TaskState::Canceled,
            v03::TaskState::Failed => v1::TaskState::Failed,
            v03::TaskState::Rejected => v1::TaskState::Rejected,
            v03::TaskState::AuthRequired => v1::TaskState::AuthRequired,
            v03::TaskState::Unknown => v1::TaskState::Unspecified,
        }
    }
}

impl From<v1::TaskState> for v03::TaskState {
    fn from(state: v1::TaskState) -> Self {
        match state {
            v1::TaskState::Submitted => v03::TaskState::Submitted,
            v1::TaskState::Working => v03::TaskState::Working,
            v1::TaskState::InputRequired => v03::TaskState::InputRequired,
            v1::TaskState::Completed => v03::TaskState::Completed,
            v1::TaskState::Canceled => v03::TaskState::Canceled,
            v1::TaskState::Failed => v03::TaskState::Failed,
            v1::TaskState::Rejected => v03::TaskState::Rejected,
            v1::TaskState::AuthRequired => v03::TaskState::AuthRequired,
            v1::TaskState::Unspecified => v03::TaskState::Unknown,
        }
    }
}

/// True for the states that end a stream: terminal or interrupted.
fn ends_stream(state: v1::TaskState) -> bool {
    !matches!(
        state,
        v1::TaskState::Submitted | v1::TaskState::Working | v1::TaskState::Unspecified
    )
}

impl From<v03::Role> for v1::Role {
    fn from(role: v03::Role) -> Self {
        match role {
            v03::Role::User => v1::Role::User,
            v03::Role::Agent => v1::Role::Agent,
        }
    }
}

impl TryFrom<v1::Role> for v03::Role {
    type Error = Unconvertible;
    fn try_from(role: v1::Role) -> Result<Self, Unconvertible> {
        match role {
            v1::Role::User => Ok(v03::Role::User),
            v1::Role::Agent => Ok(v03::Role::Agent),
            v1::Role::Unspecified => Err(unconvertible("a message without a role")),
        }
    }
}

// ---- parts, messages, artifacts ---------------------------------------

impl TryFrom<v03::Part> for v1::Part {
    type Error = Unconvertible;
    fn try_from(part: v03::Part) -> Result<Self, Unconvertible> {
        Ok(match part {
            v03::Part::TextPart(text) => v1::Part {
                content: v1::PartContent::Text(text.text),
                filename: None,
                media_type: None,
                metadata: text.metadata,
            },
            v03::Part::FilePart(file) => {
                let (content, name, mime_type) = match file.file {
                    v03::FileContent::Bytes(f) => (v1::PartContent::Raw(f.bytes), f.name, f.mime_type),
                    v03::FileContent::Uri(f) => (v1::PartContent::Url(f.uri), f.name, f.mime_type),
                };
                v1::Part {
                    content,
                    filename: name,
                    media_type: mime_type,
                    metadata: file.metadata,
                }
            }
            v03::Part::DataPart(data) => v1::Part {
                content: v1::PartContent::Data(Value::Object(data.data)),
                filename: None,
                media_type: None,
                metadata: data.metadata,
            },
        })
    }
}

impl TryFrom<v1::Part> for v03::Part {
    type Error = Unconvertible;
    fn try_from(part: v1::Part) -> Result<Self, Unconvertible> {
        let file = |file| {
            v03::Part::FilePart(v03::FilePart {
                file,
                kind: v03::FilePartKind::File,
                metadata: part.metadata.clone(),
            })
        };
        Ok(match part.content {
            v1::PartContent::Text(text) => v03::Part::TextPart(v03::TextPart {
                kind: v03::TextPartKind::Text,
                metadata: part.metadata,
                text,
            }),
            v1::PartContent::Raw(bytes) => file(v03::FileContent::Bytes(v03::FileWithBytes {
                bytes,
                mime_type: part.media_type,
                name: part.filename,
            })),
            v1::PartContent::Url(uri) => file(v03::FileContent::Uri(v03::FileWithUri {
                mime_type: part.media_type,
                name: part.filename,
                uri,
            })),
            v1::PartContent::Data(data) => v03::Part::DataPart(v03::DataPart {
                data: match data {
                    Value::Object(object) => object,
                    other => Map::from_iter([(DATA_VALUE_KEY.to_string(), other)]),
                },
                kind: v03::DataPartKind::Data,
                metadata: part.metadata,
            }),
        })
    }
}

impl TryFrom<v03::Message> for v1::Message {
    type Error = Unconvertible;
    fn try_from(m: v03::Message) -> Result<Self, Unconvertible> {
        Ok(v1::Message {
            context_id: m.context_id,
            extensions: m.extensions,
            message_id: m.message_id,
            metadata: m.metadata,
            parts: each(m.parts)?,
            reference_task_ids: m.reference_task_ids,
            role: m.role.into(),
            task_id: m.task_id,
        })
    }
}

impl TryFrom<v1::Message> for v03::Message {
    type Error = Unconvertible;
    fn try_from(m: v1::Message) -> Result<Self, Unconvertible> {
        Ok(v03::Message {
            context_id: m.context_id,
            extensions: m.extensions,
            kind: v03::MessageKind::Message,
            message_id: m.message_id,
            metadata: m.metadata,
            parts: each(m.parts)?,
            reference_task_ids: m.reference_task_ids,
            role: m.role.try_into()?,
            task_id: m.task_id,
        })
    }
}

impl TryFrom<v1::Artifact> for v03::Artifact {
    type Error = Unconvertible;
    fn try_from(a: v1::Artifact) -> Result<Self, Unconvertible> {
        Ok(v03::Artifact {
            artifact_id: a.artifact_id,
            description: a.description,
            extensions: a.extensions,
            metadata: a.metadata,
            name: a.name,
            parts: each(a.parts)?,
        })
    }
}

// ---- tasks and stream events ------------------------------------------

impl TryFrom<v1::TaskStatus> for v03::TaskStatus {
    type Error = Unconvertible;
    fn try_from(s: v1::TaskStatus) -> Result<Self, Unconvertible> {
        Ok(v03::TaskStatus {
            message: maybe(s.message)?,
            state: s.state.into(),
            timestamp: s.timestamp,
        })
    }
}

impl TryFrom<v1::Task> for v03::Task {
    type Error = Unconvertible;
    fn try_from(t: v1::Task) -> Result<Self, Unconvertible> {
        Ok(v03::Task {
            artifacts: each(t.artifacts)?,
            // 0.3 requires a context; every task this agent makes has one.
            context_id: t.context_id.unwrap_or_default(),
            history: each(t.history)?,
            id: t.id,
            kind: v03::TaskKind::Task,
            metadata: t.metadata,
            status: t.status.try_into()?,
        })
    }
}

impl TryFrom<v1::TaskStatusUpdateEvent> for v03::TaskStatusUpdateEvent {
    type Error = Unconvertible;
    fn try_from(e: v1::TaskStatusUpdateEvent) -> Result<Self, Unconvertible> {
        Ok(v03::TaskStatusUpdateEvent {
            context_id: e.context_id,
            final_: ends_stream(e.status.state),
            kind: v03::TaskStatusUpdateEventKind::StatusUpdate,
            metadata: e.metadata,
            status: e.status.try_into()?,
            task_id: e.task_id,
        })
    }
}

impl TryFrom<v1::TaskArtifactUpdateEvent> for v03::TaskArtifactUpdateEvent {
    type Error = Unconvertible;
    fn try_from(e: v1::TaskArtifactUpdateEvent) -> Result<Self, Unconvertible> {
        Ok(v03::TaskArtifactUpdateEvent {
            append: e.append,
            artifact: e.artifact.try_into()?,
            context_id: e.context_id,
            kind: v03::TaskArtifactUpdateEventKind::ArtifactUpdate,
            last_chunk: e.last_chunk,
            metadata: e.metadata,
            task_id: e.task_id,
        })
    }
}

impl TryFrom<v1::SendMessageResponse> for v03::SendMessageResult {
    type Error = Unconvertible;
    fn try_from(r: v1::SendMessageResponse) -> Result<Self, Unconvertible> {
        Ok(match r {
            v1::SendMessageResponse::Task(task) => v03::SendMessageResult::Task(task.try_into()?),
            v1::SendMessageResponse::Message(m) => v03::SendMessageResult::Message(m.try_into()?),
        })
    }
}

impl TryFrom<v1::StreamResponse> for v03::StreamEvent {
    type Error = Unconvertible;
    fn try_from(r: v1::StreamResponse) -> Result<Self, Unconvertible> {
        Ok(match r {
            v1::StreamResponse::Task(task) => v03::StreamEvent::Task(task.try_into()?),
            v1::StreamResponse::Message(m) => v03::StreamEvent::Message(m.try_into()?),
            v1::StreamResponse::StatusUpdate(e) => v03::StreamEvent::TaskStatusUpdateEvent(e.try_into()?),
            v1::StreamResponse::ArtifactUpdate(e) => v03::StreamEvent::TaskArtifactUpdateEvent(e.try_into()?),
        })
    }
}

// ---- requests ------------------------------------------------------------

fn upgrade_push_config(
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

impl TryFrom<v03::MessageSendParams> for v1::SendMessageRequest {
    type Error = Unconvertible;
    fn try_from(p: v03::MessageSendParams) -> Result<Self, Unconvertible> {
        let configuration = match p.configuration {
            None => None,
            Some(c) => Some(v1::SendMessageConfiguration {
                accepted_output_modes: c.accepted_output_modes,
                history_length: c.history_length,
                return_immediately: c.blocking.map(|blocking| !blocking),
                task_push_notification_config: c
                    .push_notification_config
                    .map(|push| upgrade_push_config(None, push))
                    .transpose()?,
            }),
        };
        Ok(v1::SendMessageRequest {
            configuration,
            message: p.message.try_into()?,
            metadata: p.metadata,
            tenant: None,
        })
    }
}

impl TryFrom<v03::TaskQueryParams> for v1::GetTaskRequest {
    type Error = Unconvertible;
    fn try_from(p: v03::TaskQueryParams) -> Result<Self, Unconvertible> {
        Ok(v1::GetTaskRequest {
            history_length: p.history_length,
            id: p.id,
            tenant: None,
        })
    }
}

impl TryFrom<v03::TaskIdParams> for v1::CancelTaskRequest {
    type Error = Unconvertible;
    fn try_from(p: v03::TaskIdParams) -> Result<Self, Unconvertible> {
        Ok(v1::CancelTaskRequest {
            id: p.id,
            metadata: p.metadata,
            tenant: None,
        })
    }
}

impl TryFrom<v03::TaskIdParams> for v1::SubscribeToTaskRequest {
    type Error = Unconvertible;
    fn try_from(p: v03::TaskIdParams) -> Result<Self, Unconvertible> {
        Ok(v1::SubscribeToTaskRequest {
            id: p.id,
            tenant: None,
        })
    }
}

impl TryFrom<v03::ListTasksParams> for v1::ListTasksRequest {
    type Error = Unconvertible;
    fn try_from(p: v03::ListTasksParams) -> Result<Self, Unconvertible> {
        Ok(v1::ListTasksRequest {
            context_id: p.context_id,
            history_length: p.history_length,
            include_artifacts: p.include_artifacts,
            page_size: p.page_size,
            page_token: p.page_token,
            status: p.status.map(Into::into),
            status_timestamp_after: p.status_timestamp_after,
            tenant: None,
        })
    }
}

impl TryFrom<v1::ListTasksResponse> for v03::ListTasksResult {
    type Error = Unconvertible;
    fn try_from(r: v1::ListTasksResponse) -> Result<Self, Unconvertible> {
        Ok(v03::ListTasksResult {
            next_page_token: r.next_page_token,
            page_size: r.page_size,
            tasks: each(r.tasks)?,
            total_size: r.total_size,
        })
    }
}

// ---- push-notification configurations ---------------------------------

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

impl TryFrom<v1::ListTaskPushNotificationConfigsResponse> for v03::TaskPushNotificationConfigList {
    type Error = Unconvertible;
    fn try_from(r: v1::ListTaskPushNotificationConfigsResponse) -> Result<Self, Unconvertible> {
        Ok(v03::TaskPushNotificationConfigList(each(r.configs)?))
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

impl TryFrom<v1::Empty> for v03::NoResult {
    type Error = Unconvertible;
    fn try_from(_: v1::Empty) -> Result<Self, Unconvertible> {
        Ok(v03::NoResult(()))
    }
}

// ---- the Agent Card -------------------------------------------------------

impl TryFrom<v03::NoParams> for v1::GetExtendedAgentCardRequest {
    type Error = Unconvertible;
    fn try_from(_: v03::NoParams) -> Result<Self, Unconvertible> {
        Ok(v1::GetExtendedAgentCardRequest { tenant: None })
    }
}

fn downgrade_security(requirements: Vec<v1::SecurityRequirement>) -> Vec<HashMap<String, Vec<String>>> {
    requirements
        .into_iter()
        .map(|r| {
            r.schemes
                .unwrap_or_default()
                .into_iter()
                .map(|(name, scopes)| (name, scopes.list))
                .collect()
        })
        .collect()
}

impl TryFrom<v1::SecurityScheme> for v03::SecurityScheme {
    type Error = Unconvertible;
    fn try_from(s: v1::SecurityScheme) -> Result<Self, Unconvertible> {
        Ok(match s {
            v1::SecurityScheme::ApiKeySecurityScheme(k) => {
                let in_ = k
                    .location
                    .parse::<v03::ApiKeySecuritySchemeIn>()
                    .map_err(|_| unconvertible(format!("an API key in `{}`", k.location)))?;
                v03::SecurityScheme::ApiKeySecurityScheme(v03::ApiKeySecurityScheme {
                    description: k.description,
                    in_,
                    name: k.name,
                    type_: v03::ApiKeySecuritySchemeType::ApiKey,
                })
            }
            v1::SecurityScheme::HttpAuthSecurityScheme(h) => {
                v03::SecurityScheme::HttpAuthSecurityScheme(v03::HttpAuthSecurityScheme {
                    bearer_format: h.bearer_format,
                    description: h.description,
                    scheme: h.scheme,
                    type_: v03::HttpAuthSecuritySchemeType::Http,
                })
            }
            v1::SecurityScheme::Oauth2SecurityScheme(o) => {
                v03::SecurityScheme::OAuth2SecurityScheme(v03::OAuth2SecurityScheme {
                    description: o.description,
                    flows: o.flows.try_into()?,
                    oauth2_metadata_url: o.oauth2_metadata_url,
                    type_: v03::OAuth2SecuritySchemeType::Oauth2,
                })
            }
            v1::SecurityScheme::OpenIdConnectSecurityScheme(o) => {
                v03::SecurityScheme::OpenIdConnectSecurityScheme(v03::OpenIdConnectSecurityScheme {
                    description: o.description,
                    open_id_connect_url: o.open_id_connect_url,
                    type_: v03::OpenIdConnectSecuritySchemeType::OpenIdConnect,
                })
            }
            v1::SecurityScheme::MtlsSecurityScheme(m) => {
                v03::SecurityScheme::MutualTlsSecurityScheme(v03::MutualTlsSecurityScheme {
                    description: m.description,
                    type_: v03::MutualTlsSecuritySchemeType::MutualTls,
                })
            }
        })
    }
}

impl TryFrom<v1::OAuthFlows> for v03::OAuthFlows {
    type Error = Unconvertible;
    fn try_from(f: v1::OAuthFlows) -> Result<Self, Unconvertible> {
        let mut flows = v03::OAuthFlows {
            authorization_code: None,
            client_credentials: None,
            implicit: None,
            password: None,
        };
        match f {
            v1::OAuthFlows::AuthorizationCode(a) => {
                flows.authorization_code = Some(v03::AuthorizationCodeOAuthFlow {
                    authorization_url: a.authorization_url,
                    refresh_url: a.refresh_url,
                    scopes: a.scopes,
                    token_url: a.token_url,
                })
            }
            v1::OAuthFlows::ClientCredentials(c) => {
                flows.client_credentials = Some(v03::ClientCredentialsOAuthFlow {
                    refresh_url: c.refresh_url,
                    scopes: c.scopes,
                    token_url: c.token_url,
                })
            }
            v1::OAuthFlows::Implicit(i) => {
                flows.implicit = Some(v03::ImplicitOAuthFlow {
                    authorization_url: i
                        .authorization_url
                        .ok_or_else(|| unconvertible("an implicit flow without its authorization URL"))?,
                    refresh_url: i.refresh_url,
                    scopes: i.scopes.unwrap_or_default(),
                })
            }
            v1::OAuthFlows::Password(p) => {
                flows.password = Some(v03::PasswordOAuthFlow {
                    refresh_url: p.refresh_url,
                    scopes: p.scopes.unwrap_or_default(),
                    token_url: p
                        .token_url
                        .ok_or_else(|| unconvertible("a password flow without its token URL"))?,
                })
            }
            v1::OAuthFlows::DeviceCode(_) => {
                return Err(unconvertible("the device-code flow has no 0.3 form"))
            }
        }
        Ok(flows)
    }
}

/// The 0.3 form of a 1.0 card. The preferred interface (`url`,
/// `preferredTransport`) is the first one serving 0.3, else the first one; every
/// interface serving 0.3 is listed in `additionalInterfaces`.
impl TryFrom<v1::AgentCard> for v03::AgentCard {
    type Error = Unconvertible;
    fn try_from(card: v1::AgentCard) -> Result<Self, Unconvertible> {
        let serves_v03 = |i: &&v1::AgentInterface| i.protocol_version == super::PROTOCOL_VERSION;
        let preferred = card
            .supported_interfaces
            .iter()
            .find(serves_v03)
            .or_else(|| card.supported_interfaces.first())
            .ok_or_else(|| unconvertible("a card without interfaces"))?;
        let additional_interfaces = card
            .supported_interfaces
            .iter()
            .filter(serves_v03)
            .map(|i| v03::AgentInterface {
                transport: i.protocol_binding.clone(),
                url: i.url.clone(),
            })
            .collect();
        let security_schemes = match card.security_schemes {
            None => None,
            Some(schemes) => Some(
                schemes
                    .into_iter()
                    .map(|(name, scheme)| Ok((name, scheme.try_into()?)))
                    .collect::<Result<HashMap<_, _>, Unconvertible>>()?,
            ),
        };
        let skills = card
            .skills
            .into_iter()
            .map(|s| v03::AgentSkill {
                description: s.description,
                examples: s.examples,
                id: s.id,
                input_modes: s.input_modes,
                name: s.name,
                output_modes: s.output_modes,
                security: downgrade_security(s.security_requirements),
                tags: s.tags,
            })
            .collect();
        let extensions = card
            .capabilities
            .extensions
            .into_iter()
            .filter_map(|e| {
                Some(v03::AgentExtension {
                    description: e.description,
                    params: e.params,
                    required: e.required,
                    uri: e.uri?,
                })
            })
            .collect();
        Ok(v03::AgentCard {
            additional_interfaces,
            capabilities: v03::AgentCapabilities {
                extensions,
                push_notifications: card.capabilities.push_notifications,
                state_transition_history: None,
                streaming: card.capabilities.streaming,
            },
            default_input_modes: card.default_input_modes,
            default_output_modes: card.default_output_modes,
            description: card.description,
            documentation_url: card.documentation_url,
            icon_url: card.icon_url,
            name: card.name,
            preferred_transport: Some(preferred.protocol_binding.clone()),
            protocol_version: CARD_PROTOCOL_VERSION.to_string(),
            provider: card.provider.map(|p| v03::AgentProvider {
                organization: p.organization,
                url: p.url,
            }),
            security: downgrade_security(card.security_requirements),
            security_schemes,
            // A signature covers the form it was made over (spec §8.4); this
            // form is another, so the signatures stay behind.
            signatures: Vec::new(),
            skills,
            supports_authenticated_extended_card: card.capabilities.extended_agent_card,
            url: preferred.url.clone(),
            version: card.version,
        })
    }
}

// ---- the reverse direction: 1.0 params in 0.3, 0.3 results in 1.0 ---------
//
// What a 0.3 client sends a 1.0 server, and what it reads back; the two
// directions together are what the round-trip tests hold to.

impl TryFrom<v03::Artifact> for v1::Artifact {
    type Error = Unconvertible;
    fn try_from(a: v03::Artifact) -> Result<Self, Unconvertible> {
        Ok(v1::Artifact {
            artifact_id: a.artifact_id,
            description: a.description,
            extensions: a.extensions,
            metadata: a.metadata,
            name: a.name,
            parts: each(a.parts)?,
        })
    }
}

impl TryFrom<v03::TaskStatus> for v1::TaskStatus {
    type Error = Unconvertible;
    fn try_from(s: v03::TaskStatus) -> Result<Self, Unconvertible> {
        Ok(v1::TaskStatus {
            message: maybe(s.message)?,
            state: s.state.into(),
            timestamp: s.timestamp,
        })
    }
}

impl TryFrom<v03::Task> for v1::Task {
    type Error = Unconvertible;
    fn try_from(t: v03::Task) -> Result<Self, Unconvertible> {
        Ok(v1::Task {
            artifacts: each(t.artifacts)?,
            context_id: Some(t.context_id),
            history: each(t.history)?,
            id: t.id,
            metadata: t.metadata,
            status: t.status.try_into()?,
        })
    }
}

impl TryFrom<v03::TaskStatusUpdateEvent> for v1::TaskStatusUpdateEvent {
    type Error = Unconvertible;
    fn try_from(e: v03::TaskStatusUpdateEvent) -> Result<Self, Unconvertible> {
        Ok(v1::TaskStatusUpdateEvent {
            context_id: e.context_id,
            metadata: e.metadata,
            status: e.status.try_into()?,
            task_id: e.task_id,
        })
    }
}

impl TryFrom<v03::TaskArtifactUpdateEvent> for v1::TaskArtifactUpdateEvent {
    type Error = Unconvertible;
    fn try_from(e: v03::TaskArtifactUpdateEvent) -> Result<Self, Unconvertible> {
        Ok(v1::TaskArtifactUpdateEvent {
            append: e.append,
            artifact: e.artifact.try_into()?,
            context_id: e.context_id,
            last_chunk: e.last_chunk,
            metadata: e.metadata,
            task_id: e.task_id,
        })
    }
}

impl TryFrom<v03::SendMessageResult> for v1::SendMessageResponse {
    type Error = Unconvertible;
    fn try_from(r: v03::SendMessageResult) -> Result<Self, Unconvertible> {
        Ok(match r {
            v03::SendMessageResult::Task(task) => v1::SendMessageResponse::Task(task.try_into()?),
            v03::SendMessageResult::Message(m) => v1::SendMessageResponse::Message(m.try_into()?),
        })
    }
}

impl TryFrom<v03::StreamEvent> for v1::StreamResponse {
    type Error = Unconvertible;
    fn try_from(e: v03::StreamEvent) -> Result<Self, Unconvertible> {
        Ok(match e {
            v03::StreamEvent::Task(task) => v1::StreamResponse::Task(task.try_into()?),
            v03::StreamEvent::Message(m) => v1::StreamResponse::Message(m.try_into()?),
            v03::StreamEvent::TaskStatusUpdateEvent(u) => v1::StreamResponse::StatusUpdate(u.try_into()?),
            v03::StreamEvent::TaskArtifactUpdateEvent(u) => v1::StreamResponse::ArtifactUpdate(u.try_into()?),
        })
    }
}

impl TryFrom<v03::ListTasksResult> for v1::ListTasksResponse {
    type Error = Unconvertible;
    fn try_from(r: v03::ListTasksResult) -> Result<Self, Unconvertible> {
        Ok(v1::ListTasksResponse {
            next_page_token: r.next_page_token,
            page_size: r.page_size,
            tasks: each(r.tasks)?,
            total_size: r.total_size,
        })
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

impl TryFrom<v03::NoResult> for v1::Empty {
    type Error = Unconvertible;
    fn try_from(_: v03::NoResult) -> Result<Self, Unconvertible> {
        Ok(v1::Empty {})
    }
}

fn downgrade_push_config(c: v1::TaskPushNotificationConfig) -> v03::PushNotificationConfig {
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

impl TryFrom<v1::SendMessageRequest> for v03::MessageSendParams {
    type Error = Unconvertible;
    fn try_from(r: v1::SendMessageRequest) -> Result<Self, Unconvertible> {
        Ok(v03::MessageSendParams {
            configuration: r.configuration.map(|c| v03::MessageSendConfiguration {
                accepted_output_modes: c.accepted_output_modes,
                blocking: c.return_immediately.map(|immediately| !immediately),
                history_length: c.history_length,
                push_notification_config: c.task_push_notification_config.map(downgrade_push_config),
            }),
            message: r.message.try_into()?,
            metadata: r.metadata,
        })
    }
}

impl TryFrom<v1::GetTaskRequest> for v03::TaskQueryParams {
    type Error = Unconvertible;
    fn try_from(r: v1::GetTaskRequest) -> Result<Self, Unconvertible> {
        Ok(v03::TaskQueryParams {
            history_length: r.history_length,
            id: r.id,
            metadata: None,
        })
    }
}

impl TryFrom<v1::CancelTaskRequest> for v03::TaskIdParams {
    type Error = Unconvertible;
    fn try_from(r: v1::CancelTaskRequest) -> Result<Self, Unconvertible> {
        Ok(v03::TaskIdParams {
            id: r.id,
            metadata: r.metadata,
        })
    }
}

impl TryFrom<v1::SubscribeToTaskRequest> for v03::TaskIdParams {
    type Error = Unconvertible;
    fn try_from(r: v1::SubscribeToTaskRequest) -> Result<Self, Unconvertible> {
        Ok(v03::TaskIdParams {
            id: r.id,
            metadata: None,
        })
    }
}

impl TryFrom<v1::ListTasksRequest> for v03::ListTasksParams {
    type Error = Unconvertible;
    fn try_from(r: v1::ListTasksRequest) -> Result<Self, Unconvertible> {
        Ok(v03::ListTasksParams {
            context_id: r.context_id,
            history_length: r.history_length,
            include_artifacts: r.include_artifacts,
            page_size: r.page_size,
            page_token: r.page_token,
            status: r.status.map(Into::into),
            status_timestamp_after: r.status_timestamp_after,
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

impl TryFrom<v1::ListTaskPushNotificationConfigsRequest> for v03::ListTaskPushNotificationConfigParams {
    type Error = Unconvertible;
    fn try_from(r: v1::ListTaskPushNotificationConfigsRequest) -> Result<Self, Unconvertible> {
        Ok(v03::ListTaskPushNotificationConfigParams {
            id: r.task_id,
            metadata: None,
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

impl TryFrom<v1::GetExtendedAgentCardRequest> for v03::NoParams {
    type Error = Unconvertible;
    fn try_from(_: v1::GetExtendedAgentCardRequest) -> Result<Self, Unconvertible> {
        Ok(v03::NoParams {})
    }
}

fn upgrade_security(requirements: Vec<HashMap<String, Vec<String>>>) -> Vec<v1::SecurityRequirement> {
    requirements
        .into_iter()
        .map(|r| v1::SecurityRequirement {
            schemes: Some(
                r.into_iter()
                    .map(|(name, list)| (name, v1::StringList { list }))
                    .collect(),
            ),
        })
        .collect()
}

impl TryFrom<v03::SecurityScheme> for v1::SecurityScheme {
    type Error = Unconvertible;
    fn try_from(s: v03::SecurityScheme) -> Result<Self, Unconvertible> {
        Ok(match s {
            v03::SecurityScheme::ApiKeySecurityScheme(k) => {
                v1::SecurityScheme::ApiKeySecurityScheme(v1::ApiKeySecurityScheme {
                    description: k.description,
                    location: k.in_.to_string(),
                    name: k.name,
                })
            }
            v03::SecurityScheme::HttpAuthSecurityScheme(h) => {
                v1::SecurityScheme::HttpAuthSecurityScheme(v1::HttpAuthSecurityScheme {
                    bearer_format: h.bearer_format,
                    description: h.description,
                    scheme: h.scheme,
                })
            }
            v03::SecurityScheme::OAuth2SecurityScheme(o) => {
                let flows = o.flows;
                // 1.0 names one flow per scheme: the first the 0.3 scheme lists.
                let flow = if let Some(a) = flows.authorization_code {
                    v1::OAuthFlows::AuthorizationCode(v1::AuthorizationCodeOAuthFlow {
                        authorization_url: a.authorization_url,
                        pkce_required: None,
                        refresh_url: a.refresh_url,
                        scopes: a.scopes,
                        token_url: a.token_url,
                    })
                } else if let Some(c) = flows.client_credentials {
                    v1::OAuthFlows::ClientCredentials(v1::ClientCredentialsOAuthFlow {
                        refresh_url: c.refresh_url,
                        scopes: c.scopes,
                        token_url: c.token_url,
                    })
                } else if let Some(i) = flows.implicit {
                    v1::OAuthFlows::Implicit(v1::ImplicitOAuthFlow {
                        authorization_url: Some(i.authorization_url),
                        refresh_url: i.refresh_url,
                        scopes: Some(i.scopes),
                    })
                } else if let Some(p) = flows.password {
                    v1::OAuthFlows::Password(v1::PasswordOAuthFlow {
                        refresh_url: p.refresh_url,
                        scopes: Some(p.scopes),
                        token_url: Some(p.token_url),
                    })
                } else {
                    return Err(unconvertible("an OAuth 2.0 scheme without flows"));
                };
                v1::SecurityScheme::Oauth2SecurityScheme(v1::OAuth2SecurityScheme {
                    description: o.description,
                    flows: flow,
                    oauth2_metadata_url: o.oauth2_metadata_url,
                })
            }
            v03::SecurityScheme::OpenIdConnectSecurityScheme(o) => {
                v1::SecurityScheme::OpenIdConnectSecurityScheme(v1::OpenIdConnectSecurityScheme {
                    description: o.description,
                    open_id_connect_url: o.open_id_connect_url,
                })
            }
            v03::SecurityScheme::MutualTlsSecurityScheme(m) => {
                v1::SecurityScheme::MtlsSecurityScheme(v1::MutualTlsSecurityScheme {
                    description: m.description,
                })
            }
        })
    }
}

/// The 1.0 form of a 0.3 card: `url` with `preferredTransport` first, then
/// every further interface, all at version 0.3 (what a 0.3 card describes).
impl TryFrom<v03::AgentCard> for v1::AgentCard {
    type Error = Unconvertible;
    fn try_from(card: v03::AgentCard) -> Result<Self, Unconvertible> {
        let interface = |url: String, binding: String| v1::AgentInterface {
            protocol_binding: binding,
            protocol_version: super::PROTOCOL_VERSION.to_string(),
            tenant: None,
            url,
        };
        let preferred_binding = card
            .preferred_transport
            .clone()
            .unwrap_or_else(|| v03::TransportProtocol::Jsonrpc.to_string());
        let mut supported_interfaces = vec![interface(card.url.clone(), preferred_binding.clone())];
        for extra in card.additional_interfaces {
            if extra.url != card.url || extra.transport != preferred_binding {
                supported_interfaces.push(interface(extra.url, extra.transport));
            }
        }
        let security_schemes = match card.security_schemes {
            None => None,
            Some(schemes) => Some(
                schemes
                    .into_iter()
                    .map(|(name, scheme)| Ok((name, scheme.try_into()?)))
                    .collect::<Result<HashMap<_, _>, Unconvertible>>()?,
            ),
        };
        Ok(v1::AgentCard {
            capabilities: v1::AgentCapabilities {
                extended_agent_card: card.supports_authenticated_extended_card,
                extensions: card
                    .capabilities
                    .extensions
                    .into_iter()
                    .map(|e| v1::AgentExtension {
                        description: e.description,
                        params: e.params,
                        required: e.required,
                        uri: Some(e.uri),
                    })
                    .collect(),
                push_notifications: card.capabilities.push_notifications,
                streaming: card.capabilities.streaming,
            },
            default_input_modes: card.default_input_modes,
            default_output_modes: card.default_output_modes,
            description: card.description,
            documentation_url: card.documentation_url,
            icon_url: card.icon_url,
            name: card.name,
            provider: card.provider.map(|p| v1::AgentProvider {
                organization: p.organization,
                url: p.url,
            }),
            security_requirements: upgrade_security(card.security),
            security_schemes,
            // A signature covers the form it was made over (spec §8.4); this
            // form is another, so the signatures stay behind.
            signatures: Vec::new(),
            skills: card
                .skills
                .into_iter()
                .map(|s| v1::AgentSkill {
                    description: s.description,
                    examples: s.examples,
                    id: s.id,
                    input_modes: s.input_modes,
                    name: s.name,
                    output_modes: s.output_modes,
                    security_requirements: upgrade_security(s.security),
                    tags: s.tags,
                })
                .collect(),
            supported_interfaces,
            version: card.version,
        })
    }
}
