//! Failures and exit statuses (a2a-cli §11.4, §11.6, Appendices B and D).
//!
//! Two layers, never blurred: a failure the agent reported carries the A2A
//! error's own name (the extension's errors a vendor name), a failure of the
//! tool's own an `A2ACLI_ERR_*` code. The exit status says only whether the
//! tool did its job: 0 when it did (whatever the task's outcome), 1 when it
//! could not, 2 for a bad command line, and the reserved 3 (agent or card
//! unreachable), 4 (authentication) and 5 (`--timeout`).

use a2a::rpc::CallError;
use a2a::ErrorKind;
use serde_json::{json, Value};

/// The tool did its job.
pub const EXIT_OK: i32 = 0;
/// The tool could not complete the operation.
pub const EXIT_FAILURE: i32 = 1;
/// Invalid arguments, flags or flag combination.
pub const EXIT_USAGE: i32 = 2;
/// The agent or its card could not be reached or resolved.
pub const EXIT_UNREACHABLE: i32 = 3;
/// Authentication could not be completed.
pub const EXIT_AUTH: i32 = 4;
/// `--timeout` passed before the task ended.
pub const EXIT_TIMEOUT: i32 = 5;

/// The exit statuses, as help shows them.
pub const EXIT_TABLE: &[(i32, &str)] = &[
    (
        EXIT_OK,
        "the command did its job, whatever the task's outcome (see its state)",
    ),
    (
        EXIT_FAILURE,
        "the operation could not be completed (the error names why)",
    ),
    (EXIT_USAGE, "invalid arguments, flags or combination"),
    (
        EXIT_UNREACHABLE,
        "the agent or its card could not be reached or resolved",
    ),
    (EXIT_AUTH, "authentication missing or rejected"),
    (EXIT_TIMEOUT, "--timeout passed before the task ended or paused"),
];

/// The tool's own failure codes (Appendix D).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Local {
    /// Invalid arguments, flags, or flag combination.
    Usage,
    /// The `--agent-card` reference could not be resolved to a card.
    CardNotFound,
    /// The card was read but is malformed or schema-invalid.
    CardInvalid,
    /// The agent could not be reached (DNS, connection, TLS).
    Unreachable,
    /// The agent's declared scheme needs credentials that were not given.
    CredentialsMissing,
    /// Credentials were given but rejected.
    AuthFailed,
    /// `--timeout` passed before a terminal state.
    Timeout,
    /// Anything else of the tool's own.
    Internal,
}

impl Local {
    /// Every code, for the report of which ones the tool emits.
    pub const ALL: [Local; 8] = [
        Local::Usage,
        Local::CardNotFound,
        Local::CardInvalid,
        Local::Unreachable,
        Local::CredentialsMissing,
        Local::AuthFailed,
        Local::Timeout,
        Local::Internal,
    ];

    /// The registered name.
    pub const fn name(self) -> &'static str {
        match self {
            Local::Usage => "A2ACLI_ERR_USAGE",
            Local::CardNotFound => "A2ACLI_ERR_CARD_NOT_FOUND",
            Local::CardInvalid => "A2ACLI_ERR_CARD_INVALID",
            Local::Unreachable => "A2ACLI_ERR_UNREACHABLE",
            Local::CredentialsMissing => "A2ACLI_ERR_CREDENTIALS_MISSING",
            Local::AuthFailed => "A2ACLI_ERR_AUTH_FAILED",
            Local::Timeout => "A2ACLI_ERR_TIMEOUT",
            Local::Internal => "A2ACLI_ERR_INTERNAL",
        }
    }

    /// Its exit status (Appendix D's column).
    pub const fn exit(self) -> i32 {
        match self {
            Local::Usage => EXIT_USAGE,
            Local::CardNotFound | Local::Unreachable => EXIT_UNREACHABLE,
            Local::CredentialsMissing | Local::AuthFailed => EXIT_AUTH,
            Local::Timeout => EXIT_TIMEOUT,
            Local::CardInvalid | Local::Internal => EXIT_FAILURE,
        }
    }
}

/// What failed: the agent's error by its name, or the tool's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Code {
    /// An error the agent reported, by the protocol's (or extension's) name.
    Protocol(String),
    /// The tool's own.
    Local(Local),
}

/// A failure: the error envelope of Appendix B.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// What failed.
    pub code: Code,
    /// For a person, one line.
    pub message: String,
    /// The next step, when there is a useful one.
    pub hint: Option<String>,
    /// The transport-level code underneath (a JSON-RPC code, an HTTP status).
    pub a2a_code: Option<i64>,
    /// Already written out (as a stream's last line): only its exit status is left.
    pub reported: bool,
}

impl Failure {
    /// A failure of the tool's own.
    pub fn local(code: Local, message: impl Into<String>) -> Failure {
        Failure {
            code: Code::Local(code),
            message: one_line(&message.into()),
            hint: None,
            a2a_code: None,
            reported: false,
        }
    }

    /// Marks the failure as written out already.
    pub fn reported(mut self) -> Failure {
        self.reported = true;
        self
    }

    /// A bad command line.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::local(Local::Usage, message)
    }

    /// With a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Failure {
        self.hint = Some(hint.into());
        self
    }

    /// The failure a call ended in. `sent_credentials` tells an agent's
    /// refusal of credentials apart from their absence.
    pub fn of_call(error: &CallError, sent_credentials: bool) -> Failure {
        match error {
            CallError::Rpc(e) => {
                let a2a_code = Some(e.code);
                match e.kind() {
                    // Authentication is the transport's business in A2A: its
                    // failures are the tool's codes, exit 4.
                    Some(ErrorKind::ExtAuthRequired) => Failure {
                        a2a_code,
                        ..Failure::local(
                            if sent_credentials {
                                Local::AuthFailed
                            } else {
                                Local::CredentialsMissing
                            },
                            e.message.clone(),
                        )
                    },
                    Some(ErrorKind::ExtAuthForbidden) => Failure {
                        a2a_code,
                        ..Failure::local(Local::AuthFailed, e.message.clone())
                    }
                    .hint("the credentials were accepted but do not carry the role this needs"),
                    Some(kind) => Failure {
                        code: Code::Protocol(kind.spec_name().to_string()),
                        message: one_line(&e.message),
                        hint: None,
                        a2a_code,
                        reported: false,
                    },
                    // A code of neither registry: named by its ErrorInfo reason when it has one.
                    None => Failure {
                        code: match e.domain_reason() {
                            Some((_, reason)) => Code::Protocol(reason.to_string()),
                            None => Code::Local(Local::Internal),
                        },
                        message: one_line(&e.message),
                        hint: None,
                        a2a_code,
                        reported: false,
                    },
                }
            }
            CallError::Transport(message) => Failure::local(Local::Unreachable, message.clone()),
            CallError::Decode(message) => Failure {
                code: Code::Protocol(ErrorKind::InvalidAgentResponse.spec_name().to_string()),
                message: one_line(&format!("unexpected answer from the agent: {message}")),
                hint: None,
                a2a_code: None,
                reported: false,
            },
        }
    }

    /// The name in `code`.
    pub fn code_name(&self) -> &str {
        match &self.code {
            Code::Protocol(name) => name,
            Code::Local(local) => local.name(),
        }
    }

    /// The exit status: the reserved one of a local code, else 1.
    pub fn exit(&self) -> i32 {
        match &self.code {
            Code::Local(local) => local.exit(),
            Code::Protocol(_) => EXIT_FAILURE,
        }
    }

    /// The envelope: `{"error": {"code", "message", "hint", "a2aCode"}}`.
    pub fn envelope(&self) -> Value {
        json!({
            "error": {
                "code": self.code_name(),
                "message": self.message,
                "hint": self.hint,
                "a2aCode": self.a2a_code,
            }
        })
    }

    /// The failure as `text` on stderr.
    pub fn text(&self) -> String {
        let mut out = super::text::Text::new();
        out.field("Error", &self.message);
        out.field("Code", self.code_name());
        if let Some(code) = &self.a2a_code {
            out.field("A2A Code", &code.to_string());
        }
        out.field_opt("Hint", self.hint.as_deref());
        out.finish()
    }
}

/// Collapses whitespace runs (newlines included) so a message stays on one line.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_and_exits() {
        let not_found = CallError::Rpc(a2a::Error::new(ErrorKind::TaskNotFound, "Task not found:\nx"));
        let failure = Failure::of_call(&not_found, false);
        assert_eq!(
            failure.envelope(),
            json!({"error": {"code": "TaskNotFoundError", "message": "Task not found: x", "hint": null, "a2aCode": -32001}})
        );
        assert_eq!(failure.exit(), EXIT_FAILURE);
        let auth = CallError::Rpc(a2a::Error::from_kind(ErrorKind::ExtAuthRequired));
        assert_eq!(
            Failure::of_call(&auth, false).code_name(),
            "A2ACLI_ERR_CREDENTIALS_MISSING"
        );
        assert_eq!(
            Failure::of_call(&auth, true).code_name(),
            "A2ACLI_ERR_AUTH_FAILED"
        );
        assert_eq!(Failure::of_call(&auth, true).exit(), EXIT_AUTH);
        let down = CallError::Transport("connection refused".into());
        assert_eq!(
            (
                Failure::of_call(&down, false).code_name(),
                Failure::of_call(&down, false).exit()
            ),
            ("A2ACLI_ERR_UNREACHABLE", EXIT_UNREACHABLE)
        );
        assert_eq!(Failure::usage("x").exit(), EXIT_USAGE);
        assert_eq!(Failure::local(Local::Timeout, "x").exit(), EXIT_TIMEOUT);
        let ext = CallError::Rpc(a2a::Error::from_kind(ErrorKind::ExtNotFound));
        assert!(Failure::of_call(&ext, false)
            .code_name()
            .starts_with("CLEVERAGENTS_"));
    }
}
