//! The read side of plans: `plan/status`, `list`, `tree`, `explain` and
//! `artifacts`. Nothing here changes a plan.
//!
//! The decision tree is derived from the steps: the GOAL, then one node per
//! step in order (`n-<stepId>`; an approval or validation tool makes it an
//! APPROVAL or VALIDATION leaf, any other tool a STEP with a TOOL_CALL child
//! `n-<stepId>-call`). Earlier revisions answer from the steps kept when
//! they were corrected.

use super::field;
use super::record::{load, PlanRecord, COLL, FAMILY};
use super::PlanService;
use crate::namespaces::{decode_cursor_value, encode_cursor_value, page_limit};
use crate::store::Internal;
use crate::util::from_json;
use a2a::rpc::Error;
use a2a::types::RegistryKind;
use a2a::types::{
    DecisionNode, DecisionNodeKind, Plan, PlanArtifactList, PlanArtifactsParams, PlanExplainParams,
    PlanExplanation, PlanList, PlanListParams, PlanRationale, PlanState, PlanStatus, PlanStatusParams,
    PlanStep, PlanTree, PlanTreeParams, ToolKind,
};
use serde_json::json;

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

/// The decision tree of `steps`: the GOAL with one node per step, in order.
async fn decision_tree(plans: &PlanService, plan: &Plan, steps: &[PlanStep]) -> Result<DecisionNode, Error> {
    let total = steps.len();
    let mut children = Vec::with_capacity(total);
    for (i, step) in steps.iter().enumerate() {
        let tool_kind = plans
            .registry
            .get(&plan.namespace, RegistryKind::Tool, &step.tool)
            .await?
            .and_then(|t| field::<ToolKind>(&t, "kind"));
        let kind = match tool_kind {
            Some(ToolKind::Approval) => DecisionNodeKind::Approval,
            Some(ToolKind::RunValidation) => DecisionNodeKind::Validation,
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

/// The explanation of revision `revision` with `steps`, for the whole plan
/// (`node_id` none or `goal`) or one node.
fn explain(
    plan: &Plan,
    revision: i64,
    steps: &[PlanStep],
    node_id: Option<String>,
) -> Result<PlanExplanation, Error> {
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
    let (summary, rationale) = match node_id.as_deref() {
        None | Some("goal") => (
            format!(
                "Plan `{}` (revision {revision}) runs action `{}` on project `{}` at project revision {} in {total} step(s): {}.",
                plan.id,
                plan.action,
                plan.project,
                plan.base_project_revision,
                steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
            ),
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
            (
                format!(
                    "{}: step {} of {total}, using tool `{}`, is {}.",
                    step.name,
                    i + 1,
                    step.tool,
                    step.state
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

/// `plan/status`.
pub(crate) async fn status(
    plans: &PlanService,
    ns: &str,
    params: PlanStatusParams,
) -> Result<PlanStatus, Error> {
    let (record, _) = load(plans, ns, &params.plan_id).await?;
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

/// `plan/list`: filtered, newest first, by cursor.
pub(crate) async fn list(plans: &PlanService, ns: &str, params: PlanListParams) -> Result<PlanList, Error> {
    let limit = page_limit(params.limit)?;
    let before = match decode_cursor_value(params.cursor.as_deref())? {
        None => None,
        Some(cursor) => match (cursor["before"].as_str(), cursor["id"].as_str()) {
            (Some(at), Some(id)) => Some((at.to_string(), id.to_string())),
            _ => return Err(FAMILY.invalid_params("cursor", "is not a cursor this server issued")),
        },
    };
    let n = ns.to_string();
    let docs = plans
        .db
        .store()
        .list_docs(COLL, &n, "", None, usize::MAX)
        .await
        .internal(FAMILY)?;
    let mut found = Vec::with_capacity(docs.len());
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
            found.push(plan);
        }
    }
    // Newest first; the id breaks ties so paging is stable.
    found.sort_by(|a, b| (&b.created_at, &b.id).cmp(&(&a.created_at, &a.id)));
    let more = found.len() > limit;
    found.truncate(limit);
    let next_cursor = if more {
        found
            .last()
            .map(|p| encode_cursor_value(&json!({ "before": p.created_at, "id": p.id })))
    } else {
        None
    };
    Ok(PlanList {
        items: found,
        next_cursor,
    })
}

/// `plan/tree` of the current or an earlier revision.
pub(crate) async fn tree(plans: &PlanService, ns: &str, params: PlanTreeParams) -> Result<PlanTree, Error> {
    let (record, _) = load(plans, ns, &params.plan_id).await?;
    let (revision, steps) = steps_of(&record, params.revision)?;
    Ok(PlanTree {
        plan_id: record.plan.id.clone(),
        revision,
        root: decision_tree(plans, &record.plan, &steps).await?,
    })
}

/// `plan/explain` of the whole plan or one node.
pub(crate) async fn explanation(
    plans: &PlanService,
    ns: &str,
    params: PlanExplainParams,
) -> Result<PlanExplanation, Error> {
    let (record, _) = load(plans, ns, &params.plan_id).await?;
    let (revision, steps) = steps_of(&record, params.revision)?;
    let node_id = params.node_id.clone().filter(|n| !n.is_empty());
    explain(&record.plan, revision, &steps, node_id)
}

/// `plan/artifacts` of the current or an earlier revision.
pub(crate) async fn artifacts(
    plans: &PlanService,
    ns: &str,
    params: PlanArtifactsParams,
) -> Result<PlanArtifactList, Error> {
    let (rec, _) = load(plans, ns, &params.plan_id).await?;
    let revision = params.revision.unwrap_or(rec.plan.revision);
    if revision != rec.plan.revision && !rec.past.iter().any(|p| p.revision == revision) {
        return Err(FAMILY.not_found(&format!("revision {revision} of plan `{}`", rec.plan.id)));
    }
    let items = rec
        .artifacts
        .iter()
        .filter(|a| a.revision == revision)
        .cloned()
        .collect();
    Ok(PlanArtifactList {
        plan_id: rec.plan.id.clone(),
        revision,
        items,
    })
}
