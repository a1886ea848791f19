//! The types of the derived suite: what a case sends ([`Message`]), what it
//! accepts ([`Expect`]), and the case itself ([`Case`]). Every other module
//! of the suite builds or reads these, so they stand on their own.

use crate::card::CapabilityUse;
use crate::level::Requirement;
use a2a::{ErrorKind, MethodDescriptor};
use serde_json::Value;

/// What a case sends.
#[derive(Clone, Debug)]
pub enum Message {
    /// A well-formed request for `method` with these params (the runner adds
    /// `jsonrpc` and a fresh `id`).
    Request { method: String, params: Option<Value> },
    /// These exact bytes; the expected response id is `expect_id`.
    Raw { text: String, expect_id: Value },
}

impl Message {
    /// The JSON-RPC text of the message as it is sent (a request with id 0).
    pub fn text(&self) -> String {
        match self {
            Message::Request { method, params } => {
                let mut request = serde_json::json!({ "jsonrpc": "2.0", "id": 0, "method": method });
                if let Some(params) = params {
                    request["params"] = params.clone();
                }
                request.to_string()
            }
            Message::Raw { text, .. } => text.clone(),
        }
    }
}

/// What a case accepts.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// A result (or stream) that validates against the method's result definition.
    Success,
    /// A valid result, or — because the example's ids may name nothing on this
    /// agent — an error the method declares in the schema (`errors`), other than
    /// the version and authentication errors, which say the runner is misconfigured.
    /// JSON-RPC standard errors (method not found, invalid params, internal) fail.
    SuccessOrDeclared,
    /// Like [`Expect::SuccessOrDeclared`], and invalid params is accepted too.
    ValidOrRejected,
    /// Exactly this registry error: code, ErrorInfo reason and domain.
    Error(ErrorKind),
    /// One of these registry errors (where the contract leaves the choice open).
    AnyError(Vec<ErrorKind>),
    /// An envelope error with this code, carrying a registry ErrorInfo of either
    /// contract (before the method is known, the domain cannot be chosen by it).
    EnvelopeError(i64),
}

impl Expect {
    /// What a case expecting `self` accepts when the card does not declare the
    /// method's capability, whose error is `unsupported`: exactly that error
    /// where a result was expected; for a negative case, that error or the
    /// rejection it expected (the order of the checks is the agent's).
    pub fn without_capability(&self, unsupported: ErrorKind) -> Expect {
        match self {
            Expect::Success | Expect::SuccessOrDeclared | Expect::ValidOrRejected => {
                Expect::Error(unsupported)
            }
            Expect::Error(kind) => Expect::AnyError(vec![unsupported, *kind]),
            Expect::AnyError(kinds) => {
                Expect::AnyError([unsupported].into_iter().chain(kinds.iter().copied()).collect())
            }
            Expect::EnvelopeError(code) => Expect::EnvelopeError(*code),
        }
    }
}

/// One case of the suite.
#[derive(Clone, Debug)]
pub struct Case {
    /// Stable id, `<method or group>/<case>`; the expected-failures file lists these.
    pub id: String,
    /// Method group (the schema's service), or `envelope` / `versioning`.
    pub group: String,
    pub method: Option<&'static MethodDescriptor>,
    pub message: Message,
    /// Extension minor version to call at (`None`: the agent's newest).
    pub ext_version: Option<String>,
    /// The version of the method's contract that added what the case relies
    /// on (the method's `since`, a member's `x-since`), when it names one: the
    /// case applies only to an agent declaring it (see [`crate::card::Reach`]).
    pub since: Option<String>,
    pub expect: Expect,
    /// What the case holds the agent to.
    pub requirement: Requirement,
    /// The capability (or extension) the case depends on, and whether the card declares it.
    pub capability: Option<CapabilityUse>,
    /// The params are a positive example's: the runner points them at the state
    /// it created (see [`crate::runner::Fixture`]), whatever the case expects.
    pub on_fixture: bool,
}
