//! The cases of the draft versions of A2A (group `v1_1` for 1.1), derived
//! from what the schema says each draft adds ([`facts`]): the task's
//! generation, long-polling GetTask, conditional sends and the error that
//! refuses them. They run when the Agent Card offers an interface at the
//! draft version (`supportedInterfaces[].protocolVersion`); otherwise every
//! case is reported not applicable, with the reason, and none fails.
//!
//! Every case runs over the connector the run gates (JSON-RPC over HTTP,
//! HTTP+JSON, gRPC, stdio) on a session at the draft version, but for the
//! projection case, which reads the same agent at the released version.
//! The cases drive tasks by the ACTS SUT behaviour contract (a message whose
//! text starts `tck-multi-turn` waits for input; `tck-stream-basic` streams
//! a few events): an agent that does not follow it fails them saying so.
//! Two calls are in flight together where a case needs it (a long poll and
//! the message that wakes it, a subscription and the message that ends its
//! task); nothing sleeps to order them.

mod cases;
pub mod facts;

use crate::card::Applicability;
use crate::level::{Level, Requirement};
use crate::report::{observe, CaseResult, Subject};
use crate::rules;
use crate::session::Session;
use crate::transport::{Activation, Answer, Connector};
use crate::v0_3::Ran;
use crate::verdict::Verdict;
use a2a::methods::markers;
use a2a::rpc::Method as _;
use cases::Play;
pub use facts::Draft;
use serde_json::{json, Value};
use std::time::Instant;

/// One case: its name within the group, what it needs of the schema, and
/// the section of the specification it holds the agent to.
struct Entry {
    name: &'static str,
    play: Play,
    level: Level,
    section: String,
}

/// What a case needs the draft to add before it applies.
#[derive(Clone, Copy)]
enum Needs {
    /// The task's generation.
    Generation,
    /// The generation and long-polling GetTask.
    LongPoll,
    /// The generation, the conditional send and the error refusing it.
    Conditional,
    /// Any member a released-version answer must not show.
    AnswerMembers,
}

impl Needs {
    fn met_by(self, draft: &Draft) -> bool {
        let generation = draft.generation.is_some();
        match self {
            Needs::Generation => generation,
            Needs::LongPoll => generation && draft.long_poll.is_some(),
            Needs::Conditional => generation && draft.conditional.is_some() && draft.refusal.is_some(),
            Needs::AnswerMembers => !draft.answer_members().is_empty(),
        }
    }

    /// The section a case holds the agent to: the method's own for the
    /// long poll and the conditional send, the spec's general ones otherwise.
    fn section(self) -> &'static str {
        match self {
            Needs::Generation => "3.2.7",
            Needs::LongPoll => markers::GetTask::descriptor().spec_section.unwrap_or("3.1.3"),
            Needs::Conditional => markers::SendMessage::descriptor().spec_section.unwrap_or("3.1.1"),
            Needs::AnswerMembers => "3.6",
        }
    }
}

/// Every case of a draft, in the order they run, with what it needs.
const CASES: [(&str, Play, Needs); 9] = [
    (
        "stream-generations",
        |c| Box::pin(cases::stream_generations(c)),
        Needs::Generation,
    ),
    (
        "subscribe-generations",
        |c| Box::pin(cases::subscribe_generations(c)),
        Needs::Generation,
    ),
    (
        "long-poll-passed",
        |c| Box::pin(cases::long_poll_passed(c)),
        Needs::LongPoll,
    ),
    (
        "long-poll-wake",
        |c| Box::pin(cases::long_poll_wake(c)),
        Needs::LongPoll,
    ),
    (
        "long-poll-timeout",
        |c| Box::pin(cases::long_poll_timeout(c)),
        Needs::LongPoll,
    ),
    (
        "mismatch-refused",
        |c| Box::pin(cases::mismatch_refused(c)),
        Needs::Conditional,
    ),
    (
        "match-one-wins",
        |c| Box::pin(cases::match_one_wins(c)),
        Needs::Conditional,
    ),
    (
        "create-ignores-match",
        |c| Box::pin(cases::create_ignores_match(c)),
        Needs::Conditional,
    ),
    (
        "released-projection",
        |c| Box::pin(cases::released_projection(c)),
        Needs::AnswerMembers,
    ),
];

/// The cases `draft` has, in the order they run.
fn table(draft: &Draft) -> Vec<Entry> {
    CASES
        .iter()
        .filter(|(_, _, needs)| needs.met_by(draft))
        .map(|&(name, play, needs)| Entry {
            name,
            play,
            level: Level::Must,
            section: needs.section().to_string(),
        })
        .collect()
}

/// The id of a case of `draft`.
fn case_id(draft: &Draft, name: &str) -> String {
    format!("{}/{name}", draft.group())
}

/// Every case of `draft` with the requirement it holds an agent to (for listing cases).
pub fn listing(draft: &Draft) -> Vec<(String, Requirement)> {
    table(draft)
        .iter()
        .map(|e| {
            (
                case_id(draft, e.name),
                rules::draft(draft.version, e.level, &e.section),
            )
        })
        .collect()
}

/// True when `card` lists an interface at `version`.
pub fn offered(card: &Value, version: &str) -> bool {
    let wanted = a2a::rpc::Version::parse(version);
    card.get("supportedInterfaces")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|i| i.get("protocolVersion").and_then(Value::as_str))
        .any(|v| wanted.is_some() && a2a::rpc::Version::parse(v) == wanted)
}

/// Runs the cases of `draft` against the agent `connector` reaches.
pub async fn run(connector: &dyn Connector, app: &Applicability, draft: &Draft) -> Ran {
    let mut ran = Ran::default();
    let entries = table(draft);
    let group = draft.group();
    if !app.card.as_ref().is_ok_and(|card| offered(card, draft.version)) {
        ran.not_applicable = entries.iter().map(|e| case_id(draft, e.name)).collect();
        ran.notes.push(format!(
            "{} cases of group {group} were not run: the Agent Card lists no interface at A2A {} (supportedInterfaces[].protocolVersion), a draft an agent serves only when it is turned on",
            entries.len(),
            draft.version
        ));
        return ran;
    }
    let sessions = (
        connector.connect(Activation::Draft(draft.version)).await,
        connector.connect(Activation::Base).await,
    );
    let (session, released) = match sessions {
        (Ok(at_draft), Ok(released)) => (Session::new(at_draft), Session::new(released)),
        (Err(e), _) | (_, Err(e)) => {
            let requirement = rules::draft(draft.version, Level::Must, "3.6");
            let id = format!("{group}/connect");
            let subject = Subject {
                id: &id,
                group: &group,
                method: None,
                requirement: &requirement,
                capability: None,
            };
            let why = format!("cannot open a session at A2A {}: {e}", draft.version);
            ran.results
                .push(CaseResult::new(subject, &Verdict::fail(why), json!(null), 0));
            return ran;
        }
    };
    for entry in entries {
        let t0 = Instant::now();
        let mut context = cases::Context::new(draft, &session, &released, app);
        let outcome = (entry.play)(&mut context).await;
        let verdict = Verdict::of(outcome).with(context.issues);
        let requirement = rules::draft(draft.version, entry.level, &entry.section);
        let id = case_id(draft, entry.name);
        let subject = Subject {
            id: &id,
            group: &group,
            method: None,
            requirement: &requirement,
            capability: None,
        };
        let detail = match verdict.violations.first() {
            None => verdict.note.clone(),
            Some(v) => v.why.clone(),
        };
        let observed = observe(&Answer::Result(json!({"outcome": detail})));
        let millis = t0.elapsed().as_millis() as u64;
        ran.results
            .push(CaseResult::new(subject, &verdict, observed, millis));
    }
    ran
}
