//! Where a plan's steps run: `plan/execute` and the runner behind it, the
//! plan's A2A task.
//!
//! `plan/execute` arms the plan (snapshots the action's step arguments,
//! validations and the automation profile's approval mode into the record),
//! creates the task (SUBMITTED; its metadata names the plan under the
//! extension URI) in the same commit that makes the plan RUNNING, and
//! returns. A detached runner then drives the steps in order. Every change of
//! the plan is committed **together with the task event announcing it** (one
//! atomic commit, [`emit`]), so the plan and its task never disagree, also
//! after a restart. Each status or artifact event carries a `PlanDomainEvent`
//! in its metadata under the extension URI, whose `seq` is the event's own
//! per-task sequence number.
//!
//! A runner holds the plan's lock for one step at a time and stops when it
//! finds the plan no longer RUNNING (waiting for an answer, cancelled). Plans
//! left RUNNING by a crash are picked up again by [`App::resume_plans`].

use super::record::{self, expect_state, load, no_usage, plan_error, PlanRecord, COLL, FAMILY};
use super::template::render_value;
use super::tools::{self, Call, Outcome};
use super::validation::{field, run_validation};
use super::workspace::{changed_files, overlay};
use crate::app::App;
use crate::registry::Kind;
use crate::tasks::{artifact_change, status_change};
use crate::util::{self, from_json, namespace_of, require, EXTENSION_URI};
use a2a::rpc::{Access, CallContext, Error};
use a2a::types::{
    ApprovalMode, Artifact, Message, Part, PartContent, PlanArtifact, PlanArtifactKind, PlanEventType,
    PlanExecuteParams, PlanExecution, PlanPhase, PlanState, PlanStepState, Role, Task, TaskState, TaskStatus,
    ToolKind, ValidationOutcome,
};
use a2a::ErrorKind;
use serde_json::{json, Map, Value};

/// What a plan event does to its task.
pub(crate) enum Out {
    Status(TaskState, Option<String>),
    Artifact(Artifact),
}

/// How a step ended.
pub(crate) enum StepEnd {
    Next,
    Stop,
}

fn agent_text(text: &str) -> Message {
    Message {
        message_id: util::new_id(),
        context_id: None,
        task_id: None,
        role: Role::Agent,
        parts: vec![crate::executor::text_part(text)],
        metadata: None,
        extensions: vec![],
        reference_task_ids: vec![],
    }
}

/// The task metadata naming the plan a task executes.
pub(crate) fn plan_metadata(plan_id: &str, revision: i64) -> Map<String, Value> {
    let mut metadata = Map::new();
    metadata.insert(
        EXTENSION_URI.into(),
        json!({ "planId": plan_id, "revision": revision }),
    );
    metadata
}

/// Commits the plan record together with one task event carrying the domain
/// event `event` (with `fields`); `ver` follows the stored record.
pub(crate) async fn emit(
    app: &App,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
    out: Out,
    event: PlanEventType,
    fields: Value,
) -> Result<(), Error> {
    let now = util::now();
    rec.plan.updated_at = now.clone();
    let mut domain = json!({
        "event": event, "planId": rec.plan.id, "revision": rec.plan.revision,
        "seq": 0, "occurredAt": now,
    });
    if let (Some(d), Some(f)) = (domain.as_object_mut(), fields.as_object()) {
        d.extend(f.clone());
    }
    let mut metadata = Map::new();
    metadata.insert(EXTENSION_URI.into(), domain);
    let task_id = rec
        .plan
        .task_id
        .clone()
        .ok_or_else(|| FAMILY.internal("a running plan without a task"))?;
    let doc = record::put(ns, rec, *ver)?;
    app.mutate_with(ns, &task_id, vec![doc], move |task| match out {
        Out::Status(state, text) => {
            status_change(task, state, text.as_deref().map(agent_text), Some(metadata))
        }
        Out::Artifact(artifact) => artifact_change(task, artifact, false, Some(true), Some(metadata)),
    })
    .await?;
    *ver += 1;
    Ok(())
}

/// Prepares a CREATED plan for a run: checks the action still matches the
/// plan's steps and every tool is runnable, then snapshots the step
/// arguments, validations and the profile's approval mode and resets the
/// steps, usage and this revision's artifacts. Changes only `rec`.
pub(crate) async fn arm(app: &App, ns: &str, rec: &mut PlanRecord) -> Result<(), Error> {
    let action = app
        .reg_get(ns, Kind::Action, &rec.plan.action)
        .await?
        .ok_or_else(|| plan_error(format!("Action `{}` no longer exists", rec.plan.action)))?;
    let action_steps = action["steps"].as_array().cloned().unwrap_or_default();
    let same = action_steps.len() == rec.steps.len()
        && action_steps
            .iter()
            .zip(&rec.steps)
            .all(|(a, s)| a["id"] == s.id.as_str() && a["tool"] == s.tool.as_str());
    if !same {
        return Err(plan_error(format!(
            "Action `{}` changed since the plan was drafted; correct the plan first",
            rec.plan.action
        )));
    }
    for step in &rec.steps {
        let tool = app.reg_get(ns, Kind::Tool, &step.tool).await?.ok_or_else(|| {
            plan_error(format!(
                "step `{}` uses tool `{}`, which does not exist",
                step.id, step.tool
            ))
        })?;
        if field(&tool, "kind") == Some(ToolKind::External) {
            return Err(plan_error(format!(
                "step `{}` uses the EXTERNAL tool `{}`, which this server cannot run",
                step.id, step.tool
            )));
        }
    }
    let (mut auto_approve, mut auto_apply) = (false, false);
    if let Some(name) = &rec.plan.automation_profile {
        let profile = app
            .reg_get(ns, Kind::AutomationProfile, name)
            .await?
            .ok_or_else(|| plan_error(format!("Automation profile `{name}` no longer exists")))?;
        auto_approve = field(&profile, "approvalMode") == Some(ApprovalMode::Auto);
        auto_apply = profile["autoApply"].as_bool().unwrap_or(false);
    }
    rec.exec = record::ExecState {
        arguments: action_steps
            .iter()
            .map(|s| s.get("arguments").cloned().unwrap_or(json!({})))
            .collect(),
        validations: action["validations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        auto_approve,
        auto_apply,
        ..Default::default()
    };
    for step in &mut rec.steps {
        step.state = PlanStepState::Pending;
        step.started_at = None;
        step.finished_at = None;
        step.message = None;
    }
    rec.usage = no_usage();
    // Artifacts of an earlier execution of this revision are superseded.
    let revision = rec.plan.revision;
    rec.artifacts.retain(|a| a.revision != revision);
    Ok(())
}

/// Fails a running plan and its task for an unexpected error.
async fn fail_plan(app: &App, ns: &str, plan_id: &str, message: &str) {
    let Ok(_guard) = record::guard(app, plan_id).await else {
        return;
    };
    let Ok((mut rec, mut ver)) = load(app, ns, plan_id).await else {
        return;
    };
    if rec.plan.state != PlanState::Running {
        return;
    }
    rec.fail(message, None);
    let step_id: Option<String> = None;
    // The task may already be terminal (e.g. cancelled): nothing more to say then.
    let _ = emit(
        app,
        ns,
        &mut rec,
        &mut ver,
        Out::Status(TaskState::Failed, Some(message.to_string())),
        PlanEventType::PlanError,
        json!({ "state": PlanState::Failed, "message": message, "stepId": step_id }),
    )
    .await;
}

/// Drives a RUNNING plan until it waits, fails or completes.
pub(crate) async fn run_plan(app: &App, ns: &str, plan_id: &str) {
    if let Err(error) = drive(app, ns, plan_id).await {
        fail_plan(app, ns, plan_id, &error.message).await;
    }
}

/// Runs [`run_plan`] detached.
pub(crate) fn spawn_run(app: &App, ns: String, plan_id: String) -> Result<(), Error> {
    let app = app.arc()?;
    tokio::spawn(async move { run_plan(&app, &ns, &plan_id).await });
    Ok(())
}

async fn drive(app: &App, ns: &str, plan_id: &str) -> Result<(), Error> {
    // Bounded: every iteration finishes a step or stops.
    loop {
        let _guard = record::guard(app, plan_id).await?;
        let (mut rec, mut ver) = load(app, ns, plan_id).await?;
        if rec.plan.state != PlanState::Running {
            return Ok(());
        }
        if !rec.exec.started {
            rec.exec.started = true;
            emit(
                app,
                ns,
                &mut rec,
                &mut ver,
                Out::Status(TaskState::Working, None),
                PlanEventType::PlanPhaseChanged,
                json!({ "phase": PlanPhase::Execute }),
            )
            .await?;
        }
        let i = rec.exec.next_step;
        if i >= rec.steps.len() {
            return finish(app, ns, &mut rec, &mut ver).await;
        }
        match run_step(app, ns, &mut rec, &mut ver, i).await? {
            StepEnd::Next => continue,
            StepEnd::Stop => return Ok(()),
        }
    }
}

/// Step `i` failed: the plan and its task fail with `plan.error`.
pub(crate) async fn step_failed(
    app: &App,
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
        app,
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
async fn plan_files(app: &App, ns: &str, rec: &PlanRecord) -> Result<Vec<Value>, Error> {
    let (_, base) = app
        .project_files(ns, &rec.plan.project, Some(rec.plan.base_project_revision))
        .await?;
    Ok(overlay(&base, &rec.exec.workspace))
}

/// Runs validations as artifacts with `validation.completed`; the first ERROR failure.
pub(crate) async fn validate_into(
    app: &App,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
    names: &[String],
    step_id: Option<&str>,
) -> Result<Result<(), String>, Error> {
    let tree = plan_files(app, ns, rec).await?;
    let mut failed = None;
    for name in names {
        let result = match run_validation(app, ns, name, &tree, None).await {
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
            app,
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

/// Starts step `i`: RUNNING with `tool.invoked`, then its tool call with the
/// arguments rendered and checked; `Err` is why the step fails before its
/// tool runs.
async fn prepare_step(
    app: &App,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
    i: usize,
) -> Result<Result<Call, String>, Error> {
    let step = rec.steps[i].clone();
    rec.steps[i].state = PlanStepState::Running;
    rec.steps[i].started_at = Some(util::now());
    rec.usage.tool_calls += 1;
    emit(
        app,
        ns,
        rec,
        ver,
        Out::Status(TaskState::Working, None),
        PlanEventType::ToolInvoked,
        json!({ "stepId": step.id, "tool": step.tool }),
    )
    .await?;
    let Some(tool) = app.reg_get(ns, Kind::Tool, &step.tool).await? else {
        return Ok(Err(format!("tool `{}` no longer exists", step.tool)));
    };
    let raw = rec.exec.arguments.get(i).cloned().unwrap_or(json!({}));
    let args = match render_value(&raw, &rec.plan.inputs, &rec.exec.outputs) {
        Ok(a) => a,
        Err(why) => return Ok(Err(why)),
    };
    if let Err(why) = tools::check_arguments(&tool, &args) {
        return Ok(Err(why));
    }
    Ok(Ok(Call {
        artifact_id: format!("{}-r{}-{}", rec.plan.id, rec.plan.revision, step.id),
        revision: rec.plan.revision,
        config: tool.get("config").cloned().unwrap_or(json!({})),
        kind: tool["kind"].clone(),
        step,
        args,
    }))
}

async fn run_step(
    app: &App,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
    i: usize,
) -> Result<StepEnd, Error> {
    let call = match prepare_step(app, ns, rec, ver, i).await? {
        Ok(call) => call,
        Err(why) => return step_failed(app, ns, rec, ver, i, why).await,
    };
    let tool_fields = json!({ "stepId": call.step.id, "tool": call.step.tool });
    match tools::run(&call, &rec.plan.inputs, &rec.exec.outputs) {
        Outcome::Failed(why) => step_failed(app, ns, rec, ver, i, why).await,
        Outcome::Produced(produced) => {
            let artifact = produced.artifact.artifact.clone();
            tools::record_output(rec, i, &call.step.id, produced);
            emit(
                app,
                ns,
                rec,
                ver,
                Out::Artifact(artifact),
                PlanEventType::ToolCompleted,
                tool_fields,
            )
            .await?;
            Ok(StepEnd::Next)
        }
        Outcome::Approval { question } => tools::approval(app, ns, rec, ver, i, question).await,
        Outcome::Validate(names) => tools::run_validations(app, ns, rec, ver, i, names).await,
    }
}

/// After the last step: the action's validations, REVIEW, optional auto-apply, COMPLETED.
async fn finish(app: &App, ns: &str, rec: &mut PlanRecord, ver: &mut u64) -> Result<(), Error> {
    let names = rec.exec.validations.clone();
    if let Err(why) = validate_into(app, ns, rec, ver, &names, None).await? {
        rec.fail(&why, None);
        return emit(
            app,
            ns,
            rec,
            ver,
            Out::Status(TaskState::Failed, Some(why.clone())),
            PlanEventType::PlanError,
            json!({ "state": PlanState::Failed, "message": why }),
        )
        .await;
    }
    let (_, current) = app.project_files(ns, &rec.plan.project, None).await?;
    let (changed, bytes) = changed_files(&current, &rec.exec.workspace);
    rec.usage.files_changed = changed;
    rec.usage.bytes_changed = bytes;
    rec.plan.phase = PlanPhase::Review;
    emit(
        app,
        ns,
        rec,
        ver,
        Out::Status(TaskState::Working, None),
        PlanEventType::PlanPhaseChanged,
        json!({ "phase": PlanPhase::Review }),
    )
    .await?;
    rec.plan.state = PlanState::Completed;
    let note = if rec.exec.auto_apply {
        auto_apply(app, ns, rec, ver).await?
    } else {
        None
    };
    let mut fields = json!({ "state": rec.plan.state, "phase": rec.plan.phase });
    if let Some(n) = &note {
        fields["message"] = json!(n);
    }
    emit(
        app,
        ns,
        rec,
        ver,
        Out::Status(TaskState::Completed, note),
        PlanEventType::PlanStateChanged,
        fields,
    )
    .await
}

/// The automation profile's auto-apply of a COMPLETED plan; a refusal (budget,
/// invariants) leaves it COMPLETED and is the returned note.
async fn auto_apply(
    app: &App,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
) -> Result<Option<String>, Error> {
    match super::apply::apply(app, ns, rec, ver, None, None).await {
        Ok(result) => {
            emit(
                app,
                ns,
                rec,
                ver,
                Out::Status(TaskState::Working, None),
                PlanEventType::PlanApplyCompleted,
                json!({ "state": PlanState::Applied, "phase": PlanPhase::Apply,
                        "projectRevision": result.revision.revision }),
            )
            .await?;
            Ok(None)
        }
        Err(e)
            if matches!(
                e.kind(),
                Some(ErrorKind::ExtBudgetExceeded | ErrorKind::ExtPlanError)
            ) =>
        {
            Ok(Some(format!("Automatic apply refused: {}", e.message)))
        }
        Err(e) => Err(e),
    }
}

impl App {
    pub(crate) async fn plan_execute(
        &self,
        ctx: &CallContext,
        params: PlanExecuteParams,
    ) -> Result<PlanExecution, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Writer,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let _guard = record::guard(self, &params.plan_id).await?;
        let (mut rec, ver) = load(self, &ns, &params.plan_id).await?;
        expect_state(&rec, PlanState::Created, "executed")?;
        arm(self, &ns, &mut rec).await?;
        let task_id = util::new_id();
        let now = util::now();
        rec.start_running(&task_id, now.clone());
        let task = Task {
            id: task_id.clone(),
            context_id: Some(rec.plan.context_id.clone()),
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: Some(now),
            },
            artifacts: vec![],
            history: vec![],
            metadata: Some(plan_metadata(&rec.plan.id, rec.plan.revision)),
        };
        let doc = record::put(&ns, &rec, ver)?;
        let (_first, rx) = self.create_task(&ns, task, vec![doc]).await?;
        drop(rx);
        spawn_run(self, ns.clone(), rec.plan.id.clone())?;
        Ok(PlanExecution {
            context_id: rec.plan.context_id.clone(),
            plan: rec.plan,
            task_id,
        })
    }

    /// Restarts the runners of plans left RUNNING (by a crash or a shutdown
    /// mid-run); the agent calls it once at start-up. A step that was under
    /// way runs again from its start. Returns how many runs were resumed.
    pub async fn resume_plans(self: &std::sync::Arc<Self>) -> Result<usize, Error> {
        let namespaces = self.db(FAMILY, |s| s.namespaces()).await?;
        let mut resumed = 0;
        for ns in namespaces {
            let n = ns.clone();
            let docs = self
                .db(FAMILY, move |s| s.list_docs(COLL, &n, "", None, usize::MAX))
                .await?;
            for doc in docs {
                // An unreadable record is reported by diagnostics, not here.
                let Ok(rec) = from_json::<PlanRecord>(doc.value, FAMILY) else {
                    continue;
                };
                if rec.plan.state == PlanState::Running && rec.plan.task_id.is_some() {
                    spawn_run(self, ns.clone(), rec.plan.id.clone())?;
                    resumed += 1;
                }
            }
        }
        Ok(resumed)
    }
}
