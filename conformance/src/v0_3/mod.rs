//! A2A 0.3 on the same agent: the cases of group `v0_3`, derived from
//! `schema/a2a-v0.3.json` the way the 1.0 cases are derived from the contract's
//! schemas, and sent as a 0.3 client sends them — over HTTP without an
//! `A2A-Version` header (its absence means 0.3), over stdio on a session whose
//! `initialize` asked for 0.3.
//!
//! Per method of the 0.3 table, under its name and under each alias the
//! schema declares (the decision record's names):
//! - `v0_3/<name>/example-N`: each schema example's params (pointed at a task
//!   the run created over 0.3); the answer must validate against the 0.3
//!   schema's result definition and decode with the generated 0.3 types (every
//!   event of a stream, each `kind`-tagged), or be an error the 0.3 method
//!   declares;
//!
//! and under its name only:
//! - `missing/<field>`, `wrong-type/<field>`, `bad-enum/<path>`,
//!   `params-not-object`: -32602 (or -32600 for the last);
//! - `task-not-found`: the example naming a task nobody made → -32001.
//!
//! Plus an unknown method and a 1.0 method name (both -32601 in a 0.3
//! session), and the scenarios of `scenarios.rs`: a task's lifecycle, stream
//! order, re-subscription, stream resumption, push-config CRUD and the same
//! task seen over both versions.
//!
//! The group applies when the Agent Card lists an interface at protocol
//! version 0.3 (the JSON-RPC binding over HTTP, or stdio); a method needing a
//! capability the card does not declare expects the 0.3 schema's "not
//! supported" error for it.

mod judge;
mod scenarios;

use crate::card::{Applicability, CapabilityUse};
use crate::cases::{self, Expect, Message, V0_3_GROUP};
use crate::level::{Level, Requirement};
use crate::report::{observe, CaseResult, Subject};
use crate::rules;
use crate::schema::{schemas_v0_3, Schemas};
use crate::session::{unique, Session};
use crate::transport::{Activation, Answer, Connector};
use crate::verdict::Verdict;
use a2a::methods::markers;
use a2a::rpc::{DialectMethod, Method as _};
use a2a::{Contract, ErrorKind};
use serde_json::{json, Value};
use std::time::Instant;

/// One case of group `v0_3`.
#[derive(Clone, Debug)]
pub struct Case {
    /// Stable id, `v0_3/<wire name>/<case>`.
    pub id: String,
    /// The 0.3 method the case calls (`None`: a method the 0.3 table lacks).
    pub method: Option<&'static DialectMethod>,
    pub message: Message,
    pub expect: Expect,
    pub requirement: Requirement,
    pub capability: Option<CapabilityUse>,
    /// A positive example: its task id is pointed at the run's 0.3 task.
    pub on_fixture: bool,
}

/// The methods of the 0.3 table.
pub fn methods() -> impl Iterator<Item = &'static DialectMethod> {
    a2a::v0_3::METHODS.iter()
}

/// The 0.3 method served by the 1.0 method `current` (the table names its
/// methods that way, so no 0.3 wire name is spelled here).
pub(crate) fn serving(current: &str) -> Result<&'static DialectMethod, String> {
    methods()
        .find(|m| m.serves == current)
        .ok_or_else(|| format!("the 0.3 method table has no method served by {current}"))
}

/// The 0.3 registry entry called `name` in the 0.3 schema, as the error of
/// the registry with its code (the two versions' codes agree).
pub(crate) fn kind_named(s: &Schemas, name: &str) -> Option<ErrorKind> {
    let code = s.dialect_error_code(name)?;
    ErrorKind::ALL
        .iter()
        .copied()
        .find(|k| k.contract() == Contract::A2a && k.code() == code)
}

/// The errors the 0.3 schema declares for `m`.
pub(crate) fn declared_errors(m: &DialectMethod) -> Vec<ErrorKind> {
    let s = schemas_v0_3();
    s.method(m.name)
        .and_then(|e| e.get("errors"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(|name| kind_named(s, name))
        .collect()
}

/// The capability `m` needs, per the 0.3 schema.
fn capability_of(m: &DialectMethod) -> Option<&'static str> {
    schemas_v0_3().method(m.name)?.get("capability")?.as_str()
}

/// The error a 0.3 method needing `capability` answers when the card does not
/// declare it (the 0.3 schema's `x-capabilities.unsupportedError`).
fn unsupported_error(capability: &str) -> ErrorKind {
    let s = schemas_v0_3();
    s.dialect_capability(capability)
        .and_then(|c| c.get("unsupportedError"))
        .and_then(Value::as_str)
        .and_then(|name| kind_named(s, name))
        .unwrap_or(ErrorKind::UnsupportedOperation)
}

/// The section of the 0.3 specification defining `m`.
fn section_of(m: &DialectMethod) -> String {
    schemas_v0_3()
        .method(m.name)
        .and_then(|e| e.get("specSection"))
        .and_then(Value::as_str)
        .unwrap_or("7")
        .to_string()
}

/// The JSON-RPC errors (§8.1 of 0.3): invalid params and unknown methods.
const JSONRPC_SECTION: &str = "8.1";
/// The A2A errors (§8.2 of 0.3): task not found and the others.
const A2A_ERRORS_SECTION: &str = "8.2";

/// True when the Agent Card lists an interface at A2A 0.3
/// (`supportedInterfaces[].protocolVersion`, or a 0.3-form card's own
/// `protocolVersion`).
pub fn declared_by(card: &Value) -> bool {
    let is_v0_3 = |v: &Value| v.as_str().is_some_and(is_version_0_3);
    card.get("supportedInterfaces")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|i| i.get("protocolVersion").is_some_and(is_v0_3))
        || card.get("protocolVersion").is_some_and(is_v0_3)
}

/// `0.3`, `0.3.0`, …: the major and minor of the text are 0.3's.
fn is_version_0_3(text: &str) -> bool {
    let major_minor: Vec<&str> = text.trim().split('.').take(2).collect();
    a2a::rpc::Version::parse(&major_minor.join("."))
        .is_some_and(|v| Some(v) == a2a::rpc::Version::parse(a2a::v0_3::PROTOCOL_VERSION))
}

/// Every case of the group, positives first (creators before destroyers),
/// then the negatives, then the unknown methods.
pub fn derive(app: &Applicability) -> Vec<Case> {
    let s = schemas_v0_3();
    let mut positives = Vec::new();
    let mut negatives = Vec::new();
    for m in methods() {
        let operation = rules::v0_3(Level::Must, &section_of(m));
        let capability = capability_of(m);
        let uses = app.dependency(capability, Contract::A2a);
        let (first_positive, first_negative) = (positives.len(), negatives.len());
        let examples = s.examples(m.name);
        for wire in std::iter::once(m.name).chain(m.aliases.iter().copied()) {
            for (i, example) in examples.iter().enumerate() {
                let case = Case {
                    id: format!("{V0_3_GROUP}/{wire}/example-{}", i + 1),
                    method: Some(m),
                    message: Message::Request {
                        method: wire.to_string(),
                        params: example.get("params").cloned(),
                    },
                    expect: Expect::SuccessOrDeclared,
                    requirement: operation.clone(),
                    capability: None,
                    on_fixture: true,
                };
                positives.push((cases::phase(wire), case));
            }
        }
        let base = examples
            .first()
            .and_then(|e| e.get("params"))
            .cloned()
            .unwrap_or_else(|| json!({}));
        negative_cases(s, m, &base, &mut negatives);
        let fresh = positives[first_positive..].iter_mut().map(|(_, c)| c);
        for case in fresh.chain(&mut negatives[first_negative..]) {
            case.capability = uses.clone();
            if let Some(off) = capability.filter(|c| !app.declares(c)) {
                without_capability(case, off);
            }
        }
    }
    positives.sort_by_key(|(phase, _)| *phase);
    let mut out: Vec<Case> = positives.into_iter().map(|(_, c)| c).collect();
    out.extend(negatives);
    out.extend(unknown_method_cases());
    out
}

/// The negative cases of `m`: the invalid mutations of its first example,
/// params that are no object, and (for a method naming a task) a task nobody made.
fn negative_cases(s: &Schemas, m: &'static DialectMethod, base: &Value, out: &mut Vec<Case>) {
    let case = |suffix: &str, params: Value, expect: Expect, requirement: Requirement| Case {
        id: format!("{V0_3_GROUP}/{}/{suffix}", m.name),
        method: Some(m),
        message: Message::Request {
            method: m.name.to_string(),
            params: Some(params),
        },
        expect,
        requirement,
        capability: None,
        on_fixture: false,
    };
    let invalid = Contract::A2a.invalid_params();
    if let Some(def) = s.definition(m.params_type).map(|v| s.resolve(v)) {
        for mutation in cases::mutations(s, def, base) {
            // As in 1.0: a missing field is a recommendation to reject, a wrong value a rule.
            let level = if mutation.missing {
                Level::Should
            } else {
                Level::Must
            };
            out.push(case(
                &mutation.id,
                mutation.params,
                Expect::Error(invalid),
                rules::v0_3(level, JSONRPC_SECTION),
            ));
        }
    }
    out.push(case(
        "params-not-object",
        json!(["not", "an", "object"]),
        Expect::AnyError(vec![Contract::A2a.invalid_request(), invalid]),
        rules::v0_3(Level::Must, JSONRPC_SECTION),
    ));
    if declared_errors(m).contains(&ErrorKind::TaskNotFound) {
        if let Some(key) = task_key(base) {
            let mut params = base.clone();
            params[key] = json!(unique("conformance-missing"));
            out.push(case(
                "task-not-found",
                params,
                Expect::Error(ErrorKind::TaskNotFound),
                rules::v0_3(Level::Must, A2A_ERRORS_SECTION),
            ));
        }
    }
}

/// The top-level member of params that names a task (`taskId` for a push
/// config being set, `id` elsewhere), if any.
fn task_key(params: &Value) -> Option<&'static str> {
    ["taskId", "id"]
        .into_iter()
        .find(|k| params.get(k).is_some_and(Value::is_string))
}

/// A method no version defines, and a 1.0 method name: neither is a 0.3
/// method, so a 0.3 session answers both -32601 (the 1.0 name is this
/// project's rule of dispatch by version: strict).
fn unknown_method_cases() -> Vec<Case> {
    let not_found = Expect::Error(Contract::A2a.method_not_found());
    let unknown = |id: String, method: String, requirement: Requirement| Case {
        id,
        method: None,
        message: Message::Request {
            method,
            params: Some(json!({})),
        },
        expect: not_found.clone(),
        requirement,
        capability: None,
        on_fixture: false,
    };
    let current = markers::GetTask::NAME;
    vec![
        unknown(
            format!("{V0_3_GROUP}/unknown-method"),
            "tasks/conformanceNoSuchMethod".into(),
            rules::v0_3(Level::Must, JSONRPC_SECTION),
        ),
        unknown(
            format!("{V0_3_GROUP}/current-name/{current}"),
            current.to_string(),
            rules::v0_3(Level::Strict, JSONRPC_SECTION),
        ),
    ]
}

/// A case of a method whose capability the card does not declare: the
/// capability's "not supported" error ([`Expect::without_capability`]).
fn without_capability(case: &mut Case, capability: &str) {
    case.expect = case.expect.without_capability(unsupported_error(capability));
}

/// The id of the case on the Agent Card a 0.3 client reads.
fn card_case_id() -> String {
    format!("{V0_3_GROUP}/agent-card")
}

/// What the card case holds an agent to: the 0.3 card's own fields (§5.5).
fn card_requirement() -> Requirement {
    rules::v0_3(Level::Must, "5.5")
}

/// Judges the Agent Card as served to a 0.3 client: each field only the 0.3
/// card defines (`protocolVersion`, `url`, `preferredTransport`, …, from the
/// two schemas' `AgentCard`s) is valid by the 0.3 schema, the ones it requires
/// are there, its `protocolVersion` is 0.3 and its `url` is that of an
/// interface the card lists at 0.3. Fields both versions define may keep
/// their 1.0 form (a 0.3 reader ignores what it does not know), so they are
/// the 1.0 case's to check.
fn check_card(card: &Value) -> Result<String, String> {
    let s = schemas_v0_3();
    let definition = serving(markers::GetExtendedAgentCard::NAME)?.result_type;
    let current = markers::GetExtendedAgentCard::descriptor().result_type;
    let properties = |s: &Schemas, name: &str| -> Vec<String> {
        s.definition(name)
            .and_then(|d| d.get("properties"))
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    let shared = properties(crate::schema::schemas(), current);
    let required: Vec<&str> = s
        .definition(definition)
        .and_then(|d| d.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut present = Vec::new();
    for field in properties(s, definition).iter().filter(|f| !shared.contains(f)) {
        match card.get(field) {
            Some(value) => {
                s.validate_property(definition, field, value).map_err(|errors| {
                    format!("the card's `{field}` is no 0.3 `{field}`: {}", errors.join("; "))
                })?;
                present.push(field.clone());
            }
            None if required.contains(&field.as_str()) => {
                return Err(format!("the card lacks `{field}`, which a 0.3 card requires"))
            }
            None => {}
        }
    }
    let version = card
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !is_version_0_3(version) {
        return Err(format!("the card's protocolVersion is `{version}`, not 0.3"));
    }
    let url = card.get("url").cloned().unwrap_or(Value::Null);
    let listed = card
        .get("supportedInterfaces")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|i| {
            i.get("url") == Some(&url)
                && i.get("protocolVersion")
                    .and_then(Value::as_str)
                    .is_some_and(is_version_0_3)
        });
    if !listed {
        return Err(format!("the card's url {url} is no interface it lists at 0.3"));
    }
    Ok(format!(
        "0.3 fields {} valid; url is the 0.3 interface's",
        present.join(", ")
    ))
}

/// The case on the card a 0.3 client reads (HTTP: fetched without
/// `A2A-Version`; stdio: the 0.3 session's `initialize` result).
fn card_case(card: Option<Result<Value, String>>, started: Instant) -> CaseResult {
    let requirement = card_requirement();
    let id = card_case_id();
    let subject = Subject {
        id: &id,
        group: V0_3_GROUP,
        method: None,
        requirement: &requirement,
        capability: None,
    };
    let card = card.unwrap_or_else(|| Err("the 0.3 session's handshake carried no Agent Card".into()));
    let verdict = Verdict::of(card.as_ref().map_err(String::clone).and_then(check_card));
    let observed = observe(&card.map_or_else(Answer::Broken, Answer::Result));
    CaseResult::new(subject, &verdict, observed, started.elapsed().as_millis() as u64)
}

/// The cases and scenarios of the group with the requirement each holds an
/// agent to (for listing cases).
pub fn listing(app: &Applicability) -> Vec<(String, Requirement)> {
    let mut listed = vec![(card_case_id(), card_requirement())];
    listed.extend(derive(app).into_iter().map(|c| (c.id, c.requirement)));
    listed.extend(scenarios::listing(app));
    listed
}

/// What running the group gave: results, the ids of cases the binding has no
/// form for, and notes on what was left out.
#[derive(Default)]
pub struct Ran {
    pub results: Vec<CaseResult>,
    pub not_applicable: Vec<String>,
    pub notes: Vec<String>,
}

/// Runs the group against the agent `connector` reaches: a 0.3 session of its
/// own, and `main` (a 1.0 session) for the scenario that reads across versions.
pub async fn run(connector: &dyn Connector, main: &Session, app: &Applicability) -> Ran {
    let mut ran = Ran::default();
    match &app.card {
        Ok(card) if declared_by(card) => {}
        _ => {
            ran.notes.push(format!(
                "group {V0_3_GROUP} was not run: the Agent Card lists no interface at A2A {} (supportedInterfaces[].protocolVersion)",
                a2a::v0_3::PROTOCOL_VERSION
            ));
            return ran;
        }
    }
    if !connector.speaks_v0_3() {
        ran.not_applicable = listing(app).into_iter().map(|(id, _)| id).collect();
        ran.notes.push(format!(
            "{} cases of group {V0_3_GROUP} were not run: A2A {} is gated over JSON-RPC (HTTP and stdio), not over the {} binding",
            ran.not_applicable.len(),
            a2a::v0_3::PROTOCOL_VERSION,
            connector.kind()
        ));
        return ran;
    }
    let session = match connector.connect(Activation::V0_3).await {
        Ok(t) => Session::new(t),
        Err(e) => {
            let requirement = rules::v0_3(Level::Must, "3.2");
            let subject = Subject {
                id: "v0_3/connect",
                group: V0_3_GROUP,
                method: None,
                requirement: &requirement,
                capability: None,
            };
            let why = format!("cannot open an A2A 0.3 session: {e}");
            ran.results
                .push(CaseResult::new(subject, &Verdict::fail(why), json!(null), 0));
            return ran;
        }
    };
    let t0 = Instant::now();
    let card = match connector.agent_card_v0_3().await {
        Some(card) => Some(card),
        None => session.transport.agent_card().map(Ok),
    };
    ran.results.push(card_case(card, t0));
    let fixture = Fixture::create(&session).await;
    for case in derive(app) {
        let t0 = Instant::now();
        let message = match &case.message {
            Message::Request { method, params } if case.on_fixture => Message::Request {
                method: method.clone(),
                params: params.as_ref().map(|p| fixture.apply(p)),
            },
            other => other.clone(),
        };
        let answer = unary(case.method, session.send(&message).await);
        let verdict = judge::judge(case.method, &case.expect, &answer);
        let method = match &message {
            Message::Request { method, .. } => Some(method.as_str()),
            Message::Raw { .. } => None,
        };
        let subject = Subject {
            id: &case.id,
            group: V0_3_GROUP,
            method,
            requirement: &case.requirement,
            capability: case.capability.as_ref(),
        };
        let elapsed = t0.elapsed().as_millis() as u64;
        ran.results
            .push(CaseResult::new(subject, &verdict, observe(&answer), elapsed));
    }
    let shared = connector.sessions_share_state();
    ran.results
        .extend(scenarios::run_all(&session, main, shared, app).await);
    ran
}

/// The answer of a unary method as a result: the stdio binding ends a stream
/// with a `null` result, so a unary `null` (a deleted push config) reads there
/// as an empty stream; it is the same answer as over HTTP.
pub(crate) fn unary(method: Option<&DialectMethod>, answer: Answer) -> Answer {
    match answer {
        Answer::Stream { events, error: None }
            if events.is_empty() && method.is_some_and(|m| !m.streaming) =>
        {
            Answer::Result(Value::Null)
        }
        other => other,
    }
}

/// The task the 0.3 examples are pointed at, created over 0.3.
#[derive(Default)]
struct Fixture {
    task_id: Option<String>,
}

impl Fixture {
    async fn create(session: &Session) -> Fixture {
        let Ok(send) = serving(markers::SendMessage::NAME) else {
            return Fixture::default();
        };
        let params = json!({"message": scenarios::text_message("conformance fixture", None)});
        let task_id = match session.call(send.name, params).await {
            Answer::Result(v) => v
                .get("taskId")
                .or_else(|| v.get("id"))
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        };
        Fixture { task_id }
    }

    /// A top-level task id (`id`, `taskId`) becomes the fixture's, and a
    /// message gets a fresh `messageId`.
    fn apply(&self, params: &Value) -> Value {
        let mut params = params.clone();
        if let (Some(task), Some(key)) = (&self.task_id, task_key(&params)) {
            params[key] = json!(task);
        }
        if let Some(message) = params.get_mut("message").and_then(Value::as_object_mut) {
            message.insert("messageId".into(), json!(unique("conformance-msg")));
        }
        params
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_0_3_method_and_alias_has_its_examples_and_negatives() {
        let cases = derive(&Applicability::everything());
        for m in methods() {
            for wire in std::iter::once(m.name).chain(m.aliases.iter().copied()) {
                let id = format!("v0_3/{wire}/example-1");
                assert!(cases.iter().any(|c| c.id == id), "{id}");
            }
            let not_object = format!("v0_3/{}/params-not-object", m.name);
            assert!(cases.iter().any(|c| c.id == not_object), "{not_object}");
            let missing = format!("v0_3/{}/missing/", m.name);
            let required = schemas_v0_3()
                .definition(m.params_type)
                .and_then(|d| d.get("required"))
                .and_then(Value::as_array)
                .is_some_and(|r| !r.is_empty());
            assert_eq!(
                required,
                cases.iter().any(|c| c.id.starts_with(&missing)
                    && c.expect == Expect::Error(Contract::A2a.invalid_params())),
                "{}",
                m.name
            );
        }
        let ids: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), cases.len(), "case ids are unique");
        let get = serving(markers::GetTask::NAME).expect("tasks/get");
        let not_found = cases
            .iter()
            .find(|c| c.id == format!("v0_3/{}/task-not-found", get.name))
            .expect("a task nobody made");
        assert_eq!(not_found.expect, Expect::Error(ErrorKind::TaskNotFound));
        assert_eq!(
            not_found.requirement,
            Requirement::new(Level::Must, "A2A 0.3 §8.2")
        );
        let send = serving(markers::SendMessage::NAME).expect("message/send");
        let role = cases
            .iter()
            .find(|c| c.id == format!("v0_3/{}/bad-enum/message.role", send.name))
            .expect("the role enum of the example message is found");
        assert_eq!(role.requirement, Requirement::new(Level::Must, "A2A 0.3 §8.1"));
    }

    #[test]
    fn a_capability_the_card_does_not_declare_expects_the_0_3_unsupported_error() {
        let card = json!({"capabilities": {"streaming": true, "pushNotifications": false}});
        let app = Applicability::from_card(crate::card::ContractChoice::Auto, Ok(card));
        let cases = derive(&app);
        let set = serving(markers::CreateTaskPushNotificationConfig::NAME).expect("set");
        let example = cases
            .iter()
            .find(|c| c.id == format!("v0_3/{}/example-1", set.name))
            .expect("derived");
        assert_eq!(
            example.expect,
            Expect::Error(ErrorKind::PushNotificationNotSupported)
        );
        assert_eq!(
            example.capability,
            Some(CapabilityUse {
                name: "pushNotifications".into(),
                declared: false
            })
        );
    }

    #[test]
    fn the_group_applies_to_a_card_listing_a_0_3_interface() {
        assert!(declared_by(&json!({"supportedInterfaces": [
            {"url": "http://a/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://a/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]})));
        assert!(declared_by(&json!({"protocolVersion": "0.3.0"})));
        assert!(!declared_by(&json!({"supportedInterfaces": [
            {"url": "http://a/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]})));
        assert!(!declared_by(&json!({"protocolVersion": "0.30"})));
    }
}
