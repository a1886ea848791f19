//! `task push-config receive` (a2a-cli Tier 3, A2ACLI_PUSH_002): a local
//! webhook receiver for the push notifications of one task.
//!
//! The command reads the task first: one already at a terminal or
//! interrupted state is shown as it is and nothing is registered. Otherwise
//! it starts an HTTP receiver, registers a push configuration for the task
//! (CreateTaskPushNotificationConfig) with a fresh token and the receiver's
//! URL (or `--url`), and prints every notification it accepts as `send
//! --stream` prints events (A2A §4.3.3: each is a StreamResponse), until
//! the task ends or needs input, `--timeout` passes, or Ctrl-C. Whatever
//! ends it, the configuration it created is deleted on the way out.
//!
//! The receiver is listening before the configuration is registered, and
//! knows the token and the task already: a delivery that beats the
//! registration's answer is accepted and printed once that answer is in.
//! A task that settles between the first read and the registration would
//! never be notified, so the task is read again once registered; anything
//! that settles it after that read is delivered.
//!
//! What the receiver answers:
//! - 401 to a delivery without the configuration's token (compared in
//!   constant time), before its body is read;
//! - 400 to a body that is not a StreamResponse about this task (and this
//!   context, once known), 413 past [`MAX_BODY`], 405 to anything but POST;
//! - 200 to a delivery it takes, 204 to a repeat of one it already took.
//!
//! Deliveries are at least once (A2A §4.3.3), so a repeat is dropped. A2A
//! gives a StreamResponse no identity of its own, so a delivery is known by
//! the per-task event sequence number the agent sends along in
//! [`SEQUENCE_HEADER`] (a redelivery repeats it), and, from an agent that
//! sends none, by its whole payload: a redelivery repeats the payload
//! byte for byte, and two events identical in every field tell nothing one
//! of them does not.

use super::failure::{Failure, Local};
use super::output;
use super::settings::id;
use super::standard::Ctx;
use super::target::Target;
use super::text::{self, Tracked};
use super::wait::class_of;
use crate::http::StateClass;
use a2a::methods::markers::{CreateTaskPushNotificationConfig, DeleteTaskPushNotificationConfig, GetTask};
use a2a::rpc::{Method, Transport};
use bytes::Bytes;
use clap::{Arg, ArgMatches, Command};
use http::{HeaderMap, Method as HttpMethod, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The command's name under `task push-config`.
pub const COMMAND: &str = "receive";

/// The header a delivery carries the configuration's token in: the one the
/// CleverAgents agent sets from `TaskPushNotificationConfig.token` on every
/// POST (its push delivery, `app/src/push/delivery.rs`); the header the
/// A2A SDKs name for the token too.
pub const TOKEN_HEADER: &str = "X-A2A-Notification-Token";

/// The header the CleverAgents agent numbers each delivered event with: the
/// event's per-task sequence number, repeated by a redelivery.
pub const SEQUENCE_HEADER: &str = "X-CleverAgents-Event-Sequence";

/// The largest delivery body taken (a task event with inline file parts).
pub const MAX_BODY: usize = 8 * 1024 * 1024;

/// Connections served at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 64;

/// How long a connection may take to send a request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest one connection is served.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(120);

/// How many refusals are told to the command (for `--debug`); past that,
/// a flood of forged deliveries is refused without a word.
const REFUSALS_TOLD: usize = 100;

/// Where the receiver listens unless `--listen` says otherwise.
const DEFAULT_LISTEN: &str = "127.0.0.1:0";

/// The `task push-config receive` command.
pub fn command() -> Command {
    Command::new(COMMAND)
        .about("Receive a task's push notifications on a local webhook until the task ends or needs input")
        .long_about(
            "Receive a task's push notifications on a local webhook until the task ends or needs input. \
             Starts an HTTP receiver, registers it for the task (CreateTaskPushNotificationConfig, with a \
             fresh token), and prints each notification as it arrives, as `send --stream` prints events \
             (-o json: one StreamResponse per line). Stops when the task ends or needs input, when \
             --timeout passes (exit 5), or on Ctrl-C; the configuration is deleted whichever way it stops. \
             A task that has already ended or waits for input is shown as it is.",
        )
        .arg(Arg::new("id").value_name("TASK_ID").help("The task"))
        .arg(
            Arg::new("listen")
                .long("listen")
                .value_name("ADDR")
                .help(
                    "Address the receiver listens on (port 0: any free port) [default: 127.0.0.1:0]; \
                     the agent is given http://ADDR/ (a loopback address for an unspecified one)",
                ),
        )
        .arg(Arg::new("url").long("url").value_name("URL").help(
            "URL the agent is to deliver to instead, when it reaches the receiver another way (a tunnel, a proxy)",
        ))
}

/// `task push-config receive`.
pub async fn run(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    if !target.allows(CreateTaskPushNotificationConfig::NAME) {
        return Err(Failure::local(
            Local::Usage,
            "the agent's card does not declare the pushNotifications capability task push-config receive needs",
        ));
    }
    let task_id = matches
        .get_one::<String>("id")
        .map(String::as_str)
        .or_else(|| ctx.settings.get(id::TASK_ID))
        .map(str::to_string)
        .ok_or_else(|| Failure::usage("which task? give its id (TASK_ID)"))?;
    let listen =
        listen_address(matches.get_one::<String>("listen").map(String::as_str)).map_err(Failure::usage)?;
    let given_url = matches
        .get_one::<String>("url")
        .map(String::as_str)
        .map(webhook_url)
        .transpose()
        .map_err(Failure::usage)?;
    let deadline = ctx
        .settings
        .duration(id::TIMEOUT)
        .map_err(Failure::usage)?
        .map(|timeout| Instant::now() + timeout);
    let mut guard = Guard {
        interrupt: Interrupt::new(),
        deadline,
        task_id: task_id.clone(),
    };
    let mut get = json!({ "id": task_id });
    target.with_tenant(GetTask::NAME, &mut get);
    let read = |params: Value| async move {
        target
            .transport
            .call(GetTask::NAME, params)
            .await
            .map_err(|e| ctx.fail(target, &e, target.sends_credentials))
    };
    let task = guard.run(read(get.clone())).await??;
    let mut tracked = Tracked::default();
    if class_of(&task) != StateClass::Pending {
        super::standard::emit_event(ctx.output, &mut tracked, &json!({ "task": task }));
        eprintln!(
            "task {task_id} is already {}: no notification will come",
            state_of(&task)
        );
        outcome(ctx, &task_id, &state_of(&task));
        return Ok(());
    }
    tracked.observe(&json!({ "task": task }));
    let token = fresh_token();
    ctx.debug.secret(&token);
    let (notes, mut inbox) = mpsc::unbounded_channel();
    let receiver = Arc::new(Receiver::new(
        task_id.clone(),
        task["contextId"].as_str().map(str::to_string),
        token.clone(),
        notes,
    ));
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|e| Failure::local(Local::Internal, format!("cannot listen on {listen}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Failure::local(Local::Internal, format!("the receiver's address: {e}")))?;
    let url = given_url.unwrap_or_else(|| format!("http://{}/", reachable(bound)));
    let server = tokio::spawn(serve(listener, receiver));
    let mut session = Session {
        ctx,
        target,
        task_id: &task_id,
        // Chosen here, so the configuration can be deleted even when the
        // agent's answer to its creation never arrives (Ctrl-C, --timeout).
        config_id: uuid::Uuid::new_v4().to_string(),
    };
    let received = session
        .receive(
            &mut guard,
            &mut inbox,
            &mut tracked,
            &url,
            &token,
            bound,
            read(get),
        )
        .await;
    server.abort();
    received
}

/// One receive: registration, the wait, and the configuration's deletion.
struct Session<'a, 'c> {
    ctx: &'a Ctx<'c>,
    target: &'a Target,
    task_id: &'a str,
    config_id: String,
}

impl Session<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    async fn receive(
        &mut self,
        guard: &mut Guard,
        inbox: &mut mpsc::UnboundedReceiver<Note>,
        tracked: &mut Tracked,
        url: &str,
        token: &str,
        bound: SocketAddr,
        reread: impl Future<Output = Result<Value, Failure>>,
    ) -> Result<(), Failure> {
        let (ctx, target, task_id) = (self.ctx, self.target, self.task_id);
        let mut params = json!({
            "taskId": task_id,
            "id": self.config_id,
            "url": url,
            "token": token,
        });
        target.with_tenant(CreateTaskPushNotificationConfig::NAME, &mut params);
        let created = guard
            .run(
                target
                    .transport
                    .call(CreateTaskPushNotificationConfig::NAME, params),
            )
            .await;
        let created = match created {
            Ok(Ok(config)) => config,
            Ok(Err(error)) => {
                let refused_url = matches!(&error, a2a::rpc::CallError::Rpc(e) if e.kind() == Some(a2a::ErrorKind::InvalidParams));
                let failure = ctx.fail(target, &error, target.sends_credentials);
                return Err(if refused_url {
                    failure.hint(format!(
                        "the agent must be able to call {url}: an agent that refuses loopback or private \
                         addresses needs it allow-listed, or --url with an address it can reach (a tunnel)"
                    ))
                } else {
                    failure
                });
            }
            Err(stopped) => {
                self.delete(guard).await;
                return Err(stopped);
            }
        };
        if let Some(assigned) = created["id"].as_str().filter(|id| !id.is_empty()) {
            self.config_id = assigned.to_string();
        }
        ctx.debug
            .log(&format!("push config {} registered: {url}", self.config_id));
        let result = self.wait(guard, inbox, tracked, url, bound, reread).await;
        self.delete(guard).await;
        result
    }

    /// Prints the notifications until the task settles.
    async fn wait(
        &self,
        guard: &mut Guard,
        inbox: &mut mpsc::UnboundedReceiver<Note>,
        tracked: &mut Tracked,
        url: &str,
        bound: SocketAddr,
        reread: impl Future<Output = Result<Value, Failure>>,
    ) -> Result<(), Failure> {
        let (ctx, task_id) = (self.ctx, self.task_id);
        // Settled before the configuration was in place, its last events
        // were never going to be delivered: what did arrive, then the task.
        let task = guard.run(reread).await??;
        if class_of(&task) != StateClass::Pending {
            while let Ok(note) = inbox.try_recv() {
                if self.take(note, tracked) {
                    return Ok(());
                }
            }
            super::standard::emit_event(ctx.output, tracked, &json!({ "task": task }));
            outcome(ctx, task_id, &state_of(&task));
            return Ok(());
        }
        eprintln!("push receiver: {url} (listening on {bound})");
        eprintln!(
            "push config: {} (task {task_id}); waiting until the task ends or needs input; \
             Ctrl-C stops waiting, the task goes on",
            self.config_id
        );
        loop {
            match guard.run(inbox.recv()).await? {
                Some(note) => {
                    if self.take(note, tracked) {
                        return Ok(());
                    }
                }
                None => {
                    return Err(Failure::local(
                        Local::Internal,
                        "the push receiver stopped before the task ended or paused",
                    ))
                }
            }
        }
    }

    /// Shows what the receiver noted; whether the task has settled.
    fn take(&self, note: Note, tracked: &mut Tracked) -> bool {
        match note {
            Note::Refused(status, why) => {
                self.ctx
                    .debug
                    .log(&format!("refused a delivery ({}): {why}", status.as_u16()));
                false
            }
            Note::Event(event) => {
                self.ctx.debug.log(&format!("< push {event}"));
                super::standard::emit_event(self.ctx.output, tracked, &event);
                if class_of(&event) == StateClass::Pending {
                    return false;
                }
                let state = tracked.state.clone().unwrap_or_default();
                outcome(self.ctx, self.task_id, &state);
                true
            }
        }
    }

    /// Deletes the configuration; a failure is a warning, naming the
    /// command that deletes it. A second Ctrl-C leaves it.
    async fn delete(&self, guard: &mut Guard) {
        let (ctx, target, task_id, config_id) = (self.ctx, self.target, self.task_id, &self.config_id);
        let mut params = json!({ "taskId": task_id, "id": config_id });
        target.with_tenant(DeleteTaskPushNotificationConfig::NAME, &mut params);
        let deleted = tokio::select! {
            deleted = target.transport.call(DeleteTaskPushNotificationConfig::NAME, params) => deleted
                .map_err(|e| ctx.fail(target, &e, target.sends_credentials).message),
            _ = guard.interrupt.recv() => Err("interrupted".to_string()),
        };
        match deleted {
            Ok(_) => ctx.debug.log(&format!("push config {config_id} deleted")),
            Err(why) => output::warn(&format!(
                "push config {config_id} of task {task_id} is left in place ({why}); delete it with: \
                 agents{} task push-config delete {task_id} {config_id}",
                ctx.agent_flag
            )),
        }
    }
}

/// The state a task (or event) carries, as sent.
fn state_of(value: &Value) -> String {
    value
        .pointer("/status/state")
        .or_else(|| value.pointer("/task/status/state"))
        .or_else(|| value.pointer("/statusUpdate/status/state"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// Names a settled task's outcome on stderr, as the other waits do: how to
/// answer a task that waits, the state of one that did not complete.
fn outcome(ctx: &Ctx<'_>, task_id: &str, state: &str) {
    ctx.outcome(
        &json!({ "id": task_id, "status": { "state": state } }),
        &mut text::Text::new(),
    );
}

/// `--listen`: a socket address.
fn listen_address(given: Option<&str>) -> Result<SocketAddr, String> {
    let text = given.unwrap_or(DEFAULT_LISTEN);
    text.trim().parse().map_err(|_| {
        format!("--listen `{text}` is not an address: give IP:PORT, e.g. 127.0.0.1:8000 or [::1]:0")
    })
}

/// `--url`: an absolute http(s) URL.
fn webhook_url(given: &str) -> Result<String, String> {
    match reqwest::Url::parse(given.trim()) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => Ok(url.to_string()),
        _ => Err(format!("--url `{given}` is not an http or https URL")),
    }
}

/// The address to give for the bound one: an unspecified address (listening
/// on every interface) is reached on the loopback of its family.
fn reachable(bound: SocketAddr) -> SocketAddr {
    match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), bound.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), bound.port())
        }
        _ => bound,
    }
}

/// A token of 244 random bits (two UUIDv4s, from the system's CSPRNG), for
/// this configuration only (A2A §13.2: unique, single-purpose tokens).
fn fresh_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Equal secrets, compared in a time that does not depend on where they differ.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    given
        .iter()
        .zip(expected)
        .fold(0u8, |diff, (a, b)| diff | (a ^ b))
        == 0
}

/// What stops a wait other than the task: `--timeout` and Ctrl-C.
struct Guard {
    interrupt: Interrupt,
    deadline: Option<Instant>,
    task_id: String,
}

impl Guard {
    /// `work`, unless the deadline passes or Ctrl-C comes first.
    async fn run<T>(&mut self, work: impl Future<Output = T>) -> Result<T, Failure> {
        let at = self.deadline;
        let deadline = async move {
            match at {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        let task_id = &self.task_id;
        tokio::select! {
            done = work => Ok(done),
            () = deadline => Err(Failure::local(
                Local::Timeout,
                format!("--timeout passed before task {task_id} ended or paused"),
            )
            .hint(format!("the task goes on: `agents task get {task_id} --wait`"))),
            () = self.interrupt.recv() => Err(Failure::local(
                Local::Internal,
                format!("interrupted (Ctrl-C) before task {task_id} ended or paused"),
            )
            .hint(format!("the task goes on: `agents task get {task_id} --wait`"))),
        }
    }
}

/// Ctrl-C (SIGINT), caught from the start so the configuration is deleted
/// rather than the process ended; where it cannot be caught, never.
struct Interrupt {
    #[cfg(unix)]
    signal: Option<tokio::signal::unix::Signal>,
    #[cfg(windows)]
    signal: Option<tokio::signal::windows::CtrlC>,
}

impl Interrupt {
    fn new() -> Interrupt {
        Interrupt {
            #[cfg(unix)]
            signal: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok(),
            #[cfg(windows)]
            signal: tokio::signal::windows::ctrl_c().ok(),
        }
    }

    async fn recv(&mut self) {
        if let Some(signal) = self.signal.as_mut() {
            if signal.recv().await.is_some() {
                return;
            }
        }
        std::future::pending::<()>().await
    }
}

/// What the receiver tells the command.
#[derive(Debug)]
enum Note {
    /// A delivery taken: its StreamResponse, as sent.
    Event(Value),
    /// A delivery refused, and why (for `--debug`).
    Refused(StatusCode, String),
}

/// What a delivery came to.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// Taken (200).
    Taken,
    /// A repeat of one taken (204).
    Repeat,
    /// Refused with this status, for this reason.
    Refused(StatusCode, String),
}

/// The receiver's state: what it expects, what it has taken.
struct Receiver {
    task_id: String,
    context_id: Option<String>,
    token: String,
    /// The identities of the deliveries taken (see the module's doc), and
    /// where each is sent, under one lock so the order of taking is the
    /// order of printing.
    taken: Mutex<(HashSet<String>, mpsc::UnboundedSender<Note>)>,
    /// Refusals so far.
    refusals: AtomicUsize,
}

impl Receiver {
    fn new(
        task_id: String,
        context_id: Option<String>,
        token: String,
        notes: mpsc::UnboundedSender<Note>,
    ) -> Self {
        Receiver {
            task_id,
            context_id,
            token,
            taken: Mutex::new((HashSet::new(), notes)),
            refusals: AtomicUsize::new(0),
        }
    }

    /// Whether the request carries the configuration's token.
    fn authentic(&self, headers: &HeaderMap) -> bool {
        headers
            .get(TOKEN_HEADER)
            .is_some_and(|given| same_secret(given.as_bytes(), self.token.as_bytes()))
    }

    /// Judges an authentic delivery's body, and takes it when it is new.
    fn judge(&self, headers: &HeaderMap, body: &[u8]) -> Verdict {
        let bad = |why: String| Verdict::Refused(StatusCode::BAD_REQUEST, why);
        let event: Value = match serde_json::from_slice(body) {
            Ok(event) => event,
            Err(e) => return bad(format!("the body is not JSON: {e}")),
        };
        if let Err(e) = serde_json::from_value::<a2a::types::StreamResponse>(event.clone()) {
            return bad(format!("the body is not a StreamResponse: {e}"));
        }
        let (task_id, context_id) = about(&event);
        if task_id != Some(self.task_id.as_str()) {
            return bad(format!(
                "the notification is about task {}, not {}",
                task_id.unwrap_or("(none)"),
                self.task_id
            ));
        }
        if let (Some(expected), Some(given)) = (&self.context_id, context_id) {
            if given != expected {
                return bad(format!("the notification is in context {given}, not {expected}"));
            }
        }
        let identity = match headers
            .get(SEQUENCE_HEADER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            Some(seq) => format!("seq {seq}"),
            None => format!("payload {event}"),
        };
        let mut taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
        if !taken.0.insert(identity) {
            return Verdict::Repeat;
        }
        // The command gone, the receiver is being stopped: nothing to print.
        let _ = taken.1.send(Note::Event(event));
        Verdict::Taken
    }

    fn refused(&self, status: StatusCode, why: String) -> Verdict {
        if self.refusals.fetch_add(1, Ordering::Relaxed) < REFUSALS_TOLD {
            let taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
            let _ = taken.1.send(Note::Refused(status, why.clone()));
        }
        Verdict::Refused(status, why)
    }

    /// Answers one request.
    async fn answer<B>(&self, request: http::Request<B>) -> Verdict
    where
        B: hyper::body::Body,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        if request.method() != HttpMethod::POST {
            return self.refused(StatusCode::METHOD_NOT_ALLOWED, "deliveries are POSTs".into());
        }
        if !self.authentic(request.headers()) {
            return self.refused(
                StatusCode::UNAUTHORIZED,
                format!("no {TOKEN_HEADER}, or not this configuration's"),
            );
        }
        let declared = request
            .headers()
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_BODY as u64) {
            return self.refused(StatusCode::PAYLOAD_TOO_LARGE, format!("over {MAX_BODY} bytes"));
        }
        let (parts, body) = request.into_parts();
        let body = match Limited::new(body, MAX_BODY).collect().await {
            Ok(body) => body.to_bytes(),
            Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
                return self.refused(StatusCode::PAYLOAD_TOO_LARGE, format!("over {MAX_BODY} bytes"));
            }
            Err(e) => return self.refused(StatusCode::BAD_REQUEST, format!("reading the body: {e}")),
        };
        match self.judge(&parts.headers, &body) {
            Verdict::Refused(status, why) => self.refused(status, why),
            verdict => verdict,
        }
    }
}

/// The task and context a StreamResponse is about.
fn about(event: &Value) -> (Option<&str>, Option<&str>) {
    let str_at = |pointer: &str| event.pointer(pointer).and_then(Value::as_str);
    if event.get("task").is_some() {
        (str_at("/task/id"), str_at("/task/contextId"))
    } else if event.get("statusUpdate").is_some() {
        (str_at("/statusUpdate/taskId"), str_at("/statusUpdate/contextId"))
    } else if event.get("artifactUpdate").is_some() {
        (
            str_at("/artifactUpdate/taskId"),
            str_at("/artifactUpdate/contextId"),
        )
    } else {
        (str_at("/message/taskId"), str_at("/message/contextId"))
    }
}

/// The HTTP answer of a verdict.
fn response(verdict: &Verdict) -> http::Response<Full<Bytes>> {
    let (status, body) = match verdict {
        Verdict::Taken => (StatusCode::OK, String::new()),
        Verdict::Repeat => (StatusCode::NO_CONTENT, String::new()),
        Verdict::Refused(status, why) => (*status, format!("{why}\n")),
    };
    let mut response = http::Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if !matches!(verdict, Verdict::Repeat) {
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    response
}

/// Serves `listener` until the task running it is aborted (which ends
/// every connection with it).
async fn serve(listener: TcpListener, receiver: Arc<Receiver>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors, say: a moment, then accept again.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            // Reap the connections that ended.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        let receiver = receiver.clone();
        connections.spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let receiver = receiver.clone();
                async move { Ok::<_, Infallible>(response(&receiver.answer(request).await)) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            let _ = tokio::time::timeout(CONNECTION_TIMEOUT, connection).await;
            drop(slot);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASK: &str = "task-1";
    const TOKEN: &str = "the-token";

    fn receiver() -> (Arc<Receiver>, mpsc::UnboundedReceiver<Note>) {
        let (notes, inbox) = mpsc::unbounded_channel();
        (
            Arc::new(Receiver::new(
                TASK.into(),
                Some("ctx-1".into()),
                TOKEN.into(),
                notes,
            )),
            inbox,
        )
    }

    fn status(state: &str) -> Value {
        json!({"statusUpdate": {"taskId": TASK, "contextId": "ctx-1", "status": {"state": state}}})
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().expect("header value"));
        }
        map
    }

    fn events(inbox: &mut mpsc::UnboundedReceiver<Note>) -> Vec<Value> {
        let mut out = Vec::new();
        while let Ok(note) = inbox.try_recv() {
            if let Note::Event(event) = note {
                out.push(event);
            }
        }
        out
    }

    #[test]
    fn the_token_is_the_configurations() {
        let (receiver, _) = receiver();
        assert!(receiver.authentic(&headers(&[(TOKEN_HEADER, TOKEN)])));
        assert!(receiver.authentic(&headers(&[("x-a2a-notification-token", TOKEN)])));
        assert!(!receiver.authentic(&headers(&[(TOKEN_HEADER, "the-tokeN")])));
        assert!(!receiver.authentic(&headers(&[(TOKEN_HEADER, "the-token-")])));
        assert!(!receiver.authentic(&headers(&[("authorization", "Bearer the-token")])));
        assert!(!receiver.authentic(&HeaderMap::new()));
        let (a, b) = (fresh_token(), fresh_token());
        assert_eq!((a.len(), a == b), (64, false));
    }

    #[test]
    fn only_stream_responses_about_the_task_are_taken() {
        let (receiver, mut inbox) = receiver();
        let none = HeaderMap::new();
        let refused = |v: Verdict| matches!(v, Verdict::Refused(StatusCode::BAD_REQUEST, _));
        assert!(refused(receiver.judge(&none, b"not json")));
        assert!(refused(receiver.judge(&none, b"{\"event\": 1}")));
        assert!(refused(receiver.judge(&none, b"[]")));
        let other = json!({"statusUpdate": {"taskId": "task-2", "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"}}});
        assert!(refused(receiver.judge(&none, other.to_string().as_bytes())));
        let elsewhere = json!({"statusUpdate": {"taskId": TASK, "contextId": "ctx-2", "status": {"state": "TASK_STATE_WORKING"}}});
        assert!(refused(receiver.judge(&none, elsewhere.to_string().as_bytes())));
        let lone_message =
            json!({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}});
        assert!(refused(
            receiver.judge(&none, lone_message.to_string().as_bytes())
        ));
        assert_eq!(events(&mut inbox), Vec::<Value>::new());
        let working = status("TASK_STATE_WORKING");
        assert_eq!(
            receiver.judge(&none, working.to_string().as_bytes()),
            Verdict::Taken
        );
        let task =
            json!({"task": {"id": TASK, "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"}}});
        assert_eq!(receiver.judge(&none, task.to_string().as_bytes()), Verdict::Taken);
        assert_eq!(events(&mut inbox), vec![working, task]);
    }

    #[test]
    fn repeats_are_known_by_sequence_else_by_payload() {
        let (receiver, mut inbox) = receiver();
        let working = status("TASK_STATE_WORKING").to_string();
        let done = status("TASK_STATE_COMPLETED").to_string();
        let seq = |n: &str| headers(&[(SEQUENCE_HEADER, n)]);
        assert_eq!(receiver.judge(&seq("3"), working.as_bytes()), Verdict::Taken);
        assert_eq!(receiver.judge(&seq("3"), working.as_bytes()), Verdict::Repeat);
        // Another event with the same content is another event.
        assert_eq!(receiver.judge(&seq("4"), working.as_bytes()), Verdict::Taken);
        assert_eq!(receiver.judge(&seq("5"), done.as_bytes()), Verdict::Taken);
        assert_eq!(events(&mut inbox).len(), 3);
        // Without a sequence, the payload is the identity.
        let none = HeaderMap::new();
        let chunk = json!({"artifactUpdate": {"taskId": TASK, "contextId": "ctx-1", "artifact": {"artifactId": "a", "parts": [{"text": "x"}]}}}).to_string();
        assert_eq!(receiver.judge(&none, chunk.as_bytes()), Verdict::Taken);
        assert_eq!(receiver.judge(&none, chunk.as_bytes()), Verdict::Repeat);
        assert_eq!(events(&mut inbox).len(), 1);
    }

    #[test]
    fn addresses_and_urls() {
        assert_eq!(listen_address(None), Ok("127.0.0.1:0".parse().expect("addr")));
        assert!(listen_address(Some("localhost")).is_err());
        assert_eq!(
            reachable("0.0.0.0:8000".parse().expect("addr")).to_string(),
            "127.0.0.1:8000"
        );
        assert_eq!(
            reachable("[::]:8000".parse().expect("addr")).to_string(),
            "[::1]:8000"
        );
        assert_eq!(
            webhook_url("https://tunnel.example/hook"),
            Ok("https://tunnel.example/hook".to_string())
        );
        assert!(webhook_url("ftp://tunnel.example/").is_err());
        assert!(webhook_url("/hook").is_err());
    }

    /// The receiver over HTTP: the status of each answer, and what it takes.
    #[tokio::test]
    async fn answers_over_http() {
        let (receiver, mut inbox) = receiver();
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/", listener.local_addr().expect("addr"));
        let server = tokio::spawn(serve(listener, receiver));
        let http = reqwest::Client::new();
        let post = |body: Vec<u8>, token: Option<&str>, seq: Option<&str>| {
            let mut request = http.post(&url).body(body);
            if let Some(token) = token {
                request = request.header(TOKEN_HEADER, token);
            }
            if let Some(seq) = seq {
                request = request.header(SEQUENCE_HEADER, seq);
            }
            async move { request.send().await.expect("answer").status().as_u16() }
        };
        let done = status("TASK_STATE_COMPLETED").to_string().into_bytes();
        assert_eq!(post(done.clone(), None, Some("1")).await, 401);
        assert_eq!(post(done.clone(), Some("wrong"), Some("1")).await, 401);
        assert_eq!(post(b"{}".to_vec(), Some(TOKEN), None).await, 400);
        assert_eq!(post(vec![b' '; MAX_BODY + 1], Some(TOKEN), None).await, 413);
        let get = http.get(&url).send().await.expect("answer").status().as_u16();
        assert_eq!(get, 405);
        assert_eq!(post(done.clone(), Some(TOKEN), Some("1")).await, 200);
        assert_eq!(post(done, Some(TOKEN), Some("1")).await, 204);
        server.abort();
        let mut refused = Vec::new();
        let mut taken = Vec::new();
        while let Ok(note) = inbox.try_recv() {
            match note {
                Note::Event(event) => taken.push(event),
                Note::Refused(status, _) => refused.push(status.as_u16()),
            }
        }
        assert_eq!(refused, [401, 401, 400, 413, 405]);
        assert_eq!(taken, [status("TASK_STATE_COMPLETED")]);
    }
}
