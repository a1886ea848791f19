//! Plans started from messages (the default executor's hooks).
//!
//! A message whose data part names an action is recognised by
//! [`plan_request`]; the executor then creates the plan (as `plan/use`
//! would) and runs it inside the message's task (`start_in_task`).
//! A message replying to a plan's task is recognised through
//! [`plan_of_task`] and answers its prompt (see [`super::prompt`]).

use super::draft::create_plan;
use super::events::{created, plan_metadata};
use super::execute::arm;
use super::record::{self, load};
use super::runner::run_plan;
use super::PlanService;
use crate::executor::TaskHandle;
use crate::util::{self, EXTENSION_URI};
use a2a::rpc::Error;
use a2a::types::{Message, Part, PartContent, PlanUseParams, Task, TaskState};
use a2a::ErrorKind;
use serde_json::{json, Map, Value};

/// A request, carried by a message's data part, to start a plan in the
/// message's task (see [`plan_request`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanStart {
    pub action: String,
    pub project: String,
    pub inputs: Option<Map<String, Value>>,
    pub automation_profile: Option<String>,
    pub title: Option<String>,
}

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
        PartContent::Data(Value::Object(d)) if d.contains_key("action") => Some(d),
        _ => None,
    })?;
    Some(parse_start(data))
}

fn parse_start(data: &Map<String, Value>) -> Result<PlanStart, (String, String)> {
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

/// The plan a task executes (named in the task's metadata by plan/execute).
pub fn plan_of_task(task: &Task) -> Option<String> {
    task.metadata
        .as_ref()?
        .get(EXTENSION_URI)?
        .get("planId")?
        .as_str()
        .map(str::to_string)
}

/// Ends a message's task FAILED because its plan could not start: a
/// `plan.error` domain event naming `plan_id` (empty when no plan exists) and
/// a status message with the error's text and `{"code", "message"}`.
async fn refuse_start(task: &TaskHandle, plan_id: &str, revision: i64, error: &Error) -> Result<(), Error> {
    let mut metadata = Map::new();
    metadata.insert(
        EXTENSION_URI.into(),
        json!({
            "event": a2a::types::PlanEventType::PlanError, "planId": plan_id, "revision": revision, "seq": 0,
            "occurredAt": util::now(), "message": error.message,
        }),
    );
    let message = task.agent_message(vec![
        crate::executor::text_part(&error.message),
        Part {
            content: PartContent::Data(json!({ "code": error.code, "message": error.message })),
            filename: None,
            media_type: None,
            metadata: None,
        },
    ]);
    task.status_with(TaskState::Failed, Some(message), Some(metadata))
        .await
        .map(|_| ())
}

/// Arms a CREATED plan and links it RUNNING to the message's task, in one
/// commit with the task's metadata naming the plan and the `plan.created`
/// event; nothing is committed on a refusal.
async fn link(plans: &PlanService, ns: &str, plan_id: &str, task: &TaskHandle) -> Result<(), Error> {
    let _guard = record::guard(plans, plan_id).await?;
    let (mut rec, ver) = load(plans, ns, plan_id).await?;
    arm(plans, ns, &mut rec).await?;
    rec.start_running(&task.task_id, util::now());
    let doc = record::put(ns, &rec, ver)?;
    let metadata = plan_metadata(&rec.plan.id, rec.plan.revision);
    plans
        .engine
        .mutate_with(ns, &task.task_id, vec![doc], move |t| {
            if crate::tasks::is_terminal(t.status.state) {
                return Err(Error::new(
                    ErrorKind::ExtInvalidState,
                    "the task ended before its plan could start",
                ));
            }
            t.metadata.get_or_insert_with(Map::new).extend(metadata.clone());
            created(t, &rec)
        })
        .await
        .map(|_| ())
}

/// Starts a plan from a message (the default executor's
/// [`plan_request`]) and runs it inside the message's task, which the
/// caller (the executor) drives; returns once the run waits, fails or
/// completes.
///
/// The plan is created exactly as `plan/use` would (same validation and
/// errors, in the task's namespace and context), then armed as
/// `plan/execute` would. Linking commits the plan RUNNING with this task
/// id together with the task's metadata naming the plan (so a reply
/// resumes it, see [`plan_of_task`]); from there the task's events are
/// the plan's events. A refusal ends the task FAILED with a `plan.error`
/// domain event instead of a JSON-RPC error (the task already exists):
/// its status message is the error's text plus a data part
/// `{"code": <JSON-RPC code>, "message": <text>}`, the code `plan/use` or
/// `plan/execute` would have answered. A refusal before any plan exists
/// (unknown action, project or profile, inputs not matching the schema)
/// names no plan: `planId` is empty and `revision` 0. A plan that exists
/// but cannot run (e.g. an EXTERNAL tool) stays CREATED and is named.
pub(crate) async fn start_in_task(
    plans: &PlanService,
    task: &TaskHandle,
    start: PlanStart,
) -> Result<(), Error> {
    let ns = task.namespace.clone();
    let params = PlanUseParams {
        action: start.action,
        project: start.project,
        inputs: start.inputs,
        automation_profile: start.automation_profile,
        title: start.title,
        context_id: Some(task.context_id.clone()),
        namespace: Some(ns.clone()),
    };
    let plan = match create_plan(plans, &ns, params).await {
        Ok(plan) => plan,
        Err(error) => return refuse_start(task, "", 0, &error).await,
    };
    if let Err(error) = link(plans, &ns, &plan.id, task).await {
        return refuse_start(task, &plan.id, plan.revision, &error).await;
    }
    run_plan(plans, &ns, &plan.id).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
