//! Version and extension negotiation: the `A2A-Version` check (-32009), the
//! activated extensions (`A2A-Extensions`, or stdio `initialize`) and the minor
//! version of each extension contract (-32007 outside the supported set).

use a2a::rpc::{CallContext, Error, Version};
use a2a::{Contract, ErrorKind};
use std::collections::BTreeMap;

/// HTTP header carrying the A2A protocol version.
pub const A2A_VERSION_HEADER: &str = a2a::rpc::declared(Contract::A2a.version_header());
/// HTTP header carrying the extensions a client activates (comma-separated URIs).
pub const A2A_EXTENSIONS_HEADER: &str = a2a::rpc::declared(Contract::A2a.extensions_header());
/// HTTP header carrying the minor version of `urn:cleveragents:extensions:v1`
/// the client speaks (`1.1` or `1.2`); the newest when absent. Echoed back.
pub const EXTENSION_VERSION_HEADER: &str = a2a::rpc::declared(Contract::Cleveragents.version_header());
/// The A2A protocol version served when no draft is turned on, and the one
/// every response names unless the caller asked for another.
pub const PROTOCOL_VERSION: &str = a2a::rpc::declared(Contract::A2a.released_protocol_version());
/// The custom binding URI of the stdio transport.
pub const STDIO_BINDING_URI: &str = a2a::STDIO_BINDING_URI;

/// The A2A protocol version a call or session speaks: its dialect. Every
/// version is served on the same endpoint by the same handlers. A minor
/// version of 1.x is the current model without the members added after it
/// (the generated router fits params and answers to it); 0.3 calls pass
/// through the conversion layer (`a2a::v0_3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// A minor version of A2A 1.x, as the schema's `x-contract.versions` spells it.
    V1(&'static str),
    /// A2A 0.3: what an absent or empty `A2A-Version` means (spec §3.6.2).
    V0_3,
}

impl Default for Dialect {
    fn default() -> Self {
        Dialect::V1(PROTOCOL_VERSION)
    }
}

impl Dialect {
    /// The version as the `A2A-Version` header and the stdio `initialize` spell it.
    pub fn version(self) -> &'static str {
        match self {
            Dialect::V1(version) => version,
            Dialect::V0_3 => a2a::v0_3::PROTOCOL_VERSION,
        }
    }

    /// The version of the current model a call of this dialect is fitted to:
    /// its own, or for 0.3 the oldest 1.x (0.3 knows no member added since).
    pub fn fitted_to(self) -> Option<Version> {
        match self {
            Dialect::V1(version) => Version::parse(version),
            Dialect::V0_3 => Contract::A2a.versions().first().and_then(|v| Version::parse(v)),
        }
    }

    /// Puts in `ctx` the version a call of this dialect is fitted to, so
    /// what the caller sends and is answered holds only what it knows.
    pub fn fit(self, ctx: &mut CallContext) {
        if let Some(version) = self.fitted_to() {
            ctx.set_version(Contract::A2a, version);
        }
    }

    /// True when the dialect serves a streaming method called `method` (by its
    /// name or, in 0.3, an alias).
    pub fn streams(self, method: &str) -> bool {
        match self {
            Dialect::V1(_) => a2a::find_method(method).is_some_and(|d| d.streaming && d.is_dispatched()),
            Dialect::V0_3 => a2a::v0_3::find_method(method).is_some_and(|d| d.streaming),
        }
    }
}

/// The drafts of the protocol a deployment turned on (`a2a.draft_versions`):
/// each must be a draft the schema declares.
pub fn checked_drafts(drafts: &[String]) -> Result<Vec<&'static str>, String> {
    drafts
        .iter()
        .map(|wanted| {
            Contract::A2a
                .draft_versions()
                .iter()
                .copied()
                .find(|draft| {
                    Version::parse(draft).is_some() && Version::parse(draft) == Version::parse(wanted)
                })
                .ok_or_else(|| {
                    format!(
                        "A2A draft version `{}` is not one this build can serve (drafts: {})",
                        printable(wanted),
                        Contract::A2a.draft_versions().join(", ")
                    )
                })
        })
        .collect()
}

/// The versions served, newest first: every released 1.x minor version, the
/// drafts turned on, then 0.3.
pub fn served(drafts: &[String]) -> impl Iterator<Item = Dialect> + '_ {
    let minor = Contract::A2a
        .versions()
        .iter()
        .rev()
        .copied()
        .filter(move |version| {
            !Contract::A2a.draft_versions().contains(version)
                || drafts
                    .iter()
                    .any(|d| Version::parse(d).is_some_and(|d| Some(d) == Version::parse(version)))
        });
    minor.map(Dialect::V1).chain([Dialect::V0_3])
}

/// The versions served, newest first, as error metadata lists them.
fn supported_versions(drafts: &[String]) -> String {
    served(drafts).map(Dialect::version).collect::<Vec<_>>().join(",")
}

/// The dialect of the client's A2A protocol version among those `drafts`
/// leave served. `assume` stands in for an absent or empty value, which
/// otherwise means 0.3 (the spec's rule); any other version is -32009.
pub(crate) fn protocol_dialect(
    value: Option<&str>,
    assume: Option<&str>,
    drafts: &[String],
) -> Result<Dialect, Error> {
    let value = value.map(str::trim).filter(|v| !v.is_empty());
    let Some(value) = value.or(assume) else {
        return Ok(Dialect::V0_3);
    };
    let requested = Version::parse(value);
    if let Some(dialect) =
        served(drafts).find(|d| requested.is_some() && requested == Version::parse(d.version()))
    {
        return Ok(dialect);
    }
    let list = supported_versions(drafts);
    Err(Error::new(
        ErrorKind::VersionNotSupported,
        format!(
            "A2A version `{}` is not supported; this agent serves {} (header `{A2A_VERSION_HEADER}`)",
            printable(value),
            list.replace(',', " and ")
        ),
    )
    .with_metadata("supportedVersions", list))
}

/// The outcome of negotiation for one call or session.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Negotiated {
    /// The protocol version the session speaks (stdio `initialize`).
    pub dialect: Dialect,
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
        let none: &[String] = &[];
        assert_eq!(protocol_dialect(Some("1.0"), None, none), Ok(Dialect::V1("1.0")));
        assert_eq!(protocol_dialect(Some("0.3"), None, none), Ok(Dialect::V0_3));
        assert_eq!(protocol_dialect(None, None, none), Ok(Dialect::V0_3));
        assert_eq!(protocol_dialect(Some(" "), None, none), Ok(Dialect::V0_3));
        assert_eq!(
            protocol_dialect(Some(""), Some("1.0"), none),
            Ok(Dialect::V1("1.0"))
        );
        let refused = protocol_dialect(Some("2.0"), None, none).unwrap_err();
        assert_eq!(refused.code, -32009);
        assert_eq!(
            refused.message,
            "A2A version `2.0` is not supported; this agent serves 1.0 and 0.3 (header `A2A-Version`)"
        );
        assert_eq!(refused.metadata("supportedVersions"), Some("1.0,0.3"));
        // The draft is refused like any unknown version until it is turned on.
        let draft = protocol_dialect(Some("1.1"), None, none).unwrap_err();
        assert_eq!(draft.code, -32009);
        let drafts = ["1.1".to_string()];
        assert_eq!(
            protocol_dialect(Some("1.1"), None, &drafts),
            Ok(Dialect::V1("1.1"))
        );
        let refused = protocol_dialect(Some("2.0"), None, &drafts).unwrap_err();
        assert_eq!(refused.metadata("supportedVersions"), Some("1.1,1.0,0.3"));
        assert_eq!(Dialect::V0_3.fitted_to(), Version::parse("1.0"));
        assert_eq!(checked_drafts(&drafts), Ok(vec!["1.1"]));
        assert!(checked_drafts(&["1.0".to_string()]).is_err());
    }
}
