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
//! before the task's lock. On a store shared by several agents, a running
//! plan is run by one agent at a time, which holds a lease on the run
//! ([`lease`]).

mod api;
pub mod apply;
pub mod cancel;
pub mod diff;
pub mod draft;
pub mod events;
pub mod execute;
pub mod lease;
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
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The plan service. Clones share the per-plan locks.
#[derive(Clone)]
pub struct PlanService {
    pub(crate) db: StoreHandle,
    pub(crate) registry: Registry,
    /// Plans run as tasks: every change goes through the engine.
    pub(crate) engine: TaskEngine,
    /// Per-plan locks serializing a plan's operations ([`record::guard`]).
    locks: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
    /// This agent's name as the holder of run leases.
    pub(crate) holder: Arc<str>,
    /// How long a run stays this agent's without a renewal.
    pub(crate) lease: Duration,
    /// True when other agents may share the store (and so run its plans).
    pub(crate) shared_store: bool,
    /// The plans a runner of this agent is driving.
    running: Arc<Mutex<HashSet<String>>>,
}

impl PlanService {
    /// The plan service; a run this agent starts is leased for `lease`.
    pub fn new(db: StoreHandle, registry: Registry, engine: TaskEngine, lease: Duration) -> Self {
        let shared_store = db.store().appended().is_some();
        PlanService {
            db,
            registry,
            engine,
            locks: Arc::default(),
            holder: crate::util::new_id().into(),
            lease: lease::clamp(lease),
            shared_store,
            running: Arc::default(),
        }
    }

    /// Marks plan `plan_id` as driven by a runner of this agent; false when
    /// one already is.
    pub(crate) fn begin_run(&self, plan_id: &str) -> bool {
        self.running
            .lock()
            .is_ok_and(|mut running| running.insert(plan_id.to_string()))
    }

    /// How many plans a runner of this agent drives now.
    pub(crate) fn runs(&self) -> usize {
        self.running.lock().map_or(0, |running| running.len())
    }

    /// The runner of plan `plan_id` has ended.
    pub(crate) fn end_run(&self, plan_id: &str) {
        if let Ok(mut running) = self.running.lock() {
            running.remove(plan_id);
        }
    }

    /// True while a runner of this agent drives plan `plan_id`.
    pub(crate) fn runs_here(&self, plan_id: &str) -> bool {
        self.running.lock().is_ok_and(|running| running.contains(plan_id))
    }
}

/// A member of a registry entity decoded as its schema type (`None` when
/// absent or not of that type).
pub(crate) fn field<T: DeserializeOwned>(entity: &Value, name: &str) -> Option<T> {
    entity
        .get(name)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}
