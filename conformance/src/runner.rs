//! Running the suite against one agent: first its Agent Card (what it offers
//! decides which cases apply, see [`crate::card`]), then the derived cases,
//! then the scenarios, over transports a [`Connector`] opens; the report is
//! judged under the chosen [`Profile`]. Positive examples that name a task
//! are pointed at a task the runner created first (the "fixture"), so they
//! exercise real state; see [`crate::cases::Expect::SuccessOrDeclared`] for
//! what is accepted when an example's ids still name nothing.

use crate::card::{Applicability, ContractChoice, Reach};
use crate::cases::{self, Case, Message};
use crate::check::{self, check_result};
use crate::extension::Extension;
use crate::level::Profile;
use crate::report::{observe, CaseResult, Report, Subject};
use crate::rules;
use crate::scenarios;
pub use crate::session::{unique, Session};
use crate::transport::{Activation, Answer, Connector};
use crate::v0_3;
use crate::verdict::Verdict;
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::types::Role;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Groups to run (see [`cases::all_groups`]).
    pub groups: Vec<String>,
    /// Which levels fail the gate.
    pub profile: Profile,
    /// Which contract to gate.
    pub contract: ContractChoice,
    /// Extension schemas beyond the contract whose cases run too, when the
    /// Agent Card declares them (see [`crate::extension`]).
    pub extensions: Vec<Arc<Extension>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            groups: cases::all_groups(),
            profile: Profile::default(),
            contract: ContractChoice::default(),
            extensions: Vec::new(),
        }
    }
}

impl RunOptions {
    /// All groups under `profile`, the contract detected from the card.
    pub fn with_profile(profile: Profile) -> RunOptions {
        RunOptions {
            profile,
            ..RunOptions::default()
        }
    }
}

/// The state positive examples are pointed at.
#[derive(Clone, Debug, Default)]
pub struct Fixture {
    /// A task this run created (via `SendMessage`).
    pub task_id: Option<String>,
}

impl Fixture {
    /// Creates the fixture task: a plain text message, blocking.
    pub async fn create(session: &Session) -> Fixture {
        let answer = session
            .call(
                markers::SendMessage::NAME,
                json!({"message": {"messageId": unique("conformance-fixture"), "role": Role::User,
                       "parts": [{"text": "conformance fixture"}]}}),
            )
            .await;
        let task_id = match answer {
            Answer::Result(v) => v
                .pointer("/task/id")
                .or_else(|| v.pointer("/message/taskId"))
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        };
        Fixture { task_id }
    }

    /// Points an A2A example's params at the fixture: a top-level task `id` /
    /// `taskId` becomes the fixture task, and a message gets a fresh
    /// `messageId` (a message id is unique per sender). Extension examples are
    /// sent as written: their names are the schema's own.
    pub fn apply(&self, case: &Case, params: &Value) -> Value {
        let mut params = params.clone();
        let Some(d) = case.method else {
            return params;
        };
        if d.contract != a2a::Contract::A2a || !case.on_fixture {
            return params;
        }
        if let (Some(task), Some(obj)) = (&self.task_id, params.as_object_mut()) {
            let key = if d.service == "push_config" {
                "taskId"
            } else {
                "id"
            };
            if obj.contains_key(key)
                && d.name != markers::SendMessage::NAME
                && d.name != markers::SendStreamingMessage::NAME
            {
                obj.insert(key.to_string(), json!(task));
            }
        }
        if let Some(message) = params.get_mut("message").and_then(Value::as_object_mut) {
            message.insert("messageId".into(), json!(unique("conformance-msg")));
        }
        params
    }
}

/// The activation of the main session: the extension unless the contract is
/// pure A2A (forced, or a card that does not declare it).
fn main_activation(choice: ContractChoice, card: Option<&Result<Value, String>>) -> Activation<'static> {
    let extension = match choice {
        ContractChoice::A2a => false,
        ContractChoice::Cleveragents => true,
        ContractChoice::Auto => !matches!(card, Some(Ok(c)) if !crate::card::declares_extension(c)),
    };
    if extension {
        Activation::Extension(None)
    } else {
        Activation::Base
    }
}

/// The id of the case on the Agent Card itself.
pub const CARD_CASE_ID: &str = "agent_card/public-card";

/// The group of the case on the Agent Card: the group of the card's method.
pub fn card_case_group() -> &'static str {
    markers::GetExtendedAgentCard::descriptor().service
}

/// The case on the Agent Card itself (group `agent_card`): it is served, and
/// it is a valid `AgentCard` (the result type of the extended-card method).
fn card_case(app: &Applicability, transport: &str, started: Instant) -> CaseResult {
    let d = markers::GetExtendedAgentCard::descriptor();
    let (requirement, verdict) = match &app.card {
        Ok(card) => (
            rules::agent_card(),
            Verdict::of(check_result(d, card).map(|_| "a valid Agent Card".to_string())),
        ),
        Err(why) if transport == "http" => (rules::card_discovery(), Verdict::fail(why.clone())),
        Err(why) => (rules::stdio_binding(), Verdict::fail(why.clone())),
    };
    let subject = Subject {
        id: CARD_CASE_ID,
        group: d.service,
        method: None,
        requirement: &requirement,
        capability: None,
    };
    let observed = observe(&app.card.clone().map_or_else(Answer::Broken, Answer::Result));
    CaseResult::new(subject, &verdict, observed, started.elapsed().as_millis() as u64)
}

/// Notes on what the run leaves out: selected groups of a contract not gated.
fn exclusion_notes(options: &RunOptions, app: &Applicability) -> Vec<String> {
    let excluded: Vec<&str> = options
        .groups
        .iter()
        .filter(|g| {
            let mut methods = cases::dispatched().filter(|d| d.service == g.as_str()).peekable();
            methods.peek().is_some() && methods.all(|d| !app.includes(d.contract))
        })
        .map(String::as_str)
        .collect();
    if excluded.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "groups {} belong to the extension, which is not gated under contract {} ({})",
        excluded.join(", "),
        app.contract,
        app.contract_reason
    )]
}

/// Runs the selected groups against the agent `connector` reaches.
pub async fn run(connector: &dyn Connector, options: &RunOptions) -> Report {
    let started = Instant::now();
    let fetched = connector.agent_card().await;
    let activation = main_activation(options.contract, fetched.as_ref());
    let main = match connector.connect(activation).await {
        Ok(t) => Session::new(t),
        Err(e) => {
            let app = Applicability::from_card(options.contract, fetched.unwrap_or(Err(e.clone())));
            let requirement = rules::reachable(connector.kind());
            let subject = Subject {
                id: "connect",
                group: "connect",
                method: None,
                requirement: &requirement,
                capability: None,
            };
            let failed = CaseResult::new(subject, &Verdict::fail(e), json!(null), 0);
            return Report::new(
                connector.kind(),
                vec![failed],
                started.elapsed(),
                options.profile,
                app,
            );
        }
    };
    let card = fetched.unwrap_or_else(|| {
        main.transport
            .agent_card()
            .ok_or_else(|| "the session's handshake carried no Agent Card".to_string())
    });
    let app = Applicability::from_card(options.contract, card);
    let mut results = Vec::new();
    if options.groups.iter().any(|g| g == card_case_group()) {
        results.push(card_case(&app, connector.kind(), Instant::now()));
    }
    let cases = cases::derive(&options.groups, &app);
    let fixture = if cases.iter().any(|c| c.on_fixture) {
        Fixture::create(&main).await
    } else {
        Fixture::default()
    };
    let (ran, not_applicable, unversioned) = run_cases(connector, &main, &fixture, &cases, &app).await;
    results.extend(ran);
    if options.groups.iter().any(|g| g == "scenarios") {
        results.extend(scenarios::run_all(&main, &app).await);
    }
    let mut notes = exclusion_notes(options, &app);
    for extension in &options.extensions {
        match extension.run(&main, app.card.as_ref().ok()).await {
            Ok(ran) => results.extend(ran),
            Err(note) => notes.push(note),
        }
    }
    if !not_applicable.is_empty() {
        notes.push(format!(
            "{} cases have no form in the {} binding and were not run there (what its requests cannot say: see the binding's transport)",
            not_applicable.len(),
            connector.kind()
        ));
    }
    let mut not_applicable = not_applicable;
    if !unversioned.is_empty() {
        notes.push(version_note(&unversioned));
        not_applicable.extend(unversioned.into_values().flatten());
    }
    if options.groups.iter().any(|g| g == cases::V0_3_GROUP) {
        let ran = v0_3::run(connector, &main, &app).await;
        results.extend(ran.results);
        not_applicable.extend(ran.not_applicable);
        notes.extend(ran.notes);
    }
    for draft in crate::draft::Draft::all() {
        if options.groups.contains(&draft.group()) {
            let ran = crate::draft::run(connector, &app, &draft).await;
            results.extend(ran.results);
            not_applicable.extend(ran.not_applicable);
            notes.extend(ran.notes);
        }
    }
    let mut report = Report::new(connector.kind(), results, started.elapsed(), options.profile, app);
    report.notes = notes;
    report.not_applicable = not_applicable;
    report
}

/// A session a case is sent on beside the main one: at another extension
/// version, or at a draft A2A version whose members the case relies on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    Extension(String),
    Protocol(String),
}

impl Side {
    /// The side `case` needs, if any (`Err`: the agent declares no version
    /// with what it relies on, and why).
    fn of(case: &Case, app: &Applicability) -> Result<Option<Side>, String> {
        let contract = case.method.map_or(a2a::Contract::A2a, |d| d.contract);
        match app.reach(contract, case.since.as_deref()) {
            Reach::Missing(why) => Err(why),
            Reach::Protocol(version) => Ok(Some(Side::Protocol(version))),
            Reach::Released => Ok(case.ext_version.clone().map(Side::Extension)),
        }
    }

    fn activation(&self) -> Activation<'_> {
        match self {
            Side::Extension(v) => Activation::Extension(Some(v)),
            Side::Protocol(v) => Activation::Draft(v),
        }
    }

    fn describe(&self) -> String {
        match self {
            Side::Extension(v) => format!("extension version {v}"),
            Side::Protocol(v) => format!("A2A {v}"),
        }
    }
}

/// The note on the cases left out because the agent declares no version
/// with what they rely on, one line per version.
fn version_note(unversioned: &BTreeMap<String, Vec<String>>) -> String {
    let lines: Vec<String> = unversioned
        .iter()
        .map(|(why, ids)| match ids.len() {
            1 => format!("1 case relies on {why}: {}", ids[0]),
            n => format!("{n} cases rely on {why}: {}", ids.join(", ")),
        })
        .collect();
    format!(
        "cases on members or methods of versions the agent does not declare were not run: {}",
        lines.join("; ")
    )
}

/// The derived cases' results, the ids of the cases the binding has no form
/// for, and those of the cases relying on a version the agent does not
/// declare (by what they rely on).
type CasesRun = (Vec<CaseResult>, Vec<String>, BTreeMap<String, Vec<String>>);

/// Runs the derived cases, opening sessions at other extension versions and
/// draft A2A versions on first use.
async fn run_cases(
    connector: &dyn Connector,
    main: &Session,
    fixture: &Fixture,
    cases: &[Case],
    app: &Applicability,
) -> CasesRun {
    let mut sides: BTreeMap<Side, Result<Session, String>> = BTreeMap::new();
    let mut results = Vec::new();
    let mut not_applicable = Vec::new();
    let mut unversioned: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for case in cases {
        let t0 = Instant::now();
        let side = match Side::of(case, app) {
            Ok(side) => side,
            Err(why) => {
                unversioned.entry(why).or_default().push(case.id.clone());
                continue;
            }
        };
        let message = match &case.message {
            Message::Request { method, params } => Message::Request {
                method: method.clone(),
                params: params.as_ref().map(|p| fixture.apply(case, p)),
            },
            raw => raw.clone(),
        };
        if !connector.expresses(&message) {
            not_applicable.push(case.id.clone());
            continue;
        }
        let answer = match side {
            None => main.send(&message).await,
            Some(side) => {
                if !sides.contains_key(&side) {
                    let opened = connector.connect(side.activation()).await.map(Session::new);
                    sides.insert(side.clone(), opened);
                }
                match sides.get(&side) {
                    Some(Ok(session)) => session.send(&message).await,
                    Some(Err(e)) => {
                        Answer::Broken(format!("cannot open a session at {}: {e}", side.describe()))
                    }
                    None => Answer::Broken("no session".into()),
                }
            }
        };
        let verdict = check::judge_on(case.method, &case.expect, &answer, connector.errors_by_status());
        results.push(CaseResult::from_case(case, &verdict, &answer, t0.elapsed()));
    }
    (results, not_applicable, unversioned)
}
