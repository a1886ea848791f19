//! The cases of one dispatched method: its positive examples (and the
//! generated minimal params), the negative cases mutated from its first
//! example, and how a capability the card does not declare changes what
//! each expects.

use super::case::{Case, Expect, Message};
use super::minimal::generate;
use super::mutate::{mutations, newest};
use crate::level::Requirement;
use crate::rules;
use crate::schema::Schemas;
use a2a::MethodDescriptor;
use serde_json::{json, Value};

/// The dispatched methods (binding methods such as stdio `initialize` are the
/// transport's business, not a method's).
pub fn dispatched() -> impl Iterator<Item = &'static MethodDescriptor> {
    a2a::METHODS.iter().filter(|d| d.is_dispatched())
}

/// A case of a method whose capability the card does not declare: the method
/// answers the capability's "not supported" error ([`Expect::without_capability`]).
pub(super) fn without_capability(case: &mut Case, capability: &str) {
    case.requirement = rules::capability_off(capability);
    case.expect = case
        .expect
        .without_capability(rules::unsupported_error(capability));
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

pub(super) fn method_cases(
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
