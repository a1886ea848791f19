//! The steps scenarios are written in: calls that require a valid result, an
//! exact error or a declared one, on one session. An error's ErrorInfo is read
//! as for any case ([`read_error`]): what falls short of a weaker rule is
//! collected as an issue of the scenario, and the scenario goes on.

use crate::card::Applicability;
use crate::check::{kind_label, read_error, read_result};
use crate::session::{unique, Session};
use crate::transport::{describe_error, Answer};
use crate::verdict::Violation;
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::types::{Role, TaskState};
use a2a::{ErrorKind, MethodDescriptor};
use serde_json::{json, Value};

/// A step's outcome: its value, or why the scenario stops.
pub type Step<T> = Result<T, String>;

fn method(name: &str) -> Step<&'static MethodDescriptor> {
    a2a::find_method(name).ok_or_else(|| format!("the method table lacks {name}"))
}

/// One scenario's session, what applies to the agent, and the issues found.
pub struct Steps<'a> {
    pub session: &'a Session,
    pub app: &'a Applicability,
    /// Violations of weaker rules found along the way.
    pub issues: Vec<Violation>,
    /// The violation a step stopped the scenario with, when it is not simply
    /// the scenario's own requirement (an error code the registry disowns).
    pub stopped: Option<Violation>,
}

impl<'a> Steps<'a> {
    pub fn new(session: &'a Session, app: &'a Applicability) -> Steps<'a> {
        Steps {
            session,
            app,
            issues: Vec::new(),
            stopped: None,
        }
    }

    /// True when the card declares `capability`.
    pub fn offers(&self, capability: &str) -> bool {
        self.app.declares(capability)
    }

    /// Keeps the weaker rules an answer of `method` fell short of, each once.
    fn note(&mut self, method: &str, issues: Vec<Violation>) {
        for issue in issues {
            let why = format!("{method}: {}", issue.why);
            if !self.issues.iter().any(|i| i.why == why) {
                self.issues.push(Violation { why, ..issue });
            }
        }
    }

    /// Reads `error` (an answer of method `d`), keeping its issues.
    fn read(&mut self, d: &MethodDescriptor, error: &Value) -> Step<ErrorKind> {
        let read = match read_error(Some(d.contract), error) {
            Ok(read) => read,
            Err(violation) => {
                let why = format!("{}: {}", d.name, violation.why);
                self.stopped = Some(Violation {
                    why: why.clone(),
                    ..violation
                });
                return Err(why);
            }
        };
        self.note(d.name, read.issues);
        Ok(read.kind)
    }

    /// Calls a unary method and requires a valid result.
    pub async fn ok(&mut self, name: &str, params: Value) -> Step<Value> {
        let d = method(name)?;
        match self.session.call(name, params).await {
            Answer::Result(v) => {
                let issues = read_result(d, &v)?;
                self.note(name, issues);
                Ok(v)
            }
            Answer::Error(e) => {
                self.read(d, &e)?;
                Err(format!(
                    "{name}: expected a result, got error {}",
                    describe_error(&e)
                ))
            }
            other => Err(format!("{name}: expected a result, got {}", other.summary())),
        }
    }

    /// Calls a method and requires exactly the error `want`.
    pub async fn err(&mut self, name: &str, params: Value, want: ErrorKind) -> Step<()> {
        let d = method(name)?;
        match self.session.call(name, params).await {
            Answer::Error(e) => {
                let got = self.read(d, &e)?;
                if got == want {
                    Ok(())
                } else {
                    Err(format!(
                        "{name}: expected {}, got {}",
                        kind_label(want),
                        describe_error(&e)
                    ))
                }
            }
            other => Err(format!(
                "{name}: expected {}, got {}",
                kind_label(want),
                other.summary()
            )),
        }
    }

    /// Calls a method needing `capability`, which the card does not declare,
    /// and requires the schema's "not supported" error for it.
    pub async fn unsupported(&mut self, name: &str, params: Value) -> Step<ErrorKind> {
        let capability = method(name)?
            .capability
            .ok_or_else(|| format!("{name} needs no capability"))?;
        let want = crate::rules::unsupported_error(capability);
        self.err(name, params, want).await.map(|_| want)
    }

    /// Calls a method and requires an error the method declares.
    pub async fn declared_err(&mut self, name: &str, params: Value) -> Step<ErrorKind> {
        let d = method(name)?;
        match self.session.call(name, params).await {
            Answer::Error(e) => {
                let got = self.read(d, &e)?;
                if d.errors.contains(&got) {
                    Ok(got)
                } else {
                    Err(format!(
                        "{name}: {} is not an error the method declares",
                        describe_error(&e)
                    ))
                }
            }
            other => Err(format!("{name}: expected an error, got {}", other.summary())),
        }
    }

    /// Sends a message and returns the task it made (a `{message}` answer has none).
    pub async fn new_task(&mut self, text: &str) -> Step<Value> {
        let sent = self
            .ok(markers::SendMessage::NAME, json!({"message": text_message(text)}))
            .await?;
        sent.get("task")
            .cloned()
            .ok_or_else(|| format!("SendMessage answered without a task: {sent}"))
    }
}

/// A user text message with a fresh id.
pub fn text_message(text: &str) -> Value {
    json!({"messageId": unique("conformance-msg"), "role": Role::User, "parts": [{"text": text}]})
}

/// The string at `pointer` in `v`.
pub fn field<'a>(v: &'a Value, pointer: &str, what: &str) -> Step<&'a str> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{what}: no `{pointer}` in {v}"))
}

/// Requires `got == want`.
pub fn equal(what: &str, got: &Value, want: &Value) -> Step<()> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, expected {want}"))
    }
}

const TERMINAL: [TaskState; 4] = [
    TaskState::Completed,
    TaskState::Failed,
    TaskState::Canceled,
    TaskState::Rejected,
];
const INTERRUPTED: [TaskState; 2] = [TaskState::InputRequired, TaskState::AuthRequired];

/// True when the wire state is a terminal task state.
pub fn is_terminal(state: &str) -> bool {
    state.parse().is_ok_and(|state| TERMINAL.contains(&state))
}

/// True when the wire state interrupts a task (it waits for the caller).
pub fn is_interrupted(state: &str) -> bool {
    state.parse().is_ok_and(|state| INTERRUPTED.contains(&state))
}
