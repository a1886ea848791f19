//! Applying a plan to its project and rolling it back (`plan/apply`,
//! `plan/rollback`).
//!
//! Apply checks the expected project revision, the budget (tokens =
//! ceil(UTF-8 bytes / 4) of generated content, tool calls, files and bytes
//! the apply writes) and the namespace's invariants on the tree the apply
//! would produce (a FAILED validation of a BLOCK invariant refuses the apply
//! with ExtPlanError; failures of WARN invariants are reported as WARNED),
//! then commits the new project revision, the project entity and the plan in
//! one transaction. Rollback restores the revision before the apply as a new
//! revision, if the project has not moved on since. The schema leaves the
//! default revision message open: it is `Applied plan <id> (action
//! <action>)` / `Rolled back plan <id>`.

use super::field;
use super::record::{self, expect_state, load, plan_error, PlanRecord, FAMILY};
use super::validation::run_validation;
use super::workspace::{changed_files, overlay};
use super::PlanService;
use crate::registry::{self, file_infos, revision_key, PROJECT_REV};
use crate::store::{Commit, DocWrite, Expect, Internal};
use crate::util::{self, from_json};
use a2a::rpc::Error;
use a2a::types::RegistryKind;
use a2a::types::{
    Budget, BudgetUsage, InvariantEnforcement, PlanApplyParams, PlanApplyResult, PlanPhase,
    PlanRollbackParams, PlanRollbackResult, PlanState, ProjectRevision, ProjectRevisionOrigin,
    ValidationOutcome, ValidationResult,
};
use a2a::ErrorKind;
use serde_json::{json, Value};

/// A new project revision to write.
struct RevisionWrite {
    next: i64,
    parent: i64,
    origin: ProjectRevisionOrigin,
    message: String,
    now: String,
    files: Vec<Value>,
    changes: Vec<Value>,
}

/// ExtBudgetExceeded naming the first limit `usage` goes over.
fn check_budget(plan_id: &str, budget: &Budget, usage: &BudgetUsage) -> Result<(), Error> {
    let over = [
        ("tokens", usage.tokens, budget.max_tokens),
        (
            "tool calls",
            i64::from(usage.tool_calls),
            budget.max_tool_calls.map(i64::from),
        ),
        (
            "files changed",
            i64::from(usage.files_changed),
            budget.max_files_changed.map(i64::from),
        ),
        ("bytes changed", usage.bytes_changed, budget.max_bytes_changed),
    ];
    match over.iter().find(|(_, used, max)| max.is_some_and(|m| *used > m)) {
        None => Ok(()),
        Some((what, used, max)) => Err(Error::new(
            ErrorKind::ExtBudgetExceeded,
            format!(
                "Plan `{plan_id}` would exceed its budget: {used} {what}, at most {} allowed",
                max.unwrap_or_default()
            ),
        )),
    }
}

/// Refuses unless the project is at `expected` (when given).
fn check_revision(project: &str, current: i64, expected: Option<i64>) -> Result<(), Error> {
    match expected {
        Some(e) if e != current => Err(Error::new(
            ErrorKind::ExtInvalidState,
            format!("Project `{project}` is at revision {current}, not the expected {e}"),
        )
        .with_metadata("currentRevision", current.to_string())),
        _ => Ok(()),
    }
}

/// Writes a COMPLETED plan's workspace into its project (checks, then one
/// commit); `ver` follows the stored record.
pub(crate) async fn apply(
    plans: &PlanService,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
    expected: Option<i64>,
    message: Option<String>,
) -> Result<PlanApplyResult, Error> {
    let project = rec.plan.project.clone();
    let mut entity = plans
        .registry
        .get(ns, RegistryKind::Project, &project)
        .await?
        .ok_or_else(|| FAMILY.not_found(&format!("Project `{project}`")))?;
    let project_version = entity["version"].as_u64().unwrap_or(0);
    let (current_rev, current) = plans.registry.project_files(ns, &project, None).await?;
    check_revision(&project, current_rev, expected)?;
    let (files_changed, bytes_changed) = changed_files(&current, &rec.exec.workspace);
    let mut usage = rec.usage.clone();
    usage.files_changed = files_changed;
    usage.bytes_changed = bytes_changed;
    if let Some(budget) = &rec.budget {
        check_budget(&rec.plan.id, budget, &usage)?;
    }
    let new_files = overlay(&current, &rec.exec.workspace);
    let validations = check_invariants(plans, ns, &project, &new_files).await?;
    let next = current_rev + 1;
    let now = util::now();
    let message = message
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| format!("Applied plan {} (action {})", rec.plan.id, rec.plan.action));
    let changes = registry::changes(&current, &new_files);
    rec.plan.state = PlanState::Applied;
    rec.plan.phase = PlanPhase::Apply;
    rec.plan.applied_project_revision = Some(next);
    rec.plan.updated_at = now.clone();
    rec.applied_parent = Some(current_rev);
    rec.usage = usage.clone();
    let write = RevisionWrite {
        next,
        parent: current_rev,
        origin: ProjectRevisionOrigin::PlanApplied,
        message,
        now,
        files: new_files,
        changes,
    };
    let revision = write_revision(plans, ns, rec, *ver, &mut entity, project_version, write).await?;
    *ver += 1;
    Ok(PlanApplyResult {
        plan: rec.plan.clone(),
        revision,
        validations,
        usage,
    })
}

/// Runs the namespace's invariants for `project` on `tree`; a BLOCK violation is ExtPlanError.
async fn check_invariants(
    plans: &PlanService,
    ns: &str,
    project: &str,
    tree: &[Value],
) -> Result<Vec<ValidationResult>, Error> {
    let n = ns.to_string();
    let invariants = plans
        .db
        .store()
        .list_docs(
            RegistryKind::Invariant.descriptor().name,
            &n,
            "",
            None,
            usize::MAX,
        )
        .await
        .internal(FAMILY)?;
    let mut results = vec![];
    let mut blocked = vec![];
    for doc in invariants {
        let inv = doc.value;
        let name = inv["name"].as_str().unwrap_or(&doc.key).to_string();
        let projects: Vec<&str> = inv["projects"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !projects.is_empty() && !projects.contains(&project) {
            continue;
        }
        let block = field(&inv, "enforcement") == Some(InvariantEnforcement::Block);
        for v in inv["validations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let mut result = run_validation(plans, ns, v, tree, Some(&name))
                .await
                .map_err(|why| plan_error(format!("invariant `{name}`: {why}")))?;
            if result.outcome == ValidationOutcome::Failed {
                if block {
                    blocked.push(format!(
                        "invariant `{name}` failed validation `{v}`: {}",
                        result.message.as_deref().unwrap_or_default()
                    ));
                } else {
                    result.outcome = ValidationOutcome::Warned;
                }
            }
            results.push(result);
        }
    }
    if !blocked.is_empty() {
        return Err(plan_error(format!(
            "The apply would break {}",
            blocked.join("; ")
        )));
    }
    Ok(results)
}

/// Commits a new project revision, the project entity and the plan together.
async fn write_revision(
    plans: &PlanService,
    ns: &str,
    rec: &PlanRecord,
    plan_version: u64,
    entity: &mut Value,
    project_version: u64,
    w: RevisionWrite,
) -> Result<ProjectRevision, Error> {
    let project = rec.plan.project.clone();
    if let Some(e) = entity.as_object_mut() {
        e.remove("version");
        e.insert("files".into(), json!(file_infos(&w.files)));
        e.insert("currentRevision".into(), json!(w.next));
        e.insert("updatedAt".into(), json!(w.now));
    }
    let summary = ProjectRevision {
        project: project.clone(),
        revision: w.next,
        parent_revision: Some(w.parent),
        origin: w.origin,
        plan_id: Some(rec.plan.id.clone()),
        message: Some(w.message.clone()),
        created_at: w.now.clone(),
        file_count: i32::try_from(w.files.len()).unwrap_or(i32::MAX),
        changes: from_json(json!(w.changes), FAMILY)?,
    };
    let commit = Commit {
        task: None,
        docs: vec![
            DocWrite::put(
                RegistryKind::Project.descriptor().name,
                ns,
                &project,
                Expect::Version(project_version),
                entity.clone(),
            ),
            DocWrite::put(
                PROJECT_REV,
                ns,
                &revision_key(&project, w.next),
                Expect::Absent,
                json!({ "revision": w.next, "parentRevision": w.parent, "origin": w.origin,
                        "planId": rec.plan.id, "message": w.message, "createdAt": w.now,
                        "files": w.files, "changes": w.changes }),
            ),
            record::put(ns, rec, plan_version)?,
        ],
        ..Commit::default()
    };
    record::commit(plans, commit, &rec.plan.id).await?;
    Ok(summary)
}

/// `plan/apply`: only a COMPLETED plan is applied.
pub(crate) async fn apply_plan(
    plans: &PlanService,
    ns: &str,
    params: PlanApplyParams,
) -> Result<PlanApplyResult, Error> {
    let _guard = record::guard(plans, &params.plan_id).await?;
    let (mut rec, mut ver) = load(plans, ns, &params.plan_id).await?;
    expect_state(&rec, PlanState::Completed, "applied")?;
    apply(
        plans,
        ns,
        &mut rec,
        &mut ver,
        params.expected_project_revision,
        params.message.clone(),
    )
    .await
}

/// `plan/rollback`: only an APPLIED plan whose project has not moved on since.
pub(crate) async fn rollback(
    plans: &PlanService,
    ns: &str,
    params: PlanRollbackParams,
) -> Result<PlanRollbackResult, Error> {
    let _guard = record::guard(plans, &params.plan_id).await?;
    let (mut rec, ver) = load(plans, ns, &params.plan_id).await?;
    expect_state(&rec, PlanState::Applied, "rolled back")?;
    let project = rec.plan.project.clone();
    let mut entity = plans
        .registry
        .get(ns, RegistryKind::Project, &project)
        .await?
        .ok_or_else(|| FAMILY.not_found(&format!("Project `{project}`")))?;
    let project_version = entity["version"].as_u64().unwrap_or(0);
    let (current_rev, current) = plans.registry.project_files(ns, &project, None).await?;
    let applied = rec.plan.applied_project_revision.unwrap_or_default();
    if current_rev != applied {
        return Err(Error::new(
            ErrorKind::ExtInvalidState,
            format!(
                "Project `{project}` moved on to revision {current_rev} after the apply (revision {applied}); it cannot be rolled back"
            ),
        )
        .with_metadata("currentRevision", current_rev.to_string()));
    }
    let restored = rec.applied_parent.unwrap_or(applied - 1);
    let (_, files) = plans.registry.project_files(ns, &project, Some(restored)).await?;
    let now = util::now();
    let message = params
        .message
        .clone()
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| format!("Rolled back plan {}", rec.plan.id));
    let changes = registry::changes(&current, &files);
    rec.plan.state = PlanState::RolledBack;
    rec.plan.updated_at = now.clone();
    let write = RevisionWrite {
        next: current_rev + 1,
        parent: current_rev,
        origin: ProjectRevisionOrigin::PlanRolledBack,
        message,
        now,
        files,
        changes,
    };
    let revision = write_revision(plans, ns, &rec, ver, &mut entity, project_version, write).await?;
    Ok(PlanRollbackResult {
        plan: rec.plan,
        restored_revision: restored,
        revision,
    })
}
