//! The history of a run: every operation a client invoked, on which agent,
//! and what it was told, stamped with a logical clock that orders
//! invocations and returns as they happened across every client.

use crate::wire::{Outcome, Stream};
use serde_json::Value;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// What an operation asked for.
#[derive(Clone, Debug)]
pub enum Request {
    /// A message opening a new task, of the behaviour its id names, with
    /// the chaos webhook registered in the same call when `hook` is set.
    Open {
        message_id: String,
        hook: bool,
    },
    /// A message continuing task `task`, on the condition that the task's
    /// generation is `if_generation` when it is given.
    Continue {
        task: String,
        message_id: String,
        if_generation: Option<u64>,
    },
    Cancel {
        task: String,
    },
    Get {
        task: String,
    },
    /// A subscription (a resumption when `after` is given).
    Subscribe {
        task: String,
        after: Option<u64>,
    },
    /// The chaos webhook registered for task `task`.
    PushCreate {
        task: String,
    },
    /// A registry entry (a skill) created with the description `tag`.
    RegistryAdd {
        name: String,
        tag: String,
    },
    /// The entry's description replaced by `tag`, if its version is `expected`.
    RegistryUpdate {
        name: String,
        expected: u64,
        tag: String,
    },
    RegistryShow {
        name: String,
    },
    /// A plan made from the run's action (its id is in the answer).
    PlanUse,
    PlanExecute {
        plan: String,
    },
    PlanStatus {
        plan: String,
    },
    /// Prompt `prompt` of plan `plan` answered: approved, or rejected.
    PlanPrompt {
        plan: String,
        prompt: String,
        approve: bool,
    },
    PlanCancel {
        plan: String,
    },
}

impl Request {
    /// The kind of operation, as the summary counts it.
    pub fn kind(&self) -> &'static str {
        match self {
            Request::Open { .. } => "open",
            Request::Continue {
                if_generation: None, ..
            } => "continue",
            Request::Continue {
                if_generation: Some(_),
                ..
            } => "conditional continue",
            Request::Cancel { .. } => "cancel",
            Request::Get { .. } => "get",
            Request::Subscribe { after: None, .. } => "subscribe",
            Request::Subscribe { after: Some(_), .. } => "resubscribe",
            Request::PushCreate { .. } => "push create",
            Request::RegistryAdd { .. } => "registry add",
            Request::RegistryUpdate { .. } => "registry update",
            Request::RegistryShow { .. } => "registry show",
            Request::PlanUse => "plan use",
            Request::PlanExecute { .. } => "plan execute",
            Request::PlanStatus { .. } => "plan status",
            Request::PlanPrompt { approve: true, .. } => "plan approve",
            Request::PlanPrompt { approve: false, .. } => "plan reject",
            Request::PlanCancel { .. } => "plan cancel",
        }
    }
}

/// What the operation was told.
#[derive(Clone, Debug)]
pub enum Answer {
    Unary(Outcome),
    Stream(Stream),
}

/// One operation of the history.
#[derive(Clone, Debug)]
pub struct Op {
    pub client: u64,
    /// The agent it went to (in local mode 0: whichever background agent
    /// ran then).
    pub agent: usize,
    /// Logical times of the invocation and of the return.
    pub invoked: u64,
    pub returned: u64,
    pub request: Request,
    pub answer: Answer,
}

impl Op {
    /// A unary operation of client 1 on agent 0, for the checker's own tests.
    pub fn unary(invoked: u64, returned: u64, request: Request, outcome: Outcome) -> Op {
        Op {
            client: 1,
            agent: 0,
            invoked,
            returned,
            request,
            answer: Answer::Unary(outcome),
        }
    }

    /// The task the operation named, or opened (as its answer says).
    pub fn task(&self) -> Option<&str> {
        match &self.request {
            Request::Continue { task, .. }
            | Request::Cancel { task }
            | Request::Get { task }
            | Request::Subscribe { task, .. }
            | Request::PushCreate { task } => Some(task),
            Request::Open { .. } => match &self.answer {
                Answer::Unary(Outcome::Ok(result)) => result.pointer("/task/id").and_then(Value::as_str),
                _ => None,
            },
            _ => None,
        }
    }

    /// The plan the operation named, or made (as its answer says).
    pub fn plan(&self) -> Option<&str> {
        match &self.request {
            Request::PlanExecute { plan }
            | Request::PlanStatus { plan }
            | Request::PlanPrompt { plan, .. }
            | Request::PlanCancel { plan } => Some(plan),
            Request::PlanUse => match &self.answer {
                Answer::Unary(Outcome::Ok(plan)) => plan["id"].as_str(),
                _ => None,
            },
            _ => None,
        }
    }

    /// The registry entry the operation named, if it named one.
    pub fn entry(&self) -> Option<&str> {
        match &self.request {
            Request::RegistryAdd { name, .. }
            | Request::RegistryUpdate { name, .. }
            | Request::RegistryShow { name } => Some(name),
            _ => None,
        }
    }

    /// The message the operation sent, if it sent one.
    pub fn message_id(&self) -> Option<&str> {
        match &self.request {
            Request::Open { message_id, .. } | Request::Continue { message_id, .. } => Some(message_id),
            _ => None,
        }
    }

    /// The unary outcome, if the operation was unary.
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.answer {
            Answer::Unary(outcome) => Some(outcome),
            Answer::Stream(_) => None,
        }
    }

    /// True when the client was told the operation took effect.
    pub fn acknowledged(&self) -> bool {
        match &self.answer {
            Answer::Unary(outcome) => matches!(outcome, Outcome::Ok(_)),
            Answer::Stream(stream) => stream.refused.is_none() && !stream.events.is_empty(),
        }
    }
}

/// A state as a short word (`TASK_STATE_INPUT_REQUIRED` → `input-required`).
fn short_state(state: &str) -> String {
    state
        .trim_start_matches("TASK_STATE_")
        .to_ascii_lowercase()
        .replace('_', "-")
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{:>6}..{:<6}] client {} agent {}: ",
            self.invoked, self.returned, self.client, self.agent
        )?;
        match &self.request {
            Request::Open { message_id, hook } => write!(
                f,
                "open {message_id}{}",
                if *hook { " with its webhook" } else { "" }
            )?,
            Request::Continue {
                task,
                message_id,
                if_generation,
            } => {
                write!(f, "continue {task} with {message_id}")?;
                if let Some(generation) = if_generation {
                    write!(f, " if at generation {generation}")?;
                }
            }
            Request::Cancel { task } => write!(f, "cancel {task}")?,
            Request::Get { task } => write!(f, "get {task}")?,
            Request::Subscribe { task, after: None } => write!(f, "subscribe {task}")?,
            Request::Subscribe {
                task,
                after: Some(id),
            } => write!(f, "resubscribe {task} after {id}")?,
            Request::PushCreate { task } => write!(f, "register the webhook of {task}")?,
            Request::RegistryAdd { name, tag } => write!(f, "add {name} as {tag}")?,
            Request::RegistryUpdate { name, expected, tag } => {
                write!(f, "update {name} from version {expected} to {tag}")?
            }
            Request::RegistryShow { name } => write!(f, "show {name}")?,
            Request::PlanUse => write!(f, "use the action")?,
            Request::PlanExecute { plan } => write!(f, "execute plan {plan}")?,
            Request::PlanStatus { plan } => write!(f, "status of plan {plan}")?,
            Request::PlanPrompt {
                plan,
                prompt,
                approve,
            } => write!(
                f,
                "{} prompt {prompt} of plan {plan}",
                if *approve { "approve" } else { "reject" }
            )?,
            Request::PlanCancel { plan } => write!(f, "cancel plan {plan}")?,
        }
        write!(f, " -> ")?;
        match &self.answer {
            Answer::Unary(Outcome::Ok(result)) if matches!(self.request, Request::PushCreate { .. }) => {
                write!(f, "ok {}", result["url"])
            }
            Answer::Unary(Outcome::Ok(result)) if self.plan().is_some() => {
                let plan = result.get("plan").unwrap_or(result);
                write!(f, "ok {} {}", plan["id"], plan["state"])
            }
            Answer::Unary(Outcome::Ok(result)) if self.entry().is_some() => {
                write!(f, "ok version {} {}", result["version"], result["description"])
            }
            Answer::Unary(Outcome::Ok(result)) => {
                let task = result.get("task").unwrap_or(result);
                let state = task
                    .pointer("/status/state")
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                let history: Vec<&str> = task["history"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|m| m["role"] == "ROLE_USER")
                    .filter_map(|m| m["messageId"].as_str())
                    .collect();
                write!(f, "ok {}", short_state(state))?;
                if !history.is_empty() {
                    write!(f, " history {history:?}")?;
                }
                Ok(())
            }
            Answer::Unary(Outcome::Fail { code, message }) => write!(f, "error {code} ({message})"),
            Answer::Unary(Outcome::Unknown(why)) => write!(f, "unknown ({why})"),
            Answer::Stream(stream) => {
                if let Some((code, message)) = &stream.refused {
                    return write!(f, "error {code} ({message})");
                }
                let ids: Vec<String> = stream
                    .events
                    .iter()
                    .map(|(id, event)| {
                        let id = id.map_or("-".to_string(), |id| id.to_string());
                        match crate::checker::state_of(event) {
                            Some(state) => format!("{id}:{}", short_state(&state)),
                            None => id,
                        }
                    })
                    .collect();
                write!(
                    f,
                    "events [{}]{}",
                    ids.join(" "),
                    if stream.ended { " end" } else { "" }
                )
            }
        }
    }
}

/// The history being recorded.
#[derive(Default)]
pub struct History {
    clock: AtomicU64,
    ops: Mutex<Vec<Op>>,
    /// How many of the operations were acknowledged.
    acknowledged: AtomicU64,
}

impl History {
    /// The logical time of an invocation, taken before the request is sent.
    pub fn invoke(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Records an operation as it returns.
    pub fn record(&self, client: u64, agent: usize, invoked: u64, request: Request, answer: Answer) {
        let returned = self.invoke();
        let op = Op {
            client,
            agent,
            invoked,
            returned,
            request,
            answer,
        };
        if op.acknowledged() {
            self.acknowledged.fetch_add(1, Ordering::SeqCst);
        }
        self.ops.lock().expect("history").push(op);
    }

    /// How many operations were recorded, and how many acknowledged.
    pub fn counts(&self) -> (u64, u64) {
        let operations = self.ops.lock().expect("history").len() as u64;
        (operations, self.acknowledged.load(Ordering::SeqCst))
    }

    /// Every operation, by invocation.
    pub fn ops(&self) -> Vec<Op> {
        let mut ops = self.ops.lock().expect("history").clone();
        ops.sort_by_key(|op| op.invoked);
        ops
    }
}
