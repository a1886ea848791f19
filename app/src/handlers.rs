//! The generated handler traits implemented on [`App`]: each method resolves
//! to the service function in its module, so this file is only wiring.

use crate::app::App;
use a2a::handlers::*;
use a2a::rpc::{CallContext, Error, EventStream};
use a2a::types::*;
use a2a::ErrorKind;

type R<T> = Result<T, Error>;

impl MessagingHandler for App {
    async fn send_message(&self, ctx: &CallContext, params: SendMessageRequest) -> R<SendMessageResponse> {
        self.arc()?.send_message(ctx, params).await
    }
    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        params: SendMessageRequest,
    ) -> R<EventStream<StreamResponse>> {
        self.arc()?.send_streaming_message(ctx, params).await
    }
    async fn get_task(&self, ctx: &CallContext, params: GetTaskRequest) -> R<Task> {
        App::get_task(self, ctx, params).await
    }
    async fn list_tasks(&self, ctx: &CallContext, params: ListTasksRequest) -> R<ListTasksResponse> {
        App::list_tasks(self, ctx, params).await
    }
    async fn cancel_task(&self, ctx: &CallContext, params: CancelTaskRequest) -> R<Task> {
        App::cancel_task(self, ctx, params).await
    }
    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        params: SubscribeToTaskRequest,
    ) -> R<EventStream<StreamResponse>> {
        App::subscribe_to_task(self, ctx, params).await
    }
}

impl PushConfigHandler for App {
    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        params: TaskPushNotificationConfig,
    ) -> R<TaskPushNotificationConfig> {
        self.create_push_config(ctx, params).await
    }
    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        params: GetTaskPushNotificationConfigRequest,
    ) -> R<TaskPushNotificationConfig> {
        self.get_push_config(ctx, params).await
    }
    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        params: ListTaskPushNotificationConfigsRequest,
    ) -> R<ListTaskPushNotificationConfigsResponse> {
        self.list_push_configs(ctx, params).await
    }
    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        params: DeleteTaskPushNotificationConfigRequest,
    ) -> R<Empty> {
        self.delete_push_config(ctx, params).await
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
        App::plan_use(self, ctx, params).await
    }
    async fn plan_status(&self, ctx: &CallContext, params: PlanStatusParams) -> R<PlanStatus> {
        App::plan_status(self, ctx, params).await
    }
    async fn plan_list(&self, ctx: &CallContext, params: PlanListParams) -> R<PlanList> {
        App::plan_list(self, ctx, params).await
    }
    async fn plan_cancel(&self, ctx: &CallContext, params: PlanCancelParams) -> R<Plan> {
        App::plan_cancel(self, ctx, params).await
    }
    async fn plan_tree(&self, ctx: &CallContext, params: PlanTreeParams) -> R<PlanTree> {
        App::plan_tree(self, ctx, params).await
    }
    async fn plan_explain(&self, ctx: &CallContext, params: PlanExplainParams) -> R<PlanExplanation> {
        App::plan_explain(self, ctx, params).await
    }
    async fn plan_correct(&self, ctx: &CallContext, params: PlanCorrectParams) -> R<PlanCorrectResult> {
        App::plan_correct(self, ctx, params).await
    }
    async fn plan_execute(&self, ctx: &CallContext, params: PlanExecuteParams) -> R<PlanExecution> {
        App::plan_execute(self, ctx, params).await
    }
    async fn plan_prompt(&self, ctx: &CallContext, params: PlanPromptParams) -> R<Plan> {
        App::plan_prompt(self, ctx, params).await
    }
    async fn plan_artifacts(&self, ctx: &CallContext, params: PlanArtifactsParams) -> R<PlanArtifactList> {
        App::plan_artifacts(self, ctx, params).await
    }
    async fn plan_diff(&self, ctx: &CallContext, params: PlanDiffParams) -> R<PlanDiff> {
        App::plan_diff(self, ctx, params).await
    }
    async fn plan_apply(&self, ctx: &CallContext, params: PlanApplyParams) -> R<PlanApplyResult> {
        App::plan_apply(self, ctx, params).await
    }
    async fn plan_rollback(&self, ctx: &CallContext, params: PlanRollbackParams) -> R<PlanRollbackResult> {
        App::plan_rollback(self, ctx, params).await
    }
}
impl ContextHandler for App {
    async fn context_show(&self, ctx: &CallContext, params: ContextShowParams) -> R<ContextReport> {
        App::context_show(self, ctx, params).await
    }
    async fn context_inspect(&self, ctx: &CallContext, params: ContextInspectParams) -> R<ContextInspection> {
        App::context_inspect(self, ctx, params).await
    }
    async fn context_simulate(
        &self,
        ctx: &CallContext,
        params: ContextSimulateParams,
    ) -> R<ContextSimulation> {
        App::context_simulate(self, ctx, params).await
    }
    async fn context_set(&self, ctx: &CallContext, params: ContextSetParams) -> R<ContextReport> {
        App::context_set(self, ctx, params).await
    }
}
impl SyncHandler for App {
    async fn sync_pull(&self, ctx: &CallContext, params: SyncPullParams) -> R<SyncReport> {
        App::sync_pull(self, ctx, params).await
    }
    async fn sync_push(&self, ctx: &CallContext, params: SyncPushParams) -> R<SyncReport> {
        App::sync_push(self, ctx, params).await
    }
    async fn sync_status(&self, ctx: &CallContext, params: SyncStatusParams) -> R<SyncStatus> {
        App::sync_status(self, ctx, params).await
    }
}
impl NamespaceHandler for App {
    async fn namespace_list(&self, ctx: &CallContext, params: NamespaceListParams) -> R<NamespaceList> {
        App::namespace_list(self, ctx, params).await
    }
    async fn namespace_show(&self, ctx: &CallContext, params: NamespaceShowParams) -> R<Namespace> {
        App::namespace_show(self, ctx, params).await
    }
    async fn namespace_members(
        &self,
        ctx: &CallContext,
        params: NamespaceMembersParams,
    ) -> R<NamespaceMemberList> {
        App::namespace_members(self, ctx, params).await
    }
}
impl HealthHandler for App {
    async fn health_check(&self, ctx: &CallContext, params: HealthCheckParams) -> R<HealthReport> {
        App::health_check(self, ctx, params).await
    }
    async fn diagnostics_run(&self, ctx: &CallContext, params: DiagnosticsRunParams) -> R<DiagnosticsReport> {
        App::diagnostics_run(self, ctx, params).await
    }
}

/// Decodes stored entity JSON into the contract type; a mismatch is a bug or
/// corruption, reported as an internal error.
fn decode<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> R<T> {
    crate::util::from_json(value, crate::util::Family::Ext)
}

fn decode_all<T: serde::de::DeserializeOwned>(values: Vec<serde_json::Value>) -> R<Vec<T>> {
    values.into_iter().map(decode).collect()
}

fn spec<T: serde::Serialize>(value: &T) -> R<serde_json::Value> {
    crate::util::to_json(value, crate::util::Family::Ext)
}

macro_rules! registry_kind {
    ($kind:expr, $list:ident, $show:ident, $add:ident, $update:ident, $remove:ident,
     $Add:ty, $Update:ty, $field:ident, $Entity:ty, $List:ty) => {
        async fn $list(&self, ctx: &CallContext, p: RegistryListParams) -> R<$List> {
            let (items, next_cursor) = self
                .reg_list(
                    ctx,
                    $kind,
                    p.namespace.as_deref(),
                    p.filter.as_deref(),
                    p.cursor.as_deref(),
                    p.limit,
                )
                .await?;
            Ok(<$List>::from_parts(decode_all(items)?, next_cursor))
        }
        async fn $show(&self, ctx: &CallContext, p: RegistryShowParams) -> R<$Entity> {
            decode(
                self.reg_show(ctx, $kind, p.namespace.as_deref(), &p.name)
                    .await?,
            )
        }
        async fn $add(&self, ctx: &CallContext, p: $Add) -> R<$Entity> {
            decode(
                self.reg_add(ctx, $kind, p.namespace.as_deref(), spec(&p.$field)?)
                    .await?,
            )
        }
        async fn $update(&self, ctx: &CallContext, p: $Update) -> R<$Entity> {
            decode(
                self.reg_update(
                    ctx,
                    $kind,
                    p.namespace.as_deref(),
                    p.expected_version,
                    spec(&p.$field)?,
                )
                .await?,
            )
        }
        async fn $remove(&self, ctx: &CallContext, p: RegistryRemoveParams) -> R<RegistryRemoveResult> {
            self.reg_remove(
                ctx,
                $kind,
                p.namespace.as_deref(),
                &p.name,
                p.expected_version,
            )
            .await
        }
    };
}

/// Builds a registry list result from items and a cursor.
trait FromParts<T> {
    fn from_parts(items: Vec<T>, next_cursor: Option<String>) -> Self;
}

macro_rules! list_type {
    ($List:ty, $Entity:ty) => {
        impl FromParts<$Entity> for $List {
            fn from_parts(items: Vec<$Entity>, next_cursor: Option<String>) -> Self {
                Self { items, next_cursor }
            }
        }
    };
}

list_type!(ActorList, Actor);
list_type!(ToolList, Tool);
list_type!(SkillList, Skill);
list_type!(ResourceList, Resource);
list_type!(ResourceTypeList, ResourceType);
list_type!(ProjectList, Project);
list_type!(ValidationList, Validation);
list_type!(ActionList, Action);
list_type!(AutomationProfileList, AutomationProfile);
list_type!(InvariantList, Invariant);

impl RegistryHandler for App {
    registry_kind!(
        crate::registry::Kind::Actor,
        registry_actors_list,
        registry_actors_show,
        registry_actors_add,
        registry_actors_update,
        registry_actors_remove,
        ActorAddParams,
        ActorUpdateParams,
        actor,
        Actor,
        ActorList
    );
    registry_kind!(
        crate::registry::Kind::Tool,
        registry_tools_list,
        registry_tools_show,
        registry_tools_add,
        registry_tools_update,
        registry_tools_remove,
        ToolAddParams,
        ToolUpdateParams,
        tool,
        Tool,
        ToolList
    );
    registry_kind!(
        crate::registry::Kind::Skill,
        registry_skills_list,
        registry_skills_show,
        registry_skills_add,
        registry_skills_update,
        registry_skills_remove,
        SkillAddParams,
        SkillUpdateParams,
        skill,
        Skill,
        SkillList
    );
    registry_kind!(
        crate::registry::Kind::Resource,
        registry_resources_list,
        registry_resources_show,
        registry_resources_add,
        registry_resources_update,
        registry_resources_remove,
        ResourceAddParams,
        ResourceUpdateParams,
        resource,
        Resource,
        ResourceList
    );
    registry_kind!(
        crate::registry::Kind::ResourceType,
        registry_resource_types_list,
        registry_resource_types_show,
        registry_resource_types_add,
        registry_resource_types_update,
        registry_resource_types_remove,
        ResourceTypeAddParams,
        ResourceTypeUpdateParams,
        resource_type,
        ResourceType,
        ResourceTypeList
    );
    registry_kind!(
        crate::registry::Kind::Project,
        registry_projects_list,
        registry_projects_show,
        registry_projects_add,
        registry_projects_update,
        registry_projects_remove,
        ProjectAddParams,
        ProjectUpdateParams,
        project,
        Project,
        ProjectList
    );
    registry_kind!(
        crate::registry::Kind::Validation,
        registry_validations_list,
        registry_validations_show,
        registry_validations_add,
        registry_validations_update,
        registry_validations_remove,
        ValidationAddParams,
        ValidationUpdateParams,
        validation,
        Validation,
        ValidationList
    );
    registry_kind!(
        crate::registry::Kind::Action,
        registry_actions_list,
        registry_actions_show,
        registry_actions_add,
        registry_actions_update,
        registry_actions_remove,
        ActionAddParams,
        ActionUpdateParams,
        action,
        Action,
        ActionList
    );
    registry_kind!(
        crate::registry::Kind::AutomationProfile,
        registry_automation_profiles_list,
        registry_automation_profiles_show,
        registry_automation_profiles_add,
        registry_automation_profiles_update,
        registry_automation_profiles_remove,
        AutomationProfileAddParams,
        AutomationProfileUpdateParams,
        automation_profile,
        AutomationProfile,
        AutomationProfileList
    );
    registry_kind!(
        crate::registry::Kind::Invariant,
        registry_invariants_list,
        registry_invariants_show,
        registry_invariants_add,
        registry_invariants_update,
        registry_invariants_remove,
        InvariantAddParams,
        InvariantUpdateParams,
        invariant,
        Invariant,
        InvariantList
    );
}
