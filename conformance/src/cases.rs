//! The derived suite: cases computed from the method tables (`a2a::METHODS`,
//! generated from the schemas' `x-methods`) and the schemas' definitions and
//! examples. A method added to a schema is covered without writing a test.
//!
//! Per dispatched method:
//! - `example-N`: each schema example's params; the result must validate
//!   (see [`Expect::SuccessOrDeclared`] for the state rule);
//! - `generated-minimal`: params generated from the params definition (required
//!   fields only, the first value of each enum, the first alternative of each
//!   one-of), kept only when they validate. Valid by the schema is not always
//!   meaningful to the method (a webhook config without its `taskId`), so the
//!   agent may also reject them as invalid params ([`Expect::ValidOrRejected`]);
//! - `missing/<field>`: each required top-level field removed → invalid params;
//! - `wrong-type/<field>`: each typed top-level field given a value of another
//!   JSON type → invalid params;
//! - `bad-enum/<path>`: each enum-typed value in the example (any depth) replaced
//!   by a name the enum lacks → invalid params;
//! - `hidden-in-<oldest>`: a method newer than the oldest served extension
//!   version (`since: 1.2` while 1.1 and 1.2 are served) called at that version →
//!   method not found.
//!
//! Plus per contract an unknown method (→ method not found) and the bad
//! envelopes of group `envelope` (→ parse error / invalid request).
//!
//! A case relying on a member a newer version added (`x-since: 1.1` on
//! `currentGeneration`) records that version ([`Case::since`]): it applies
//! only to an agent whose card declares it, and is sent at that version.
//!
//! Every case carries the [`Requirement`] it holds the agent to
//! ([`crate::rules`]) and the capability it depends on. What applies comes from
//! the Agent Card ([`Applicability`]): the extension's methods only when the
//! extension is gated, and a method needing a capability the card does not
//! declare expects the schema's "not supported" error for it (§3.3.4).

use crate::card::{Applicability, CapabilityUse};
use crate::level::Requirement;
use crate::rules;
use crate::schema::{schemas, Schemas};
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::rpc::Version;
use a2a::{Contract, ErrorKind, MethodDescriptor};
use serde_json::{json, Value};

/// What a case sends.
#[derive(Clone, Debug)]
pub enum Message {
    /// A well-formed request for `method` with these params (the runner adds
    /// `jsonrpc` and a fresh `id`).
    Request { method: String, params: Option<Value> },
    /// These exact bytes; the expected response id is `expect_id`.
    Raw { text: String, expect_id: Value },
}

impl Message {
    /// The JSON-RPC text of the message as it is sent (a request with id 0).
    pub fn text(&self) -> String {
        match self {
            Message::Request { method, params } => {
                let mut request = serde_json::json!({ "jsonrpc": "2.0", "id": 0, "method": method });
                if let Some(params) = params {
                    request["params"] = params.clone();
                }
                request.to_string()
            }
            Message::Raw { text, .. } => text.clone(),
        }
    }
}

/// What a case accepts.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// A result (or stream) that validates against the method's result definition.
    Success,
    /// A valid result, or — because the example's ids may name nothing on this
    /// agent — an error the method declares in the schema (`errors`), other than
    /// the version and authentication errors, which say the runner is misconfigured.
    /// JSON-RPC standard errors (method not found, invalid params, internal) fail.
    SuccessOrDeclared,
    /// Like [`Expect::SuccessOrDeclared`], and invalid params is accepted too.
    ValidOrRejected,
    /// Exactly this registry error: code, ErrorInfo reason and domain.
    Error(ErrorKind),
    /// One of these registry errors (where the contract leaves the choice open).
    AnyError(Vec<ErrorKind>),
    /// An envelope error with this code, carrying a registry ErrorInfo of either
    /// contract (before the method is known, the domain cannot be chosen by it).
    EnvelopeError(i64),
}

/// One case of the suite.
#[derive(Clone, Debug)]
pub struct Case {
    /// Stable id, `<method or group>/<case>`; the expected-failures file lists these.
    pub id: String,
    /// Method group (the schema's service), or `envelope` / `versioning`.
    pub group: String,
    pub method: Option<&'static MethodDescriptor>,
    pub message: Message,
    /// Extension minor version to call at (`None`: the agent's newest).
    pub ext_version: Option<String>,
    /// The version of the method's contract that added what the case relies
    /// on (the method's `since`, a member's `x-since`), when it names one: the
    /// case applies only to an agent declaring it (see [`crate::card::Reach`]).
    pub since: Option<String>,
    pub expect: Expect,
    /// What the case holds the agent to.
    pub requirement: Requirement,
    /// The capability (or extension) the case depends on, and whether the card declares it.
    pub capability: Option<CapabilityUse>,
    /// The params are a positive example's: the runner points them at the state
    /// it created (see [`crate::runner::Fixture`]), whatever the case expects.
    pub on_fixture: bool,
}

/// The groups a runner can select: every service of the method tables, plus
/// `envelope`, `versioning`, `scenarios`, `v0_3` and one per draft version
/// (`v1_1`, see [`crate::draft`]).
pub fn all_groups() -> Vec<String> {
    let mut groups: Vec<String> = Vec::new();
    for d in dispatched() {
        if !groups.iter().any(|g| g == d.service) {
            groups.push(d.service.to_string());
        }
    }
    groups.extend(["envelope", "versioning", "scenarios", V0_3_GROUP].map(String::from));
    groups.extend(crate::draft::Draft::all().iter().map(|d| d.group()));
    groups
}

/// The group of the A2A 0.3 cases (see [`crate::v0_3`]).
pub const V0_3_GROUP: &str = "v0_3";

/// The dispatched methods (binding methods such as stdio `initialize` are the
/// transport's business, not a method's).
pub fn dispatched() -> impl Iterator<Item = &'static MethodDescriptor> {
    a2a::METHODS.iter().filter(|d| d.is_dispatched())
}

/// Every derived case of the selected groups that applies, in table order.
pub fn derive(groups: &[String], app: &Applicability) -> Vec<Case> {
    let s = schemas();
    let wanted = |g: &str| groups.iter().any(|w| w == g);
    let mut cases = Vec::new();
    let mut services: Vec<&str> = Vec::new();
    for d in dispatched().filter(|d| wanted(d.service) && app.includes(d.contract)) {
        if !services.contains(&d.service) {
            services.push(d.service);
        }
    }
    // Per group: its positive examples (ordered by phase), then its negatives.
    for service in services {
        let mut positives = Vec::new();
        let mut negatives = Vec::new();
        for d in dispatched().filter(|d| d.service == service) {
            let (first_positive, first_negative) = (positives.len(), negatives.len());
            method_cases(s, d, &mut positives, &mut negatives);
            let capability = app.capability_of(d);
            let off = d.capability.filter(|c| !app.declares(c));
            let fresh = positives[first_positive..].iter_mut().map(|(_, c)| c);
            for case in fresh.chain(&mut negatives[first_negative..]) {
                case.capability = capability.clone();
                if let Some(off) = off {
                    without_capability(case, off);
                }
            }
        }
        positives.sort_by_key(|(phase, _)| *phase);
        cases.extend(positives.into_iter().map(|(_, c)| c));
        cases.extend(negatives);
    }
    if wanted("versioning") {
        versioning_cases(s, app, &mut cases);
    }
    if wanted("envelope") {
        envelope_cases(&mut cases);
    }
    cases
}

/// A case of a method whose capability the card does not declare: the method
/// answers the capability's "not supported" error — exactly, where a result was
/// expected; for a negative case, that error or the rejection it expected (the
/// order of the checks is the agent's).
fn without_capability(case: &mut Case, capability: &str) {
    let unsupported = rules::unsupported_error(capability);
    case.requirement = rules::capability_off(capability);
    case.expect = match &case.expect {
        Expect::Success | Expect::SuccessOrDeclared | Expect::ValidOrRejected => Expect::Error(unsupported),
        Expect::Error(kind) => Expect::AnyError(vec![unsupported, *kind]),
        Expect::AnyError(kinds) => {
            Expect::AnyError([unsupported].into_iter().chain(kinds.iter().copied()).collect())
        }
        Expect::EnvelopeError(code) => Expect::EnvelopeError(*code),
    };
}

/// When a positive example runs within its group: the examples share names
/// (`release-writer` is added, shown, updated, removed), so creators run
/// first and destroyers last, everything else in table order between them.
pub(crate) fn phase(name: &str) -> u8 {
    let last = name.rsplit('/').next().unwrap_or(name);
    if matches!(last, "add" | "use" | "set" | "create" | "import")
        || last.starts_with("Create")
        || last.starts_with("Send")
    {
        0
    } else if matches!(last, "remove" | "cancel" | "rollback" | "delete")
        || last.starts_with("Delete")
        || last.starts_with("Cancel")
    {
        2
    } else {
        1
    }
}

/// A case of method `d`.
fn method_case(
    d: &'static MethodDescriptor,
    id: String,
    params: Option<Value>,
    expect: Expect,
    requirement: Requirement,
) -> Case {
    Case {
        id: format!("{}/{id}", d.name),
        group: d.service.to_string(),
        method: Some(d),
        message: Message::Request {
            method: d.name.to_string(),
            params,
        },
        ext_version: None,
        since: d.since.map(str::to_string),
        on_fixture: matches!(expect, Expect::SuccessOrDeclared | Expect::ValidOrRejected),
        expect,
        requirement,
        capability: None,
    }
}

fn method_cases(
    s: &Schemas,
    d: &'static MethodDescriptor,
    positives: &mut Vec<(u8, Case)>,
    out: &mut Vec<Case>,
) {
    let examples = s.examples(d.name);
    for (i, example) in examples.iter().enumerate() {
        let params = example.get("params").cloned();
        let id = format!("example-{}", i + 1);
        let case = method_case(d, id, params, Expect::SuccessOrDeclared, rules::operation(d));
        positives.push((phase(d.name), case));
    }
    if let Some(generated) = s.definition(d.params_type).and_then(|def| generate(s, def, 0)) {
        if s.validate(d.params_type, &generated).is_ok() {
            let (id, expect) = ("generated-minimal".to_string(), Expect::ValidOrRejected);
            let case = method_case(d, id, Some(generated), expect, rules::operation(d));
            positives.push((phase(d.name), case));
        }
    }
    let base = examples
        .first()
        .and_then(|e| e.get("params"))
        .cloned()
        .unwrap_or_else(|| json!({}));
    if let Some(def) = s.definition(d.params_type).map(|v| s.resolve(v)) {
        negative_cases(s, d, def, &base, out);
    }
}

/// One invalid mutation of an example's params: its id suffix
/// (`missing/<field>`, `wrong-type/<field>`, `bad-enum/<path>`), the params,
/// whether it removes a required field (a weaker rule than a wrong value), and
/// the newest `x-since` of the members it touches (a member a version added
/// is that version's to check: an older agent rightly ignores it).
pub(crate) struct Mutation {
    pub id: String,
    pub params: Value,
    pub missing: bool,
    pub since: Option<String>,
}

/// The invalid mutations of `base` (an example's params) that the params
/// definition `def` implies: each required field removed, each plainly typed
/// top-level field given another JSON type, each enum value (any depth)
/// replaced by a name the enum lacks. Shared by every dialect's derivation.
pub(crate) fn mutations(s: &Schemas, def: &Value, base: &Value) -> Vec<Mutation> {
    let mut out = Vec::new();
    let required: Vec<&str> = def
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for field in &required {
        let mut params = base.clone();
        if let Some(obj) = params.as_object_mut() {
            obj.remove(*field);
        }
        let prop = def.get("properties").and_then(|p| p.get(*field));
        out.push(Mutation {
            id: format!("missing/{field}"),
            params,
            missing: true,
            since: prop.and_then(|p| since_of(s, p)),
        });
    }
    if let Some(props) = def.get("properties").and_then(Value::as_object) {
        for (field, prop) in props {
            let Some(wrong) = wrong_type_value(s.resolve(prop)) else {
                continue;
            };
            let mut params = base.clone();
            if let Some(obj) = params.as_object_mut() {
                obj.insert(field.clone(), wrong);
            }
            out.push(Mutation {
                id: format!("wrong-type/{field}"),
                params,
                missing: false,
                since: since_of(s, prop),
            });
        }
    }
    let mut enum_paths = Vec::new();
    find_enum_paths(s, def, base, &mut Vec::new(), &mut enum_paths, 0);
    for EnumPath { path, since } in enum_paths {
        let mut params = base.clone();
        if let Some(slot) = pointer_mut(&mut params, &path) {
            *slot = json!("NOT_A_DECLARED_VALUE");
            out.push(Mutation {
                id: format!("bad-enum/{}", path.join(".")),
                params,
                missing: false,
                since,
            });
        }
    }
    out
}

/// The negative cases of method `d` from its params definition `def`, each a
/// mutation of the first example's params `base`.
fn negative_cases(s: &Schemas, d: &'static MethodDescriptor, def: &Value, base: &Value, out: &mut Vec<Case>) {
    let invalid = || Expect::Error(d.contract.invalid_params());
    for mutation in mutations(s, def, base) {
        let requirement = if mutation.missing {
            rules::missing_field(d.contract)
        } else {
            rules::invalid_input(d.contract)
        };
        let mut case = method_case(d, mutation.id, Some(mutation.params), invalid(), requirement);
        case.since = newest(case.since.take(), mutation.since);
        out.push(case);
    }
    // `params` that is not an object violates the request envelope's schema;
    // answering it as invalid request or invalid params are both fair.
    let either = Expect::AnyError(vec![d.contract.invalid_request(), d.contract.invalid_params()]);
    let params = Some(json!(["not", "an", "object"]));
    out.push(method_case(
        d,
        "params-not-object".into(),
        params,
        either,
        rules::invalid_input(d.contract),
    ));
}

/// A minimal instance of `schema`: required properties only, the first
/// meaningful enum value, the first one-of alternative. `None` where the
/// schema asks for something this simple generator cannot make.
pub fn generate(s: &Schemas, schema: &Value, depth: usize) -> Option<Value> {
    if depth > 12 {
        return None;
    }
    let schema = s.resolve(schema);
    if let Some(c) = schema.get("const") {
        return Some(c.clone());
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        // `*_UNSPECIFIED` is the proto's "not set" value, which methods reject.
        return values
            .iter()
            .find(|v| !v.as_str().is_some_and(|t| t.ends_with("_UNSPECIFIED")))
            .or_else(|| values.first())
            .cloned();
    }
    let alternatives = schema.get("oneOf").and_then(Value::as_array);
    let ty = schema.get("type").and_then(Value::as_str);
    if ty.is_none() {
        // A wrapper one-of: its first alternative; an untyped value: a string.
        return match alternatives.and_then(|a| a.first()) {
            Some(first) => generate(s, first, depth + 1),
            None => Some(json!("conformance")),
        };
    }
    match ty? {
        "object" => {
            let props = schema.get("properties").and_then(Value::as_object);
            let mut required: Vec<String> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).map(String::from).collect())
                .unwrap_or_default();
            // A content one-of (`Part`): the fields its first alternative requires.
            if let Some(first) = alternatives.and_then(|a| a.first()) {
                for name in first
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(n) = name.as_str() {
                        required.push(n.to_string());
                    }
                }
            }
            let mut out = serde_json::Map::new();
            for name in required {
                let prop = props.and_then(|p| p.get(&name))?;
                out.insert(name, generate(s, prop, depth + 1)?);
            }
            Some(Value::Object(out))
        }
        "array" => {
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            if min == 0 {
                Some(json!([]))
            } else {
                let item = generate(s, schema.get("items")?, depth + 1)?;
                Some(Value::Array(vec![item; min as usize]))
            }
        }
        "string" => Some(match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => json!("2025-01-01T00:00:00Z"),
            _ if schema.get("contentEncoding").is_some() => json!("Y29uZm9ybWFuY2U="),
            _ => json!("conformance-generated"),
        }),
        "integer" | "number" => Some(json!(schema
            .get("minimum")
            .and_then(Value::as_i64)
            .unwrap_or(1)
            .max(1))),
        "boolean" => Some(json!(false)),
        _ => None,
    }
}

/// A value of a JSON type the property does not allow, when its type is plain.
fn wrong_type_value(prop: &Value) -> Option<Value> {
    // Untyped (`google.protobuf.Value`) and one-of properties accept too much to
    // have a definitely-wrong type.
    if prop.get("oneOf").is_some() || prop.get("anyOf").is_some() {
        return None;
    }
    match prop.get("type").and_then(Value::as_str)? {
        // ProtoJSON accepts proto enum numbers, so an enum's wrong type is not a number.
        "boolean" => Some(json!("not-a-boolean")),
        "string" | "integer" | "number" | "object" | "array" => Some(json!(true)),
        _ => None,
    }
}

/// The version that added a member: its `x-since`, on the property or on
/// the definition it refers to.
fn since_of(s: &Schemas, prop: &Value) -> Option<String> {
    let own = prop.get("x-since").and_then(Value::as_str);
    let referred = s.resolve(prop).get("x-since").and_then(Value::as_str);
    newest(own.map(str::to_string), referred.map(str::to_string))
}

/// The newer of two versions (either may be absent).
fn newest(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if Version::parse(&b) > Version::parse(&a) {
            b
        } else {
            a
        }),
        (a, b) => a.or(b),
    }
}

/// An enum-typed value's place in an example, and the newest `x-since` of
/// the members on the way to it.
struct EnumPath {
    path: Vec<String>,
    since: Option<String>,
}

/// Paths (object keys / array indexes) in `value` whose schema is an enum.
fn find_enum_paths(
    s: &Schemas,
    schema: &Value,
    value: &Value,
    path: &mut Vec<(String, Option<String>)>,
    out: &mut Vec<EnumPath>,
    depth: usize,
) {
    if depth > 6 {
        return;
    }
    let schema = s.resolve(schema);
    if schema.get("enum").is_some() && value.is_string() {
        out.push(EnumPath {
            path: path.iter().map(|(key, _)| key.clone()).collect(),
            since: path
                .iter()
                .fold(None, |acc, (_, since)| newest(acc, since.clone())),
        });
        return;
    }
    match value {
        Value::Object(map) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (k, v) in map {
                if let Some(p) = props.get(k) {
                    path.push((k.clone(), since_of(s, p)));
                    find_enum_paths(s, p, v, path, out, depth + 1);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            if let (Some(first), Some(item_schema)) = (items.first(), schema.get("items")) {
                path.push(("0".into(), None));
                find_enum_paths(s, item_schema, first, path, out, depth + 1);
                path.pop();
            }
        }
        _ => {}
    }
}

fn pointer_mut<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    let pointer: String = path.iter().map(|p| format!("/{p}")).collect();
    value.pointer_mut(&pointer)
}

fn versioning_cases(s: &Schemas, app: &Applicability, out: &mut Vec<Case>) {
    for contract in Contract::ALL.iter().filter(|c| app.includes(**c)) {
        let name = match contract.method_prefix() {
            Some(prefix) => format!("{prefix}conformance/no-such-method"),
            None => "NoSuchConformanceMethod".to_string(),
        };
        out.push(Case {
            id: format!("versioning/unknown-method/{}", contract.name()),
            group: "versioning".into(),
            method: None,
            message: Message::Request {
                method: name,
                params: Some(json!({})),
            },
            ext_version: None,
            since: None,
            expect: Expect::Error(contract.method_not_found()),
            requirement: rules::unknown_method(*contract),
            capability: None,
            on_fixture: false,
        });
    }
    // Methods newer than the oldest extension version the agent serves are
    // invisible to that version's clients.
    for d in dispatched().filter(|d| app.includes(d.contract)) {
        let served: Vec<&str> = match d.contract.released_protocol_version() {
            None => app.extension_versions.iter().map(String::as_str).collect(),
            Some(_) => d.contract.versions().to_vec(),
        };
        let oldest = served.iter().copied().min_by_key(|v| Version::parse(v));
        let (Some(since), Some(oldest)) = (d.since, oldest) else {
            continue;
        };
        // A method as old as the oldest served version, or older, is seen by every client.
        if Version::parse(since) <= Version::parse(oldest) {
            continue;
        }
        let params = s
            .examples(d.name)
            .first()
            .and_then(|e| e.get("params"))
            .cloned()
            .or_else(|| Some(json!({})));
        out.push(Case {
            id: format!("versioning/hidden-in-{oldest}/{}", d.name),
            group: "versioning".into(),
            method: Some(d),
            message: Message::Request {
                method: d.name.to_string(),
                params,
            },
            ext_version: Some(oldest.to_string()),
            since: None,
            expect: Expect::Error(d.contract.method_not_found()),
            requirement: rules::hidden_method(d.contract),
            capability: app.capability_of(d),
            on_fixture: false,
        });
    }
}

/// A request cut off inside its object: not JSON at all, so a parse error.
const TRUNCATED_REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"#;

fn envelope_cases(out: &mut Vec<Case>) {
    let raw = |id: &str, text: &str, expect_id: Value, code: i64| Case {
        id: format!("envelope/{id}"),
        group: "envelope".into(),
        method: None,
        message: Message::Raw {
            text: text.to_string(),
            expect_id,
        },
        ext_version: None,
        since: None,
        expect: Expect::EnvelopeError(code),
        requirement: rules::envelope(),
        capability: None,
        on_fixture: false,
    };
    let get = format!(
        r#""method":"{}","params":{{"id":"conformance-envelope"}}"#,
        markers::GetTask::NAME
    );
    out.push(raw("not-json", TRUNCATED_REQUEST, Value::Null, -32700));
    out.push(raw("not-an-object", "42", Value::Null, -32600));
    out.push(raw(
        "wrong-jsonrpc",
        &format!(r#"{{"jsonrpc":"1.0","id":"env-1",{get}}}"#),
        json!("env-1"),
        -32600,
    ));
    out.push(raw(
        "missing-jsonrpc",
        &format!(r#"{{"id":"env-2",{get}}}"#),
        json!("env-2"),
        -32600,
    ));
    out.push(raw(
        "id-object",
        &format!(r#"{{"jsonrpc":"2.0","id":{{"a":1}},{get}}}"#),
        Value::Null,
        -32600,
    ));
    out.push(raw(
        "id-array",
        &format!(r#"{{"jsonrpc":"2.0","id":[1],{get}}}"#),
        Value::Null,
        -32600,
    ));
    out.push(raw(
        "missing-method",
        r#"{"jsonrpc":"2.0","id":"env-3","params":{}}"#,
        json!("env-3"),
        -32600,
    ));
    out.push(raw(
        "method-not-string",
        r#"{"jsonrpc":"2.0","id":"env-4","method":7,"params":{}}"#,
        json!("env-4"),
        -32600,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dispatched_method_has_positive_and_negative_cases() {
        let cases = derive(&all_groups(), &Applicability::everything());
        for d in dispatched() {
            let prefix = format!("{}/", d.name);
            let mine: Vec<&Case> = cases.iter().filter(|c| c.id.starts_with(&prefix)).collect();
            assert!(
                mine.iter().any(|c| c.expect == Expect::SuccessOrDeclared),
                "{}",
                d.name
            );
            assert!(
                mine.iter()
                    .any(|c| c.expect == Expect::Error(d.contract.invalid_params())),
                "{}",
                d.name
            );
        }
        let ids: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), cases.len(), "case ids are unique");
    }

    #[test]
    fn get_task_cases_are_derived_from_its_schema() {
        let cases = derive(&["messaging".to_string()], &Applicability::everything());
        let ids: Vec<&str> = cases
            .iter()
            .filter(|c| c.id.starts_with("GetTask/"))
            .map(|c| c.id.as_str())
            .collect();
        assert!(ids.contains(&"GetTask/example-1"), "{ids:?}");
        assert!(ids.contains(&"GetTask/missing/id"), "{ids:?}");
        assert!(ids.contains(&"GetTask/wrong-type/historyLength"), "{ids:?}");
        let send = cases
            .iter()
            .find(|c| c.id == "SendMessage/bad-enum/message.role")
            .expect("the role enum of the example message is found");
        assert_eq!(
            send.expect,
            Expect::Error(ErrorKind::from_reason("a2a-protocol.org", "INVALID_PARAMS").expect("registry"))
        );
    }

    #[test]
    fn a_case_on_a_draft_member_records_the_version_that_added_it() {
        let cases = derive(&["messaging".to_string()], &Applicability::everything());
        let since = |id: &str| {
            let case = cases.iter().find(|c| c.id == id);
            case.unwrap_or_else(|| panic!("{id} is derived")).since.clone()
        };
        // `currentGeneration` is `x-since: 1.1` in the schema; `historyLength` is 1.0's.
        assert_eq!(
            since("GetTask/wrong-type/currentGeneration").as_deref(),
            Some("1.1")
        );
        assert_eq!(since("GetTask/wrong-type/historyLength"), None);
        assert_eq!(since("GetTask/missing/id"), None);
        assert_eq!(since("SendMessage/bad-enum/message.role"), None);
    }

    #[test]
    fn a_newer_extension_method_is_probed_only_at_an_older_version_the_card_declares() {
        let card = |versions: Value| {
            let ext = json!([{"uri": "urn:cleveragents:extensions:v1", "params": {"versions": versions}}]);
            let card = json!({"capabilities": {"extensions": ext}});
            Applicability::from_card(crate::card::ContractChoice::Auto, Ok(card))
        };
        let hidden = |app: &Applicability| {
            let cases = derive(&["versioning".to_string()], app);
            cases
                .iter()
                .filter(|c| c.id.starts_with("versioning/hidden-in-"))
                .count()
        };
        assert!(hidden(&card(json!(["1.1", "1.2"]))) > 0);
        // An agent serving 1.2 alone has no older clients to hide methods from.
        assert_eq!(hidden(&card(json!(["1.2"]))), 0);
    }

    #[test]
    fn methods_newer_than_the_oldest_served_version_are_probed_at_it() {
        let cases = derive(&["versioning".to_string()], &Applicability::everything());
        for method in ["_cleveragents/session/create", "_cleveragents/events/subscribe"] {
            let case = cases
                .iter()
                .find(|c| c.id == format!("versioning/hidden-in-1.1/{method}"))
                .expect("the method arrived in 1.2");
            assert_eq!(case.ext_version.as_deref(), Some("1.1"));
            assert_eq!(
                case.expect,
                Expect::Error(
                    ErrorKind::from_reason("urn:cleveragents:extensions:v1", "METHOD_NOT_FOUND")
                        .expect("registry")
                )
            );
        }
        for (method, since) in [
            ("_cleveragents/plan/list", "1.1"),
            ("_cleveragents/plan/use", "1.0"),
        ] {
            assert!(
                !cases.iter().any(|c| c.id.ends_with(&format!("/{method}"))),
                "{method} ({since}) is seen by every served version"
            );
        }
    }

    #[test]
    fn a_capability_the_card_does_not_declare_makes_its_methods_expect_the_unsupported_error() {
        let card = json!({"capabilities": {"streaming": true, "pushNotifications": false}});
        let app = Applicability::from_card(crate::card::ContractChoice::Auto, Ok(card));
        let cases = derive(&["push_config".to_string()], &app);
        let create = cases
            .iter()
            .find(|c| c.id == "CreateTaskPushNotificationConfig/example-1")
            .expect("the example is derived");
        let unsupported = ErrorKind::PushNotificationNotSupported;
        assert_eq!(create.expect, Expect::Error(unsupported));
        assert_eq!(create.requirement, rules::capability_off("pushNotifications"));
        assert_eq!(
            create.capability,
            Some(CapabilityUse {
                name: "pushNotifications".into(),
                declared: false
            })
        );
        let missing = cases
            .iter()
            .find(|c| c.id == "CreateTaskPushNotificationConfig/missing/url")
            .expect("the negative case is derived");
        assert_eq!(
            missing.expect,
            Expect::AnyError(vec![unsupported, Contract::A2a.invalid_params()])
        );
    }

    #[test]
    fn a_pure_a2a_run_derives_no_extension_case() {
        let card = json!({"capabilities": {"streaming": true}});
        let app = Applicability::from_card(crate::card::ContractChoice::Auto, Ok(card));
        let cases = derive(&all_groups(), &app);
        assert!(cases.iter().any(|c| c.id == "versioning/unknown-method/a2a"));
        let prefix = Contract::Cleveragents
            .method_prefix()
            .expect("the extension has a prefix");
        let offending: Vec<&str> = cases
            .iter()
            .filter(|c| matches!(&c.message, Message::Request { method, .. } if method.starts_with(prefix)))
            .map(|c| c.id.as_str())
            .collect();
        assert!(offending.is_empty(), "{offending:?}");
        assert!(cases
            .iter()
            .all(|c| c.method.is_none_or(|d| d.contract == Contract::A2a)));
    }
}
