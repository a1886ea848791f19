//! Version and extension negotiation: the `A2A-Version` check (-32009), the
//! activated extensions (`A2A-Extensions`, or stdio `initialize`) and the minor
//! version of each extension contract (-32007 outside the supported set).

use a2a::rpc::{Error, Version};
use a2a::{Contract, ErrorKind};
use std::collections::BTreeMap;

/// HTTP header carrying the A2A protocol version.
pub const A2A_VERSION_HEADER: &str = a2a::rpc::declared(Contract::A2a.version_header());
/// HTTP header carrying the extensions a client activates (comma-separated URIs).
pub const A2A_EXTENSIONS_HEADER: &str = a2a::rpc::declared(Contract::A2a.extensions_header());
/// HTTP header carrying the minor version of `urn:cleveragents:extensions:v1`
/// the client speaks (`1.1` or `1.2`); the newest when absent. Echoed back.
pub const EXTENSION_VERSION_HEADER: &str = a2a::rpc::declared(Contract::Cleveragents.version_header());
/// The A2A protocol version served.
pub const PROTOCOL_VERSION: &str = a2a::rpc::declared(Contract::A2a.protocol_version());
/// The custom binding URI of the stdio transport.
pub const STDIO_BINDING_URI: &str = a2a::STDIO_BINDING_URI;
/// `protocolBinding` of the HTTP interface.
pub const JSONRPC_BINDING: &str = "JSONRPC";
/// `protocolBinding` of the HTTP+JSON (REST) interface (spec §11).
pub const REST_BINDING: &str = "HTTP+JSON";

/// Checks the client's A2A protocol version. `assume` stands in for an absent
/// or empty value (which the spec reads as 0.3).
pub(crate) fn check_protocol_version(value: Option<&str>, assume: Option<&str>) -> Result<(), Error> {
    let value = value.map(str::trim).filter(|v| !v.is_empty());
    let Some(value) = value.or(assume) else {
        return Err(Error::new(
            ErrorKind::VersionNotSupported,
            format!(
                "No A2A version given, which means 0.3; this agent serves A2A {PROTOCOL_VERSION}: send the header `{A2A_VERSION_HEADER}: {PROTOCOL_VERSION}`"
            ),
        )
        .with_metadata("supportedVersions", PROTOCOL_VERSION));
    };
    if Version::parse(value).is_some() && Version::parse(value) == Version::parse(PROTOCOL_VERSION) {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::VersionNotSupported,
        format!(
            "A2A version `{}` is not supported; this agent serves {PROTOCOL_VERSION} (header `{A2A_VERSION_HEADER}`)",
            printable(value)
        ),
    )
    .with_metadata("supportedVersions", PROTOCOL_VERSION))
}

/// The outcome of negotiation for one call or session.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Negotiated {
    pub activated: Vec<String>,
    /// Negotiated version per contract name (the key `CallContext` uses).
    pub versions: BTreeMap<&'static str, Version>,
}

/// The extension contracts this server speaks.
pub(crate) fn extension_contracts() -> impl Iterator<Item = (Contract, &'static str)> {
    Contract::ALL
        .iter()
        .filter_map(|c| c.extension_uri().map(|uri| (*c, uri)))
}

/// The activated subset of the URIs a client lists (unknown URIs are ignored).
pub(crate) fn activate<'a>(requested: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut activated: Vec<String> = Vec::new();
    for uri in requested.map(str::trim).filter(|u| !u.is_empty()) {
        if extension_contracts().any(|(_, known)| known == uri) && !activated.iter().any(|a| a == uri) {
            activated.push(uri.to_string());
        }
    }
    activated
}

/// Resolves the requested minor version of `contract`; `None` means the newest.
pub(crate) fn negotiate_minor(contract: Contract, requested: Option<&str>) -> Result<Version, Error> {
    let supported = contract.versions();
    let mismatch = |shown: &str| {
        Error::new(
            ErrorKind::ExtVersionMismatch,
            format!(
                "Version `{}` of {} is not supported; supported: {}",
                printable(shown),
                contract.extension_uri().unwrap_or(contract.name()),
                supported.join(", ")
            ),
        )
        .with_metadata("supportedVersions", supported.join(","))
    };
    match requested.map(str::trim).filter(|v| !v.is_empty()) {
        None => Version::latest_of(contract).ok_or_else(|| mismatch("")),
        Some(text) => match Version::parse(text) {
            Some(v) if supported.iter().any(|s| Version::parse(s) == Some(v)) => Ok(v),
            _ => Err(mismatch(text)),
        },
    }
}

/// Keeps client-supplied text short and printable inside error messages.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minor_versions() {
        assert_eq!(
            negotiate_minor(Contract::Cleveragents, Some("1.1")).ok(),
            Version::parse("1.1")
        );
        assert_eq!(
            negotiate_minor(Contract::Cleveragents, None).ok(),
            Version::parse("1.2")
        );
        for retired_or_unknown in ["1.0", "1.3"] {
            let err = negotiate_minor(Contract::Cleveragents, Some(retired_or_unknown)).unwrap_err();
            assert_eq!(err.code, -32007);
        }
    }

    #[test]
    fn protocol_versions() {
        assert!(check_protocol_version(Some("1.0"), None).is_ok());
        assert_eq!(
            check_protocol_version(Some("0.3"), None).unwrap_err().code,
            -32009
        );
        assert_eq!(check_protocol_version(None, None).unwrap_err().code, -32009);
        assert!(check_protocol_version(Some(""), Some("1.0")).is_ok());
    }
}
