//! The commands the A2A CLI standard fixes (a2a-cli §10): `send`, `task get`,
//! `task cancel` and `task subscribe` here, `task download` and `card get`
//! in modules of their own. Their
//! flags are the standard's, not derived from the params schemas; each
//! calls the generated method its Appendix A names, and its JSON output is
//! that method's own result type (Appendix B).

use super::failure::{Failure, Local};
use super::output::{self, Output};
use super::settings::{id, Settings};
use super::target::Target;
use super::text::{self, label, Text, Tracked};
use super::wait::{class_of, id_and_state, resubscribe, StreamEnd, Waiter};
use super::{debug::Debug, parts};
use crate::generation::EventSource;
use crate::http::StateClass;
use a2a::methods::markers::{CancelTask, GetTask, SendMessage, SendStreamingMessage, SubscribeToTask};
use a2a::rpc::{Method, Transport};
use a2a::types::Role;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{json, Map, Value};
use std::time::Instant;

/// `--params`: a raw params object under the flags (for what no flag says).
fn params_arg() -> Arg {
    Arg::new("params")
        .long("params")
        .value_name("JSON")
        .help("Params as a JSON object; the flags win over its members")
}

fn id_arg(help: &'static str) -> Arg {
    Arg::new("id").value_name("TASK_ID").help(help)
}

/// `send`.
pub fn send_command() -> Command {
    Command::new("send")
        .about(
            "Send a message to start or continue an interaction, and wait until its task ends or needs input",
        )
        .long_about(
            "Send a message (SendMessage; SendStreamingMessage with --stream) and, by default, wait \
             until its task ends or pauses for input: following its stream where the agent streams, \
             polling it otherwise. --async returns the task's identifiers at once. The parts keep the \
             order of the command line.",
        )
        .args(parts::args())
        .arg(params_arg())
        .args(super::generation::args(
            a2a::find_method(SendMessage::NAME).expect("SendMessage is in the method table"),
        ))
}

/// The `task` group.
pub fn task_commands() -> Vec<Command> {
    vec![
        Command::new("get")
            .about("Show a task: its state, artifacts and, with --history N, its last N messages")
            .arg(id_arg("The task"))
            .arg(
                Arg::new("history")
                    .long("history")
                    .value_name("N")
                    .value_parser(clap::value_parser!(u32))
                    .help("How many of the task's latest messages to include (A2A historyLength)"),
            )
            .arg(params_arg()),
        Command::new("cancel")
            .about("Cancel a task and show the state it is left in (a canceled task stays canceled: running this twice is fine)")
            .arg(id_arg("The task"))
            .arg(params_arg()),
        Command::new("subscribe")
            .about("Follow a task's events until it ends or needs input (the first event is the task as it is now)")
            .arg(id_arg("The task"))
            .arg(params_arg()),
        Command::new("download")
            .about("Save a task's artifacts to files: file parts as their bytes, text as .txt, data as .json")
            .arg(id_arg("The task"))
            .arg(
                Arg::new("dir")
                    .long("dir")
                    .value_name("DIR")
                    .help("Where to write the files [default: the working directory]"),
            )
            .arg(
                Arg::new("artifact")
                    .long("artifact")
                    .value_name("ARTIFACT_ID")
                    .action(ArgAction::Append)
                    .help("Only this artifact (repeatable)"),
            )
            .arg(
                Arg::new("force")
                    .long("force")
                    .action(ArgAction::SetTrue)
                    .help("Replace files that already exist"),
            ),
    ]
}

/// What a standard command runs with.
pub struct Ctx<'a> {
    /// The effective settings.
    pub settings: &'a Settings,
    /// The output.
    pub output: &'a Output,
    /// `--debug`.
    pub debug: &'a Debug,
    /// How to name the agent in a command to resume (`-a REF`).
    pub agent_flag: String,
}

impl Ctx<'_> {
    fn waiter<'b>(&'b self, target: &'b Target, progress: &'b dyn Fn(&Value)) -> Result<Waiter<'b>, Failure> {
        let poll_interval = self
            .settings
            .duration(id::POLL_INTERVAL)
            .map_err(Failure::usage)?
            .unwrap_or(std::time::Duration::from_secs(2));
        let deadline = self
            .settings
            .duration(id::TIMEOUT)
            .map_err(Failure::usage)?
            .map(|timeout| Instant::now() + timeout);
        Ok(Waiter {
            target,
            poll_interval,
            deadline,
            progress,
            replying: false,
        })
    }

    /// The params object `--params` starts from.
    fn base_params(&self, matches: &ArgMatches) -> Result<Map<String, Value>, Failure> {
        match matches.try_get_one::<String>("params").ok().flatten() {
            None => Ok(Map::new()),
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(map)) => Ok(map),
                Ok(_) => Err(Failure::usage("--params must be a JSON object")),
                Err(e) => Err(Failure::usage(format!("--params is not valid JSON: {e}"))),
            },
        }
    }

    /// Tells what a settled task's outcome is (stderr), and in text how to
    /// go on (stdout, in the document).
    pub(super) fn outcome(&self, task: &Value, text: &mut Text) {
        let (id, state) = id_and_state(task);
        match class_of(task) {
            StateClass::Interrupted => {
                let resume = format!("agents{} send --task-id {id} 'REPLY'", self.agent_flag);
                text.field(label::RESUME, &resume);
                let what = if state.ends_with("AUTH_REQUIRED") {
                    "waits for authentication"
                } else {
                    "waits for input"
                };
                output::warn(&format!("task {id} {what} ({state}); answer it with: {resume}"));
            }
            StateClass::Terminal if !state.ends_with("COMPLETED") => {
                output::warn(&format!("task {id} ended {state}"));
            }
            _ => {}
        }
    }

    /// The final answer of a send or a wait: one document.
    fn settled(&self, result: &Value) {
        let mut resume = Text::new();
        if let Some(task) = result.get("task") {
            self.outcome(task, &mut resume);
        }
        let resume = resume.finish();
        self.output.document(result, |out, value, verbose| {
            if let Some(task) = value.get("task") {
                text::task(out, task, verbose);
            } else if let Some(message) = value.get("message") {
                text::message(out, message, verbose);
            }
        });
        if self.output.format == output::Format::Text {
            output::stdout(&resume);
        }
    }
}

/// Live progress on a terminal's stderr, while a wait shows nothing else.
fn progress_line(value: &Value) {
    if output::stderr_is_terminal() {
        let state = crate::http::event_state(value)
            .map(|s| s.to_string())
            .unwrap_or_default();
        if !state.is_empty() {
            eprintln!("… {state}");
        }
    }
}

fn quiet(_: &Value) {}

/// `send`.
pub async fn send(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    let settings = ctx.settings;
    let stream = ctx.output.stream;
    let asynchronous = settings.switch(id::ASYNC).map_err(Failure::usage)?;
    let wait_flag = settings.switch(id::WAIT).map_err(Failure::usage)?;
    if asynchronous && stream {
        return Err(Failure::usage(
            "--async and --stream do not go together: --async returns at once, --stream follows",
        ));
    }
    if asynchronous && wait_flag && settings.source(id::ASYNC) == settings.source(id::WAIT) {
        return Err(Failure::usage("--async and --wait contradict each other"));
    }
    let asynchronous =
        asynchronous && !(wait_flag && settings.source(id::WAIT) == Some(&super::settings::Source::Flag));
    let mut params = ctx.base_params(matches)?;
    let parts = parts::build(matches).map_err(Failure::usage)?;
    let mut message = params
        .remove("message")
        .and_then(|m| m.as_object().cloned())
        .unwrap_or_default();
    if !parts.is_empty() {
        message.insert("parts".into(), Value::Array(parts));
    }
    if message
        .get("parts")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        return Err(Failure::usage(
            "nothing to send: give the text, or --text, --file or --data",
        ));
    }
    message
        .entry("messageId")
        .or_insert_with(|| json!(uuid::Uuid::new_v4().to_string()));
    message.entry("role").or_insert_with(|| json!(Role::User));
    if let Some(context) = settings.get(id::CONTEXT_ID) {
        message.insert("contextId".into(), json!(context));
    }
    if let Some(task) = settings.get(id::TASK_ID) {
        message.insert("taskId".into(), json!(task));
    }
    if let Some(metadata) = settings.get(id::METADATA) {
        let metadata: Value = serde_json::from_str(metadata)
            .map_err(|e| Failure::usage(format!("--metadata is not valid JSON: {e}")))?;
        if !metadata.is_object() {
            return Err(Failure::usage(
                "--metadata must be a JSON object, e.g. '{\"k\": \"v\"}'",
            ));
        }
        message.insert("metadata".into(), metadata);
    }
    params.insert("message".into(), Value::Object(message));
    super::generation::apply(matches, &mut params);
    if asynchronous {
        let configuration = params.entry("configuration").or_insert_with(|| json!({}));
        if let Some(configuration) = configuration.as_object_mut() {
            configuration.insert("returnImmediately".into(), json!(true));
        }
    }
    let mut params = Value::Object(params);
    target.with_tenant(SendMessage::NAME, &mut params);
    // A wait prefers the stream where the agent streams (§9.3), and falls
    // back to polling when it breaks.
    let method = if !asynchronous && target.allows(SendStreamingMessage::NAME) {
        SendStreamingMessage::NAME
    } else {
        SendMessage::NAME
    };
    if let Some(refused) = super::generation::refusal(
        a2a::find_method(method).expect("send methods are in the table"),
        &params,
        false,
        target.transport.protocol_version(),
    ) {
        return Err(Failure::usage(refused));
    }
    let sends = target.sends_credentials;
    let rejected_id = |failure: Failure| -> Failure {
        if settings.get(id::TASK_ID).is_some() || settings.get(id::CONTEXT_ID).is_some() {
            let hint = failure.hint.clone().unwrap_or_default();
            failure.hint(
                format!("{hint} no new task was started; check --task-id/--context-id, and run again with --debug to see the agent's answer")
                    .trim()
                    .to_string(),
            )
        } else {
            failure
        }
    };
    if asynchronous {
        let result = target
            .transport
            .call(SendMessage::NAME, params)
            .await
            .map_err(|e| rejected_id(ctx.fail(target, &e, sends)))?;
        ctx.output.document(&result, |out, value, verbose| {
            if let Some(task) = value.get("task") {
                text::task(out, task, verbose);
                let id = task["id"].as_str().unwrap_or("");
                out.field("Poll", &format!("agents{} task get {id} --wait", ctx.agent_flag));
            } else if let Some(message) = value.get("message") {
                text::message(out, message, verbose);
            }
        });
        return Ok(());
    }
    let progress: &dyn Fn(&Value) = if stream { &quiet } else { &progress_line };
    let mut waiter = ctx.waiter(target, progress)?;
    waiter.replying = params.pointer("/message/taskId").is_some();
    let tenant = params.get(crate::wire::A2A_NAMESPACE_FIELD).cloned();
    if stream && method == SendMessage::NAME {
        output::warn("the agent's card does not declare streaming: waiting for the answer instead");
    }
    if method == SendStreamingMessage::NAME {
        let events = target
            .transport
            .subscribe_checked(method, params)
            .await
            .map_err(|e| rejected_id(ctx.fail(target, &e, sends)))?;
        return follow_stream(ctx, target, &waiter, events, tenant.as_ref(), stream).await;
    }
    let result = target
        .transport
        .call(SendMessage::NAME, params)
        .await
        .map_err(|e| rejected_id(ctx.fail(target, &e, sends)))?;
    let result = match result.get("task") {
        Some(task) if class_of(task) == StateClass::Pending => {
            let id = task["id"].as_str().unwrap_or("").to_string();
            announce(task);
            json!({ "task": waiter.poll(&id, tenant.as_ref()).await? })
        }
        _ => result,
    };
    if stream {
        emit_event(ctx.output, &mut Tracked::default(), &result);
        if let Some(task) = result.get("task") {
            ctx.outcome(task, &mut Text::new());
        }
    } else {
        ctx.settled(&result);
    }
    Ok(())
}

/// Says on stderr which task is being waited on, so an interrupted wait
/// (Ctrl-C) loses nothing: the task goes on and can be picked up.
fn announce(task: &Value) {
    let id = task["id"]
        .as_str()
        .or_else(|| task["taskId"].as_str())
        .unwrap_or("");
    let context = task["contextId"].as_str().unwrap_or("");
    eprintln!("waiting for task {id} (context {context}); Ctrl-C stops waiting, the task goes on");
}

/// Writes one stream event: observed first, so its record (and the JSON
/// line's reader) has the task, the context and the state.
pub(super) fn emit_event(output: &Output, tracked: &mut Tracked, event: &Value) {
    tracked.observe(event);
    let tracked = &*tracked;
    output.line(event, |out, value, verbose| {
        text::stream_event(out, value, tracked, verbose)
    });
}

/// Follows a stream to its settled state: each event on stdout with
/// `--stream`, else silently and then the task as a single document. A
/// broken stream is opened again (the first event of a subscription is the
/// task as it is), then polled.
async fn follow_stream(
    ctx: &Ctx<'_>,
    target: &Target,
    waiter: &Waiter<'_>,
    events: crate::CheckedEventStream,
    tenant: Option<&Value>,
    stream: bool,
) -> Result<(), Failure> {
    let mut tracked = Tracked::default();
    let mut announced = false;
    let mut events = Some(events);
    let mut resubscribes = 0;
    loop {
        let Some(current) = events.take() else { break };
        let end = waiter
            .follow(current, &mut |event: &Value| {
                ctx.debug.log(&format!("< event {event}"));
                if stream {
                    emit_event(ctx.output, &mut tracked, event);
                } else {
                    tracked.observe(event);
                    if !announced && tracked.task_id.is_some() {
                        announced = true;
                        announce(&json!({"id": tracked.task_id, "contextId": tracked.context_id}));
                    }
                }
            })
            .await;
        let end = match end {
            Ok(end) => end,
            Err(failure) => {
                if stream {
                    ctx.output.failure(&failure);
                    return Err(failure.reported());
                }
                return Err(failure);
            }
        };
        match end {
            StreamEnd::Message(message) => {
                if !stream {
                    ctx.settled(&message);
                }
                return Ok(());
            }
            StreamEnd::Settled(event) => {
                let id = tracked.task_id.clone().unwrap_or_default();
                if stream {
                    if let Some(task) = event.get("task") {
                        ctx.outcome(task, &mut Text::new());
                    } else {
                        ctx.outcome(
                            &json!({"id": id, "status": event.pointer("/statusUpdate/status")}),
                            &mut Text::new(),
                        );
                    }
                    return Ok(());
                }
                let task = waiter.poll(&id, tenant).await?;
                ctx.settled(&json!({ "task": task }));
                return Ok(());
            }
            StreamEnd::Broken(None, failure) => {
                let failure = failure.unwrap_or_else(|| {
                    Failure::local(
                        Local::Internal,
                        "the agent closed the stream before naming a task",
                    )
                });
                if stream {
                    ctx.output.failure(&failure);
                    return Err(failure.reported());
                }
                return Err(failure);
            }
            StreamEnd::Broken(Some(id), why) => {
                let stopped = (id.as_str(), why.as_ref());
                if let Some(again) = resubscribe(ctx.debug, target, stopped, tenant, &mut resubscribes).await
                {
                    events = Some(again);
                    continue;
                }
                // Streams keep failing: poll to the end.
                let task = waiter.poll(&id, tenant).await?;
                if stream {
                    emit_event(ctx.output, &mut tracked, &json!({ "task": task }));
                    ctx.outcome(&task, &mut Text::new());
                } else {
                    ctx.settled(&json!({ "task": task }));
                }
                return Ok(());
            }
        }
    }
    Ok(())
}

impl Ctx<'_> {
    /// The failure of a call, with a hint where the card says what would help.
    pub fn fail(&self, target: &Target, error: &a2a::rpc::CallError, sends: bool) -> Failure {
        let failure = Failure::of_call(error, sends);
        match failure.code {
            super::failure::Code::Local(Local::CredentialsMissing | Local::AuthFailed)
                if failure.hint.is_none() =>
            {
                match target.auth_hint() {
                    Some(hint) => failure.hint(hint),
                    None => failure,
                }
            }
            _ => failure,
        }
    }

    pub(super) fn task_id(
        &self,
        matches: &ArgMatches,
        params: &mut Map<String, Value>,
    ) -> Result<String, Failure> {
        if let Some(id) = matches.get_one::<String>("id") {
            params.insert("id".into(), json!(id));
        } else if let Some(id) = self.settings.get(id::TASK_ID) {
            params.entry("id").or_insert_with(|| json!(id));
        }
        params
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| Failure::usage("which task? give its id (TASK_ID)"))
    }
}

/// `task get`.
pub async fn task_get(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    let mut params = ctx.base_params(matches)?;
    let task_id = ctx.task_id(matches, &mut params)?;
    if let Some(n) = matches.get_one::<u32>("history") {
        params.insert("historyLength".into(), json!(n));
    }
    let mut params = Value::Object(params);
    target.with_tenant(GetTask::NAME, &mut params);
    let wait = ctx.settings.switch(id::WAIT).map_err(Failure::usage)?;
    let mut task = target
        .transport
        .call(GetTask::NAME, params.clone())
        .await
        .map_err(|e| ctx.fail(target, &e, target.sends_credentials))?;
    if wait && class_of(&task) == StateClass::Pending {
        announce(&task);
        let waiter = ctx.waiter(target, &progress_line)?;
        waiter
            .poll(&task_id, params.get(crate::wire::A2A_NAMESPACE_FIELD))
            .await?;
        // The settled task, as the caller asked for it (history included).
        task = target
            .transport
            .call(GetTask::NAME, params)
            .await
            .map_err(|e| ctx.fail(target, &e, target.sends_credentials))?;
    }
    let mut resume = Text::new();
    if wait {
        ctx.outcome(&task, &mut resume);
    }
    ctx.output.document(&task, text::task);
    if ctx.output.format == output::Format::Text {
        output::stdout(&resume.finish());
    }
    Ok(())
}

/// `task cancel`: idempotent, a task already canceled is reported as it is.
pub async fn task_cancel(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    let mut params = ctx.base_params(matches)?;
    let task_id = ctx.task_id(matches, &mut params)?;
    let mut params = Value::Object(params);
    target.with_tenant(CancelTask::NAME, &mut params);
    let task = match target.transport.call(CancelTask::NAME, params.clone()).await {
        Ok(task) => task,
        Err(error) => {
            let failure = ctx.fail(target, &error, target.sends_credentials);
            let not_cancelable = matches!(&error, a2a::rpc::CallError::Rpc(e) if e.kind() == Some(a2a::ErrorKind::TaskNotCancelable));
            if !not_cancelable {
                return Err(failure);
            }
            // Already canceled: the cancel asked for has happened.
            let mut read = json!({ "id": task_id });
            if let Some(tenant) = params.get(crate::wire::A2A_NAMESPACE_FIELD) {
                read[crate::wire::A2A_NAMESPACE_FIELD] = tenant.clone();
            }
            let task = target
                .transport
                .call(GetTask::NAME, read)
                .await
                .map_err(|e| ctx.fail(target, &e, target.sends_credentials))?;
            let state = task
                .pointer("/status/state")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            if !state.ends_with("CANCELED") {
                return Err(failure.hint(format!("task {task_id} is already {state}")));
            }
            task
        }
    };
    ctx.output.document(&task, text::task);
    Ok(())
}

/// `task subscribe`.
pub async fn task_subscribe(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    let mut params = ctx.base_params(matches)?;
    let task_id = ctx.task_id(matches, &mut params)?;
    let mut params = Value::Object(params);
    target.with_tenant(SubscribeToTask::NAME, &mut params);
    let tenant = params.get(crate::wire::A2A_NAMESPACE_FIELD).cloned();
    let stream = ctx.output.stream;
    let progress: &dyn Fn(&Value) = if stream { &quiet } else { &progress_line };
    let waiter = ctx.waiter(target, progress)?;
    if !target.allows(SubscribeToTask::NAME) {
        output::warn("the agent's card does not declare streaming: polling the task instead");
        let task = waiter.poll(&task_id, tenant.as_ref()).await?;
        if stream {
            emit_event(ctx.output, &mut Tracked::default(), &json!({ "task": task }));
        } else {
            ctx.output.document(&task, text::task);
        }
        ctx.outcome(&task, &mut Text::new());
        return Ok(());
    }
    let events = target
        .transport
        .subscribe_checked(SubscribeToTask::NAME, params)
        .await
        .map_err(|e| ctx.fail(target, &e, target.sends_credentials))?;
    if stream {
        return follow_stream(ctx, target, &waiter, events, tenant.as_ref(), true).await;
    }
    // One document: the task once settled.
    let mut tracked = Tracked::default();
    let end = waiter.follow(events, &mut |event| tracked.observe(event)).await?;
    if let StreamEnd::Broken(_, Some(failure)) = &end {
        ctx.debug
            .log(&format!("stream stopped: {}; polling", failure.message));
    }
    let task = waiter.poll(&task_id, tenant.as_ref()).await?;
    let mut resume = Text::new();
    ctx.outcome(&task, &mut resume);
    ctx.output.document(&task, text::task);
    if ctx.output.format == output::Format::Text {
        output::stdout(&resume.finish());
    }
    Ok(())
}
