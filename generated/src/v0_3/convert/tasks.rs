//! Tasks, their status, the status and artifact update events, the results of
//! sending a message and the stream events, and the task requests (send, get,
//! cancel, subscribe, list) with the task list, in both versions.

use super::push::{downgrade_push_config, upgrade_push_config};
use super::{each, maybe, Unconvertible};
use crate::types as v1;
use crate::v0_3::types as v03;

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

impl TryFrom<v03::Task> for v1::Task {
    type Error = Unconvertible;
    fn try_from(t: v03::Task) -> Result<Self, Unconvertible> {
        Ok(v1::Task {
            // 0.3 has no generations (A2A 1.1).
            generation: None,
            artifacts: each(t.artifacts)?,
            context_id: Some(t.context_id),
            history: each(t.history)?,
            id: t.id,
            metadata: t.metadata,
            status: t.status.try_into()?,
        })
    }
}

/// True for the states that end a stream: terminal or interrupted.
fn ends_stream(state: v1::TaskState) -> bool {
    !matches!(
        state,
        v1::TaskState::Submitted | v1::TaskState::Working | v1::TaskState::Unspecified
    )
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

impl TryFrom<v03::TaskStatusUpdateEvent> for v1::TaskStatusUpdateEvent {
    type Error = Unconvertible;
    fn try_from(e: v03::TaskStatusUpdateEvent) -> Result<Self, Unconvertible> {
        Ok(v1::TaskStatusUpdateEvent {
            // 0.3 has no generations (A2A 1.1).
            generation: None,
            context_id: e.context_id,
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

impl TryFrom<v03::TaskArtifactUpdateEvent> for v1::TaskArtifactUpdateEvent {
    type Error = Unconvertible;
    fn try_from(e: v03::TaskArtifactUpdateEvent) -> Result<Self, Unconvertible> {
        Ok(v1::TaskArtifactUpdateEvent {
            // 0.3 has no generations (A2A 1.1).
            generation: None,
            append: e.append,
            artifact: e.artifact.try_into()?,
            context_id: e.context_id,
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

impl TryFrom<v03::SendMessageResult> for v1::SendMessageResponse {
    type Error = Unconvertible;
    fn try_from(r: v03::SendMessageResult) -> Result<Self, Unconvertible> {
        Ok(match r {
            v03::SendMessageResult::Task(task) => v1::SendMessageResponse::Task(task.try_into()?),
            v03::SendMessageResult::Message(m) => v1::SendMessageResponse::Message(m.try_into()?),
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

// ---- requests ------------------------------------------------------------

impl TryFrom<v03::MessageSendParams> for v1::SendMessageRequest {
    type Error = Unconvertible;
    fn try_from(p: v03::MessageSendParams) -> Result<Self, Unconvertible> {
        let configuration = match p.configuration {
            None => None,
            Some(c) => Some(v1::SendMessageConfiguration {
                // 0.3 has no generations (A2A 1.1).
                if_generation_match: None,
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

impl TryFrom<v03::TaskQueryParams> for v1::GetTaskRequest {
    type Error = Unconvertible;
    fn try_from(p: v03::TaskQueryParams) -> Result<Self, Unconvertible> {
        Ok(v1::GetTaskRequest {
            // 0.3 has no generations (A2A 1.1).
            current_generation: None,
            history_length: p.history_length,
            id: p.id,
            tenant: None,
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

impl TryFrom<v1::CancelTaskRequest> for v03::TaskIdParams {
    type Error = Unconvertible;
    fn try_from(r: v1::CancelTaskRequest) -> Result<Self, Unconvertible> {
        Ok(v03::TaskIdParams {
            id: r.id,
            metadata: r.metadata,
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

impl TryFrom<v1::SubscribeToTaskRequest> for v03::TaskIdParams {
    type Error = Unconvertible;
    fn try_from(r: v1::SubscribeToTaskRequest) -> Result<Self, Unconvertible> {
        Ok(v03::TaskIdParams {
            id: r.id,
            metadata: None,
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
