//! Which agent runs a RUNNING plan. On a store shared by several agents a
//! running plan carries a lease in its record ([`RunLease`]): the agent
//! whose runner drives the plan, and until when. The runner renews it with
//! every record write it makes and on a timer between them (`keep`); an
//! agent takes a run over (at start-up, and on a periodic sweep) only once
//! its lease has expired, so a plan whose agent lives is never run twice,
//! and one whose agent died is finished by another. Two agents taking over
//! at once are told apart by the record's version: the first write wins,
//! and the other's runner, finding the lease someone else's, stops quietly.
//!
//! On a store only this process opens, every RUNNING plan found at start-up
//! was left by a process that is gone, so its lease is not waited for.

use super::record::{self, load, PlanRecord, RunLease};
use super::PlanService;
use crate::util::{lease_ticks, millis, now_ms};
use a2a::types::PlanState;
use std::time::Duration;

/// The lease of a run unless configured otherwise.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// The shortest lease: renewed every third of it, a shorter one would keep
/// the runner busy renewing.
const MIN_LEASE: Duration = Duration::from_millis(300);

/// How long a run stays an agent's without a renewal, at least [`MIN_LEASE`].
pub(crate) fn clamp(lease: Duration) -> Duration {
    lease.max(MIN_LEASE)
}

impl PlanService {
    /// True when the run of `rec` is another live agent's: its lease names
    /// another holder and has not expired. Never on a store only this
    /// process opens.
    pub(crate) fn run_held_elsewhere(&self, rec: &PlanRecord) -> bool {
        self.shared_store
            && rec
                .exec
                .runner
                .as_ref()
                .is_some_and(|lease| lease.holder != *self.holder && lease.until_ms > now_ms())
    }

    /// True when the lease of `rec`'s run has expired (or it has none):
    /// whoever held it stopped renewing it.
    pub(crate) fn run_abandoned(&self, rec: &PlanRecord) -> bool {
        rec.exec
            .runner
            .as_ref()
            .is_none_or(|lease| lease.until_ms <= now_ms())
    }

    /// Sets the lease of `rec` before it is written: this agent's, renewed,
    /// while the plan is RUNNING; none otherwise.
    pub(crate) fn stamp_lease(&self, rec: &mut PlanRecord) {
        rec.exec.runner = (rec.plan.state == PlanState::Running).then(|| RunLease {
            holder: self.holder.to_string(),
            until_ms: now_ms().saturating_add(millis(self.lease)),
        });
    }
}

/// Renews this agent's lease on the run of plan `plan_id` every third of the
/// lease, between the runner's own writes, until the runner ends, the plan
/// stops RUNNING or the run is no longer this agent's; then returns.
pub(crate) async fn keep(plans: &PlanService, ns: &str, plan_id: &str) {
    let mut tick = lease_ticks(plans.lease).await;
    loop {
        tick.tick().await;
        if !plans.runs_here(plan_id) {
            return;
        }
        let Ok(_guard) = record::guard(plans, plan_id).await else {
            continue;
        };
        let Ok((mut rec, ver)) = load(plans, ns, plan_id).await else {
            continue;
        };
        let ours = rec
            .exec
            .runner
            .as_ref()
            .is_none_or(|lease| lease.holder == *plans.holder);
        if rec.plan.state != PlanState::Running || !ours {
            return;
        }
        plans.stamp_lease(&mut rec);
        // A conflict means the record moved on; the next tick reads it again.
        let _ = record::save(plans, ns, &rec, ver).await;
    }
}
