//! The CLI's exit codes: one per error class, derived from the error's
//! `(domain, reason)` (never from the bare code, which collides between the
//! A2A and CleverAgents registries), and the one-line message shown for it.

use a2a::rpc::CallError;
use a2a::ErrorKind;

/// Success.
pub const OK: i32 = 0;
/// An error the other classes do not cover.
pub const OTHER: i32 = 1;
/// Bad command line: unknown command or flag, missing argument, unreadable
/// `-f` file, malformed `--params` JSON.
pub const USAGE: i32 = 2;
/// The agent could not be reached: spawn failure, connection refused or lost,
/// timeout.
pub const TRANSPORT: i32 = 3;
/// The task, plan or entity does not exist (or is not visible to the caller).
pub const NOT_FOUND: i32 = 4;
/// Authentication missing or rejected, or the caller lacks the role.
pub const AUTH: i32 = 5;
/// The agent rejected the params or request as invalid.
pub const INVALID_PARAMS: i32 = 6;
/// The operation conflicts with the current state: invalid transition, not
/// cancelable, already exists, terminal task.
pub const INVALID_STATE: i32 = 7;
/// The agent does not offer it: unknown method (or newer than the negotiated
/// version), unsupported protocol or extension version, missing capability.
pub const UNSUPPORTED: i32 = 8;
/// A plan failed or an automation budget was exceeded.
pub const PLAN: i32 = 9;
/// The agent failed internally or answered something that does not match the
/// contract.
pub const AGENT: i32 = 10;
/// A followed task ended failed, rejected or canceled.
pub const TASK_FAILED: i32 = 11;

/// The table the README and `--help` show.
pub const TABLE: &[(i32, &str)] = &[
    (OK, "success"),
    (OTHER, "other error"),
    (USAGE, "usage: bad command line, params file or JSON"),
    (
        TRANSPORT,
        "transport: agent not reachable, connection lost, timeout",
    ),
    (NOT_FOUND, "not found"),
    (AUTH, "authentication or authorization"),
    (INVALID_PARAMS, "invalid params or request"),
    (INVALID_STATE, "invalid state, conflict or already exists"),
    (
        UNSUPPORTED,
        "unsupported: method, version, extension or capability",
    ),
    (PLAN, "plan error or budget exceeded"),
    (AGENT, "agent internal error or malformed answer"),
    (TASK_FAILED, "followed task failed, was rejected or canceled"),
];

/// The exit code of an error kind.
pub fn code_of_kind(kind: ErrorKind) -> i32 {
    use ErrorKind::*;
    match kind {
        TaskNotFound | ExtNotFound => NOT_FOUND,
        ExtAuthRequired | ExtAuthForbidden => AUTH,
        InvalidParams | ExtInvalidParams | InvalidRequest | ExtInvalidRequest | ParseError
        | ExtParseError => INVALID_PARAMS,
        TaskNotCancelable
        | UnsupportedOperation
        | ExtInvalidState
        | ExtAlreadyExists
        | TaskGenerationMismatch => INVALID_STATE,
        MethodNotFound
        | ExtMethodNotFound
        | VersionNotSupported
        | ExtVersionMismatch
        | ExtensionSupportRequired
        | PushNotificationNotSupported
        | ContentTypeNotSupported
        | ExtendedAgentCardNotConfigured => UNSUPPORTED,
        ExtPlanError | ExtBudgetExceeded => PLAN,
        InternalError | ExtInternalError | InvalidAgentResponse => AGENT,
    }
}

/// The exit code of a failed call.
pub fn code_of(error: &CallError) -> i32 {
    match error {
        CallError::Rpc(e) => e.kind().map_or(OTHER, code_of_kind),
        CallError::Transport(_) => TRANSPORT,
        CallError::Decode(_) => AGENT,
    }
}

/// One line for a human: what went wrong, with the reason to search for.
pub fn message_of(error: &CallError) -> String {
    let text = match error {
        CallError::Rpc(e) => match e.domain_reason() {
            Some((_, reason)) => format!("{} ({reason})", e.message),
            None => format!("{} (code {})", e.message, e.code),
        },
        CallError::Transport(e) => format!("cannot reach the agent: {e}"),
        CallError::Decode(e) => format!("unexpected answer from the agent: {e}"),
    };
    one_line(&text)
}

/// Collapses whitespace runs (newlines included) so a message stays on one line.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes() {
        let not_found = CallError::Rpc(a2a::Error::new(ErrorKind::TaskNotFound, "Task not found:\nx"));
        assert_eq!(code_of(&not_found), NOT_FOUND);
        assert_eq!(message_of(&not_found), "Task not found: x (TASK_NOT_FOUND)");
        // Same numeric code, other domain: the class follows (domain, reason).
        let cancel = CallError::Rpc(a2a::Error::from_kind(ErrorKind::TaskNotCancelable));
        let auth = CallError::Rpc(a2a::Error::from_kind(ErrorKind::ExtAuthRequired));
        assert_eq!((code_of(&cancel), code_of(&auth)), (INVALID_STATE, AUTH));
        let bare = CallError::Rpc(a2a::Error {
            code: -32001,
            message: "x".into(),
            data: None,
        });
        assert_eq!(code_of(&bare), OTHER);
        assert_eq!(code_of(&CallError::Transport("x".into())), TRANSPORT);
        assert_eq!(TABLE.len(), 12);
    }
}
