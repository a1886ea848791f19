//! Who calls and at which versions: `major.minor` versions, principals with
//! their roles per namespace, and the context a handler receives with a call.

use crate::envelope::RequestId;
use crate::method::Access;
use crate::method::{ContractFacts, MethodDescriptor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A `major.minor` version (A2A protocol or extension minor version).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// The major version: a change here breaks the wire.
    pub major: u32,
    /// The minor version: additions within one major version.
    pub minor: u32,
}

impl Version {
    /// The version `major.minor` (what generated code compares against).
    pub const fn new(major: u32, minor: u32) -> Version {
        Version { major, minor }
    }

    /// Parses `"1.1"`; anything else is `None`.
    pub fn parse(text: &str) -> Option<Version> {
        let (major, minor) = text.trim().split_once('.')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(major) || !digits(minor) {
            return None;
        }
        Some(Version {
            major: major.parse().ok()?,
            minor: minor.parse().ok()?,
        })
    }

    /// The newest version a contract declares.
    pub fn latest_of(contract: impl ContractFacts) -> Option<Version> {
        contract.versions().iter().filter_map(|v| Version::parse(v)).max()
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// An authenticated caller and its roles per namespace.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Principal {
    /// The caller's identity as authentication established it (e.g. a JWT's `sub`).
    pub subject: String,
    /// Namespace → role. The namespace `*` applies to every namespace.
    #[serde(default)]
    pub namespaces: BTreeMap<String, Access>,
}

impl Principal {
    /// The role this principal holds in `namespace`, if any.
    pub fn access(&self, namespace: &str) -> Option<Access> {
        let exact = self.namespaces.get(namespace).copied();
        let wildcard = self.namespaces.get("*").copied();
        exact.max(wildcard)
    }

    /// True when the principal holds at least `needed` in `namespace`.
    pub fn can(&self, namespace: &str, needed: Access) -> bool {
        self.access(namespace).is_some_and(|held| held >= needed)
    }
}

/// Everything a handler knows about a call besides its params.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallContext {
    /// The JSON-RPC id of the request (`None` for notifications and internal calls).
    pub request_id: Option<RequestId>,
    /// The authenticated caller; `None` in local mode, where the user runs the agent.
    pub principal: Option<Principal>,
    /// The caller's own default namespace (server configuration), used when a
    /// call names none; `None` means the contract set's default.
    pub default_namespace: Option<String>,
    /// The namespace the call acts in, resolved and authorized by the router
    /// before the handler runs (`None` for methods that act on no namespace).
    pub namespace: Option<String>,
    /// Negotiated minor version of each activated extension contract, keyed by
    /// the contract's name ([`ContractFacts::name`]); a contract absent here runs
    /// at its latest version.
    pub extension_versions: BTreeMap<&'static str, Version>,
    /// Extension URIs the caller activated (`A2A-Extensions`).
    pub activated_extensions: Vec<String>,
    /// For subscriptions: the last event sequence number the caller has seen
    /// (SSE `Last-Event-ID`, or the stdio resume parameter).
    pub resume_after: Option<u64>,
    /// The longest the caller said it waits for the answer (HTTP `Prefer:
    /// wait=N`, gRPC `grpc-timeout`): a call that may hold its answer back (a
    /// long-polling GetTask) answers within it.
    pub wait_limit: Option<std::time::Duration>,
}

impl CallContext {
    /// The minor version of `contract` this call runs at.
    pub fn version_of(&self, contract: impl ContractFacts) -> Option<Version> {
        self.extension_versions
            .get(contract.name())
            .copied()
            .or_else(|| Version::latest_of(contract))
    }

    /// Records the negotiated version of `contract`.
    pub fn set_version(&mut self, contract: impl ContractFacts, version: Version) {
        self.extension_versions.insert(contract.name(), version);
    }

    /// True when `descriptor` exists at the caller's version of its contract.
    pub fn can_see<C: ContractFacts>(&self, descriptor: &MethodDescriptor<C>) -> bool {
        match (
            descriptor.since.and_then(Version::parse),
            self.version_of(descriptor.contract),
        ) {
            (Some(since), Some(current)) => since <= current,
            _ => true,
        }
    }
}
