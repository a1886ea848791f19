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

use a2a::rpc::declared;
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
        Applicability {
            contract: contract.name(),
            contract_reason,
            extension_declared,
            capabilities,
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
