//! Which [`Requirement`] each kind of check holds an implementation to.
//!
//! What the schemas say is read from them: the section of the A2A
//! specification that defines a method (`x-methods.specSection`), the
//! capability a method needs and the section that says what it answers without
//! it (`x-capabilities`), and the contract a method belongs to — an extension's
//! methods are held to the extension itself, at MUST, with the extension URI as
//! their source (a server that declares an extension implements it).
//!
//! The level of each kind of derived check (a missing field, a wrong type, an
//! error's details, …) is a rule of the suite, written once here with the
//! section of the specification it comes from.

use crate::level::{Level, Requirement};
use a2a::{capabilities, Contract, ErrorKind, MethodDescriptor};

/// A requirement of the A2A specification, `section` as `3.1.3`.
pub fn spec(level: Level, section: &str) -> Requirement {
    Requirement::new(
        level,
        format!("{} §{section}", Contract::A2a.name().to_ascii_uppercase()),
    )
}

/// A requirement of the A2A 0.3 specification, `section` as `7.1`.
pub fn v0_3(level: Level, section: &str) -> Requirement {
    Requirement::new(
        level,
        format!(
            "{} {} §{section}",
            Contract::A2a.name().to_ascii_uppercase(),
            a2a::v0_3::PROTOCOL_VERSION
        ),
    )
}

/// A requirement of draft `version` of the A2A specification (`1.1`),
/// `section` as `3.2.7`.
pub fn draft(version: &str, level: Level, section: &str) -> Requirement {
    Requirement::new(
        level,
        format!(
            "{} {version} §{section}",
            Contract::A2a.name().to_ascii_uppercase()
        ),
    )
}

/// A requirement of an extension contract: MUST, sourced to its URI.
pub fn extension(contract: Contract) -> Requirement {
    Requirement::new(Level::Must, contract.extension_uri().unwrap_or(contract.name()))
}

/// The requirement of a contract's rule: the extension's own for an extension,
/// else the specification's at `level` in `section`.
fn of_contract(contract: Contract, level: Level, section: &str) -> Requirement {
    if contract.extension_uri().is_some() {
        extension(contract)
    } else {
        spec(level, section)
    }
}

/// A method answers as it is defined: a valid result, or an error it declares.
/// Every operation of the specification is one all implementations support
/// (§3.1); a capability-dependent one, once the card declares the capability.
pub fn operation(d: &MethodDescriptor) -> Requirement {
    of_contract(d.contract, Level::Must, d.spec_section.unwrap_or("3.1"))
}

/// A result that only confirms (its definition, `google.protobuf.Empty`, has
/// no member) is `{}`, the proto's JSON form: the operation's section leaves
/// the confirmation's form to the implementation, so this rule is strict.
pub fn confirmation(d: &MethodDescriptor) -> Requirement {
    of_contract(d.contract, Level::Strict, d.spec_section.unwrap_or("3.1"))
}

/// A method needing a capability the Agent Card does not declare answers the
/// capability's "not supported" error (§3.3.4).
pub fn capability_off(capability: &str) -> Requirement {
    let section = capabilities::find(capability).and_then(|c| c.spec_section);
    spec(Level::Must, section.unwrap_or("3.3.4"))
}

/// The error a method needing `capability` answers when the card does not declare it.
pub fn unsupported_error(capability: &str) -> ErrorKind {
    capabilities::find(capability).map_or(ErrorKind::UnsupportedOperation, |c| c.unsupported_error)
}

/// A request missing a required field is rejected as invalid params: the
/// specification says implementations SHOULD validate required fields (§5.7).
pub fn missing_field(contract: Contract) -> Requirement {
    of_contract(contract, Level::Should, "5.7")
}

/// A field of the wrong type, an enum name the enum lacks, or params that are
/// not an object are rejected: servers MUST validate all input parameters (§3.3.2).
pub fn invalid_input(contract: Contract) -> Requirement {
    of_contract(contract, Level::Must, "3.3.2")
}

/// An unknown method is JSON-RPC -32601 (§9.5).
pub fn unknown_method(contract: Contract) -> Requirement {
    of_contract(contract, Level::Must, "9.5")
}

/// A method newer than the caller's extension version is invisible to it.
pub fn hidden_method(contract: Contract) -> Requirement {
    extension(contract)
}

/// A malformed request envelope is JSON-RPC -32700 / -32600 (§9.3, §9.5).
pub fn envelope() -> Requirement {
    spec(Level::Must, "9.5")
}

/// An error carries a `google.rpc.ErrorInfo` in `data`: the specification says
/// implementations SHOULD (§9.5); an extension whose codes collide with the
/// base protocol's requires it, since its errors are told apart by it.
pub fn error_details(contract: Contract) -> Requirement {
    of_contract(contract, Level::Should, "9.5")
}

/// An error is answered with its code: the JSON-RPC standard codes (§9.5) and
/// the A2A errors' codes (§5.4) are MUST; an extension's are the extension's.
pub fn error_code(kind: ErrorKind) -> Requirement {
    let contract = kind.contract();
    let section = if is_standard(kind) { "9.5" } else { "5.4" };
    of_contract(contract, Level::Must, section)
}

/// The JSON-RPC standard errors (-32700, -32600 … -32603) in a contract's registry.
pub fn jsonrpc_errors(contract: Contract) -> [ErrorKind; 5] {
    [
        contract.parse_error(),
        contract.invalid_request(),
        contract.method_not_found(),
        contract.invalid_params(),
        contract.internal_error(),
    ]
}

/// True for a JSON-RPC standard error of its contract.
fn is_standard(kind: ErrorKind) -> bool {
    jsonrpc_errors(kind.contract()).contains(&kind)
}

/// The ErrorInfo `reason` and `domain` are the registry's for the error's code.
/// For the A2A errors that is the specification's convention (the error type
/// in UPPER_SNAKE_CASE, domain `a2a-protocol.org`, §9.5 with §11.6); for the
/// JSON-RPC standard codes the reasons are this project's own (strict); an
/// extension's are the extension's.
pub fn error_reason(kind: ErrorKind) -> Requirement {
    let contract = kind.contract();
    if contract.extension_uri().is_some() {
        return extension(contract);
    }
    if is_standard(kind) {
        spec(Level::Strict, "9.5")
    } else {
        spec(Level::Should, "9.5")
    }
}

/// The Agent Card served is a valid `AgentCard` (§4.4.1).
pub fn agent_card() -> Requirement {
    spec(Level::Must, "4.4.1")
}

/// The Agent Card is found at the well-known URI (§8.2).
pub fn card_discovery() -> Requirement {
    spec(Level::Should, "8.2")
}

/// The agent answers at all: over HTTP the JSON-RPC binding (§9.1), over stdio
/// the stdio binding.
pub fn reachable(transport: &str) -> Requirement {
    if transport == "http" {
        spec(Level::Must, "9.1")
    } else {
        stdio_binding()
    }
}

/// What the stdio binding requires (its `initialize` returns the card).
pub fn stdio_binding() -> Requirement {
    Requirement::new(Level::Must, a2a::STDIO_BINDING_URI)
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a::methods::markers;
    use a2a::rpc::Method as _;

    #[test]
    fn a_method_is_held_to_the_section_the_schema_names() {
        let get = markers::GetTask::descriptor();
        assert_eq!(operation(get), Requirement::new(Level::Must, "A2A §3.1.3"));
        let plan = markers::PlanUse::descriptor();
        assert_eq!(
            operation(plan),
            Requirement::new(Level::Must, "urn:cleveragents:extensions:v1")
        );
    }

    #[test]
    fn a_capability_off_is_the_schema_s_unsupported_error() {
        let push = markers::CreateTaskPushNotificationConfig::descriptor()
            .capability
            .expect("push configs need a capability");
        assert_eq!(unsupported_error(push).code(), -32003);
        assert_eq!(capability_off(push), Requirement::new(Level::Must, "A2A §3.3.4"));
        let streaming = markers::SubscribeToTask::descriptor()
            .capability
            .expect("subscribing needs a capability");
        assert_eq!(unsupported_error(streaming), ErrorKind::UnsupportedOperation);
    }

    #[test]
    fn error_details_are_should_for_a2a_and_strict_for_the_project_s_reasons() {
        assert_eq!(
            error_details(Contract::A2a),
            Requirement::new(Level::Should, "A2A §9.5")
        );
        assert_eq!(error_details(Contract::Cleveragents).level, Level::Must);
        assert_eq!(error_reason(ErrorKind::TaskNotFound).level, Level::Should);
        assert_eq!(
            error_reason(Contract::A2a.method_not_found()).level,
            Level::Strict
        );
        assert_eq!(missing_field(Contract::A2a).level, Level::Should);
        assert_eq!(invalid_input(Contract::A2a).level, Level::Must);
    }
}
