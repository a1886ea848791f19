//! What the Agent Card says the agent offers, and so which cases apply.
//!
//! - The contract gated: pure A2A, or A2A plus the CleverAgents extension
//!   (`urn:cleveragents:extensions:v1`) — detected from the card's
//!   `capabilities.extensions`, or forced. Under pure A2A no `_cleveragents/`
//!   method is ever called.
//! - Each capability of the schemas' `x-capabilities` (streaming, push
//!   notifications, the extended card): a case whose method needs one the card
//!   does not declare ("false or not present", §3.3.4) expects the schema's
//!   "not supported" error for it instead of a result.
//! - The versions it speaks: the A2A protocol versions of its interfaces
//!   (`supportedInterfaces[].protocolVersion`) and the extension's minor
//!   versions (the extension's `params.versions`). A case relying on a member
//!   or method newer than all of them (`x-since` / `since`) does not apply: a
//!   1.0 agent is never judged on what a 1.1 draft adds ([`Reach`]).

use a2a::rpc::{declared, Version};
use a2a::{capabilities, Contract, MethodDescriptor};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The extension this project's contract adds to A2A.
const EXTENSION_URI: &str = declared(Contract::Cleveragents.extension_uri());

/// Which contract to gate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContractChoice {
    /// A2A, plus the extension when the Agent Card declares it.
    #[default]
    Auto,
    /// A2A only, whatever the card says.
    A2a,
    /// A2A and the extension, whatever the card says.
    Cleveragents,
}

impl ContractChoice {
    /// Every choice, as the command line names them.
    pub const ALL: [ContractChoice; 3] = [
        ContractChoice::Auto,
        ContractChoice::A2a,
        ContractChoice::Cleveragents,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ContractChoice::Auto => "auto",
            ContractChoice::A2a => Contract::A2a.name(),
            ContractChoice::Cleveragents => Contract::Cleveragents.name(),
        }
    }

    pub fn from_name(name: &str) -> Option<ContractChoice> {
        ContractChoice::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// True when `card` declares the extension in `capabilities.extensions`.
pub fn declares_extension(card: &Value) -> bool {
    card.pointer("/capabilities/extensions")
        .and_then(Value::as_array)
        .is_some_and(|list| list.iter().any(|e| e["uri"] == EXTENSION_URI))
}

/// A capability a case depends on, and whether the card declares it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CapabilityUse {
    /// An `AgentCapabilities` field (`pushNotifications`), or the URI of an extension.
    pub name: String,
    pub declared: bool,
}

/// Which cases apply to the agent under test.
#[derive(Clone, Debug, Serialize)]
pub struct Applicability {
    /// The contract gated: `a2a`, or `cleveragents` (A2A and the extension).
    pub contract: &'static str,
    /// Why: forced, or what the card declares.
    pub contract_reason: String,
    /// Whether the card declares the extension.
    pub extension_declared: bool,
    /// Every capability of the schemas, and whether the card declares it.
    pub capabilities: BTreeMap<&'static str, bool>,
    /// The A2A protocol versions the card's interfaces speak (the released
    /// one when it lists none).
    pub protocol_versions: Vec<String>,
    /// The extension's minor versions the card declares (every version the
    /// schema knows when it names none, or when the extension is forced).
    pub extension_versions: Vec<String>,
    /// The card, or why there is none.
    #[serde(skip)]
    pub card: Result<Value, String>,
}

impl Applicability {
    /// Everything applies: the extension and every capability declared (for
    /// listing the cases without an agent).
    pub fn everything() -> Applicability {
        Applicability {
            contract: Contract::Cleveragents.name(),
            contract_reason: "every case".into(),
            extension_declared: true,
            capabilities: capabilities::ALL.iter().map(|c| (c.name, true)).collect(),
            protocol_versions: owned(Contract::A2a.versions()),
            extension_versions: owned(Contract::Cleveragents.versions()),
            card: Err("no agent".into()),
        }
    }

    /// Everything that applies under `choice` when the card declares everything.
    pub fn everything_under(choice: ContractChoice) -> Applicability {
        let mut app = Applicability::everything();
        if choice == ContractChoice::A2a {
            app.contract = Contract::A2a.name();
            app.contract_reason = "forced by --contract".into();
        }
        app
    }

    /// What applies given `choice` and the agent's card (or why it has none: then
    /// nothing is declared, which is what the specification reads an absent flag as).
    pub fn from_card(choice: ContractChoice, card: Result<Value, String>) -> Applicability {
        let extension_declared = card.as_ref().is_ok_and(declares_extension);
        let declared = |name: &str| {
            card.as_ref()
                .is_ok_and(|c| c.pointer(&format!("/capabilities/{name}")) == Some(&Value::Bool(true)))
        };
        let capabilities = capabilities::ALL
            .iter()
            .map(|c| (c.name, declared(c.name)))
            .collect();
        let (extension, contract_reason) = match (choice, extension_declared) {
            (ContractChoice::A2a, _) => (false, "forced by --contract".to_string()),
            (ContractChoice::Cleveragents, _) => (true, "forced by --contract".to_string()),
            (ContractChoice::Auto, true) => (true, format!("the Agent Card declares {EXTENSION_URI}")),
            (ContractChoice::Auto, false) => {
                (false, format!("the Agent Card does not declare {EXTENSION_URI}"))
            }
        };
        let contract = if extension {
            Contract::Cleveragents
        } else {
            Contract::A2a
        };
        let (protocol_versions, extension_versions) = match &card {
            Ok(card) => (protocol_versions(card), extension_versions(card)),
            Err(_) => (Vec::new(), Vec::new()),
        };
        Applicability {
            contract: contract.name(),
            contract_reason,
            extension_declared,
            capabilities,
            protocol_versions: or_else(protocol_versions, || vec![released().to_string()]),
            extension_versions: or_else(extension_versions, || owned(Contract::Cleveragents.versions())),
            card,
        }
    }

    /// True when the cases of `contract`'s methods are run.
    pub fn includes(&self, contract: Contract) -> bool {
        contract.extension_uri().is_none() || self.contract == Contract::Cleveragents.name()
    }

    /// True when the card declares `capability`.
    pub fn declares(&self, capability: &str) -> bool {
        self.capabilities.get(capability).copied().unwrap_or(false)
    }

    /// The capability a method's cases depend on: the one it needs, or the
    /// extension it belongs to.
    pub fn capability_of(&self, d: &MethodDescriptor) -> Option<CapabilityUse> {
        self.dependency(d.capability, d.contract)
    }

    /// What a check of `contract`'s methods needing `capability` (if any)
    /// depends on: that capability, or else the extension `contract` is.
    pub fn dependency(&self, capability: Option<&str>, contract: Contract) -> Option<CapabilityUse> {
        match capability {
            Some(name) => Some(CapabilityUse {
                name: name.to_string(),
                declared: self.declares(name),
            }),
            None => contract.extension_uri().map(|uri| CapabilityUse {
                name: uri.to_string(),
                declared: self.extension_declared,
            }),
        }
    }

    /// The capabilities, as a report line names them (`streaming, no pushNotifications`).
    pub fn describe_capabilities(&self) -> String {
        capabilities::ALL
            .iter()
            .map(|c| {
                if self.declares(c.name) {
                    c.name.to_string()
                } else {
                    format!("no {}", c.name)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// How a case of `contract` relying on what version `since` of it added
    /// reaches the agent (`None`: what every version has).
    pub fn reach(&self, contract: Contract, since: Option<&str>) -> Reach {
        let Some(since) = since else {
            return Reach::Released;
        };
        // A2A itself: a member newer than the released version is spoken at
        // the oldest version the card offers that has it.
        if let Some(released) = contract.released_protocol_version() {
            if !newer(since, Some(released)) {
                return Reach::Released;
            }
            let offered = self
                .protocol_versions
                .iter()
                .filter(|v| !newer(since, Some(v)))
                .min_by_key(|v| Version::parse(v));
            return match offered {
                Some(version) => Reach::Protocol(version.clone()),
                None => Reach::Missing(format!(
                    "A2A {since}, and the Agent Card's interfaces speak {}",
                    self.protocol_versions.join(", ")
                )),
            };
        }
        // The extension: called at the agent's newest minor version, which must have it.
        if self.extension_versions.iter().any(|v| !newer(since, Some(v))) {
            Reach::Released
        } else {
            Reach::Missing(format!(
                "extension version {since}, and the Agent Card declares {}",
                self.extension_versions.join(", ")
            ))
        }
    }
}

/// How a case reaches the agent, given the version whose members it relies on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reach {
    /// On the main session: what the released version (or every declared
    /// extension version) has.
    Released,
    /// On a session at this A2A version, a draft the card offers.
    Protocol(String),
    /// Not at all: the card declares no version with it (the version asked for,
    /// and what the card declares).
    Missing(String),
}

/// The released A2A version: what an agent speaks without any draft.
fn released() -> &'static str {
    declared(Contract::A2a.released_protocol_version())
}

/// True when version `a` is newer than `b` (or `b` is unknown); text that is
/// no version is never newer.
fn newer(a: &str, b: Option<&str>) -> bool {
    match (Version::parse(a), b.and_then(Version::parse)) {
        (Some(a), Some(b)) => a > b,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

fn owned(list: &[&str]) -> Vec<String> {
    list.iter().map(|v| v.to_string()).collect()
}

fn or_else(list: Vec<String>, default: impl FnOnce() -> Vec<String>) -> Vec<String> {
    if list.is_empty() {
        default()
    } else {
        list
    }
}

/// The protocol versions of the card's interfaces, each once, in card order.
fn protocol_versions(card: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let listed = card.get("supportedInterfaces").and_then(Value::as_array);
    for v in listed
        .into_iter()
        .flatten()
        .filter_map(|i| i["protocolVersion"].as_str())
    {
        if Version::parse(v).is_some() && !out.iter().any(|o| o == v) {
            out.push(v.to_string());
        }
    }
    out
}

/// The extension's minor versions the card declares in its `params.versions`.
fn extension_versions(card: &Value) -> Vec<String> {
    card.pointer("/capabilities/extensions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|e| e["uri"] == EXTENSION_URI)
        .filter_map(|e| e.pointer("/params/versions").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card(extensions: Value) -> Value {
        json!({"capabilities": {"streaming": true, "pushNotifications": false, "extensions": extensions}})
    }

    #[test]
    fn the_extension_is_gated_only_when_the_card_declares_it_or_it_is_forced() {
        let ours = card(json!([{"uri": "urn:cleveragents:extensions:v1"}]));
        let pure = card(json!([]));
        let auto = |c: &Value| Applicability::from_card(ContractChoice::Auto, Ok(c.clone()));
        assert_eq!(auto(&ours).contract, "cleveragents");
        assert_eq!(auto(&pure).contract, "a2a");
        assert_eq!(
            auto(&pure).contract_reason,
            "the Agent Card does not declare urn:cleveragents:extensions:v1"
        );
        let forced = Applicability::from_card(ContractChoice::Cleveragents, Ok(pure));
        assert_eq!(forced.contract, "cleveragents");
        assert!(!forced.extension_declared);
        let pure_a2a = Applicability::from_card(ContractChoice::A2a, Ok(ours));
        assert!(!pure_a2a.includes(Contract::Cleveragents));
        assert!(pure_a2a.includes(Contract::A2a));
    }

    #[test]
    fn a_case_reaches_only_an_agent_declaring_the_version_it_relies_on() {
        let interfaces = |versions: &[&str]| {
            let list: Vec<Value> = versions
                .iter()
                .map(|v| json!({"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": v}))
                .collect();
            let ext = json!([{"uri": "urn:cleveragents:extensions:v1", "params": {"versions": ["1.1"]}}]);
            let card = json!({"supportedInterfaces": list, "capabilities": {"extensions": ext}});
            Applicability::from_card(ContractChoice::Auto, Ok(card))
        };
        let plain = interfaces(&["1.0"]);
        assert_eq!(plain.protocol_versions, ["1.0"]);
        assert_eq!(plain.reach(Contract::A2a, None), Reach::Released);
        assert_eq!(plain.reach(Contract::A2a, Some("1.0")), Reach::Released);
        assert_eq!(
            plain.reach(Contract::A2a, Some("1.1")),
            Reach::Missing("A2A 1.1, and the Agent Card's interfaces speak 1.0".into())
        );
        let drafted = interfaces(&["1.0", "0.3", "1.1"]);
        assert_eq!(
            drafted.reach(Contract::A2a, Some("1.1")),
            Reach::Protocol("1.1".into())
        );
        assert_eq!(
            drafted.reach(Contract::Cleveragents, Some("1.1")),
            Reach::Released
        );
        assert_eq!(
            drafted.reach(Contract::Cleveragents, Some("1.2")),
            Reach::Missing("extension version 1.2, and the Agent Card declares 1.1".into())
        );
        // No card: the released version only, every extension version the schema knows.
        let none = Applicability::from_card(ContractChoice::Cleveragents, Err("unreachable".into()));
        assert_eq!(none.protocol_versions, ["1.0"]);
        assert_eq!(none.reach(Contract::Cleveragents, Some("1.2")), Reach::Released);
    }

    #[test]
    fn a_flag_that_is_false_or_absent_is_not_declared() {
        let app = Applicability::from_card(ContractChoice::Auto, Ok(card(json!([]))));
        assert!(app.declares("streaming"));
        assert!(!app.declares("pushNotifications"));
        assert!(!app.declares("extendedAgentCard"));
        assert_eq!(
            app.describe_capabilities(),
            "streaming, no pushNotifications, no extendedAgentCard"
        );
        let none = Applicability::from_card(ContractChoice::Auto, Err("unreachable".into()));
        assert!(!none.declares("streaming"));
        assert_eq!(none.contract, "a2a");
    }
}
