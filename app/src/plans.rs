//! Plans: NOT YET IMPLEMENTED. These are the hooks the default executor
//! calls (a message continuing a plan's task, a data part starting a plan);
//! they recognise nothing yet, so every message takes the echo path, and the
//! `_cleveragents/plan/*` methods answer method-not-found (trait defaults).
use crate::app::App;
use crate::executor::TaskHandle;
use a2a::rpc::Error;
use a2a::types::{Message, Task};

/// Document collection of plans; key: the plan id.
pub const COLL: &str = "plan";

pub struct PlanStart;
pub fn plan_of_task(_task: &Task) -> Option<String> {
    None
}
pub fn plan_request(_m: &Message) -> Option<PlanStart> {
    None
}
impl App {
    pub(crate) async fn plan_reply(&self, _t: &TaskHandle, _p: &str, _m: &Message) -> Result<(), Error> {
        Ok(())
    }
    pub(crate) async fn plan_start_in_task(&self, _t: &TaskHandle, _s: PlanStart) -> Result<(), Error> {
        Ok(())
    }
    pub(crate) async fn plan_task_cancelled(&self, _ns: &str, _p: &str) {}
}
