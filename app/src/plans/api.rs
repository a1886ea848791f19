//! The `_cleveragents/plan/*` methods as the handlers call them: each takes
//! the namespace the router authorized from the call context and hands over
//! to the concern's own function, which takes what it needs as arguments. The
//! default executor's hooks (plans from and replies to messages, a cancelled
//! plan task) and start-up resumption are here too, so this is the one place
//! where plans meet the handlers and the executor.

use super::start::PlanStart;
use super::PlanService;
use super::{apply, cancel, diff, draft, execute, prompt, query, start};
use crate::executor::TaskHandle;
use crate::util::namespace;
use a2a::rpc::{CallContext, Error};
use a2a::types::{
    Message, Plan, PlanApplyParams, PlanApplyResult, PlanArtifactList, PlanArtifactsParams, PlanCancelParams,
    PlanCorrectParams, PlanCorrectResult, PlanDiff, PlanDiffParams, PlanExecuteParams, PlanExecution,
    PlanExplainParams, PlanExplanation, PlanList, PlanListParams, PlanPromptParams, PlanRollbackParams,
    PlanRollbackResult, PlanStatus, PlanStatusParams, PlanTree, PlanTreeParams, PlanUseParams,
};

impl PlanService {
    pub(crate) async fn plan_use(&self, ctx: &CallContext, params: PlanUseParams) -> Result<Plan, Error> {
        let ns = namespace(ctx);
        draft::create_plan(self, &ns, params).await
    }

    pub(crate) async fn plan_status(
        &self,
        ctx: &CallContext,
        params: PlanStatusParams,
    ) -> Result<PlanStatus, Error> {
        let ns = namespace(ctx);
        query::status(self, &ns, params).await
    }

    pub(crate) async fn plan_list(
        &self,
        ctx: &CallContext,
        params: PlanListParams,
    ) -> Result<PlanList, Error> {
        let ns = namespace(ctx);
        query::list(self, &ns, params).await
    }

    pub(crate) async fn plan_cancel(
        &self,
        ctx: &CallContext,
        params: PlanCancelParams,
    ) -> Result<Plan, Error> {
        let ns = namespace(ctx);
        cancel::cancel(self, &ns, params).await
    }

    pub(crate) async fn plan_tree(
        &self,
        ctx: &CallContext,
        params: PlanTreeParams,
    ) -> Result<PlanTree, Error> {
        let ns = namespace(ctx);
        query::tree(self, &ns, params).await
    }

    pub(crate) async fn plan_explain(
        &self,
        ctx: &CallContext,
        params: PlanExplainParams,
    ) -> Result<PlanExplanation, Error> {
        let ns = namespace(ctx);
        query::explanation(self, &ns, params).await
    }

    pub(crate) async fn plan_correct(
        &self,
        ctx: &CallContext,
        params: PlanCorrectParams,
    ) -> Result<PlanCorrectResult, Error> {
        let ns = namespace(ctx);
        draft::correct(self, &ns, params).await
    }

    pub(crate) async fn plan_execute(
        &self,
        ctx: &CallContext,
        params: PlanExecuteParams,
    ) -> Result<PlanExecution, Error> {
        let ns = namespace(ctx);
        execute::execute(self, &ns, params).await
    }

    pub(crate) async fn plan_prompt(
        &self,
        ctx: &CallContext,
        params: PlanPromptParams,
    ) -> Result<Plan, Error> {
        let ns = namespace(ctx);
        prompt::answer(self, &ns, params).await
    }

    pub(crate) async fn plan_artifacts(
        &self,
        ctx: &CallContext,
        params: PlanArtifactsParams,
    ) -> Result<PlanArtifactList, Error> {
        let ns = namespace(ctx);
        query::artifacts(self, &ns, params).await
    }

    pub(crate) async fn plan_diff(
        &self,
        ctx: &CallContext,
        params: PlanDiffParams,
    ) -> Result<PlanDiff, Error> {
        let ns = namespace(ctx);
        diff::diff(self, &ns, params).await
    }

    pub(crate) async fn plan_apply(
        &self,
        ctx: &CallContext,
        params: PlanApplyParams,
    ) -> Result<PlanApplyResult, Error> {
        let ns = namespace(ctx);
        apply::apply_plan(self, &ns, params).await
    }

    pub(crate) async fn plan_rollback(
        &self,
        ctx: &CallContext,
        params: PlanRollbackParams,
    ) -> Result<PlanRollbackResult, Error> {
        let ns = namespace(ctx);
        apply::rollback(self, &ns, params).await
    }

    /// Starts a plan from a message and runs it inside the message's task
    /// (see [`start::start_in_task`]).
    pub(crate) async fn plan_start_in_task(&self, task: &TaskHandle, start: PlanStart) -> Result<(), Error> {
        start::start_in_task(self, task, start).await
    }

    /// A message replying to a plan's input-required task answers its prompt.
    pub(crate) async fn plan_reply(
        &self,
        task: &TaskHandle,
        plan_id: &str,
        message: &Message,
    ) -> Result<(), Error> {
        prompt::reply(self, task, plan_id, message).await
    }

    /// The plan's task was cancelled through A2A: the plan follows.
    pub(crate) async fn plan_task_cancelled(&self, ns: &str, plan_id: &str) {
        cancel::task_cancelled(self, ns, plan_id).await
    }

    /// Restarts the runners of plans left RUNNING (by a crash or a shutdown
    /// mid-run); the agent calls it once at start-up. A step that was under
    /// way runs again from its start. On a store shared with other agents,
    /// only runs whose lease expired are taken over, and a sweep keeps taking
    /// over those whose agent dies later (every third of the lease). Returns
    /// the tasks of the runs resumed now.
    pub async fn resume_plans(&self) -> Result<Vec<String>, Error> {
        let resumed = execute::resume(self, true).await?;
        if self.shared_store {
            let plans = self.clone();
            tokio::spawn(async move {
                let mut sweep = crate::util::lease_ticks(plans.lease).await;
                loop {
                    sweep.tick().await;
                    // A failed sweep is tried again on the next tick.
                    let _ = execute::resume(&plans, false).await;
                }
            });
        }
        Ok(resumed)
    }
}
