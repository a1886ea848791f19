//! The cases of group `versioning`: per contract an unknown method, and each
//! method newer than the oldest extension version served, called at that
//! version (method not found).

use super::case::{Case, Expect, Message};
use super::method::dispatched;
use crate::card::Applicability;
use crate::rules;
use crate::schema::Schemas;
use a2a::rpc::Version;
use a2a::Contract;
use serde_json::json;

pub(super) fn versioning_cases(s: &Schemas, app: &Applicability, out: &mut Vec<Case>) {
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
