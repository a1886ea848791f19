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
//! Every case carries the [`Requirement`](crate::level::Requirement) it holds
//! the agent to ([`crate::rules`]) and the capability it depends on. What
//! applies comes from the Agent Card ([`Applicability`]): the extension's
//! methods only when the extension is gated, and a method needing a
//! capability the card does not declare expects the schema's "not supported"
//! error for it (§3.3.4).
//!
//! The types live in `case`; a method's cases in `method`, their invalid
//! mutations in `mutate` and the generated minimal params in `minimal`; the
//! groups `versioning` and `envelope` in modules of those names.

mod case;
mod envelope;
mod method;
mod minimal;
mod mutate;
mod versioning;

pub use case::{Case, Expect, Message};
pub use method::dispatched;
pub(crate) use method::phase;
pub use minimal::generate;
pub(crate) use mutate::mutations;

use crate::card::Applicability;
use crate::schema::schemas;
use envelope::envelope_cases;
use method::{method_cases, without_capability};
use versioning::versioning_cases;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::CapabilityUse;
    use crate::rules;
    use a2a::{Contract, ErrorKind};
    use serde_json::{json, Value};

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
