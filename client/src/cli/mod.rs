//! The `agents` command-line tool: a thin rendering layer over the contract.
//! Each command calls one method (the tree is derived from the method table in
//! [`tree`]); the agent is spawned over stdio (local mode) unless `--server`
//! names an HTTP endpoint (server mode).

mod connect;
pub mod exit;
pub mod generation;
mod naming;
pub mod params;
pub mod render;
pub mod tree;

use crate::any::AnyTransport;
use crate::generation::{CheckedEventStream, EventSource, StreamError};
use crate::http;
use crate::wire::{self, DEFAULT_API_KEY_HEADER};
use a2a::methods::markers::SubscribeToTask;
use a2a::rpc::{Method, Transport};
use a2a::types::TaskState;
use a2a::MethodDescriptor;
use clap::{Arg, ArgAction, ArgMatches, Command};
use connect::connect;
pub use connect::default_agent;
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::time::Duration;

/// Default agent executable name (the application's agent binary).
pub const DEFAULT_AGENT: &str = "cleveragents-agent";
/// Arguments that put the agent binary in stdio mode, unless `--agent-arg` is given.
pub const DEFAULT_AGENT_ARGS: &[&str] = &["--stdio"];
/// Environment variable that stands for `--agent`: the agent executable of local mode.
pub const ENV_AGENT: &str = "CLEVERAGENTS_AGENT";
/// Environment variable that stands for `--server`: the endpoint URL of server mode.
pub const ENV_SERVER: &str = "CLEVERAGENTS_SERVER";
/// Environment variable that stands for `--ca-file`.
pub const ENV_CA_FILE: &str = "CLEVERAGENTS_CA_FILE";
/// Environment variable that stands for `--client-cert`.
pub const ENV_CLIENT_CERT: &str = "CLEVERAGENTS_CLIENT_CERT";
/// Environment variable that stands for `--client-key`.
pub const ENV_CLIENT_KEY: &str = "CLEVERAGENTS_CLIENT_KEY";
/// Environment variable that stands for `--token`: the bearer token of server mode.
pub const ENV_TOKEN: &str = "CLEVERAGENTS_TOKEN";
/// Environment variable that stands for `--api-key`: the API key of server mode.
pub const ENV_API_KEY: &str = "CLEVERAGENTS_API_KEY";
/// Environment variable that stands for `--trusted-keys`: the JWK Set the Agent Card must be signed by.
pub const ENV_TRUSTED_KEYS: &str = "CLEVERAGENTS_TRUSTED_KEYS";

/// The whole command: global flags, the derived method commands, and
/// `completions`.
pub fn command() -> Command {
    let exit_codes: String = exit::TABLE
        .iter()
        .map(|(code, what)| format!("  {code:>2}  {what}\n"))
        .collect();
    let mut root = Command::new("agents")
        .version(env!("CARGO_PKG_VERSION"))
        .about("CleverAgents over A2A: one command per protocol method")
        .after_help(format!("Exit codes:\n{exit_codes}"))
        .subcommand_required(true)
        .arg_required_else_help(true)
        .args(connection_args())
        .args(call_args());
    for command in tree::method_commands() {
        root = root.subcommand(command);
    }
    root.subcommand(completions_command())
}

/// Global flags choosing the agent and how to reach and authenticate to it.
fn connection_args() -> Vec<Arg> {
    vec![
        Arg::new("agent")
            .long("agent")
            .global(true)
            .env(ENV_AGENT)
            .value_name("PATH")
            .help("Agent executable for local mode [default: cleveragents-agent next to this program, else on PATH]"),
        Arg::new("agent-arg")
            .long("agent-arg")
            .global(true)
            .action(ArgAction::Append)
            .allow_hyphen_values(true)
            .value_name("ARG")
            .help("Argument passed to the agent executable (repeatable) [default: --stdio]"),
        Arg::new("server")
            .long("server")
            .global(true)
            .env(ENV_SERVER)
            .value_name("URL")
            .help("Server mode: the JSON-RPC endpoint URL"),
        Arg::new("binding")
            .long("binding")
            .global(true)
            .value_name("BINDING")
            .value_parser(["jsonrpc", "rest", "grpc"])
            .default_value("jsonrpc")
            .help("Server mode: JSON-RPC, or HTTP+JSON (REST) or gRPC at the address the server's Agent Card declares for it"),
        Arg::new("token")
            .long("token")
            .global(true)
            .env(ENV_TOKEN)
            .hide_env_values(true)
            .value_name("TOKEN")
            .help("Bearer token for server mode"),
        Arg::new("api-key")
            .long("api-key")
            .global(true)
            .env(ENV_API_KEY)
            .hide_env_values(true)
            .value_name("KEY")
            .help("API key for server mode"),
        Arg::new("api-key-header")
            .long("api-key-header")
            .global(true)
            .value_name("NAME")
            .default_value(DEFAULT_API_KEY_HEADER)
            .help("Header that carries the API key"),
        Arg::new("ca-file")
            .long("ca-file")
            .global(true)
            .env(ENV_CA_FILE)
            .value_name("PEM")
            .help("Server mode over https: the CAs the server's certificate must chain to, instead of the built-in roots"),
        Arg::new("client-cert")
            .long("client-cert")
            .global(true)
            .env(ENV_CLIENT_CERT)
            .value_name("PEM")
            .requires("client-key")
            .help("Server mode over https: the client certificate to show (mutual TLS), with --client-key"),
        Arg::new("client-key")
            .long("client-key")
            .global(true)
            .env(ENV_CLIENT_KEY)
            .value_name("PEM")
            .requires("client-cert")
            .help("Server mode over https: the private key of --client-cert"),
        Arg::new("trusted-keys")
            .long("trusted-keys")
            .global(true)
            .env(ENV_TRUSTED_KEYS)
            .value_name("JWKS")
            .help("JWK Set file of the keys the Agent Card must be signed by: server mode checks every card it reads, `card --verify` the card in either mode"),
    ]
}

/// Global flags shaping each call and its output.
fn call_args() -> Vec<Arg> {
    vec![
        Arg::new("extension-version")
            .long("extension-version")
            .global(true)
            .value_name("MINOR")
            .help(format!(
                "Minor version of {} to speak (e.g. 1.1) [default: newest]",
                a2a::rpc::declared(a2a::Contract::Cleveragents.extension_uri())
            )),
        Arg::new("timeout")
            .long("timeout")
            .global(true)
            .value_name("SECS")
            .value_parser(clap::value_parser!(u64).range(1..))
            .default_value("30")
            .help("Bound on each call, in seconds"),
        Arg::new("retries")
            .long("retries")
            .global(true)
            .value_name("N")
            .value_parser(clap::value_parser!(u32))
            .default_value("2")
            .help("Retries of read-only calls after a transient failure (server mode)"),
        Arg::new("json")
            .long("json")
            .global(true)
            .action(ArgAction::SetTrue)
            .help("Machine output: the result as JSON; stream events one JSON object per line"),
    ]
}

fn completions_command() -> Command {
    Command::new("completions")
        .about("Print a shell completion script")
        .arg(
            Arg::new("shell")
                .required(true)
                .value_parser(clap::value_parser!(clap_complete::Shell)),
        )
}

/// Runs the CLI on the process's arguments; returns the exit code.
pub fn main() -> i32 {
    run_from(std::env::args_os())
}

/// Runs the CLI on `args` (the first is the program name); returns the exit code.
pub fn run_from<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let matches = match command().try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() { exit::USAGE } else { exit::OK };
        }
    };
    if let Some(("completions", sub)) = matches.subcommand() {
        if let Some(shell) = sub.get_one::<clap_complete::Shell>("shell") {
            clap_complete::generate(*shell, &mut command(), "agents", &mut std::io::stdout());
        }
        return exit::OK;
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return fail(exit::OTHER, &format!("cannot start the runtime: {e}")),
    };
    runtime.block_on(run(&matches))
}

fn fail(code: i32, message: &str) -> i32 {
    eprintln!("error: {}", exit::one_line(message));
    code
}

/// What the command line asks for.
enum Action<'a> {
    PublicCard,
    OpenRpc,
    Method(&'static MethodDescriptor, &'a ArgMatches),
}

fn action(matches: &ArgMatches) -> Option<Action<'_>> {
    let mut path = Vec::new();
    let mut current = matches;
    while let Some((name, sub)) = current.subcommand() {
        path.push(name.to_string());
        current = sub;
    }
    if path == ["card"] {
        return Some(Action::PublicCard);
    }
    if path == [tree::OPENRPC_COMMAND] {
        return Some(Action::OpenRpc);
    }
    tree::method_at(&path).map(|method| Action::Method(method, current))
}

struct Output {
    json: bool,
}

impl Output {
    /// A document (not a method result): JSON, compact with `--json`.
    fn document(&self, value: &Value) {
        let text = if self.json {
            value.to_string()
        } else {
            serde_json::to_string_pretty(value).unwrap_or_default()
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }

    fn value(&self, value: &Value) {
        let mut out = std::io::stdout().lock();
        let text = if self.json {
            format!("{value}\n")
        } else {
            render::result_text(value)
        };
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }
}

async fn run(matches: &ArgMatches) -> i32 {
    let Some(action) = action(matches) else {
        return fail(exit::USAGE, "unknown command");
    };
    let output = Output {
        json: matches.get_flag("json"),
    };
    // Params are checked before the agent is contacted.
    let params = match &action {
        Action::Method(method, sub) => match params::build(method, sub) {
            Ok(params) => Some(params),
            Err(message) => return fail(exit::USAGE, &message),
        },
        Action::PublicCard | Action::OpenRpc => None,
    };
    let trusted = match matches.get_one::<String>("trusted-keys") {
        Some(path) => match crate::TrustedKeys::load(std::path::Path::new(path)) {
            Ok(keys) => Some(keys),
            Err(message) => return fail(exit::USAGE, &format!("--trusted-keys: {message}")),
        },
        None => None,
    };
    let verify = matches
        .subcommand_matches("card")
        .is_some_and(|card| card.get_flag("verify"));
    if verify && trusted.is_none() {
        return fail(
            exit::USAGE,
            "card --verify needs --trusted-keys JWKS (or CLEVERAGENTS_TRUSTED_KEYS)",
        );
    }
    // `card --verify` checks the card itself and says why it fails; otherwise
    // the HTTP transport refuses any card it reads that does not verify.
    let transport = match connect(matches, trusted.clone().filter(|_| !verify)).await {
        Ok(transport) => transport,
        Err(error) => return fail(exit::code_of(&error), &exit::message_of(&error)),
    };
    let code = match (action, params) {
        (Action::PublicCard, _) => match transport.agent_card().await {
            Ok(card) => match trusted.as_ref().filter(|_| verify).map(|keys| keys.verify(&card)) {
                Some(Err(refused)) => fail(exit::AUTH, &refused.to_string()),
                verified => {
                    output.value(&card);
                    if let Some(Ok(kids)) = verified {
                        eprintln!("verified: signed by {}", kids.join(", "));
                    }
                    exit::OK
                }
            },
            Err(error) => fail(exit::code_of(&error), &exit::message_of(&error)),
        },
        (Action::OpenRpc, _) => match transport.call(a2a::openrpc::DISCOVER_METHOD, json!({})).await {
            Ok(document) => {
                output.document(&document);
                exit::OK
            }
            Err(error) => fail(exit::code_of(&error), &exit::message_of(&error)),
        },
        (Action::Method(method, sub), Some(params)) => {
            let follow = sub
                .try_get_one::<bool>("follow")
                .ok()
                .flatten()
                .copied()
                .unwrap_or(false);
            let wait = generation::wants_wait(sub);
            if let Some(refused) = generation::refusal(method, &params, wait, transport.protocol_version()) {
                fail(exit::UNSUPPORTED, &refused)
            } else if wait {
                match generation::wait(&transport, method, params).await {
                    Ok(task) => {
                        output.value(&task);
                        exit::OK
                    }
                    Err((code, message)) => fail(code, &message),
                }
            } else {
                call(&transport, method, params, follow, &output).await
            }
        }
        (Action::Method(..), None) => exit::USAGE,
    };
    if let Err(error) = transport.shutdown().await {
        eprintln!("warning: {}", exit::message_of(&error));
    }
    code
}

async fn call(
    transport: &AnyTransport,
    method: &'static MethodDescriptor,
    params: Value,
    follow: bool,
    output: &Output,
) -> i32 {
    if method.streaming {
        return match transport.subscribe_checked(method.name, params).await {
            Ok(events) => show_events(events, output).await,
            Err(error) => fail(exit::code_of(&error), &exit::message_of(&error)),
        };
    }
    let result = match transport.call(method.name, params.clone()).await {
        Ok(result) => result,
        Err(error) => return fail(exit::code_of(&error), &exit::message_of(&error)),
    };
    output.value(&result);
    if !follow {
        return exit::OK;
    }
    let Some(task_id) = followed_task(&result) else {
        return fail(exit::OTHER, "the answer names no task to follow");
    };
    // The task lives in the namespace the call targeted (A2A `tenant`).
    let mut subscribe = json!({ "id": task_id });
    let tenant = params
        .get(wire::A2A_NAMESPACE_FIELD)
        .or_else(|| params.get(wire::EXTENSION_NAMESPACE_FIELD));
    if let Some(tenant) = tenant {
        subscribe[wire::A2A_NAMESPACE_FIELD] = tenant.clone();
    }
    match transport
        .subscribe_checked(SubscribeToTask::NAME, subscribe)
        .await
    {
        Ok(events) => show_events(events, output).await,
        Err(error) => fail(exit::code_of(&error), &exit::message_of(&error)),
    }
}

/// The task id an answer names: `taskId`, or the `task` alternative's id (a
/// task that already ended is not followed).
fn followed_task(result: &Value) -> Option<String> {
    if let Some(id) = result.get("taskId").and_then(Value::as_str) {
        return Some(id.to_string());
    }
    let task = result.get("task")?;
    if http::is_final_event(result) {
        return None;
    }
    task.get("id").and_then(Value::as_str).map(str::to_string)
}

async fn show_events(mut events: CheckedEventStream, output: &Output) -> i32 {
    let spinner = (!output.json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(Duration::from_millis(120));
        bar.set_message("waiting for events…");
        bar
    });
    let mut last = None;
    let mut code = exit::OK;
    while let Some(item) = events.next().await {
        match item {
            Ok(event) => {
                let line = if output.json {
                    event.data.to_string()
                } else {
                    render::event_line(event.seq, &event.data)
                };
                match &spinner {
                    Some(bar) => {
                        bar.println(&line);
                        bar.set_message(line.clone());
                    }
                    None => {
                        let mut out = std::io::stdout().lock();
                        let _ = writeln!(out, "{line}");
                        let _ = out.flush();
                    }
                }
                last = Some(event.data);
            }
            Err(StreamError::Call(error)) => {
                code = fail(exit::code_of(&error), &exit::message_of(&error));
                break;
            }
            // Events were missed: the task must be read again to be known.
            Err(StreamError::Gap(gap)) => {
                code = fail(exit::TRANSPORT, &gap.to_string());
                break;
            }
        }
    }
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    let state = last.as_ref().and_then(|event| {
        event
            .pointer("/statusUpdate/status/state")
            .or_else(|| event.pointer("/task/status/state"))
            .and_then(Value::as_str)
            .and_then(|state| state.parse::<TaskState>().ok())
    });
    if code == exit::OK
        && matches!(
            state,
            Some(TaskState::Failed | TaskState::Rejected | TaskState::Canceled)
        )
    {
        return exit::TASK_FAILED;
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_tree_is_valid() {
        command().debug_assert();
    }

    /// The method and params a command line asks for.
    fn asked(args: &[&str]) -> Option<(&'static str, Value)> {
        let matches = command()
            .try_get_matches_from(std::iter::once("agents").chain(args.iter().copied()))
            .ok()?;
        match action(&matches)? {
            Action::Method(method, sub) => Some((method.name, params::build(method, sub).ok()?)),
            _ => None,
        }
    }

    #[test]
    fn events_is_the_event_stream_with_or_without_subscribe() {
        let flags = [
            "--plan",
            "p1",
            "--session",
            "s1",
            "--type",
            "tool.invoked",
            "--type",
            "plan.error",
            "--follow",
        ];
        let expected = Some((
            a2a::methods::markers::EventsSubscribe::NAME,
            json!({ "planId": "p1", "sessionId": "s1", "types": ["tool.invoked", "plan.error"], "follow": true }),
        ));
        let short: Vec<&str> = std::iter::once("events").chain(flags).collect();
        assert_eq!(asked(&short), expected);
        let long: Vec<&str> = ["--json", "events", "subscribe"]
            .into_iter()
            .chain(flags)
            .collect();
        assert_eq!(asked(&long), expected);
        assert_eq!(
            asked(&["events"]).map(|(_, params)| params),
            Some(json!({})),
            "no filter: every event stored now"
        );
        // A group of several methods still needs one of them.
        assert_eq!(asked(&["session"]), None);
    }

    #[test]
    fn follow_targets() {
        assert_eq!(followed_task(&json!({"taskId": "t"})).as_deref(), Some("t"));
        assert_eq!(
            followed_task(&json!({"task": {"id": "t", "status": {"state": "TASK_STATE_WORKING"}}}))
                .as_deref(),
            Some("t")
        );
        assert_eq!(
            followed_task(&json!({"task": {"id": "t", "status": {"state": "TASK_STATE_COMPLETED"}}})),
            None
        );
        assert_eq!(followed_task(&json!({"message": {}})), None);
    }
}
