//! Scenarios: multi-step exchanges built from the schemas' examples, each one
//! case of group `scenarios`. They create the state they need (a task, a
//! webhook config, a registry entry) and check what single calls cannot: that
//! a later call sees what an earlier one did, stream order, and the exact
//! error of each error path.
//!
//! A scenario stops at its first failing step; its detail names that step.
//! Each is held to the requirement of the table in [`run_all`] (hand-written:
//! a scenario is a hand-written check); one that depends on a capability the
//! card does not declare checks the "not supported" answers instead and is
//! held to §3.3.4; the extension's run only when the extension is gated.

mod configs;
mod extension;
mod sessions;
pub(crate) mod steps;
mod tasks;

use crate::card::{Applicability, CapabilityUse};
use crate::level::{Level, Requirement};
use crate::report::{observe, CaseResult, Subject};
use crate::rules;
use crate::session::Session;
use crate::transport::{Answer, BoxFuture};
use crate::verdict::Verdict;
use a2a::{capabilities, Contract};
use serde_json::json;
use std::time::Instant;
use steps::{Step, Steps};

/// A scenario's steps.
type Play = for<'s, 'a> fn(&'s mut Steps<'a>) -> BoxFuture<'s, Step<String>>;

/// What a scenario depends on and is held to.
struct Entry {
    id: &'static str,
    play: Play,
    /// The contract whose methods it calls (the extension's run only when it is gated).
    contract: Contract,
    /// The capability it needs, if any.
    capability: Option<&'static str>,
    requirement: Requirement,
}

impl Entry {
    fn a2a(
        id: &'static str,
        play: Play,
        capability: Option<&'static str>,
        level: Level,
        sections: &str,
    ) -> Entry {
        Entry {
            id,
            play,
            contract: Contract::A2a,
            capability,
            requirement: rules::spec(level, sections),
        }
    }

    fn extension(id: &'static str, play: Play) -> Entry {
        Entry {
            id,
            play,
            contract: Contract::Cleveragents,
            capability: None,
            requirement: rules::extension(Contract::Cleveragents),
        }
    }

    /// The requirement on this agent, and the capability as it declares it.
    fn applied(&self, app: &Applicability) -> (Requirement, Option<CapabilityUse>) {
        let requirement = match self.capability {
            Some(c) if !app.declares(c) => rules::capability_off(c),
            _ => self.requirement.clone(),
        };
        (requirement, app.dependency(self.capability, self.contract))
    }
}

/// The scenarios, in the order they run.
fn table() -> Vec<Entry> {
    let streaming = Some(capabilities::STREAMING);
    let push = Some(capabilities::PUSH_NOTIFICATIONS);
    vec![
        Entry::a2a(
            "task-lifecycle",
            |s| Box::pin(tasks::task_lifecycle(s)),
            None,
            Level::Must,
            "3.1.3-3.1.5, §3.4",
        ),
        Entry::a2a(
            "streaming-order",
            |s| Box::pin(tasks::streaming_order(s)),
            streaming,
            Level::Must,
            "3.1.2, §3.5.2",
        ),
        Entry::a2a(
            "subscribe",
            |s| Box::pin(tasks::subscribe(s)),
            streaming,
            Level::Must,
            "3.1.6",
        ),
        // Event ids and `Last-Event-ID` resumption are this project's rule for
        // its SSE streams (§9.4.2 shows streams without ids).
        Entry::a2a(
            "subscribe-resume",
            |s| Box::pin(tasks::resume(s)),
            streaming,
            Level::Strict,
            "9.4.2",
        ),
        Entry::a2a(
            "push-config-crud",
            |s| Box::pin(configs::push_config_crud(s)),
            push,
            Level::Must,
            "3.1.7-3.1.10",
        ),
        Entry::a2a(
            "error-paths",
            |s| Box::pin(tasks::error_paths(s)),
            None,
            Level::Must,
            "3.3.2",
        ),
        Entry::extension("registry-crud", |s| Box::pin(extension::registry_crud(s))),
        Entry::extension("registry-errors", |s| Box::pin(extension::registry_errors(s))),
        Entry::extension("plan-errors", |s| Box::pin(extension::plan_errors(s))),
        Entry::extension("session-export-import", |s| Box::pin(sessions::export_import(s))),
        Entry::extension("events-plan-lifecycle", |s| {
            Box::pin(sessions::filtered_plan_lifecycle(s))
        }),
        Entry::extension("events-resume", |s| Box::pin(sessions::events_resume(s))),
    ]
}

/// The scenarios that apply, with the requirement each is held to (for listing cases).
pub fn listing(app: &Applicability) -> Vec<(String, Requirement)> {
    table()
        .iter()
        .filter(|e| app.includes(e.contract))
        .map(|e| (format!("scenarios/{}", e.id), e.applied(app).0))
        .collect()
}

/// Runs every scenario that applies on one session.
pub async fn run_all(session: &Session, app: &Applicability) -> Vec<CaseResult> {
    let mut results = Vec::new();
    for entry in table().iter().filter(|e| app.includes(e.contract)) {
        let t0 = Instant::now();
        let mut steps = Steps::new(session, app);
        let outcome = (entry.play)(&mut steps).await;
        let verdict = match (outcome, steps.stopped) {
            (Err(_), Some(stopped)) => Verdict::violated(stopped),
            (outcome, _) => Verdict::of(outcome),
        }
        .with(steps.issues);
        let (requirement, capability) = entry.applied(app);
        let id = format!("scenarios/{}", entry.id);
        let subject = Subject {
            id: &id,
            group: "scenarios",
            method: None,
            requirement: &requirement,
            capability: capability.as_ref(),
        };
        let detail = match verdict.violations.first() {
            None => verdict.note.clone(),
            Some(v) => v.why.clone(),
        };
        let observed = observe(&Answer::Result(json!({"outcome": detail})));
        results.push(CaseResult::new(
            subject,
            &verdict,
            observed,
            t0.elapsed().as_millis() as u64,
        ));
    }
    results
}
