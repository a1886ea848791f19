//! `chat` (a2a-cli Tier 3, §7.1): a conversation with the agent, one message
//! per line, the `contextId` carried from turn to turn and the `taskId` while
//! the task waits for the caller (§8.1).
//!
//! Interactive only when both stdin and stdout are terminals (§6.1): a
//! prompt, the agent's answers and the task's progress as they arrive, the
//! task, context and state after each turn, slash commands, and Ctrl-C to
//! stop waiting for a turn. Otherwise it degrades to the `text` floor
//! (§11.2): the turns are read from the piped stdin, and each turn's settled
//! answer is written as `send` writes it (in `-o json`, one
//! `SendMessageResponse` per line), with no control sequence and no prompt.
//! A terminal on stdin with stdout piped is refused: nothing would show the
//! prompt, and the tool never blocks on a terminal it cannot talk to.

use super::failure::{Failure, Local};
use super::output::{self, Format};
use super::settings::{id, Source};
use super::standard::Ctx;
use super::target::Target;
use super::text::{self, label, Text, Tracked};
use super::wait::{class_of, StreamEnd, Waiter};
use crate::generation::{CheckedEventStream, EventSource, StreamError};
use crate::http::StateClass;
use a2a::methods::markers::{CancelTask, SendMessage, SendStreamingMessage, SubscribeToTask};
use a2a::rpc::{Method, Transport};
use a2a::types::Role;
use clap::{ArgMatches, Command};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashSet;
use std::io::{BufRead, IsTerminal};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How many times a broken stream is opened again before the turn falls
/// back to polling the task.
const RESUBSCRIBES: usize = 2;

/// The prompt a person answers.
const PROMPT: &str = "you> ";
/// What the agent's words are introduced by.
const AGENT: &str = "agent> ";

/// What `/help` says.
const HELP: &str = "\
Each line is sent to the agent as a message; the conversation (its context)
goes on from turn to turn, and a task waiting for input is answered by the
next line.
  /new           start a new conversation (a new context)
  /task          show the current task and context ids
  /cancel [ID]   cancel the current task (or the task ID)
  /help          this help
  /quit          end the chat (Ctrl-D does too)
A line starting with // is sent with a single /.
Ctrl-C while the agent works stops waiting for that turn (the task goes on);
Ctrl-C at the prompt ends the chat.";

/// The `chat` command.
pub fn command() -> Command {
    Command::new("chat")
        .about("Talk with the agent turn by turn (interactive on a terminal)")
        .long_about(
            "Talk with the agent turn by turn. Each line is a message (SendStreamingMessage where the agent \
             streams, SendMessage otherwise); the context is carried from turn to turn, and while a task \
             waits for input (or authentication) the next line answers it. --context-id and --task-id \
             set where the conversation starts.\n\n\
             On a terminal (stdin and stdout): a prompt, the agent's answers as they arrive, the task, \
             context and state after each turn, and the commands /new, /task, /cancel [ID], /help and \
             /quit (or Ctrl-D). Ctrl-C while the agent works stops waiting for that turn; the task goes \
             on.\n\n\
             With stdin piped: one message per line until the end of the input, each turn's answer \
             written as `send` writes it (text, or one SendMessageResponse per line with -o json), \
             with no prompt and no terminal control sequence. The same commands apply; a /cancel \
             writes the canceled task. With stdin a terminal but stdout not, chat refuses to start: \
             pipe the turns in, or use `send`.",
        )
}

/// `chat`.
pub async fn run(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    let _ = matches;
    let stdin_terminal = std::io::stdin().is_terminal();
    let stdout_terminal = std::io::stdout().is_terminal();
    if stdin_terminal && !stdout_terminal {
        return Err(Failure::usage(
            "chat takes its turns from a terminal only when its output goes to one: stdout is not a terminal",
        )
        .hint(
            "pipe the turns in, one message per line (printf 'hello\\n' | agents chat), or use `agents send`",
        ));
    }
    let mut session = Session::new(ctx, target, stdin_terminal && stdout_terminal).map_err(Failure::usage)?;
    let lines = read_lines();
    if session.screen.is_some() {
        session.interactive(lines).await
    } else {
        session.piped(lines).await
    }
}

/// The lines of stdin, read on a thread of their own: a read that waits on
/// a person blocks no task and holds up no shutdown.
fn read_lines() -> mpsc::UnboundedReceiver<String> {
    let (lines, received) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut line = Vec::new();
        loop {
            line.clear();
            match stdin.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line);
                    if lines
                        .send(text.trim_end_matches(['\n', '\r']).to_string())
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
    });
    received
}

/// What one line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Input {
    /// Nothing.
    Blank,
    /// A message to send.
    Message(String),
    /// `/quit`.
    Quit,
    /// `/new`.
    New,
    /// `/task`.
    Task,
    /// `/cancel [ID]`.
    Cancel(Option<String>),
    /// `/help`.
    Help,
    /// A command this chat does not know.
    Unknown(String),
}

fn parse(line: &str) -> Input {
    let line = line.trim();
    if line.is_empty() {
        return Input::Blank;
    }
    if line.starts_with("//") {
        return Input::Message(line[1..].to_string());
    }
    let Some(command) = line.strip_prefix('/') else {
        return Input::Message(line.to_string());
    };
    let mut words = command.split_whitespace();
    let name = words.next().unwrap_or("");
    match name {
        "quit" | "exit" | "q" => Input::Quit,
        "new" => Input::New,
        "task" => Input::Task,
        "cancel" => Input::Cancel(words.next().map(str::to_string)),
        "help" | "?" => Input::Help,
        _ => Input::Unknown(format!("/{name}")),
    }
}

/// Emphasis on a terminal (none where `NO_COLOR` is set or the terminal is dumb).
#[derive(Clone, Copy)]
struct Style {
    colour: bool,
}

impl Style {
    fn detect() -> Style {
        let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Style {
            colour: !no_colour && !dumb,
        }
    }

    fn wrap(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\u{1b}[{code}m{text}\u{1b}[0m")
        } else {
            text.to_string()
        }
    }

    fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    /// `Label: value` with the label in bold.
    fn field(self, label: &str, value: &str) -> String {
        format!("{} {}\n", self.bold(&format!("{label}:")), text::clean(value))
    }
}

/// The last task the conversation saw.
#[derive(Clone, Debug)]
struct Seen {
    task_id: String,
    state: Option<String>,
}

/// One conversation.
struct Session<'s, 'c> {
    ctx: &'s Ctx<'c>,
    target: &'s Target,
    /// On a terminal: how it is emphasized.
    screen: Option<Style>,
    /// The conversation's context, once known.
    context_id: Option<String>,
    /// The task the next line continues (only while it waits for the caller).
    task_id: Option<String>,
    /// The task last seen, for `/task` and `/cancel`.
    last: Option<Seen>,
    metadata: Option<Value>,
    poll_interval: Duration,
    timeout: Option<Duration>,
}

impl<'s, 'c> Session<'s, 'c> {
    /// The session the settings start; what is wrong with them, if anything
    /// (a usage error).
    fn new(ctx: &'s Ctx<'c>, target: &'s Target, interactive: bool) -> Result<Self, String> {
        let settings = ctx.settings;
        if settings.switch(id::ASYNC)? && settings.source(id::ASYNC) == Some(&Source::Flag) {
            return Err(
                "--async does not apply to chat: each turn is waited for (Ctrl-C stops waiting on a terminal)"
                    .into(),
            );
        }
        let metadata = match settings.get(id::METADATA) {
            None => None,
            Some(text) => {
                let metadata: Value =
                    serde_json::from_str(text).map_err(|e| format!("--metadata is not valid JSON: {e}"))?;
                if !metadata.is_object() {
                    return Err("--metadata must be a JSON object, e.g. '{\"k\": \"v\"}'".into());
                }
                Some(metadata)
            }
        };
        let poll_interval = settings
            .duration(id::POLL_INTERVAL)?
            .unwrap_or(Duration::from_secs(2));
        let timeout = settings.duration(id::TIMEOUT)?;
        let task_id = settings.get(id::TASK_ID).map(str::to_string);
        Ok(Session {
            ctx,
            target,
            screen: interactive.then(Style::detect),
            context_id: settings.get(id::CONTEXT_ID).map(str::to_string),
            last: task_id.clone().map(|id| Seen {
                task_id: id,
                state: None,
            }),
            task_id,
            metadata,
            poll_interval,
            timeout,
        })
    }

    /// Whether the answers are JSON.
    fn json(&self) -> bool {
        self.ctx.output.format == Format::Json
    }

    /// A note for the person (stderr, so stdout keeps only the answers).
    fn note(&self, text: &str) {
        match self.screen {
            Some(style) => eprintln!("{}", style.dim(&text::clean(text))),
            None => output::warn(text),
        }
    }

    /// The command that names this agent again.
    fn agents(&self) -> String {
        format!("agents{}", self.ctx.agent_flag)
    }

    async fn interactive(&mut self, mut lines: mpsc::UnboundedReceiver<String>) -> Result<(), Failure> {
        let style = self.screen.unwrap_or(Style { colour: false });
        let mut interrupts = Interrupts::new()
            .map_err(|e| Failure::local(Local::Internal, format!("cannot catch Ctrl-C: {e}")))?;
        let name = self.target.card["name"].as_str().unwrap_or("the agent");
        let place = self
            .target
            .card_location
            .clone()
            .unwrap_or_else(|| "local agent (stdio)".into());
        eprintln!(
            "{}",
            style.dim(&text::clean(&format!(
                "Chatting with {name} ({place}). Each line is a message; /help lists the commands, /quit or Ctrl-D ends."
            )))
        );
        match (&self.task_id, &self.context_id) {
            (Some(task), _) => self.note(&format!("The first line continues task {task}.")),
            (None, Some(context)) => self.note(&format!("The conversation goes on in context {context}.")),
            _ => {}
        }
        loop {
            let line = match lines.try_recv() {
                // Typed while the last turn ran: shown after its prompt.
                Ok(line) => {
                    eprintln!("{}{}", style.bold(PROMPT), text::clean(&line));
                    line
                }
                Err(mpsc::error::TryRecvError::Disconnected) => break,
                Err(mpsc::error::TryRecvError::Empty) => {
                    eprint!("{}", style.bold(PROMPT));
                    let line = tokio::select! {
                        line = lines.recv() => line,
                        _ = interrupts.recv() => None,
                    };
                    let Some(line) = line else {
                        eprintln!();
                        break;
                    };
                    line
                }
            };
            match parse(&line) {
                Input::Blank => {}
                Input::Quit => break,
                Input::Help => eprintln!("{HELP}"),
                Input::Unknown(name) => self.note(&format!("{name}: no such command; /help lists them")),
                Input::New => self.new_conversation(),
                Input::Task => self.show_ids(),
                Input::Cancel(id) => {
                    if let Err(failure) = self.cancel(id.as_deref()).await {
                        self.report(failure);
                    }
                }
                Input::Message(message) => {
                    let live = RefCell::new(Live::new(
                        if self.json() {
                            if self.ctx.output.stream {
                                Show::Events
                            } else {
                                Show::Nothing
                            }
                        } else {
                            Show::Screen(style)
                        },
                        self.ctx.output,
                    ));
                    let outcome = tokio::select! {
                        answer = self.turn(&message, &live) => Some(answer),
                        _ = interrupts.recv() => None,
                    };
                    live.borrow_mut().finish();
                    match outcome {
                        Some(Ok(answer)) => {
                            self.settle(&answer);
                            self.present(&answer);
                        }
                        Some(Err(failure)) => self.report(failure),
                        None => self.stopped(&live.borrow().tracked),
                    }
                }
            }
        }
        if let Some(context) = &self.context_id {
            let resume = match &self.task_id {
                Some(task) => format!("{} --task-id {task} chat", self.agents()),
                None => format!("{} --context-id {context} chat", self.agents()),
            };
            self.note(&format!("To go on with this conversation later: {resume}"));
        }
        Ok(())
    }

    async fn piped(&mut self, mut lines: mpsc::UnboundedReceiver<String>) -> Result<(), Failure> {
        let mut number = 0;
        while let Some(line) = lines.recv().await {
            number += 1;
            match parse(&line) {
                Input::Blank => {}
                Input::Quit => break,
                Input::Help => eprintln!("{HELP}"),
                Input::Unknown(name) => {
                    return Err(Failure::usage(format!("line {number}: {name} is not a chat command"))
                        .hint("the commands are /new, /task, /cancel [ID], /help and /quit; send a line starting with / as //…"));
                }
                Input::New => self.new_conversation(),
                Input::Task => self.show_ids(),
                Input::Cancel(id) => self.cancel(id.as_deref()).await?,
                Input::Message(message) => {
                    let show = if self.ctx.output.stream {
                        Show::Events
                    } else {
                        Show::Nothing
                    };
                    let live = RefCell::new(Live::new(show, self.ctx.output));
                    let answer = self.turn(&message, &live).await?;
                    self.settle(&answer);
                    self.present(&answer);
                }
            }
        }
        Ok(())
    }

    /// Sends one message and waits until its task settles (or the direct
    /// answer arrives): the `SendMessageResponse` of the turn.
    async fn turn(&self, text: &str, live: &RefCell<Live<'_>>) -> Result<Value, Failure> {
        let mut message = json!({
            "messageId": uuid::Uuid::new_v4().to_string(),
            "role": Role::User,
            "parts": [{ "text": text }],
        });
        if let Some(context) = &self.context_id {
            message["contextId"] = json!(context);
        }
        if let Some(task) = &self.task_id {
            message["taskId"] = json!(task);
        }
        if let Some(metadata) = &self.metadata {
            message["metadata"] = metadata.clone();
        }
        let mut params = json!({ "message": message });
        self.target.with_tenant(SendMessage::NAME, &mut params);
        let tenant = params.get(crate::wire::A2A_NAMESPACE_FIELD).cloned();
        let progress = |task: &Value| live.borrow_mut().progress(task);
        let waiter = Waiter {
            target: self.target,
            poll_interval: self.poll_interval,
            deadline: self.timeout.map(|timeout| Instant::now() + timeout),
            progress: &progress,
            replying: self.task_id.is_some(),
        };
        let sends = self.target.sends_credentials;
        let fail = |error: a2a::rpc::CallError| {
            let failure = self.ctx.fail(self.target, &error, sends);
            match &self.task_id {
                Some(task) => {
                    let hint = failure.hint.clone().unwrap_or_default();
                    failure.hint(
                        format!("{hint} no new task was started for task {task}; /new starts a new conversation, --debug shows the agent's answer")
                            .trim()
                            .to_string(),
                    )
                }
                None => failure,
            }
        };
        if !self.target.allows(SendStreamingMessage::NAME) {
            let answer = self
                .target
                .transport
                .call(SendMessage::NAME, params)
                .await
                .map_err(fail)?;
            live.borrow_mut().event(&answer, false);
            return match answer.get("task") {
                Some(task) if class_of(task) == StateClass::Pending => {
                    let id = task["id"].as_str().unwrap_or("").to_string();
                    let task = waiter.poll(&id, tenant.as_ref()).await?;
                    let answer = json!({ "task": task });
                    live.borrow_mut().event(&answer, false);
                    Ok(answer)
                }
                _ => Ok(answer),
            };
        }
        let ours = message_id(&params);
        let mut events = Some(
            self.target
                .transport
                .subscribe_checked(SendStreamingMessage::NAME, params)
                .await
                .map_err(fail)?,
        );
        // Only the stream of a message continuing a task can open on the task
        // as it was before the message.
        let mut continuing = self.task_id.as_ref().map(|_| ours);
        let mut resubscribes = 0;
        loop {
            let Some(current) = events.take() else {
                return Err(Failure::local(Local::Internal, "no stream to follow"));
            };
            let end = self.follow(&waiter, current, continuing.take(), live).await?;
            match end {
                StreamEnd::Message(answer) => return Ok(answer),
                StreamEnd::Settled(_) => {
                    let id = live.borrow().tracked.task_id.clone().unwrap_or_default();
                    let task = waiter.poll(&id, tenant.as_ref()).await?;
                    return Ok(json!({ "task": task }));
                }
                StreamEnd::Broken(None, failure) => {
                    return Err(failure.unwrap_or_else(|| {
                        Failure::local(
                            Local::Internal,
                            "the agent closed the stream before naming a task",
                        )
                    }))
                }
                StreamEnd::Broken(Some(id), why) => {
                    self.ctx.debug.log(&format!(
                        "the stream of task {id} stopped before it settled{}",
                        why.as_ref()
                            .map(|f| format!(": {}", f.message))
                            .unwrap_or_default()
                    ));
                    if resubscribes < RESUBSCRIBES {
                        resubscribes += 1;
                        let mut params = json!({ "id": id });
                        if let Some(tenant) = &tenant {
                            params[crate::wire::A2A_NAMESPACE_FIELD] = tenant.clone();
                        }
                        if let Ok(again) = self
                            .target
                            .transport
                            .subscribe_checked(SubscribeToTask::NAME, params)
                            .await
                        {
                            events = Some(again);
                            continue;
                        }
                    }
                    let task = waiter.poll(&id, tenant.as_ref()).await?;
                    let answer = json!({ "task": task });
                    live.borrow_mut().event(&answer, false);
                    return Ok(answer);
                }
            }
        }
    }

    /// Follows a turn's stream until its task settles, each event handed to
    /// `live` as it arrives. `continuing` is the id of a message that
    /// continues an interrupted task: its stream may open on the task as it
    /// was when the message arrived, still interrupted, which is shown as
    /// an event but does not end the turn.
    async fn follow(
        &self,
        waiter: &Waiter<'_>,
        mut events: CheckedEventStream,
        continuing: Option<String>,
        live: &RefCell<Live<'_>>,
    ) -> Result<StreamEnd, Failure> {
        let mut task_id: Option<String> = None;
        let mut first = true;
        loop {
            let next = match waiter.deadline {
                Some(deadline) => match tokio::time::timeout_at(deadline.into(), events.next()).await {
                    Ok(next) => next,
                    Err(_) => return Err(waiter.timed_out(task_id.as_deref().unwrap_or("(unknown)"))),
                },
                None => events.next().await,
            };
            match next {
                Some(Ok(event)) => {
                    let data = event.data;
                    self.ctx.debug.log(&format!("< event {data}"));
                    if task_id.is_none() {
                        task_id = crate::http::stream_task_id(&data);
                    }
                    let stale = first
                        && continuing
                            .as_deref()
                            .is_some_and(|ours| before_reply(&data, ours));
                    first = false;
                    live.borrow_mut().event(&data, stale);
                    if stale {
                        continue;
                    }
                    if data.get("message").is_some() && task_id.is_none() {
                        return Ok(StreamEnd::Message(data));
                    }
                    if class_of(&data) != StateClass::Pending {
                        return Ok(StreamEnd::Settled(data));
                    }
                }
                Some(Err(StreamError::Call(error))) => {
                    return Ok(StreamEnd::Broken(
                        task_id,
                        Some(Failure::of_call(&error, self.target.sends_credentials)),
                    ))
                }
                Some(Err(StreamError::Gap(gap))) => {
                    return Ok(StreamEnd::Broken(
                        task_id,
                        Some(Failure::local(Local::Internal, gap.to_string())),
                    ))
                }
                None => return Ok(StreamEnd::Broken(task_id, None)),
            }
        }
    }

    /// Takes what a turn's answer says: the context always, the task while
    /// it waits for the caller.
    fn settle(&mut self, answer: &Value) {
        if let Some(task) = answer.get("task") {
            let task_id = task["id"].as_str().unwrap_or("").to_string();
            if let Some(context) = task["contextId"].as_str() {
                self.context_id = Some(context.to_string());
            }
            self.task_id = (class_of(task) == StateClass::Interrupted).then(|| task_id.clone());
            self.last = Some(Seen {
                task_id,
                state: task
                    .pointer("/status/state")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            });
        } else if let Some(message) = answer.get("message") {
            if let Some(context) = message["contextId"].as_str() {
                self.context_id = Some(context.to_string());
            }
            self.task_id = None;
        }
    }

    /// Writes a turn's answer: on a terminal its ids and state (the rest was
    /// shown as it came), else the document `send` writes.
    fn present(&self, answer: &Value) {
        let task = answer.get("task");
        if self.json() {
            if !self.ctx.output.stream {
                output::stdout(&format!("{answer}\n"));
            }
        } else if let Some(style) = self.screen {
            let mut out = String::new();
            match (task, answer.get("message")) {
                (Some(task), _) => {
                    out.push_str(&style.field(label::TASK_ID, task["id"].as_str().unwrap_or("")));
                    out.push_str(&style.field(label::CONTEXT_ID, task["contextId"].as_str().unwrap_or("")));
                    out.push_str(
                        &style.field(
                            label::STATE,
                            task.pointer("/status/state")
                                .and_then(Value::as_str)
                                .unwrap_or(""),
                        ),
                    );
                }
                (None, Some(message)) => {
                    if let Some(task) = message["taskId"].as_str() {
                        out.push_str(&style.field(label::TASK_ID, task));
                    }
                    out.push_str(
                        &style.field(label::CONTEXT_ID, message["contextId"].as_str().unwrap_or("")),
                    );
                }
                (None, None) => {}
            }
            output::stdout(&out);
        } else if !self.ctx.output.stream {
            let mut out = Text::new();
            if let Some(task) = task {
                text::task(&mut out, task, self.ctx.output.verbose);
                if class_of(task) == StateClass::Interrupted {
                    let id = task["id"].as_str().unwrap_or("");
                    out.field(
                        label::RESUME,
                        &format!("{} send --task-id {id} 'REPLY'", self.agents()),
                    );
                }
            } else if let Some(message) = answer.get("message") {
                text::message(&mut out, message, self.ctx.output.verbose);
            }
            out.gap();
            output::stdout(&out.finish());
        }
        if let Some(task) = task {
            self.outcome(task);
        }
    }

    /// Says what a settled task waits for, or how it ended if not well.
    fn outcome(&self, task: &Value) {
        let id = task["id"].as_str().unwrap_or("");
        let state = task
            .pointer("/status/state")
            .and_then(Value::as_str)
            .unwrap_or("");
        match class_of(task) {
            StateClass::Interrupted if state.ends_with("AUTH_REQUIRED") => {
                let agents = self.agents();
                let mut lines = vec![format!(
                    "task {id} waits for authentication ({state}): where the agent's message says where to \
                     sign in, do that; the next line then resumes the task"
                )];
                lines.push(format!(
                    "credentials for this agent itself are read when the chat starts: end it, sign in with \
                     `{agents} auth login` (or give --bearer TOKEN / --api-key KEY, or A2ACLI_BEARER / \
                     A2ACLI_API_KEY), then resume with `{agents} --task-id {id} chat`"
                ));
                if let Some(hint) = self.target.auth_hint() {
                    lines.push(format!("the card says: {hint}"));
                }
                for line in lines {
                    self.note(&line);
                }
            }
            StateClass::Interrupted => {
                self.note(&format!(
                    "task {id} waits for input ({state}): the next line answers it"
                ));
            }
            StateClass::Terminal if !state.ends_with("COMPLETED") => {
                self.note(&format!(
                    "task {id} ended {state}: the next line starts a new task in this conversation"
                ));
            }
            _ => {}
        }
    }

    /// A turn stopped by Ctrl-C: the task goes on, and how to find it is said.
    fn stopped(&mut self, tracked: &Tracked) {
        eprintln!();
        if let Some(context) = &tracked.context_id {
            self.context_id = Some(context.clone());
        }
        match &tracked.task_id {
            Some(task) => {
                self.task_id = None;
                self.last = Some(Seen {
                    task_id: task.clone(),
                    state: tracked.state.clone(),
                });
                self.note(&format!(
                    "Stopped waiting for task {task}; the task goes on. Follow it with `{} task get {task} --wait`, or /cancel it.",
                    self.agents()
                ));
            }
            None => self.note("Stopped waiting; the agent may still act on the message."),
        }
    }

    /// A failed turn on a terminal: said, and the conversation goes on.
    fn report(&self, failure: Failure) {
        let failure = Failure {
            message: self.ctx.debug.redact(&failure.message),
            ..failure
        };
        match self.screen {
            Some(style) if !self.json() => {
                let mut out = style.field("Error", &failure.message);
                out.push_str(&style.field("Code", failure.code_name()));
                if let Some(code) = &failure.a2a_code {
                    out.push_str(&style.field("A2A Code", &code.to_string()));
                }
                if let Some(hint) = &failure.hint {
                    out.push_str(&style.field("Hint", hint));
                }
                eprint!("{out}");
            }
            _ => self.ctx.output.failure(&failure),
        }
    }

    fn new_conversation(&mut self) {
        self.context_id = None;
        self.task_id = None;
        self.last = None;
        self.note("New conversation: the next line starts a new context.");
    }

    /// `/task`: the ids the conversation goes on with.
    fn show_ids(&self) {
        let mut lines = Vec::new();
        let mut command = self.agents();
        match (&self.task_id, &self.last) {
            (Some(task), _) => {
                lines.push((label::TASK_ID, task.clone()));
                command.push_str(&format!(" --task-id {task}"));
            }
            (None, Some(last)) => lines.push(("Last Task ID", last.task_id.clone())),
            (None, None) => {}
        }
        if let Some(context) = &self.context_id {
            lines.push((label::CONTEXT_ID, context.clone()));
            if self.task_id.is_none() {
                command.push_str(&format!(" --context-id {context}"));
            }
        }
        if let Some(state) = self.last.as_ref().and_then(|l| l.state.clone()) {
            lines.push((label::STATE, state));
        }
        if lines.is_empty() {
            self.note("No conversation yet: the next line starts one.");
            return;
        }
        match self.screen {
            Some(style) => {
                let mut out: String = lines.iter().map(|(l, v)| style.field(l, v)).collect();
                out.push_str(&style.field("Continue With", &format!("{command} chat")));
                output::stdout(&out);
            }
            None => {
                for (label, value) in lines {
                    eprintln!("{label}: {}", text::clean(&value));
                }
            }
        }
    }

    /// `/cancel [ID]`: the current task (or the one named) canceled, shown.
    async fn cancel(&mut self, named: Option<&str>) -> Result<(), Failure> {
        let current = self.task_id.clone().or_else(|| {
            self.last
                .as_ref()
                .filter(|l| {
                    l.state
                        .as_deref()
                        .is_none_or(|s| class_of(&json!({"status": {"state": s}})) != StateClass::Terminal)
                })
                .map(|l| l.task_id.clone())
        });
        let Some(task_id) = named.map(str::to_string).or(current) else {
            self.note("No task to cancel: /cancel ID names one.");
            return Ok(());
        };
        let mut params = json!({ "id": task_id });
        self.target.with_tenant(CancelTask::NAME, &mut params);
        let task = self
            .target
            .transport
            .call(CancelTask::NAME, params)
            .await
            .map_err(|e| self.ctx.fail(self.target, &e, self.target.sends_credentials))?;
        if self.task_id.as_deref() == Some(task_id.as_str()) {
            self.task_id = None;
        }
        self.last = Some(Seen {
            task_id,
            state: task
                .pointer("/status/state")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
        if self.json() {
            output::stdout(&format!("{task}\n"));
        } else if let Some(style) = self.screen {
            let mut out = style.field(label::TASK_ID, task["id"].as_str().unwrap_or(""));
            out.push_str(&style.field(label::CONTEXT_ID, task["contextId"].as_str().unwrap_or("")));
            out.push_str(
                &style.field(
                    label::STATE,
                    task.pointer("/status/state")
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                ),
            );
            output::stdout(&out);
        } else {
            let mut out = Text::new();
            text::task(&mut out, &task, self.ctx.output.verbose);
            out.gap();
            output::stdout(&out.finish());
        }
        Ok(())
    }
}

/// Ctrl-C, caught while the chat runs so it stops a turn rather than the tool.
struct Interrupts {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
    #[cfg(windows)]
    signal: tokio::signal::windows::CtrlC,
}

impl Interrupts {
    fn new() -> std::io::Result<Interrupts> {
        #[cfg(unix)]
        let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
        #[cfg(windows)]
        let signal = tokio::signal::windows::ctrl_c()?;
        Ok(Interrupts { signal })
    }

    async fn recv(&mut self) {
        if self.signal.recv().await.is_none() {
            // No more signals will come: wait forever rather than end.
            std::future::pending::<()>().await;
        }
    }
}

/// Where a turn's events go as they arrive.
#[derive(Clone, Copy)]
enum Show {
    /// Read for a person: the agent's words, progress, artifacts.
    Screen(Style),
    /// Each as a stream record (`--stream`): a text record or a JSON line.
    Events,
    /// Only kept (the answer is written once settled).
    Nothing,
}

/// A turn's events, as they arrive.
struct Live<'o> {
    show: Show,
    output: &'o output::Output,
    tracked: Tracked,
    state_shown: Option<String>,
    said: HashSet<String>,
    artifacts: HashSet<String>,
    /// The artifact whose text the screen's last line ends with (a chunk
    /// appended to it goes on on that line).
    open: Option<String>,
}

impl<'o> Live<'o> {
    fn new(show: Show, output: &'o output::Output) -> Self {
        Live {
            show,
            output,
            tracked: Tracked::default(),
            state_shown: None,
            said: HashSet::new(),
            artifacts: HashSet::new(),
            open: None,
        }
    }

    /// Writes `text` to the screen on a line of its own.
    fn write(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut out = String::new();
        if self.open.take().is_some() {
            out.push('\n');
        }
        out.push_str(text);
        output::stdout(&out);
    }

    /// Ends the line an artifact's text left open.
    fn finish(&mut self) {
        if self.open.take().is_some() {
            output::stdout("\n");
        }
    }

    /// What a wait reports: a read of the task while polling shows its
    /// progress; a stream event was already taken by [`Live::event`].
    fn progress(&mut self, task: &Value) {
        if task.get("id").is_none() || task.get("status").is_none() {
            return;
        }
        self.tracked.observe(&json!({ "task": task }));
        if let Show::Screen(style) = self.show {
            self.state(style, task.pointer("/status/state"));
        }
    }

    /// A stream event (a `StreamResponse`), or an answer of the same shape;
    /// `stale` when it is the task as it was before the turn's message
    /// (recorded, and written as an event, but not shown as news).
    fn event(&mut self, event: &Value, stale: bool) {
        self.tracked.observe(event);
        match self.show {
            Show::Nothing => {}
            Show::Events => {
                let tracked = &self.tracked;
                self.output.line(event, |out, value, verbose| {
                    text::stream_event(out, value, tracked, verbose)
                });
            }
            Show::Screen(_) if stale => {}
            Show::Screen(style) => {
                if let Some(task) = event.get("task") {
                    self.state(style, task.pointer("/status/state"));
                    self.says(style, task.pointer("/status/message"));
                    for artifact in task["artifacts"].as_array().into_iter().flatten() {
                        let id = artifact["artifactId"].as_str().unwrap_or("");
                        if !self.artifacts.contains(id) {
                            self.artifact(style, artifact, false);
                        }
                    }
                } else if let Some(update) = event.get("statusUpdate") {
                    self.state(style, update.pointer("/status/state"));
                    self.says(style, update.pointer("/status/message"));
                } else if let Some(update) = event.get("artifactUpdate") {
                    let append = update["append"].as_bool() == Some(true);
                    self.artifact(style, &update["artifact"], append);
                } else if let Some(message) = event.get("message") {
                    self.says(style, Some(message));
                }
            }
        }
    }

    /// A state the task is still working in, once per change.
    fn state(&mut self, style: Style, state: Option<&Value>) {
        let Some(state) = state.and_then(Value::as_str) else {
            return;
        };
        if self.state_shown.as_deref() == Some(state) {
            return;
        }
        self.state_shown = Some(state.to_string());
        if class_of(&json!({"status": {"state": state}})) == StateClass::Pending {
            self.write(&format!("{}\n", style.dim(&format!("· {}", text::clean(state)))));
        }
    }

    /// What the agent says in a message (once, however often it is resent).
    fn says(&mut self, style: Style, message: Option<&Value>) {
        let Some(message) = message else { return };
        let key = message["messageId"]
            .as_str()
            .map_or_else(|| message.to_string(), str::to_string);
        if !self.said.insert(key) {
            return;
        }
        let mut out = String::new();
        let words = text::message_text(message);
        if !words.is_empty() {
            out.push_str(&style.bold(AGENT));
            out.push_str(&indent(text::clean(&words).trim_end(), AGENT.len()));
            out.push('\n');
        }
        out.push_str(&other_parts(message.get("parts"), self.output.verbose));
        self.write(&out);
    }

    /// An artifact (or a chunk of one): its text as it is (a chunk appended
    /// to the text just shown goes on where it stopped), other parts as the
    /// text floor's fields.
    fn artifact(&mut self, style: Style, artifact: &Value, append: bool) {
        let id = artifact["artifactId"].as_str().unwrap_or("").to_string();
        let parts: Vec<&Value> = artifact["parts"].as_array().into_iter().flatten().collect();
        let words: Vec<String> = parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .map(|t| indent(&text::clean(t), 2))
            .collect();
        let others = other_parts(artifact.get("parts"), self.output.verbose);
        if append && !words.is_empty() && self.open.as_deref() == Some(id.as_str()) {
            output::stdout(&words.join("\n  "));
        } else {
            let mut out = String::new();
            if !(append && self.artifacts.contains(&id)) {
                let name = artifact["name"]
                    .as_str()
                    .map(|n| format!(" {n}"))
                    .unwrap_or_default();
                out.push_str(&style.bold(&text::clean(&format!("artifact{name} ({id}):"))));
                out.push('\n');
            }
            if !words.is_empty() {
                out.push_str("  ");
                out.push_str(&words.join("\n  "));
            }
            self.write(&out);
            self.open = (!words.is_empty()).then(|| id.clone());
        }
        self.artifacts.insert(id);
        self.write(&others);
    }
}

/// The id of the message in SendMessage params.
fn message_id(params: &Value) -> String {
    params
        .pointer("/message/messageId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// Whether a stream `event` is the task as it was when the message `ours`
/// reached it: a snapshot still interrupted, with nothing after that
/// message in its history (the agent has not answered it yet).
fn before_reply(event: &Value, ours: &str) -> bool {
    let Some(task) = event.get("task") else {
        return false;
    };
    if class_of(task) != StateClass::Interrupted {
        return false;
    }
    match task["history"].as_array().and_then(|h| h.last()) {
        Some(last) => last["messageId"].as_str() == Some(ours),
        None => true,
    }
}

/// The parts that are not text, as the text floor shows them.
fn other_parts(parts: Option<&Value>, verbose: bool) -> String {
    let others: Vec<Value> = parts
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| p.get("text").is_none())
        .cloned()
        .collect();
    if others.is_empty() {
        return String::new();
    }
    let mut out = Text::new();
    text::parts(&mut out, Some(&Value::Array(others)), verbose);
    out.finish()
}

/// Lines after the first indented by `width`, under the first's text.
fn indent(text: &str, width: usize) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(width)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_commands() {
        assert_eq!(parse("  "), Input::Blank);
        assert_eq!(parse(" hello there "), Input::Message("hello there".into()));
        assert_eq!(parse("/quit"), Input::Quit);
        assert_eq!(parse("/exit"), Input::Quit);
        assert_eq!(parse("/new"), Input::New);
        assert_eq!(parse("/task"), Input::Task);
        assert_eq!(parse("/cancel"), Input::Cancel(None));
        assert_eq!(parse("/cancel t-1"), Input::Cancel(Some("t-1".into())));
        assert_eq!(parse("/help"), Input::Help);
        assert_eq!(parse("/bogus x"), Input::Unknown("/bogus".into()));
        assert_eq!(parse("//new"), Input::Message("/new".into()));
    }

    #[test]
    fn plain_style_has_no_control_sequences() {
        let plain = Style { colour: false };
        assert_eq!(plain.field("Task ID", "t\u{1b}[2J"), "Task ID: t\u{FFFD}[2J\n");
        let bold = Style { colour: true };
        assert_eq!(bold.field("State", "s"), "\u{1b}[1mState:\u{1b}[0m s\n");
    }

    #[test]
    fn the_task_before_the_reply_is_not_the_answer() {
        let snapshot = |state: &str, last: &str| {
            json!({"task": {"id": "t", "status": {"state": state},
                "history": [{"messageId": "first"}, {"messageId": last}]}})
        };
        assert!(before_reply(
            &snapshot("TASK_STATE_INPUT_REQUIRED", "ours"),
            "ours"
        ));
        // The agent answered already: its reply is last.
        assert!(!before_reply(
            &snapshot("TASK_STATE_INPUT_REQUIRED", "reply"),
            "ours"
        ));
        // A task that ended, or one still working, is news either way.
        assert!(!before_reply(&snapshot("TASK_STATE_COMPLETED", "ours"), "ours"));
        assert!(!before_reply(&snapshot("TASK_STATE_WORKING", "ours"), "ours"));
        assert!(before_reply(
            &json!({"task": {"id": "t", "status": {"state": "TASK_STATE_AUTH_REQUIRED"}}}),
            "ours"
        ));
        assert!(!before_reply(
            &json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}}),
            "ours"
        ));
    }

    #[test]
    fn continuation_lines_line_up() {
        assert_eq!(indent("one\ntwo", 4), "one\n    two");
    }
}
