//! The plan's side of its A2A task: every change of a plan is committed
//! **together with the task event announcing it** (one atomic commit), so
//! the plan and its task never disagree, also after a restart. Each status or
//! artifact event carries a `PlanDomainEvent` in its metadata under the
//! extension URI, whose `seq` the task engine fills in with the event's own
//! per-task sequence number.

use super::record::{self, PlanRecord, FAMILY};
use super::PlanService;
use crate::tasks::{artifact_change, status_change, Change};
use crate::util::{self, EXTENSION_URI};
use a2a::rpc::Error;
use a2a::types::{Artifact, Message, PlanEventType, PlanStep, Role, Task, TaskState};
use serde_json::{json, Map, Value};

/// What a plan event does to its task.
pub(crate) enum Out {
    Status(TaskState, Option<String>),
    Artifact(Artifact),
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

/// The status event that opens a plan's part of its task: `plan.created`,
/// naming the revision the task runs, with the task's state unchanged. It is
/// committed with whatever gives the plan its task, so a plan that has a task
/// always has this event first among its plan events.
pub(crate) fn created(task: &mut Task, rec: &PlanRecord) -> Result<Change, Error> {
    let mut metadata = Map::new();
    metadata.insert(
        EXTENSION_URI.into(),
        json!({
            "event": PlanEventType::PlanCreated, "planId": rec.plan.id, "revision": rec.plan.revision,
            "seq": 0, "occurredAt": util::now(),
            "message": format!("Plan of action `{}` on project `{}`", rec.plan.action, rec.plan.project),
        }),
    );
    let state = task.status.state;
    status_change(task, state, None, Some(metadata))
}

/// The fields of a step's `tool.invoked` and `tool.completed` events.
pub(crate) fn tool_fields(step: &PlanStep) -> Value {
    json!({ "stepId": step.id, "tool": step.tool })
}

/// Commits the plan record together with one task event carrying the domain
/// event `event` (with `fields`); `ver` follows the stored record.
pub(crate) async fn emit(
    plans: &PlanService,
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
    plans.stamp_lease(rec);
    let doc = record::put(ns, rec, *ver)?;
    plans
        .engine
        .mutate_with(ns, &task_id, vec![doc], move |task| match &out {
            Out::Status(state, text) => status_change(
                task,
                *state,
                text.as_deref().map(agent_text),
                Some(metadata.clone()),
            ),
            Out::Artifact(artifact) => {
                artifact_change(task, artifact.clone(), false, Some(true), Some(metadata.clone()))
            }
        })
        .await?;
    *ver += 1;
    Ok(())
}
