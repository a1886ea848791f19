//! Plans (`_cleveragents/plan/*`): an action instantiated on a project, run
//! as an A2A task, reviewed, applied to the project and possibly rolled back.
//!
//! # How a plan moves
//!
//! 1. **Strategize** — `plan/use` drafts the steps from the action and stores
//!    the plan CREATED ([`draft`]); `plan/correct` drafts a new revision.
//! 2. **Execute** — `plan/execute` creates the plan's task ([`execute`]) and
//!    a runner drives the steps in order ([`runner`]), every change announced
//!    by a task event ([`events`]); each step calls a built-in tool
//!    ([`tools`]) with its arguments templated ([`template`]) and checked
//!    against the tool's schema ([`schema`]). An approval step makes the plan
//!    INPUT_REQUIRED until it is answered ([`prompt`]).
//! 3. **Review** — after the steps the action's validations run on the plan's
//!    tree ([`validation`], over the [`workspace`]), and the plan is
//!    COMPLETED; `plan/diff` shows what apply would change ([`diff`]).
//! 4. **Apply** — `plan/apply` writes the workspace into the project as a new
//!    revision within the budget and invariants; `plan/rollback` restores
//!    the revision before it ([`apply`]).
//!
//! `plan/cancel` ends a plan from most states ([`cancel`]); the record and
//! the transitions it allows are in [`record`]; the read side (status, list,
//! tree, explain, artifacts) in [`query`]. A message to the default
//! executor can start a plan or answer one ([`start`]). The methods as the
//! handlers call them are in `api.rs`, on [`PlanService`], which owns what
//! plans need: the store, the registry and the task engine.
//!
//! Domain events, in order, for a run: `plan.created` (the task's state
//! unchanged, in the commit that gives the plan its task), `plan.phase_changed`
//! (WORKING, phase EXECUTE); per step `tool.invoked` (WORKING) then the tool's outcome; after
//! the steps one `validation.completed` artifact per action validation, then
//! `plan.phase_changed` (WORKING, phase REVIEW), with autoApply
//! `plan.apply_completed` (WORKING), and `plan.state_changed` (COMPLETED). A
//! failing step or ERROR validation ends with `plan.error` (task FAILED).
//!
//! A plan's operations are serialized by a per-plan lock, always taken
//! before the task's lock.

mod api;
pub mod apply;
pub mod cancel;
pub mod diff;
pub mod draft;
pub mod events;
pub mod execute;
pub mod outcome;
pub mod prompt;
pub mod query;
pub mod record;
pub mod runner;
pub mod schema;
pub mod start;
pub mod template;
pub mod tools;
pub mod validation;
pub mod workspace;

pub use record::{can_cancel, state_name, ExecState, PastRevision, PlanRecord, COLL};
pub use schema::check_schema;
pub use start::{plan_of_task, plan_request, PlanStart};

use crate::registry::Registry;
use crate::store::StoreHandle;
use crate::tasks::TaskEngine;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The plan service. Clones share the per-plan locks.
#[derive(Clone)]
pub struct PlanService {
    pub(crate) db: StoreHandle,
    pub(crate) registry: Registry,
    /// Plans run as tasks: every change goes through the engine.
    pub(crate) engine: TaskEngine,
    /// Per-plan locks serializing a plan's operations ([`record::guard`]).
    locks: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
}

impl PlanService {
    pub fn new(db: StoreHandle, registry: Registry, engine: TaskEngine) -> Self {
        PlanService {
            db,
            registry,
            engine,
            locks: Arc::default(),
        }
    }
}

/// A member of a registry entity decoded as its schema type (`None` when
/// absent or not of that type).
pub(crate) fn field<T: DeserializeOwned>(entity: &Value, name: &str) -> Option<T> {
    entity
        .get(name)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}
