//! Drafting a plan from its action: `plan/use` (the first revision, CREATED
//! in phase STRATEGIZE) and `plan/correct` (a new revision whose steps are
//! drafted again; the replaced revision's steps are kept, so trees of earlier
//! revisions stay available).

use super::record::{self, can_correct, no_usage, plan_error, state_name, PastRevision, PlanRecord, FAMILY};
use super::schema::Schema;
use super::PlanService;
use crate::store::{Commit, DocWrite, Expect};
use crate::util::{self, from_json, to_json};
use a2a::rpc::Error;
use a2a::types::RegistryKind;
use a2a::types::{
    Budget, Plan, PlanCorrectParams, PlanCorrectResult, PlanCorrection, PlanPhase, PlanRevision, PlanState,
    PlanStep, PlanStepState, PlanUseParams,
};
use a2a::ErrorKind;
use serde_json::{Map, Value};

/// Checks plan inputs against the action's `inputSchema`, if it has one.
fn check_inputs(action: &Value, inputs: &Map<String, Value>) -> Result<(), Error> {
    let Some(schema) = action.get("inputSchema") else {
        return Ok(());
    };
    Schema::compile(schema)
        .and_then(|s| s.check(&Value::Object(inputs.clone()), "inputs"))
        .map_err(|why| {
            plan_error(format!(
                "the inputs do not satisfy the action's inputSchema: {why}"
            ))
        })
}

/// The steps of an action, all pending; ExtPlanError when the action has
/// none or names a tool that does not exist.
async fn draft_steps(
    plans: &PlanService,
    ns: &str,
    action_name: &str,
    action: &Value,
) -> Result<Vec<PlanStep>, Error> {
    let action_steps = action["steps"].as_array().cloned().unwrap_or_default();
    if action_steps.is_empty() {
        return Err(plan_error(format!("Action `{action_name}` has no steps")));
    }
    let mut steps = Vec::with_capacity(action_steps.len());
    for step in &action_steps {
        let tool = step["tool"].as_str().unwrap_or_default().to_string();
        if plans.registry.get(ns, RegistryKind::Tool, &tool).await?.is_none() {
            return Err(plan_error(format!(
                "step `{}` of action `{action_name}` uses tool `{tool}`, which does not exist",
                step["id"].as_str().unwrap_or_default()
            )));
        }
        steps.push(PlanStep {
            id: step["id"].as_str().unwrap_or_default().to_string(),
            name: step["name"].as_str().unwrap_or_default().to_string(),
            tool,
            state: PlanStepState::Pending,
            started_at: None,
            finished_at: None,
            message: None,
        });
    }
    Ok(steps)
}

/// The budget of the automation profile `name`, if the profile has one.
async fn budget_of(plans: &PlanService, ns: &str, name: &str) -> Result<Option<Budget>, Error> {
    let profile = plans
        .registry
        .get(ns, RegistryKind::AutomationProfile, name)
        .await?
        .ok_or_else(|| FAMILY.not_found(&format!("Automation profile `{name}`")))?;
    match profile.get("budget") {
        Some(budget) => Ok(Some(from_json::<Budget>(budget.clone(), FAMILY)?)),
        None => Ok(None),
    }
}

/// `plan/use` once access is checked: validates the action, project,
/// profile and inputs and stores the plan CREATED in `ns`.
pub(crate) async fn create_plan(plans: &PlanService, ns: &str, params: PlanUseParams) -> Result<Plan, Error> {
    let action_name = params.action.clone();
    let action = plans
        .registry
        .get(ns, RegistryKind::Action, &action_name)
        .await?
        .ok_or_else(|| FAMILY.not_found(&format!("Action `{action_name}`")))?;
    let project = plans
        .registry
        .get(ns, RegistryKind::Project, &params.project)
        .await?
        .ok_or_else(|| FAMILY.not_found(&format!("Project `{}`", params.project)))?;
    let profile_name = params
        .automation_profile
        .clone()
        .filter(|p| !p.is_empty())
        .or_else(|| action["automationProfile"].as_str().map(str::to_string))
        .filter(|p| !p.is_empty());
    let budget = match &profile_name {
        None => None,
        Some(name) => budget_of(plans, ns, name).await?,
    };
    let inputs = params.inputs.clone().unwrap_or_default();
    check_inputs(&action, &inputs)?;
    let steps = draft_steps(plans, ns, &action_name, &action).await?;
    let now = util::now();
    let plan = Plan {
        id: util::new_id(),
        namespace: ns.to_string(),
        title: params.title.clone().filter(|t| !t.is_empty()),
        action: action_name.clone(),
        project: params.project.clone(),
        automation_profile: profile_name,
        inputs,
        phase: PlanPhase::Strategize,
        state: PlanState::Created,
        revision: 1,
        base_project_revision: project["currentRevision"].as_i64().unwrap_or(1),
        applied_project_revision: None,
        context_id: params
            .context_id
            .clone()
            .filter(|c| !c.is_empty())
            .unwrap_or_else(util::new_id),
        task_id: None,
        failure: None,
        created_at: now.clone(),
        updated_at: now.clone(),
    };
    let record = PlanRecord {
        plan: plan.clone(),
        steps,
        revisions: vec![PlanRevision {
            revision: 1,
            created_at: now,
            correction_id: None,
            summary: format!("Created from action {action_name}."),
        }],
        usage: no_usage(),
        budget,
        cancel_reason: None,
        past: vec![],
        corrections: vec![],
        exec: Default::default(),
        artifacts: vec![],
        applied_parent: None,
    };
    let commit = Commit {
        task: None,
        docs: vec![DocWrite::put(
            record::COLL,
            ns,
            &plan.id,
            Expect::Absent,
            to_json(&record, FAMILY)?,
        )],
        ..Commit::default()
    };
    plans.db.commit_run(FAMILY, commit).await?;
    Ok(plan)
}

/// Refuses a correction the plan's state or revision does not allow, or one
/// naming a node that is not in the current decision tree.
fn check_correction(
    record: &PlanRecord,
    params: &PlanCorrectParams,
    node_id: Option<&str>,
) -> Result<(), Error> {
    let from = record.plan.revision;
    if !can_correct(record.plan.state) {
        return Err(Error::new(
            ErrorKind::ExtInvalidState,
            format!(
                "Plan `{}` is {}; only CREATED, COMPLETED or FAILED plans can be corrected",
                params.plan_id,
                state_name(record.plan.state)
            ),
        )
        .with_metadata("state", state_name(record.plan.state)));
    }
    if params.expected_revision != from {
        return Err(Error::new(
            ErrorKind::ExtInvalidState,
            format!(
                "Plan `{}` is at revision {from}, not the expected {}",
                params.plan_id, params.expected_revision
            ),
        )
        .with_metadata("currentRevision", from.to_string()));
    }
    if let Some(node) = node_id {
        let known = node == "goal"
            || record
                .steps
                .iter()
                .any(|s| node == format!("n-{}", s.id) || node == format!("n-{}-call", s.id));
        if !known {
            return Err(plan_error(format!(
                "node `{node}` is not in the decision tree of revision {from}"
            )));
        }
    }
    Ok(())
}

impl PlanRecord {
    /// COMPLETED | FAILED | CREATED → CREATED at the next revision with `steps`.
    fn correct(
        &mut self,
        steps: Vec<PlanStep>,
        params: &PlanCorrectParams,
        node_id: Option<String>,
        inputs: Map<String, Value>,
        base_project_revision: Option<i64>,
    ) -> PlanCorrection {
        let now = util::now();
        let from = self.plan.revision;
        let to = from + 1;
        let correction = PlanCorrection {
            id: format!("cor-{:04}", self.corrections.len() + 1),
            plan_id: self.plan.id.clone(),
            from_revision: from,
            to_revision: to,
            instruction: params.instruction.clone(),
            node_id,
            created_at: now.clone(),
        };
        let old_steps = std::mem::replace(&mut self.steps, steps);
        self.past.push(PastRevision {
            revision: from,
            steps: old_steps,
        });
        self.revisions.push(PlanRevision {
            revision: to,
            created_at: now.clone(),
            correction_id: Some(correction.id.clone()),
            summary: params.instruction.clone(),
        });
        self.corrections.push(correction.clone());
        let plan = &mut self.plan;
        plan.revision = to;
        plan.state = PlanState::Created;
        plan.phase = PlanPhase::Strategize;
        plan.failure = None;
        plan.inputs = inputs;
        plan.base_project_revision = base_project_revision.unwrap_or(plan.base_project_revision);
        plan.updated_at = now;
        self.exec = Default::default();
        self.usage = no_usage();
        correction
    }
}

/// `plan/correct`: a new revision, drafted again from the action.
pub(crate) async fn correct(
    plans: &PlanService,
    ns: &str,
    params: PlanCorrectParams,
) -> Result<PlanCorrectResult, Error> {
    if params.instruction.trim().is_empty() {
        return Err(FAMILY.invalid_params("instruction", "must not be empty"));
    }
    let _guard = record::guard(plans, &params.plan_id).await?;
    let (mut record, version) = record::load(plans, ns, &params.plan_id).await?;
    let node_id = params.node_id.clone().filter(|n| !n.is_empty());
    check_correction(&record, &params, node_id.as_deref())?;
    let action_name = record.plan.action.clone();
    let action = plans
        .registry
        .get(ns, RegistryKind::Action, &action_name)
        .await?
        .ok_or_else(|| plan_error(format!("Action `{action_name}` no longer exists")))?;
    let project = plans
        .registry
        .get(ns, RegistryKind::Project, &record.plan.project)
        .await?
        .ok_or_else(|| plan_error(format!("Project `{}` no longer exists", record.plan.project)))?;
    let inputs = params
        .inputs
        .clone()
        .unwrap_or_else(|| record.plan.inputs.clone());
    check_inputs(&action, &inputs)?;
    let steps = draft_steps(plans, ns, &action_name, &action).await?;
    let base = project["currentRevision"].as_i64();
    let correction = record.correct(steps, &params, node_id, inputs, base);
    record::save(plans, ns, &record, version).await?;
    Ok(PlanCorrectResult {
        plan: record.plan,
        correction,
    })
}
