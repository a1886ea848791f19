//! Running the suite against one agent: the derived cases, then the scenarios,
//! over transports a [`Connector`] opens. Positive examples that name a task
//! are pointed at a task the runner created first (the "fixture"), so they
//! exercise real state; see [`crate::cases::Expect::SuccessOrDeclared`] for
//! what is accepted when an example's ids still name nothing.

use crate::cases::{self, Case, Expect, Message};
use crate::check;
use crate::report::{CaseResult, Outcome, Report};
use crate::scenarios;
pub use crate::session::{unique, Session};
use crate::transport::{Answer, Connector};
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::types::Role;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Groups to run (see [`cases::all_groups`]).
    pub groups: Vec<String>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            groups: cases::all_groups(),
        }
    }
}

/// The state positive examples are pointed at.
#[derive(Clone, Debug, Default)]
pub struct Fixture {
    /// A task this run created (via `SendMessage`).
    pub task_id: Option<String>,
}

impl Fixture {
    /// Creates the fixture task: a plain text message, blocking.
    pub async fn create(session: &Session) -> Fixture {
        let answer = session
            .call(
                markers::SendMessage::NAME,
                json!({"message": {"messageId": unique("conformance-fixture"), "role": Role::User,
                       "parts": [{"text": "conformance fixture"}]}}),
            )
            .await;
        let task_id = match answer {
            Answer::Result(v) => v
                .pointer("/task/id")
                .or_else(|| v.pointer("/message/taskId"))
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        };
        Fixture { task_id }
    }

    /// Points an A2A example's params at the fixture: a top-level task `id` /
    /// `taskId` becomes the fixture task, and a message gets a fresh
    /// `messageId` (a message id is unique per sender). Extension examples are
    /// sent as written: their names are the schema's own.
    pub fn apply(&self, case: &Case, params: &Value) -> Value {
        let mut params = params.clone();
        let Some(d) = case.method else {
            return params;
        };
        let positive = matches!(case.expect, Expect::SuccessOrDeclared | Expect::ValidOrRejected);
        if d.contract != a2a::Contract::A2a || !positive {
            return params;
        }
        if let (Some(task), Some(obj)) = (&self.task_id, params.as_object_mut()) {
            let key = if d.service == "push_config" {
                "taskId"
            } else {
                "id"
            };
            if obj.contains_key(key)
                && d.name != markers::SendMessage::NAME
                && d.name != markers::SendStreamingMessage::NAME
            {
                obj.insert(key.to_string(), json!(task));
            }
        }
        if let Some(message) = params.get_mut("message").and_then(Value::as_object_mut) {
            message.insert("messageId".into(), json!(unique("conformance-msg")));
        }
        params
    }
}

/// Runs the selected groups against the agent `connector` reaches.
pub async fn run(connector: &dyn Connector, options: &RunOptions) -> Report {
    let started = Instant::now();
    let mut results = Vec::new();
    let cases = cases::derive(&options.groups);
    let main = match connector.connect(None).await {
        Ok(t) => Session::new(t),
        Err(e) => {
            results.push(CaseResult::new(
                "connect",
                "connect",
                None,
                Outcome::Fail,
                e,
                json!(null),
                0,
            ));
            return Report::new(connector.kind(), results, started.elapsed());
        }
    };
    // Sessions at other extension versions, opened on first use.
    let mut versioned: BTreeMap<String, Result<Session, String>> = BTreeMap::new();
    let fixture = if cases
        .iter()
        .any(|c| c.expect == Expect::SuccessOrDeclared || c.expect == Expect::ValidOrRejected)
    {
        Fixture::create(&main).await
    } else {
        Fixture::default()
    };
    for case in &cases {
        let t0 = Instant::now();
        let message = match &case.message {
            Message::Request { method, params } => Message::Request {
                method: method.clone(),
                params: params.as_ref().map(|p| fixture.apply(case, p)),
            },
            raw => raw.clone(),
        };
        let answer = match &case.ext_version {
            None => main.send(&message).await,
            Some(v) => {
                if !versioned.contains_key(v) {
                    let opened = connector.connect(Some(v)).await.map(Session::new);
                    versioned.insert(v.clone(), opened);
                }
                match versioned.get(v) {
                    Some(Ok(session)) => session.send(&message).await,
                    Some(Err(e)) => {
                        Answer::Broken(format!("cannot open a session at extension version {v}: {e}"))
                    }
                    None => Answer::Broken("no session".into()),
                }
            }
        };
        let verdict = check::judge(case.method, &case.expect, &answer);
        results.push(CaseResult::from_verdict(case, verdict, &answer, t0.elapsed()));
    }
    if options.groups.iter().any(|g| g == "scenarios") {
        results.extend(scenarios::run_all(&main).await);
    }
    Report::new(connector.kind(), results, started.elapsed())
}
