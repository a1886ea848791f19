//! The generated handler traits implemented on [`App`]: each method hands over
//! to the service function in its module, so this file is only wiring. The
//! router has authorized every call before it gets here; the namespace it acts
//! in is the call context's.

use crate::app::App;
use crate::util::namespace;
use a2a::handlers::*;
use a2a::registry::RegistryEntity;
use a2a::rpc::{CallContext, Error, EventStream, Reply};
use a2a::types::*;
use a2a::ErrorKind;

type R<T> = Result<T, Error>;

impl MessagingHandler for App {
    async fn send_message(&self, ctx: &CallContext, params: SendMessageRequest) -> R<SendMessageResponse> {
        self.tasks.send_message(ctx, params).await
    }
    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        params: SendMessageRequest,
    ) -> R<EventStream<StreamResponse>> {
        self.tasks.send_streaming_message(ctx, params).await
    }
    async fn get_task(&self, ctx: &CallContext, params: GetTaskRequest) -> R<Reply<Task>> {
        self.tasks.get_task(ctx, params).await
    }
    async fn list_tasks(&self, ctx: &CallContext, params: ListTasksRequest) -> R<ListTasksResponse> {
        self.tasks.list_tasks(ctx, params).await
    }
    async fn cancel_task(&self, ctx: &CallContext, params: CancelTaskRequest) -> R<Task> {
        self.tasks.cancel_task(ctx, params).await
    }
    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        params: SubscribeToTaskRequest,
    ) -> R<EventStream<StreamResponse>> {
        self.tasks.subscribe_to_task(ctx, params).await
    }
}

impl PushConfigHandler for App {
    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        params: TaskPushNotificationConfig,
    ) -> R<TaskPushNotificationConfig> {
        self.push_configs.create(ctx, params).await
    }
    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        params: GetTaskPushNotificationConfigRequest,
    ) -> R<TaskPushNotificationConfig> {
        self.push_configs.get(ctx, params).await
    }
    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        params: ListTaskPushNotificationConfigsRequest,
    ) -> R<ListTaskPushNotificationConfigsResponse> {
        self.push_configs.list(ctx, params).await
    }
    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        params: DeleteTaskPushNotificationConfigRequest,
    ) -> R<Empty> {
        self.push_configs.delete(ctx, params).await
    }
}

impl AgentCardHandler for App {
    async fn get_extended_agent_card(
        &self,
        _ctx: &CallContext,
        _params: GetExtendedAgentCardRequest,
    ) -> R<AgentCard> {
        self.config
            .extended_agent_card
            .clone()
            .ok_or_else(|| Error::from_kind(ErrorKind::ExtendedAgentCardNotConfigured))
    }
}

impl PlanHandler for App {
    async fn plan_use(&self, ctx: &CallContext, params: PlanUseParams) -> R<Plan> {
        self.plans.plan_use(ctx, params).await
    }
    async fn plan_status(&self, ctx: &CallContext, params: PlanStatusParams) -> R<PlanStatus> {
        self.plans.plan_status(ctx, params).await
    }
    async fn plan_list(&self, ctx: &CallContext, params: PlanListParams) -> R<PlanList> {
        self.plans.plan_list(ctx, params).await
    }
    async fn plan_cancel(&self, ctx: &CallContext, params: PlanCancelParams) -> R<Plan> {
        self.plans.plan_cancel(ctx, params).await
    }
    async fn plan_tree(&self, ctx: &CallContext, params: PlanTreeParams) -> R<PlanTree> {
        self.plans.plan_tree(ctx, params).await
    }
    async fn plan_explain(&self, ctx: &CallContext, params: PlanExplainParams) -> R<PlanExplanation> {
        self.plans.plan_explain(ctx, params).await
    }
    async fn plan_correct(&self, ctx: &CallContext, params: PlanCorrectParams) -> R<PlanCorrectResult> {
        self.plans.plan_correct(ctx, params).await
    }
    async fn plan_execute(&self, ctx: &CallContext, params: PlanExecuteParams) -> R<PlanExecution> {
        self.plans.plan_execute(ctx, params).await
    }
    async fn plan_prompt(&self, ctx: &CallContext, params: PlanPromptParams) -> R<Plan> {
        self.plans.plan_prompt(ctx, params).await
    }
    async fn plan_artifacts(&self, ctx: &CallContext, params: PlanArtifactsParams) -> R<PlanArtifactList> {
        self.plans.plan_artifacts(ctx, params).await
    }
    async fn plan_diff(&self, ctx: &CallContext, params: PlanDiffParams) -> R<PlanDiff> {
        self.plans.plan_diff(ctx, params).await
    }
    async fn plan_apply(&self, ctx: &CallContext, params: PlanApplyParams) -> R<PlanApplyResult> {
        self.plans.plan_apply(ctx, params).await
    }
    async fn plan_rollback(&self, ctx: &CallContext, params: PlanRollbackParams) -> R<PlanRollbackResult> {
        self.plans.plan_rollback(ctx, params).await
    }
}
impl ContextHandler for App {
    async fn context_show(&self, ctx: &CallContext, params: ContextShowParams) -> R<ContextReport> {
        self.context.show(ctx, params).await
    }
    async fn context_inspect(&self, ctx: &CallContext, params: ContextInspectParams) -> R<ContextInspection> {
        self.context.inspect(ctx, params).await
    }
    async fn context_simulate(
        &self,
        ctx: &CallContext,
        params: ContextSimulateParams,
    ) -> R<ContextSimulation> {
        self.context.simulate(ctx, params).await
    }
    async fn context_set(&self, ctx: &CallContext, params: ContextSetParams) -> R<ContextReport> {
        self.context.set(ctx, params).await
    }
}
impl SyncHandler for App {
    async fn sync_pull(&self, ctx: &CallContext, params: SyncPullParams) -> R<SyncReport> {
        let ns = namespace(ctx);
        self.sync.pull(&ns, params).await
    }
    async fn sync_push(&self, ctx: &CallContext, params: SyncPushParams) -> R<SyncReport> {
        let ns = namespace(ctx);
        self.sync.push(&ns, params).await
    }
    async fn sync_status(&self, ctx: &CallContext, params: SyncStatusParams) -> R<SyncStatus> {
        let ns = namespace(ctx);
        self.sync.status(&ns, params).await
    }
}
impl NamespaceHandler for App {
    async fn namespace_list(&self, ctx: &CallContext, params: NamespaceListParams) -> R<NamespaceList> {
        self.namespaces.list(ctx, params).await
    }
    async fn namespace_show(&self, ctx: &CallContext, _params: NamespaceShowParams) -> R<Namespace> {
        // The namespace shown is the call's (in the context), resolved from the params.
        self.namespaces.show(ctx).await
    }
    async fn namespace_members(
        &self,
        ctx: &CallContext,
        params: NamespaceMembersParams,
    ) -> R<NamespaceMemberList> {
        self.namespaces.members(ctx, params).await
    }
}
impl HealthHandler for App {
    async fn health_check(&self, ctx: &CallContext, params: HealthCheckParams) -> R<HealthReport> {
        self.health.check(ctx, params).await
    }
    async fn diagnostics_run(
        &self,
        _ctx: &CallContext,
        params: DiagnosticsRunParams,
    ) -> R<DiagnosticsReport> {
        self.health.diagnostics(params).await
    }
}

impl SessionHandler for App {
    async fn session_create(&self, ctx: &CallContext, params: SessionCreateParams) -> R<Session> {
        self.sessions.create(ctx, params).await
    }
    async fn session_list(&self, ctx: &CallContext, params: SessionListParams) -> R<SessionList> {
        self.sessions.list(ctx, params).await
    }
    async fn session_show(&self, ctx: &CallContext, params: SessionShowParams) -> R<SessionDetail> {
        self.sessions.show(ctx, params).await
    }
    async fn session_resume(&self, ctx: &CallContext, params: SessionResumeParams) -> R<SessionResume> {
        self.sessions.resume(ctx, params).await
    }
    async fn session_tell(&self, ctx: &CallContext, params: SessionTellParams) -> R<SendMessageResponse> {
        self.sessions.tell(ctx, params).await
    }
    async fn session_delete(&self, ctx: &CallContext, params: SessionDeleteParams) -> R<SessionDeleteResult> {
        self.sessions.delete(ctx, params).await
    }
    async fn session_export(&self, ctx: &CallContext, params: SessionExportParams) -> R<SessionExport> {
        self.sessions.export(ctx, params).await
    }
    async fn session_import(&self, ctx: &CallContext, params: SessionImportParams) -> R<Session> {
        self.sessions.import(ctx, params).await
    }
}
impl EventsHandler for App {
    async fn events_subscribe(
        &self,
        ctx: &CallContext,
        params: EventsSubscribeParams,
    ) -> R<EventStream<DomainEvent>> {
        self.events.subscribe(ctx, params).await
    }
}

/// Every registry kind through one generic implementation: the generated
/// per-kind methods default to these five.
impl RegistryHandler for App {
    async fn registry_list<E: RegistryEntity>(&self, ctx: &CallContext, p: RegistryListParams) -> R<E::List> {
        let ns = namespace(ctx);
        self.registry.list::<E>(&ns, p).await
    }
    async fn registry_show<E: RegistryEntity>(&self, ctx: &CallContext, p: RegistryShowParams) -> R<E> {
        let ns = namespace(ctx);
        self.registry.show::<E>(&ns, &p.name).await
    }
    async fn registry_add<E: RegistryEntity>(&self, ctx: &CallContext, p: E::AddParams) -> R<E> {
        let spec = E::added(p);
        let ns = namespace(ctx);
        self.registry.add::<E>(&ns, spec).await
    }
    async fn registry_update<E: RegistryEntity>(&self, ctx: &CallContext, p: E::UpdateParams) -> R<E> {
        let (expected_version, spec) = E::updated(p);
        let ns = namespace(ctx);
        self.registry.update::<E>(&ns, expected_version, spec).await
    }
    async fn registry_remove<E: RegistryEntity>(
        &self,
        ctx: &CallContext,
        p: RegistryRemoveParams,
    ) -> R<RegistryRemoveResult> {
        let ns = namespace(ctx);
        self.registry.remove::<E>(&ns, &p.name, p.expected_version).await
    }
}
