//! Executing ACTS tests against an agent over the JSON-RPC or the HTTP+JSON
//! binding: the tests that apply (transport, preconditions read from the Agent
//! Card — see `applicable` — runner requirements; §3.3, §12.3, §12.5),
//! then each step in order (§4), judged by `judge`, with its
//! variables, expectations, captures, polling and assertions, and the test's
//! own assertions last. The first step that fails ends the test; the steps
//! after it are reported as skipped.
//!
//! Runner requirements: a `webhook_endpoint` test gets a loopback receiver
//! (see [`super::webhook`]); `concurrent_streams` makes each stream step
//! follow its task with a second, simultaneous subscription whose updates
//! must be the same as the first stream's, in the same order;
//! `stream_disconnect` makes each stream step drop its connection after the
//! first event and subscribe to the task again, the expectations then
//! applying to the new subscription; `auth_credentials` needs `--token`;
//! `header_inspection` is met by `{{step.headers}}`.

use super::applicable::{unmet_precondition, validate_test};
use super::assertion::{check, check_fields, lookup, select, show, Mismatch, Until};
use super::document::{
    Backoff, ClientStep, Document, ExpectStream, NamedAssertion, Preconditions, RawStep, Repeat,
    RunnerRequirement, ServerStep, Step, Test,
};
use super::judge::{
    check_status, describe_error, envelope, finish_step, interpolate_map, judge_error, judge_unary,
    wanted_error, Problem, Received,
};
use super::operations::{decoder, route, Route};
use super::report::{Failure, Outcome, StepRecord, TestRecord};
use super::stream::{check_stream, updates};
use super::vars::Scope;
use super::webhook::Webhook;
use super::wire::{rest_envelope, Next, Reply, Stream, Wire};
use a2a::methods::markers;
use a2a::rpc::Method;
use a2a::MethodDescriptor;
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};

/// Polling defaults (§9).
const DEFAULT_ATTEMPTS: u32 = 10;
const DEFAULT_POLL_DELAY_MS: u64 = 1000;
/// Bounds on what a document may ask of polling: attempts, and one delay
/// (also bounded by `--timeout`), so no document can hold the run forever.
const MAX_ATTEMPTS: u32 = 1000;

/// Runs tests against one agent.
pub struct Executor {
    wire: Wire,
    card: Result<Value, String>,
    timeout: Duration,
    has_token: bool,
    /// Read the draft files' dialect (see [`super::draft`]).
    draft: bool,
}

impl Executor {
    /// Reads the Agent Card once: preconditions are evaluated against it.
    /// Given `rest`, operations travel over the HTTP+JSON binding at that
    /// base URL.
    pub async fn new(
        url: &str,
        rest: Option<&str>,
        token: Option<String>,
        spec_version: &str,
        timeout: Duration,
        draft: bool,
    ) -> Result<Executor, String> {
        let has_token = token.is_some();
        let wire = Wire::new(url, rest, token, spec_version, timeout)?;
        let card = match wire.agent_card(timeout).await {
            Ok(reply) if reply.status == 200 && reply.body.is_object() => Ok(reply.body),
            Ok(reply) => Err(format!(
                "the Agent Card answered HTTP {}: {}",
                reply.status,
                show(Some(&reply.body))
            )),
            Err(e) => Err(e),
        };
        Ok(Executor {
            wire,
            card,
            timeout,
            has_token,
            draft,
        })
    }

    /// The binding the tests are executed over.
    pub fn binding(&self) -> super::document::Binding {
        self.wire.binding()
    }

    /// The Agent Card, if it could be read.
    pub fn card(&self) -> Option<&Value> {
        self.card.as_ref().ok()
    }

    /// Runs one test of `suite` in `document`, as written.
    pub async fn run(&self, document: &Document, written: &Value) -> TestRecord {
        let started = Instant::now();
        let mut record = TestRecord::written(written);
        let written = if self.draft {
            let (normalized, notes) = super::draft::normalize(written);
            record.notes = notes;
            normalized
        } else {
            written.clone()
        };
        let parsed = Test::parse(&written)
            .and_then(|(test, steps)| validate_test(&test, &steps, self.draft).map(|()| (test, steps)));
        match parsed {
            Err(why) => record.finish(
                Outcome::Error,
                Some(Failure::message(format!("invalid test: {why}"))),
                None,
            ),
            Ok((test, steps)) => {
                record.level = test.level;
                if let Some(reason) = self.skip_reason(&test) {
                    record.finish(Outcome::Skip, None, Some(reason));
                } else {
                    self.execute(document, &test, &steps, &mut record).await;
                }
            }
        }
        record.duration_ms = started.elapsed().as_millis() as u64;
        record
    }

    /// Why a test does not apply here, if it does not.
    fn skip_reason(&self, test: &Test) -> Option<String> {
        let empty = Preconditions::default();
        let pre = test.preconditions.as_ref().unwrap_or(&empty);
        let binding = self.binding();
        for transports in [&test.transport, &pre.transport].into_iter().flatten() {
            if !transports.contains(&binding) {
                let names: Vec<&str> = transports.iter().map(|b| b.name()).collect();
                return Some(format!(
                    "the test is for the {} binding; this run executes {}",
                    names.join("/"),
                    binding.name()
                ));
            }
        }
        if test
            .runner_requirements
            .contains(&RunnerRequirement::AuthCredentials)
            && !self.has_token
        {
            return Some(
                "the test needs auth credentials (runner_requirements: auth_credentials); give --token"
                    .into(),
            );
        }
        let needs_card = !pre.capabilities.is_empty() || !pre.skills.is_empty() || !pre.extensions.is_empty();
        if !needs_card {
            return None;
        }
        let card = match &self.card {
            Ok(card) => card,
            Err(why) => return Some(format!("preconditions cannot be evaluated: {why}")),
        };
        unmet_precondition(card, pre)
    }

    async fn execute(&self, document: &Document, test: &Test, steps: &[Step], record: &mut TestRecord) {
        let mut scope = Scope {
            document: document.variables.clone(),
            ..Scope::default()
        };
        let webhook = if test
            .runner_requirements
            .contains(&RunnerRequirement::WebhookEndpoint)
        {
            match Webhook::start().await {
                Ok(w) => Some(w),
                Err(why) => return record.finish(Outcome::Error, Some(Failure::message(why)), None),
            }
        } else {
            None
        };
        let concurrent = test
            .runner_requirements
            .contains(&RunnerRequirement::ConcurrentStreams);
        let disconnect = test
            .runner_requirements
            .contains(&RunnerRequirement::StreamDisconnect);
        let mut problem: Option<(String, Problem)> = None;
        for step in steps {
            if problem.is_some() {
                record.steps.push(StepRecord::skipped(step.id()));
                continue;
            }
            if let Some(w) = &webhook {
                scope.runner.insert("webhook".into(), w.variable());
            }
            let started = Instant::now();
            let result = match step {
                Step::Server(s) => self.server_step(s, &mut scope, concurrent, disconnect).await,
                Step::Raw(s) => self.raw_step(s, &mut scope).await,
                Step::Client(s) => client_step(s, &mut scope),
                Step::Assertion(s) => {
                    let named = NamedAssertion::from(&s.assertion);
                    self.named(&named, &mut scope, webhook.as_ref()).await
                }
            };
            let millis = started.elapsed().as_millis() as u64;
            match result {
                Ok(()) => record.steps.push(StepRecord::passed(step.id(), millis)),
                Err(mut p) => {
                    p.failure.step_id = Some(step.id().to_string());
                    record
                        .steps
                        .push(StepRecord::not_passed(step.id(), millis, p.outcome, &p.failure));
                    problem = Some((step.id().to_string(), p));
                }
            }
        }
        if problem.is_none() {
            for assertion in &test.assertions {
                if let Err(p) = self.named(assertion, &mut scope, webhook.as_ref()).await {
                    problem = Some((String::new(), p));
                    break;
                }
            }
        }
        match problem {
            None => record.finish(Outcome::Pass, None, None),
            Some((_, p)) => record.finish(p.outcome, Some(*p.failure), None),
        }
    }

    // -- server steps ------------------------------------------------------

    async fn server_step(
        &self,
        step: &ServerStep,
        scope: &mut Scope,
        concurrent: bool,
        disconnect: bool,
    ) -> Result<(), Problem> {
        if let Some(ms) = step.delay_ms {
            tokio::time::sleep(Duration::from_millis(ms).min(self.timeout)).await;
        }
        let mut params = scope
            .interpolate(&Value::Object(step.params.clone()))
            .map_err(Problem::fail)?;
        give_message_id(&mut params);
        let received = match route(step.operation) {
            Route::PublicCard => self.unary_repeated(step, scope, None, &params).await?,
            Route::Method(d) if d.streaming => {
                let expect = step.expect_stream.as_ref();
                self.stream_step(d, step, scope, &params, expect, concurrent, disconnect)
                    .await?
            }
            Route::Method(d) => self.unary_repeated(step, scope, Some(d), &params).await?,
        };
        finish_step(&step.id, &step.capture, &received, scope)?;
        for assertion in &step.assertions {
            self.named(assertion, scope, None).await?;
        }
        Ok(())
    }

    /// A unary operation, repeated while its `until` does not hold (§9).
    async fn unary_repeated(
        &self,
        step: &ServerStep,
        scope: &Scope,
        method: Option<&MethodDescriptor>,
        params: &Value,
    ) -> Result<Received, Problem> {
        let Some(repeat) = &step.repeat else {
            return self.unary(step, scope, method, params).await;
        };
        let until = Until::parse(&repeat.until).map_err(Problem::error)?;
        let attempts = repeat
            .max_attempts
            .unwrap_or(DEFAULT_ATTEMPTS)
            .clamp(1, MAX_ATTEMPTS);
        let mut last = String::new();
        for attempt in 1..=attempts {
            match self.unary(step, scope, method, params).await {
                Ok(received) if until.holds(&received.root).map_err(Problem::error)? => return Ok(received),
                Ok(received) => last = show(Some(&received.root)),
                Err(p) => last = p.failure.message.clone(),
            }
            if attempt < attempts {
                tokio::time::sleep(poll_delay(repeat, attempt).min(self.timeout)).await;
            }
        }
        Err(Problem::fail(format!(
            "`until: {}` did not hold after {attempts} attempt(s) (§9); last answer: {last}",
            repeat.until
        )))
    }

    async fn unary(
        &self,
        step: &ServerStep,
        scope: &Scope,
        method: Option<&MethodDescriptor>,
        params: &Value,
    ) -> Result<Received, Problem> {
        let reply = match method {
            Some(d) => self.wire.call(d, params, self.timeout).await,
            None => self.wire.agent_card(self.timeout).await,
        }
        .map_err(Problem::fail)?;
        let outcome = match method {
            Some(_) => envelope(&reply.body),
            None if reply.status == 200 => Ok(reply.body.clone()),
            None => Err(json!({"httpStatus": reply.status, "body": reply.body})),
        };
        let rest_status = self.rest_status(method.is_some(), &reply);
        judge_unary(
            step.expect.as_ref(),
            step.expect_error.as_ref(),
            scope,
            &reply,
            outcome,
            rest_status,
        )
    }

    /// The HTTP status an error answer must match, when operations travel
    /// over HTTP+JSON (A2A §5.4, §11.6); the Agent Card's GET is the same
    /// over both bindings.
    fn rest_status(&self, operation: bool, reply: &Reply) -> Option<u16> {
        (operation && self.binding() == super::document::Binding::Rest).then_some(reply.status)
    }

    #[allow(clippy::too_many_arguments)]
    async fn stream_step(
        &self,
        method: &MethodDescriptor,
        step: &ServerStep,
        scope: &Scope,
        params: &Value,
        expect: Option<&ExpectStream>,
        concurrent: bool,
        disconnect: bool,
    ) -> Result<Received, Problem> {
        let wait = expect
            .and_then(|e| e.timeout_ms)
            .map(Duration::from_millis)
            .unwrap_or(self.timeout);
        let deadline = tokio::time::Instant::now() + wait;
        let mut stream = match self.wire.open_stream(method, params, deadline).await {
            Ok(s) => s,
            Err(reply) => {
                let outcome = envelope(&reply.body);
                let rest_status = self.rest_status(reply.status != 0, &reply);
                return judge_unary(
                    step.expect.as_ref(),
                    step.expect_error.as_ref(),
                    scope,
                    &reply,
                    outcome,
                    rest_status,
                );
            }
        };
        let (status, headers) = (stream.status, stream.headers.clone());
        let first = match read_event(&mut stream, deadline).await? {
            Some(event) => event,
            None => {
                return Err(Problem::fail(format!(
                    "{}: the stream ended without any event",
                    method.name
                )))
            }
        };
        let mut events = vec![first];
        let task_id = task_id_of(&events[0]);
        if disconnect {
            stream.disconnect();
            let id = task_id
                .ok_or_else(|| Problem::fail("the first event names no task to subscribe to again"))?;
            let mut again = self.subscribe(&id, deadline).await?;
            events = read_all(&mut again, deadline).await?;
        } else if concurrent {
            let id = task_id
                .ok_or_else(|| Problem::fail("the first event names no task to follow concurrently"))?;
            let mut second = self.subscribe(&id, deadline).await?;
            let (rest, other) =
                tokio::join!(read_all(&mut stream, deadline), read_all(&mut second, deadline));
            events.extend(rest?);
            let (mine, theirs) = (updates(&events), updates(&other?));
            if !mine.ends_with(&theirs) {
                return Err(Problem::fail(format!(
                    "a concurrent subscriber saw other updates than the stream (or in another order): {} vs {}",
                    show(Some(&Value::Array(theirs))),
                    show(Some(&Value::Array(mine)))
                )));
            }
        } else {
            events.extend(read_all(&mut stream, deadline).await?);
        }
        if let Some(expected) = &step.expect_error {
            return Err(Problem::fail(format!(
                "expected {}, got a stream of {} event(s)",
                wanted_error(expected).1,
                events.len()
            )));
        }
        if let Some(expect) = &step.expect {
            check_status(expect, status)?;
        }
        if let Some(expect) = expect {
            let expect = interpolate_stream(expect, scope)?;
            check_stream(&expect, &events).map_err(|m| Problem::mismatch("", m))?;
        }
        Ok(Received {
            root: Value::Array(events),
            status,
            headers,
        })
    }

    async fn subscribe(&self, task_id: &str, deadline: tokio::time::Instant) -> Result<Stream, Problem> {
        let params = json!({"id": task_id});
        let method = a2a::find_method(markers::SubscribeToTask::NAME)
            .ok_or_else(|| Problem::error("the method table has no SubscribeToTask"))?;
        self.wire
            .open_stream(method, &params, deadline)
            .await
            .map_err(|reply| {
                Problem::fail(format!(
                    "subscribing to task {task_id} again was refused: {}",
                    show(Some(&reply.body))
                ))
            })
    }

    // -- raw steps -----------------------------------------------------------

    async fn raw_step(&self, step: &RawStep, scope: &mut Scope) -> Result<(), Problem> {
        let mut raw = step.raw.clone();
        raw.headers.clear();
        raw.path = scope.interpolate_str(&step.raw.path).map_err(Problem::fail)?;
        for (name, value) in &step.raw.headers {
            raw.headers
                .insert(name.clone(), scope.interpolate_str(value).map_err(Problem::fail)?);
        }
        raw.body = match &step.raw.body {
            Some(b) => Some(scope.interpolate(b).map_err(Problem::fail)?),
            None => None,
        };
        raw.body_raw = match &step.raw.body_raw {
            Some(t) => Some(scope.interpolate_str(t).map_err(Problem::fail)?),
            None => None,
        };
        let reply = self.wire.raw(&raw, self.timeout).await.map_err(Problem::fail)?;
        if let Some(expected) = &step.expect_error {
            // Over HTTP+JSON the error is the Status body's (A2A §11.6).
            let (answer, rest_status) = match self.binding() {
                super::document::Binding::Rest => (
                    rest_envelope(reply.status, reply.body.clone()),
                    Some(reply.status),
                ),
                _ => (reply.body.clone(), None),
            };
            judge_error(expected, scope, &envelope(&answer), rest_status)?;
        }
        if let Some(expect) = &step.expect_stream {
            let events = reply.body.as_array().cloned().ok_or_else(|| {
                Problem::fail(format!(
                    "expected an event stream, got {}",
                    show(Some(&reply.body))
                ))
            })?;
            let expect = interpolate_stream(expect, scope)?;
            check_stream(&expect, &events).map_err(|m| Problem::mismatch("", m))?;
        }
        if let Some(expect) = &step.expect {
            check_status(expect, reply.status)?;
            if let Some(body) = &expect.body {
                let body = interpolate_map(body, scope)?;
                check_fields(&body, Some(&reply.body), "body").map_err(|m| Problem::mismatch("", m))?;
            }
        }
        let received = Received {
            root: reply.body,
            status: reply.status,
            headers: reply.headers,
        };
        finish_step(&step.id, &step.capture, &received, scope)?;
        for assertion in &step.assertions {
            self.named(assertion, scope, None).await?;
        }
        Ok(())
    }

    // -- assertions --------------------------------------------------------------

    /// A named (or inline) assertion (§5.5). One on `{{webhook.…}}` waits for
    /// deliveries: it is evaluated again until it holds or the runner's
    /// timeout passes.
    async fn named(
        &self,
        assertion: &NamedAssertion,
        scope: &mut Scope,
        webhook: Option<&Webhook>,
    ) -> Result<(), Problem> {
        let waits = webhook.is_some() && assertion.source.contains("webhook.");
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(w) = webhook {
                scope.runner.insert("webhook".into(), w.variable());
            }
            match evaluate_named(assertion, scope) {
                Err(p) if waits && p.outcome == Outcome::Fail && Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                other => return other,
            }
        }
    }
}

/// A message without `messageId` gets a fresh one (§4.3, §12.4).
fn give_message_id(params: &mut Value) {
    if let Some(message) = params.get_mut("message").and_then(Value::as_object_mut) {
        message
            .entry("messageId")
            .or_insert_with(|| Value::String(uuid::Uuid::new_v4().to_string()));
    }
}

fn poll_delay(repeat: &Repeat, attempt: u32) -> Duration {
    let base = repeat.delay_ms.unwrap_or(DEFAULT_POLL_DELAY_MS);
    let factor = match repeat.backoff.unwrap_or(Backoff::None) {
        Backoff::None => 1,
        Backoff::Linear => u64::from(attempt),
        Backoff::Exponential => 1u64 << attempt.saturating_sub(1).min(16),
    };
    Duration::from_millis(base.saturating_mul(factor))
}

fn interpolate_stream(expect: &ExpectStream, scope: &Scope) -> Result<ExpectStream, Problem> {
    let opt = |m: &Option<Map<String, Value>>| m.as_ref().map(|m| interpolate_map(m, scope)).transpose();
    Ok(ExpectStream {
        min_count: expect.min_count,
        max_count: expect.max_count,
        timeout_ms: expect.timeout_ms,
        ordering: expect.ordering,
        events: expect
            .events
            .iter()
            .map(|e| {
                Ok(super::document::EventAssertion {
                    description: e.description.clone(),
                    position: e.position,
                    index: e.index,
                    assertions: interpolate_map(&e.assertions, scope)?,
                })
            })
            .collect::<Result<_, Problem>>()?,
        final_event: opt(&expect.final_event)?,
        each_event: opt(&expect.each_event)?,
    })
}

async fn read_event(stream: &mut Stream, deadline: tokio::time::Instant) -> Result<Option<Value>, Problem> {
    match stream.next(deadline).await {
        Next::Event(envelope_value) => match envelope(&envelope_value) {
            Ok(result) => Ok(Some(result)),
            Err(error) => Err(Problem::fail(format!(
                "the stream ended with error {}",
                describe_error(&error)
            ))),
        },
        Next::End => Ok(None),
        Next::Timeout => Err(Problem::fail(
            "the stream did not end before its deadline (timeout_ms or --timeout)",
        )),
        Next::Broken(why) => Err(Problem::fail(why)),
    }
}

async fn read_all(stream: &mut Stream, deadline: tokio::time::Instant) -> Result<Vec<Value>, Problem> {
    let mut events = Vec::new();
    while let Some(event) = read_event(stream, deadline).await.map_err(|p| Problem {
        failure: Box::new(Failure::message(format!(
            "after {} event(s): {}",
            events.len(),
            p.failure.message
        ))),
        ..p
    })? {
        events.push(event);
    }
    Ok(events)
}

/// The task an event belongs to (a Task's `id`, an update's `taskId`).
fn task_id_of(event: &Value) -> Option<String> {
    let v = super::stream::view(event);
    v.get("task")
        .and_then(|t| t.get("id"))
        .or_else(|| v.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// A client step (§10): the canonical payload decoded with the contract's
/// generated types for the operation, and the parsed value asserted.
fn client_step(step: &ClientStep, scope: &mut Scope) -> Result<(), Problem> {
    let payload = scope
        .interpolate(&step.client_response.wire_payload)
        .map_err(Problem::fail)?;
    let operation = step.client_response.operation;
    let d = decoder(operation).ok_or_else(|| Problem::error(format!("no decoder for {operation:?}")))?;
    let parsed = match envelope(&payload) {
        Ok(result) => (d.roundtrip_result)(result)
            .map_err(|e| Problem::fail(format!("the client cannot parse the {} result: {e}", d.name)))?,
        // An error response is surfaced as `{error: …}`, the error decoded.
        Err(error) if payload.get("jsonrpc").is_some() => {
            let decoded = serde_json::from_value::<a2a::Error>(error.clone())
                .map_err(|e| Problem::fail(format!("the client cannot parse the error: {e}")))?;
            let value = serde_json::to_value(decoded).map_err(|e| Problem::error(e.to_string()))?;
            json!({ "error": value })
        }
        // A payload without an envelope (an Agent Card document) is the object itself.
        Err(_) => (d.roundtrip_result)(payload.clone())
            .map_err(|e| Problem::fail(format!("the client cannot parse the {} payload: {e}", d.name)))?,
    };
    let expected = interpolate_map(&step.expect_parsed, scope)?;
    check_fields(&expected, Some(&parsed), "").map_err(|m| Problem::mismatch("", m))?;
    scope.set(&step.id, "response", parsed);
    for assertion in &step.assertions {
        evaluate_named(assertion, scope)?;
    }
    Ok(())
}

fn evaluate_named(a: &NamedAssertion, scope: &Scope) -> Result<(), Problem> {
    let source = scope
        .interpolate(&Value::String(a.source.clone()))
        .map_err(Problem::fail)?;
    let (target, base) = match &a.path {
        Some(path) => (lookup(&source, path).map_err(Problem::error)?, path.clone()),
        None => (Some(source), String::new()),
    };
    let label =
        a.id.clone()
            .or_else(|| a.description.clone())
            .unwrap_or_else(|| a.source.clone());
    if let Some(m) = &a.matches {
        let m = scope.interpolate(m).map_err(Problem::fail)?;
        check(&m, target.as_ref(), &base).map_err(|m| Problem::mismatch(&format!("assertion {label}"), m))?;
    }
    let Some(target) = target else {
        if a.any.is_some() || a.all.is_some() {
            return Err(Problem::fail(format!(
                "assertion {label}: `{}` is absent",
                a.source
            )));
        }
        return Ok(());
    };
    for (kind, c) in [("any", &a.any), ("all", &a.all), ("none", &a.none)] {
        let Some(c) = c else { continue };
        let matches = interpolate_map(&c.matches, scope)?;
        let elements = select(&target, &c.path).map_err(Problem::error)?;
        let results: Vec<Result<(), Mismatch>> = elements
            .iter()
            .map(|(at, v)| check_fields(&matches, Some(v), at))
            .collect();
        let passing = results.iter().filter(|r| r.is_ok()).count();
        let holds = match kind {
            "any" => passing > 0,
            "all" => passing == results.len(),
            _ => passing == 0,
        };
        if !holds {
            let wanted = show(Some(&Value::Object(matches.clone())));
            let detail = results.iter().find_map(|r| r.clone().err()).map(|m| m.message);
            return Err(Problem::failed(Failure {
                message: format!(
                    "assertion {label}: {kind} of `{}` ({} element(s)) fails to match{}",
                    c.path,
                    elements.len(),
                    detail.map(|d| format!(" (e.g. {d})")).unwrap_or_default()
                ),
                step_id: None,
                expected: Some(format!("{kind} element matches {wanted}")),
                actual: Some(show(Some(&Value::Array(
                    elements.into_iter().map(|(_, v)| v).collect(),
                )))),
                assertion_path: Some(c.path.clone()),
            }));
        }
    }
    Ok(())
}
