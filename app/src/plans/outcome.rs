//! How a step ends: the plan failing for a step, and validations run into
//! the plan's artifacts with `validation.completed`. Both the runner and the
//! tools (a VALIDATE step) end steps this way.

use super::events::{emit, Out};
use super::record::PlanRecord;
use super::validation::run_validation;
use super::workspace::overlay;
use super::PlanService;
use crate::util;
use a2a::rpc::Error;
use a2a::types::{
    Artifact, Part, PartContent, PlanArtifact, PlanArtifactKind, PlanEventType, PlanState, TaskState,
    ValidationOutcome,
};
use serde_json::{json, Value};

/// How a step ended.
pub(crate) enum StepEnd {
    Next,
    Stop,
}

/// Step `i` failed: the plan and its task fail with `plan.error`.
pub(crate) async fn step_failed(
    plans: &PlanService,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
    i: usize,
    message: String,
) -> Result<StepEnd, Error> {
    let step_id = rec.steps[i].id.clone();
    rec.step_failed(i, &message, util::now());
    let message = format!("Step `{step_id}` failed: {message}");
    rec.fail(&message, Some(step_id.clone()));
    emit(
        plans,
        ns,
        rec,
        ver,
        Out::Status(TaskState::Failed, Some(message.clone())),
        PlanEventType::PlanError,
        json!({ "state": PlanState::Failed, "stepId": step_id, "message": message }),
    )
    .await?;
    Ok(StepEnd::Stop)
}

/// The tree the plan sees: the project at its base revision with the workspace over it.
async fn plan_files(plans: &PlanService, ns: &str, rec: &PlanRecord) -> Result<Vec<Value>, Error> {
    let (_, base) = plans
        .registry
        .project_files(ns, &rec.plan.project, Some(rec.plan.base_project_revision))
        .await?;
    Ok(overlay(&base, &rec.exec.workspace))
}

/// Runs validations as artifacts with `validation.completed`; the first ERROR failure.
pub(crate) async fn validate_into(
    plans: &PlanService,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
    names: &[String],
    step_id: Option<&str>,
) -> Result<Result<(), String>, Error> {
    let tree = plan_files(plans, ns, rec).await?;
    let mut failed = None;
    for name in names {
        let result = match run_validation(plans, ns, name, &tree, None).await {
            Ok(r) => r,
            Err(why) => return Ok(Err(why)),
        };
        if failed.is_none() && result.outcome == ValidationOutcome::Failed {
            failed = Some(format!(
                "validation `{name}` failed: {}",
                result.message.as_deref().unwrap_or_default()
            ));
        }
        let artifact_id = format!(
            "{}-r{}-{}-{name}",
            rec.plan.id,
            rec.plan.revision,
            step_id.unwrap_or("validations")
        );
        let data = json!(result);
        let artifact = Artifact {
            artifact_id,
            name: Some(name.clone()),
            description: None,
            extensions: vec![],
            metadata: None,
            parts: vec![Part {
                content: PartContent::Data(data.clone()),
                filename: None,
                media_type: None,
                metadata: None,
            }],
        };
        let mut fields = json!({ "validation": data });
        if let Some(s) = step_id {
            fields["stepId"] = json!(s);
        }
        rec.artifacts.push(PlanArtifact {
            kind: PlanArtifactKind::ValidationResult,
            revision: rec.plan.revision,
            step_id: step_id.map(str::to_string),
            path: None,
            artifact: artifact.clone(),
        });
        emit(
            plans,
            ns,
            rec,
            ver,
            Out::Artifact(artifact),
            PlanEventType::ValidationCompleted,
            fields,
        )
        .await?;
    }
    Ok(failed.map_or(Ok(()), Err))
}
