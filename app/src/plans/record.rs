//! The stored plan record and its state machine.
//!
//! A plan is one document of the `plan` collection keyed by its id: a
//! [`PlanRecord`] holding the wire [`Plan`] plus its steps, revisions, usage,
//! the budget snapshot of its automation profile and the execution state of
//! its current revision. Every change is a version-checked put, so a
//! concurrent change is refused (ExtInvalidState) instead of lost.
//!
//! The state machine is the one of the `PlanState` schema description:
//!
//! ```text
//! CREATED                    --execute-->        RUNNING
//! RUNNING                    --approval step-->  INPUT_REQUIRED --approve--> RUNNING
//! RUNNING                    --last step-->      COMPLETED (APPLIED with autoApply)
//! RUNNING | INPUT_REQUIRED   --failure, reject-> FAILED
//! COMPLETED                  --apply-->          APPLIED --rollback--> ROLLED_BACK
//! CREATED | COMPLETED | FAILED --correct-->      CREATED (next revision)
//! any but APPLIED, CANCELLED, ROLLED_BACK --cancel--> CANCELLED
//! ```
//!
//! Transitions several operations share are methods of [`PlanRecord`]; an
//! operation called in a state that does not allow it answers
//! ExtInvalidState naming the state (metadata `state`, see `expect_state`).

use super::PlanService;
use crate::store::{Commit, DocWrite, Expect, Internal, StoreError};
use crate::util::{from_json, to_json, Family};
use a2a::rpc::Error;
use a2a::types::{
    Budget, BudgetUsage, Plan, PlanArtifact, PlanCorrection, PlanFailure, PlanPrompt, PlanRevision,
    PlanState, PlanStep, PlanStepState,
};
use a2a::ErrorKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub(crate) const FAMILY: Family = Family::Ext;

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
    /// Execution state of the current revision.
    #[serde(default)]
    pub exec: ExecState,
    /// The artifacts of every revision, in production order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<PlanArtifact>,
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

/// The execution state of a plan's current revision (part of its record).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecState {
    /// Index of the next step to run.
    #[serde(default)]
    pub next_step: usize,
    /// True once the run announced its start.
    #[serde(default)]
    pub started: bool,
    /// Each step's arguments as the action declared them at execute.
    #[serde(default)]
    pub arguments: Vec<Value>,
    /// The action's validations, run after the last step.
    #[serde(default)]
    pub validations: Vec<String>,
    #[serde(default)]
    pub auto_approve: bool,
    #[serde(default)]
    pub auto_apply: bool,
    /// The virtual workspace: ProjectFile values, sorted by path.
    #[serde(default)]
    pub workspace: Vec<Value>,
    /// Text produced by TEMPLATE steps, by step id.
    #[serde(default)]
    pub outputs: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_prompt: Option<PlanPrompt>,
    /// Prompts already answered (answering again is ExtInvalidState).
    #[serde(default)]
    pub answered: Vec<String>,
    #[serde(default)]
    pub prompts: u32,
    /// Which agent runs the plan while it is RUNNING, and until when
    /// ([`super::lease`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<RunLease>,
}

/// The lease of a running plan's run (see [`super::lease`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunLease {
    /// The agent whose runner drives the plan.
    pub holder: String,
    /// Milliseconds since the Unix epoch after which another agent may take the run over.
    pub until_ms: i64,
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

/// True when plan/correct may start a new revision of a plan in `state`.
pub fn can_correct(state: PlanState) -> bool {
    matches!(
        state,
        PlanState::Created | PlanState::Completed | PlanState::Failed
    )
}

/// The wire name of a plan state.
pub fn state_name(state: PlanState) -> String {
    state.to_string()
}

/// Nothing used yet.
pub(crate) fn no_usage() -> BudgetUsage {
    BudgetUsage {
        tokens: 0,
        tool_calls: 0,
        files_changed: 0,
        bytes_changed: 0,
    }
}

/// ExtInvalidState for an operation the plan's `state` does not allow.
pub(crate) fn invalid_state(message: String, state: PlanState) -> Error {
    Error::new(ErrorKind::ExtInvalidState, message).with_metadata("state", state_name(state))
}

pub(crate) fn plan_error(message: String) -> Error {
    Error::new(ErrorKind::ExtPlanError, message)
}

/// Refuses with ExtInvalidState unless the plan is in `expected`.
pub(crate) fn expect_state(rec: &PlanRecord, expected: PlanState, what: &str) -> Result<(), Error> {
    if rec.plan.state == expected {
        return Ok(());
    }
    Err(invalid_state(
        format!(
            "Plan `{}` is {}; only {} plans can be {what}",
            rec.plan.id,
            state_name(rec.plan.state),
            state_name(expected).trim_start_matches("PLAN_STATE_")
        ),
        rec.plan.state,
    ))
}

impl PlanRecord {
    /// CREATED → RUNNING (phase EXECUTE) inside task `task_id`.
    pub(crate) fn start_running(&mut self, task_id: &str, now: String) {
        self.plan.state = PlanState::Running;
        self.plan.phase = a2a::types::PlanPhase::Execute;
        self.plan.task_id = Some(task_id.to_string());
        self.plan.failure = None;
        self.plan.updated_at = now;
    }

    /// → FAILED with `message`, naming the step that failed if any.
    pub(crate) fn fail(&mut self, message: &str, step_id: Option<String>) {
        self.plan.state = PlanState::Failed;
        self.plan.failure = Some(PlanFailure {
            message: message.to_string(),
            step_id,
        });
    }

    /// Step `i` ended FAILED with `message`.
    pub(crate) fn step_failed(&mut self, i: usize, message: &str, now: String) {
        self.steps[i].state = PlanStepState::Failed;
        self.steps[i].finished_at = Some(now);
        self.steps[i].message = Some(message.to_string());
    }

    /// Step `i` ended SUCCEEDED with `message`; the run goes on with the next.
    pub(crate) fn step_succeeded(&mut self, i: usize, message: String, now: String) {
        self.steps[i].state = PlanStepState::Succeeded;
        self.steps[i].finished_at = Some(now);
        self.steps[i].message = Some(message);
        self.exec.next_step = i + 1;
    }

    /// → CANCELLED; a pending prompt can no longer be answered.
    pub(crate) fn cancel(&mut self, reason: Option<String>, now: String) {
        self.plan.state = PlanState::Cancelled;
        self.plan.updated_at = now;
        self.cancel_reason = reason;
        self.exec.pending_prompt = None;
    }
}

/// Loads a plan record and its store version; ExtNotFound when absent.
pub(crate) async fn load(plans: &PlanService, ns: &str, plan_id: &str) -> Result<(PlanRecord, u64), Error> {
    let (n, key) = (ns.to_string(), plan_id.to_string());
    let doc = plans
        .db
        .store()
        .get_doc(COLL, &n, &key)
        .await
        .internal(FAMILY)?
        .ok_or_else(|| FAMILY.not_found(&format!("Plan `{plan_id}`")))?;
    Ok((from_json(doc.value, FAMILY)?, doc.version))
}

/// The write of `record` over the stored one at `version`.
pub(crate) fn put(ns: &str, record: &PlanRecord, version: u64) -> Result<DocWrite, Error> {
    Ok(DocWrite::put(
        COLL,
        ns,
        &record.plan.id,
        Expect::Version(version),
        to_json(record, FAMILY)?,
    ))
}

/// Writes a changed plan record if the stored one is still at `version`
/// (plan/cancel, plan/correct): a vanished plan is ExtNotFound.
pub(crate) async fn save(
    plans: &PlanService,
    ns: &str,
    record: &PlanRecord,
    version: u64,
) -> Result<(), Error> {
    let id = record.plan.id.clone();
    let commit = Commit {
        task: None,
        docs: vec![put(ns, record, version)?],
        ..Commit::default()
    };
    match plans.db.commit(commit).await {
        Ok(_) => Ok(()),
        Err(StoreError::Conflict { found: None, .. }) => Err(FAMILY.not_found(&format!("Plan `{id}`"))),
        Err(StoreError::Conflict { .. }) => Err(Error::new(
            ErrorKind::ExtInvalidState,
            format!("Plan `{id}` changed concurrently; retry"),
        )),
        Err(e) => Err(FAMILY.internal(e.to_string())),
    }
}

/// Commits plan (and project) documents together; any conflict is ExtInvalidState.
pub(crate) async fn commit(plans: &PlanService, commit: Commit, plan_id: &str) -> Result<(), Error> {
    match plans.db.commit(commit).await {
        Ok(_) => Ok(()),
        Err(StoreError::Conflict { .. }) => Err(Error::new(
            ErrorKind::ExtInvalidState,
            format!("Plan `{plan_id}` or its project changed concurrently; retry"),
        )),
        Err(e) => Err(FAMILY.internal(e.to_string())),
    }
}

/// The per-plan lock serializing a plan's operations (taken before any task lock).
pub(crate) async fn guard(
    plans: &PlanService,
    plan_id: &str,
) -> Result<tokio::sync::OwnedMutexGuard<()>, Error> {
    let lock = {
        let mut map = plans
            .locks
            .lock()
            .map_err(|_| FAMILY.internal("plan lock registry poisoned"))?;
        map.entry(plan_id.to_string()).or_default().clone()
    };
    Ok(lock.lock_owned().await)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_follows_the_state_machine() {
        assert!(can_cancel(PlanState::Created));
        assert!(can_cancel(PlanState::Failed));
        assert!(!can_cancel(PlanState::Applied));
        assert!(!can_cancel(PlanState::Cancelled));
        assert!(!can_cancel(PlanState::RolledBack));
    }
}
