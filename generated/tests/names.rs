//! The names the schemas give: each error's (what the specification calls it,
//! or the vendor name of an extension's error) and each protocol binding's.
//! Command lines and bindings report errors by these names and cards carry
//! the binding names, so they are pinned here as they travel.

use a2a::{Binding, Contract, ErrorKind};
use std::collections::BTreeSet;

#[test]
fn every_error_has_a_distinct_name() {
    let mut seen = BTreeSet::new();
    for kind in ErrorKind::ALL {
        let name = kind.spec_name();
        assert!(!name.trim().is_empty(), "{kind:?} has no name");
        assert!(seen.insert(name), "{kind:?} shares the name `{name}`");
    }
}

/// The specification names each of its errors `…Error`, the JSON-RPC
/// standard ones included (`InternalError`).
#[test]
fn the_protocols_errors_carry_the_specifications_names() {
    for kind in ErrorKind::ALL.iter().filter(|k| k.contract() == Contract::A2a) {
        assert!(
            kind.spec_name().ends_with("Error"),
            "{kind:?}: `{}`",
            kind.spec_name()
        );
    }
    let names: Vec<(ErrorKind, &str)> = [
        ErrorKind::ParseError,
        ErrorKind::InvalidRequest,
        ErrorKind::MethodNotFound,
        ErrorKind::InvalidParams,
        ErrorKind::InternalError,
        ErrorKind::TaskNotFound,
        ErrorKind::VersionNotSupported,
        ErrorKind::TaskGenerationMismatch,
    ]
    .into_iter()
    .map(|k| (k, k.spec_name()))
    .collect();
    assert_eq!(
        names,
        [
            (ErrorKind::ParseError, "JSONParseError"),
            (ErrorKind::InvalidRequest, "InvalidRequestError"),
            (ErrorKind::MethodNotFound, "MethodNotFoundError"),
            (ErrorKind::InvalidParams, "InvalidParamsError"),
            (ErrorKind::InternalError, "InternalError"),
            (ErrorKind::TaskNotFound, "TaskNotFoundError"),
            (ErrorKind::VersionNotSupported, "VersionNotSupportedError"),
            (ErrorKind::TaskGenerationMismatch, "TaskGenerationMismatchError"),
        ]
    );
}

/// No specification names the extension's errors: theirs are the vendor's,
/// after the ErrorInfo reason, and cannot pass for the protocol's names.
#[test]
fn the_extensions_errors_carry_vendor_names() {
    for kind in ErrorKind::ALL
        .iter()
        .filter(|k| k.contract() == Contract::Cleveragents)
    {
        assert_eq!(
            kind.spec_name(),
            format!("CLEVERAGENTS_{}", kind.reason()),
            "{kind:?}"
        );
        assert!(!kind.spec_name().ends_with("Error"), "{kind:?}");
    }
    assert_eq!(ErrorKind::ExtNotFound.spec_name(), "CLEVERAGENTS_NOT_FOUND");
}

#[test]
fn the_bindings_are_the_specifications_three() {
    let names: Vec<&str> = Binding::ALL.iter().map(|b| b.as_str()).collect();
    assert_eq!(names, ["JSONRPC", "GRPC", "HTTP+JSON"]);
    assert_eq!(
        [
            a2a::bindings::JSONRPC,
            a2a::bindings::GRPC,
            a2a::bindings::HTTP_JSON
        ],
        ["JSONRPC", "GRPC", "HTTP+JSON"]
    );
    assert_eq!(Binding::HttpJson.to_string(), "HTTP+JSON");
    for binding in Binding::ALL {
        assert!(!binding.description().is_empty());
        assert!(binding.spec_section().is_some(), "{binding:?}");
    }
}

#[test]
fn a_binding_name_is_read_in_any_case() {
    for (name, binding) in [
        ("JSONRPC", Binding::JsonRpc),
        ("jsonrpc", Binding::JsonRpc),
        ("JsonRpc", Binding::JsonRpc),
        ("HTTP+JSON", Binding::HttpJson),
        ("http+json", Binding::HttpJson),
        ("grpc", Binding::Grpc),
        ("gRPC", Binding::Grpc),
    ] {
        assert_eq!(Binding::from_name(name), Some(binding), "{name}");
    }
    for other in ["", "rest", "http_json", "JSON-RPC", a2a::STDIO_BINDING_URI] {
        assert_eq!(Binding::from_name(other), None, "{other}");
    }
}
