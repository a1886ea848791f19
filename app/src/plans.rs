//! Plans (`_cleveragents/plan/*`): `use`, `status`, `list`, `cancel`,
//! `tree`, `explain` and `correct` live here; running a plan and what
//! follows (execute, prompt, artifacts, diff, apply, rollback) lives in
//! [`crate::execution`].
//!
//! The decision tree is derived from the steps: the GOAL, then one node per
//! step in order (`n-<stepId>`; an approval or validation tool makes it an
//! APPROVAL or VALIDATION leaf, any other tool a STEP with a TOOL_CALL child
//! `n-<stepId>-call`). A correction snapshots the steps of the revision it
//! replaces, so trees of earlier revisions stay available.
//!
//! A plan is one document of the `plan` collection keyed by its id: a
//! [`PlanRecord`] holding the wire [`Plan`] plus its steps, revisions, usage
//! and the budget snapshot of its automation profile. Every change is a
//! version-checked put, so a concurrent change is refused (ExtInvalidState)
//! instead of lost. The state machine is the one of the `PlanState` schema
//! description; [`can_cancel`] encodes the part the implemented methods need.
//!
//! A message replying to a plan's task is recognised through
//! [`plan_of_task`] (see `execution.rs`). A message whose data part names an
//! action is recognised by [`plan_request`]; the default executor then
//! creates the plan (as `plan/use` would, `App::create_plan`) and runs it
//! inside the message's task (`App::plan_start_in_task` in `execution.rs`).

use crate::app::App;
use crate::namespaces::{decode_cursor_value, encode_cursor_value, page_limit};
use crate::store::{Commit, DocWrite, Expect, StoreError};
use crate::util::{self, from_json, namespace_of, require, to_json, Family};
use a2a::rpc::{Access, CallContext, Error};
use a2a::types::RegistryKind as Kind;
use a2a::types::{
    Budget, BudgetUsage, CancelTaskRequest, DecisionNode, DecisionNodeKind, Message, Plan, PlanCancelParams,
    PlanCorrectParams, PlanCorrectResult, PlanCorrection, PlanExplainParams, PlanExplanation, PlanList,
    PlanListParams, PlanPhase, PlanRationale, PlanRevision, PlanState, PlanStatus, PlanStatusParams,
    PlanStep, PlanStepState, PlanTree, PlanTreeParams, PlanUseParams,
};
use a2a::ErrorKind;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

const FAMILY: Family = Family::Ext;

/// Document collection of plans; key: the plan id.
pub const COLL: &str = "plan";

/// A plan as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanRecord {
    pub plan: Plan,
    pub steps: Vec<PlanStep>,
    pub revisions: Vec<PlanRevision>,
    pub usage: BudgetUsage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
    /// Why the plan was cancelled, as given to plan/cancel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_reason: Option<String>,
    /// The steps of earlier revisions, as they were when corrected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub past: Vec<PastRevision>,
    /// Corrections made, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corrections: Vec<PlanCorrection>,
    /// Execution state of the current revision (see `execution.rs`).
    #[serde(default)]
    pub exec: crate::execution::ExecState,
    /// PlanArtifact values of every revision, in production order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Value>,
    /// The project revision before the apply (what rollback restores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_parent: Option<i64>,
}

/// An earlier revision of a plan: its steps as they were when corrected.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PastRevision {
    pub revision: i64,
    pub steps: Vec<PlanStep>,
}

/// True when plan/cancel may move a plan in `state` to CANCELLED.
pub fn can_cancel(state: PlanState) -> bool {
    matches!(
        state,
        PlanState::Created
            | PlanState::Running
            | PlanState::InputRequired
            | PlanState::Completed
            | PlanState::Failed
    )
}

/// The wire name of a plan state.
pub fn state_name(state: PlanState) -> String {
    serde_json::to_value(state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn plan_error(message: String) -> Error {
    Error::new(ErrorKind::ExtPlanError, message)
}

fn json_type_matches(expected: &str, value: &Value) -> bool {
    match expected {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        _ => true,
    }
}

/// Checks `value` against the subset of JSON Schema plans support: `type`,
/// `enum`, `const`, `required`, `properties`, `additionalProperties: false`,
/// `items`, `minLength`/`maxLength`, `minimum`/`maximum`. Other keywords are
/// ignored. The error names the offending path.
pub fn check_schema(schema: &Value, value: &Value, path: &str) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if !types.is_empty() && !types.iter().any(|t| json_type_matches(t, value)) {
        return Err(format!("{path} must be of type {}", types.join(" or ")));
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            return Err(format!("{path} must be one of {}", Value::Array(options.clone())));
        }
    }
    if let Some(expected) = schema.get("const") {
        if expected != value {
            return Err(format!("{path} must be {expected}"));
        }
    }
    if let Some(text) = value.as_str() {
        let len = text.chars().count() as u64;
        if schema
            .get("minLength")
            .and_then(Value::as_u64)
            .is_some_and(|min| len < min)
        {
            return Err(format!("{path} is too short"));
        }
        if schema
            .get("maxLength")
            .and_then(Value::as_u64)
            .is_some_and(|max| len > max)
        {
            return Err(format!("{path} is too long"));
        }
    }
    if let Some(n) = value.as_f64() {
        if schema
            .get("minimum")
            .and_then(Value::as_f64)
            .is_some_and(|min| n < min)
        {
            return Err(format!("{path} is below the minimum"));
        }
        if schema
            .get("maximum")
            .and_then(Value::as_f64)
            .is_some_and(|max| n > max)
        {
            return Err(format!("{path} is above the maximum"));
        }
    }
    if let Some(object) = value.as_object() {
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = name.as_str() {
                if !object.contains_key(name) {
                    return Err(format!("{path}.{name} is required"));
                }
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (name, v) in object {
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => check_schema(sub, v, &format!("{path}.{name}"))?,
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => return Err(format!("{path}.{name} is not allowed")),
                    Some(sub @ Value::Object(_)) => check_schema(sub, v, &format!("{path}.{name}"))?,
                    _ => {}
                },
            }
        }
    }
    if let (Some(items), Some(sub)) = (value.as_array(), schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check_schema(sub, item, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

impl App {
    /// Loads a plan record and its store version; ExtNotFound when absent.
    async fn load_plan(&self, ns: &str, plan_id: &str) -> Result<(PlanRecord, u64), Error> {
        let (n, key) = (ns.to_string(), plan_id.to_string());
        let doc = self
            .db(FAMILY, move |s| s.get_doc(COLL, &n, &key))
            .await?
            .ok_or_else(|| FAMILY.not_found(&format!("Plan `{plan_id}`")))?;
        Ok((from_json(doc.value, FAMILY)?, doc.version))
    }

    /// Writes a changed plan record if the stored one is still at `version`.
    async fn save_plan(&self, ns: &str, record: &PlanRecord, version: u64) -> Result<(), Error> {
        let id = record.plan.id.clone();
        let commit = Commit {
            task: None,
            docs: vec![DocWrite::put(
                COLL,
                ns,
                &id,
                Expect::Version(version),
                to_json(record, FAMILY)?,
            )],
        };
        match self.db_raw(move |s| s.commit(&commit)).await {
            Ok(_) => Ok(()),
            Err(StoreError::Conflict { found: None, .. }) => Err(FAMILY.not_found(&format!("Plan `{id}`"))),
            Err(StoreError::Conflict { .. }) => Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!("Plan `{id}` changed concurrently; retry"),
            )),
            Err(e) => Err(FAMILY.internal(e.to_string())),
        }
    }

    /// The steps of an action, all pending; ExtPlanError when the action has
    /// none or names a tool that does not exist.
    async fn draft_steps(&self, ns: &str, action_name: &str, action: &Value) -> Result<Vec<PlanStep>, Error> {
        let action_steps = action["steps"].as_array().cloned().unwrap_or_default();
        if action_steps.is_empty() {
            return Err(plan_error(format!("Action `{action_name}` has no steps")));
        }
        let mut steps = Vec::with_capacity(action_steps.len());
        for step in &action_steps {
            let tool = step["tool"].as_str().unwrap_or_default().to_string();
            if self.reg_get(ns, Kind::Tool, &tool).await?.is_none() {
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

    pub(crate) async fn plan_use(&self, ctx: &CallContext, params: PlanUseParams) -> Result<Plan, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Writer,
            FAMILY,
            &format!("Action `{}`", params.action),
        )?;
        self.create_plan(&ns, params).await
    }

    /// `plan/use` once access is checked: validates the action, project,
    /// profile and inputs and stores the plan CREATED in `ns`. Also used by
    /// the default executor to start a plan from a message.
    pub(crate) async fn create_plan(&self, ns: &str, params: PlanUseParams) -> Result<Plan, Error> {
        let ns = ns.to_string();
        let action_name = params.action.clone();
        let action = self
            .reg_get(&ns, Kind::Action, &action_name)
            .await?
            .ok_or_else(|| FAMILY.not_found(&format!("Action `{action_name}`")))?;
        let project = self
            .reg_get(&ns, Kind::Project, &params.project)
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
            Some(name) => {
                let profile = self
                    .reg_get(&ns, Kind::AutomationProfile, name)
                    .await?
                    .ok_or_else(|| FAMILY.not_found(&format!("Automation profile `{name}`")))?;
                match profile.get("budget") {
                    Some(budget) => Some(from_json::<Budget>(budget.clone(), FAMILY)?),
                    None => None,
                }
            }
        };
        let inputs = params.inputs.clone().unwrap_or_default();
        if let Some(schema) = action.get("inputSchema") {
            check_schema(schema, &Value::Object(inputs.clone()), "inputs").map_err(|why| {
                plan_error(format!(
                    "the inputs do not satisfy the action's inputSchema: {why}"
                ))
            })?;
        }
        let steps = self.draft_steps(&ns, &action_name, &action).await?;
        let now = util::now();
        let plan = Plan {
            id: util::new_id(),
            namespace: ns.clone(),
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
            usage: BudgetUsage {
                tokens: 0,
                tool_calls: 0,
                files_changed: 0,
                bytes_changed: 0,
            },
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
                COLL,
                &ns,
                &plan.id,
                Expect::Absent,
                to_json(&record, FAMILY)?,
            )],
        };
        self.db(FAMILY, move |s| s.commit(&commit)).await?;
        Ok(plan)
    }

    pub(crate) async fn plan_status(
        &self,
        ctx: &CallContext,
        params: PlanStatusParams,
    ) -> Result<PlanStatus, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Reader,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let (record, _) = self.load_plan(&ns, &params.plan_id).await?;
        let waiting = record.plan.state == PlanState::InputRequired;
        Ok(PlanStatus {
            plan: record.plan,
            steps: record.steps,
            pending_prompt: waiting.then_some(record.exec.pending_prompt).flatten(),
            revisions: record.revisions,
            usage: record.usage,
            budget: record.budget,
        })
    }

    pub(crate) async fn plan_list(
        &self,
        ctx: &CallContext,
        params: PlanListParams,
    ) -> Result<PlanList, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(ctx, &ns, Access::Reader, FAMILY, &format!("namespace `{ns}`"))?;
        let limit = page_limit(params.limit)?;
        let before = match decode_cursor_value(params.cursor.as_deref())? {
            None => None,
            Some(cursor) => match (cursor["before"].as_str(), cursor["id"].as_str()) {
                (Some(at), Some(id)) => Some((at.to_string(), id.to_string())),
                _ => return Err(FAMILY.invalid_params("cursor", "is not a cursor this server issued")),
            },
        };
        let n = ns.clone();
        let docs = self
            .db(FAMILY, move |s| s.list_docs(COLL, &n, "", None, usize::MAX))
            .await?;
        let mut plans = Vec::with_capacity(docs.len());
        for doc in docs {
            let record: PlanRecord = from_json(doc.value, FAMILY)?;
            let plan = record.plan;
            let keep = params
                .project
                .as_deref()
                .is_none_or(|p| p.is_empty() || plan.project == p)
                && params
                    .action
                    .as_deref()
                    .is_none_or(|a| a.is_empty() || plan.action == a)
                && (params.states.is_empty() || params.states.contains(&plan.state))
                && before.as_ref().is_none_or(|(at, id)| {
                    (plan.created_at.as_str(), plan.id.as_str()) < (at.as_str(), id.as_str())
                });
            if keep {
                plans.push(plan);
            }
        }
        // Newest first; the id breaks ties so paging is stable.
        plans.sort_by(|a, b| (&b.created_at, &b.id).cmp(&(&a.created_at, &a.id)));
        let more = plans.len() > limit;
        plans.truncate(limit);
        let next_cursor = if more {
            plans
                .last()
                .map(|p| encode_cursor_value(&json!({ "before": p.created_at, "id": p.id })))
        } else {
            None
        };
        Ok(PlanList {
            items: plans,
            next_cursor,
        })
    }

    pub(crate) async fn plan_cancel(
        &self,
        ctx: &CallContext,
        params: PlanCancelParams,
    ) -> Result<Plan, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Writer,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let guard = self.plan_guard(&params.plan_id).await?;
        let (mut record, version) = self.load_plan(&ns, &params.plan_id).await?;
        if !can_cancel(record.plan.state) {
            return Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!(
                    "Plan `{}` is {}; only CREATED, RUNNING, INPUT_REQUIRED, COMPLETED or FAILED plans can be cancelled",
                    params.plan_id,
                    state_name(record.plan.state)
                ),
            )
            .with_metadata("state", state_name(record.plan.state)));
        }
        let running = matches!(record.plan.state, PlanState::Running | PlanState::InputRequired);
        record.plan.state = PlanState::Cancelled;
        record.plan.updated_at = util::now();
        record.cancel_reason = params.reason.clone().filter(|r| !r.is_empty());
        record.exec.pending_prompt = None;
        self.save_plan(&ns, &record, version).await?;
        // Cancelling the task tells the executor, which takes the plan lock.
        drop(guard);
        if let (true, Some(task_id)) = (running, record.plan.task_id.clone()) {
            // The plan is cancelled; its task follows. A task that ended
            // meanwhile needs nothing more.
            let request = CancelTaskRequest {
                id: task_id,
                tenant: Some(ns.clone()),
                metadata: None,
            };
            let _ = self.tasks.cancel_task(&CallContext::default(), request).await;
        }
        Ok(record.plan)
    }

    /// The steps of revision `revision` (the current one when `None`).
    fn steps_of(record: &PlanRecord, revision: Option<i64>) -> Result<(i64, Vec<PlanStep>), Error> {
        let current = record.plan.revision;
        match revision {
            None => Ok((current, record.steps.clone())),
            Some(r) if r == current => Ok((current, record.steps.clone())),
            Some(r) => record
                .past
                .iter()
                .find(|p| p.revision == r)
                .map(|p| (r, p.steps.clone()))
                .ok_or_else(|| FAMILY.not_found(&format!("revision {r} of plan `{}`", record.plan.id))),
        }
    }

    /// The decision tree of `steps`: the GOAL with one node per step, in
    /// order. Approval and validation tools are APPROVAL and VALIDATION
    /// leaves; any other step is a STEP node with its TOOL_CALL child.
    async fn decision_tree(&self, plan: &Plan, steps: &[PlanStep]) -> Result<DecisionNode, Error> {
        let total = steps.len();
        let mut children = Vec::with_capacity(total);
        for (i, step) in steps.iter().enumerate() {
            let tool_kind = self
                .reg_get(&plan.namespace, Kind::Tool, &step.tool)
                .await?
                .and_then(|t| t["kind"].as_str().map(str::to_string))
                .unwrap_or_default();
            let kind = match tool_kind.as_str() {
                "TOOL_KIND_APPROVAL" => DecisionNodeKind::Approval,
                "TOOL_KIND_RUN_VALIDATION" => DecisionNodeKind::Validation,
                _ => DecisionNodeKind::Step,
            };
            let call = (kind == DecisionNodeKind::Step).then(|| DecisionNode {
                id: format!("n-{}-call", step.id),
                kind: DecisionNodeKind::ToolCall,
                label: step.tool.clone(),
                step_id: Some(step.id.clone()),
                state: Some(step.state),
                chosen: None,
                rationale: None,
                children: vec![],
            });
            children.push(DecisionNode {
                id: format!("n-{}", step.id),
                kind,
                label: step.name.clone(),
                step_id: Some(step.id.clone()),
                state: Some(step.state),
                chosen: None,
                rationale: Some(format!("Step {} of {total} of action `{}`.", i + 1, plan.action)),
                children: call.into_iter().collect(),
            });
        }
        Ok(DecisionNode {
            id: "goal".into(),
            kind: DecisionNodeKind::Goal,
            label: plan
                .title
                .clone()
                .unwrap_or_else(|| format!("Run action {} on project {}", plan.action, plan.project)),
            step_id: None,
            state: None,
            chosen: None,
            rationale: None,
            children,
        })
    }

    pub(crate) async fn plan_tree(
        &self,
        ctx: &CallContext,
        params: PlanTreeParams,
    ) -> Result<PlanTree, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Reader,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let (record, _) = self.load_plan(&ns, &params.plan_id).await?;
        let (revision, steps) = Self::steps_of(&record, params.revision)?;
        Ok(PlanTree {
            plan_id: record.plan.id.clone(),
            revision,
            root: self.decision_tree(&record.plan, &steps).await?,
        })
    }

    pub(crate) async fn plan_explain(
        &self,
        ctx: &CallContext,
        params: PlanExplainParams,
    ) -> Result<PlanExplanation, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Reader,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let (record, _) = self.load_plan(&ns, &params.plan_id).await?;
        let (revision, steps) = Self::steps_of(&record, params.revision)?;
        let plan = &record.plan;
        let total = steps.len();
        let rationale_of = |i: usize, step: &PlanStep, node_id: String| PlanRationale {
            node_id,
            decision: format!("Run `{}`", step.tool),
            reason: format!(
                "Step {} of {total} of action `{}`: {}.",
                i + 1,
                plan.action,
                step.name
            ),
            alternatives: vec![],
        };
        let whole = format!(
            "Plan `{}` (revision {revision}) runs action `{}` on project `{}` at project revision {} in {total} step(s): {}.",
            plan.id,
            plan.action,
            plan.project,
            plan.base_project_revision,
            steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
        );
        let node_id = params.node_id.clone().filter(|n| !n.is_empty());
        let (summary, rationale) = match node_id.as_deref() {
            None | Some("goal") => (
                whole,
                steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| rationale_of(i, s, format!("n-{}", s.id)))
                    .collect(),
            ),
            Some(node) => {
                let found = steps
                    .iter()
                    .enumerate()
                    .find(|(_, s)| node == format!("n-{}", s.id) || node == format!("n-{}-call", s.id));
                let Some((i, step)) = found else {
                    return Err(FAMILY.not_found(&format!(
                        "node `{node}` of plan `{}` revision {revision}",
                        plan.id
                    )));
                };
                let state = serde_json::to_value(step.state)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                (
                    format!(
                        "{}: step {} of {total}, using tool `{}`, is {state}.",
                        step.name,
                        i + 1,
                        step.tool
                    ),
                    vec![rationale_of(i, step, node.to_string())],
                )
            }
        };
        Ok(PlanExplanation {
            plan_id: plan.id.clone(),
            revision,
            node_id,
            summary,
            rationale,
        })
    }

    pub(crate) async fn plan_correct(
        &self,
        ctx: &CallContext,
        params: PlanCorrectParams,
    ) -> Result<PlanCorrectResult, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Writer,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        if params.instruction.trim().is_empty() {
            return Err(FAMILY.invalid_params("instruction", "must not be empty"));
        }
        let _guard = self.plan_guard(&params.plan_id).await?;
        let (mut record, version) = self.load_plan(&ns, &params.plan_id).await?;
        let from = record.plan.revision;
        if !matches!(
            record.plan.state,
            PlanState::Created | PlanState::Completed | PlanState::Failed
        ) {
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
        let node_id = params.node_id.clone().filter(|n| !n.is_empty());
        if let Some(node) = &node_id {
            let known = node == "goal"
                || record
                    .steps
                    .iter()
                    .any(|s| *node == format!("n-{}", s.id) || *node == format!("n-{}-call", s.id));
            if !known {
                return Err(plan_error(format!(
                    "node `{node}` is not in the decision tree of revision {from}"
                )));
            }
        }
        let action_name = record.plan.action.clone();
        let action = self
            .reg_get(&ns, Kind::Action, &action_name)
            .await?
            .ok_or_else(|| plan_error(format!("Action `{action_name}` no longer exists")))?;
        let project = self
            .reg_get(&ns, Kind::Project, &record.plan.project)
            .await?
            .ok_or_else(|| plan_error(format!("Project `{}` no longer exists", record.plan.project)))?;
        let inputs = params
            .inputs
            .clone()
            .unwrap_or_else(|| record.plan.inputs.clone());
        if let Some(schema) = action.get("inputSchema") {
            check_schema(schema, &Value::Object(inputs.clone()), "inputs").map_err(|why| {
                plan_error(format!(
                    "the inputs do not satisfy the action's inputSchema: {why}"
                ))
            })?;
        }
        let steps = self.draft_steps(&ns, &action_name, &action).await?;
        let now = util::now();
        let to = from + 1;
        let correction = PlanCorrection {
            id: format!("cor-{:04}", record.corrections.len() + 1),
            plan_id: record.plan.id.clone(),
            from_revision: from,
            to_revision: to,
            instruction: params.instruction.clone(),
            node_id,
            created_at: now.clone(),
        };
        let old_steps = std::mem::replace(&mut record.steps, steps);
        record.past.push(PastRevision {
            revision: from,
            steps: old_steps,
        });
        record.revisions.push(PlanRevision {
            revision: to,
            created_at: now.clone(),
            correction_id: Some(correction.id.clone()),
            summary: params.instruction.clone(),
        });
        record.corrections.push(correction.clone());
        let plan = &mut record.plan;
        plan.revision = to;
        plan.state = PlanState::Created;
        plan.phase = PlanPhase::Strategize;
        plan.failure = None;
        plan.inputs = inputs;
        plan.base_project_revision = project["currentRevision"]
            .as_i64()
            .unwrap_or(plan.base_project_revision);
        plan.updated_at = now;
        record.exec = Default::default();
        record.usage = BudgetUsage {
            tokens: 0,
            tool_calls: 0,
            files_changed: 0,
            bytes_changed: 0,
        };
        self.save_plan(&ns, &record, version).await?;
        Ok(PlanCorrectResult {
            plan: record.plan,
            correction,
        })
    }
}

/// A request, carried by a message's data part, to start a plan in the
/// message's task (see [`plan_request`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanStart {
    pub action: String,
    pub project: String,
    pub inputs: Option<serde_json::Map<String, Value>>,
    pub automation_profile: Option<String>,
    pub title: Option<String>,
}

pub use crate::execution::plan_of_task;

/// The plan start request a message carries, if any.
///
/// The first data part that is a JSON object with an `"action"` member is
/// the request; its shape is
/// `{"action": string, "project": string, "inputs"?: object,
/// "automationProfile"?: string, "title"?: string}` (the fields of
/// `plan/use` without `namespace` and `contextId`, which come from the
/// message). `None` when no data part names an action; `Some(Err(why))` when
/// one does but is malformed (`why` names the offending field, e.g.
/// `project`, with its problem).
pub fn plan_request(message: &Message) -> Option<Result<PlanStart, (String, String)>> {
    let data = message.parts.iter().find_map(|p| match &p.content {
        a2a::types::PartContent::Data(Value::Object(d)) if d.contains_key("action") => Some(d),
        _ => None,
    })?;
    Some(parse_start(data))
}

fn parse_start(data: &serde_json::Map<String, Value>) -> Result<PlanStart, (String, String)> {
    let required = |name: &str| match data.get(name) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        _ => Err((name.to_string(), "must be a non-empty string".to_string())),
    };
    let optional = |name: &str| match data.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone()).filter(|s| !s.is_empty())),
        Some(_) => Err((name.to_string(), "must be a string".to_string())),
    };
    let inputs = match data.get("inputs") {
        None | Some(Value::Null) => None,
        Some(Value::Object(o)) => Some(o.clone()),
        Some(_) => return Err(("inputs".into(), "must be an object".into())),
    };
    Ok(PlanStart {
        action: required("action")?,
        project: required("project")?,
        inputs,
        automation_profile: optional("automationProfile")?,
        title: optional("title")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_subset_checks_types_required_and_extras() {
        let schema = json!({
            "type": "object",
            "required": ["version"],
            "properties": {
                "version": { "type": "string", "minLength": 1 },
                "count": { "type": "integer", "minimum": 0 },
                "mode": { "enum": ["fast", "slow"] },
                "tags": { "type": "array", "items": { "type": "string" } }
            },
            "additionalProperties": false
        });
        assert_eq!(
            check_schema(&schema, &json!({ "version": "1" }), "inputs"),
            Ok(())
        );
        assert_eq!(
            check_schema(&schema, &json!({}), "inputs"),
            Err("inputs.version is required".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({ "version": 2 }), "inputs"),
            Err("inputs.version must be of type string".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({ "version": "1", "count": -1 }), "inputs"),
            Err("inputs.count is below the minimum".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({ "version": "1", "mode": "warp" }), "inputs"),
            Err("inputs.mode must be one of [\"fast\",\"slow\"]".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({ "version": "1", "tags": ["a", 1] }), "inputs"),
            Err("inputs.tags[1] must be of type string".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({ "version": "1", "extra": true }), "inputs"),
            Err("inputs.extra is not allowed".into())
        );
    }

    #[test]
    fn plan_requests_come_from_data_parts_naming_an_action() {
        let message = |parts: Value| -> Message {
            serde_json::from_value(json!({ "messageId": "m", "role": "ROLE_USER", "parts": parts }))
                .unwrap_or_else(|e| panic!("message: {e}"))
        };
        assert_eq!(plan_request(&message(json!([{ "text": "hi" }]))), None);
        assert_eq!(
            plan_request(&message(json!([{ "data": { "decision": "x" } }]))),
            None
        );
        assert_eq!(
            plan_request(&message(json!([{ "text": "go" }, { "data": {
                "action": "a", "project": "p", "inputs": { "v": 1 }, "automationProfile": "auto" } }]))),
            Some(Ok(PlanStart {
                action: "a".into(),
                project: "p".into(),
                inputs: serde_json::from_value(json!({ "v": 1 })).ok(),
                automation_profile: Some("auto".into()),
                title: None,
            }))
        );
        assert_eq!(
            plan_request(&message(json!([{ "data": { "action": "a", "project": "" } }]))),
            Some(Err(("project".into(), "must be a non-empty string".into())))
        );
        assert_eq!(
            plan_request(&message(
                json!([{ "data": { "action": "a", "project": "p", "inputs": 3 } }])
            )),
            Some(Err(("inputs".into(), "must be an object".into())))
        );
    }

    #[test]
    fn cancel_follows_the_state_machine() {
        assert!(can_cancel(PlanState::Created));
        assert!(can_cancel(PlanState::Failed));
        assert!(!can_cancel(PlanState::Applied));
        assert!(!can_cancel(PlanState::Cancelled));
        assert!(!can_cancel(PlanState::RolledBack));
    }
}
