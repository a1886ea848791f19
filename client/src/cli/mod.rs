//! The `agents` command-line tool: the A2A CLI standard (a2a-cli v0.2) for
//! the protocol's operations, and the CleverAgents extension's command
//! groups (derived from the method table in [`tree`]) under the same output,
//! error and exit contract.
//!
//! Which agent: `-a/--agent-card REF` (or `A2ACLI_AGENT_CARD`) names a remote
//! agent by its card, whose first supported interface is used unless
//! `--transport` says otherwise; without one, *local mode* spawns the agent
//! executable over stdio, as the user, with no credentials.

mod card;
mod card_ref;
mod chat;
mod companions;
mod debug;
mod dotenv;
mod download;
pub mod failure;
pub mod generation;
mod login;
mod naming;
pub mod output;
pub mod params;
mod parts;
pub mod settings;
mod standard;
pub mod target;
pub mod text;
mod tokens;
pub mod tree;
mod wait;
mod webhook;

use crate::generation::EventSource;
use crate::generation::StreamError;
use a2a::rpc::{Method, Transport};
use a2a::MethodDescriptor;
use clap::{Arg, ArgMatches, Command};
use debug::Debug;
use failure::{Failure, Local, EXIT_OK};
use futures_util::StreamExt;
use output::{Format, Output};
use serde_json::{json, Value};
use settings::{id, Files, Settings};
use std::ffi::OsString;
use std::path::PathBuf;
use target::Target;

/// Default agent executable name (the application's agent binary).
pub const DEFAULT_AGENT: &str = "cleveragents-agent";
/// Arguments that put the agent binary in stdio mode, unless `--agent-arg` is given.
pub const DEFAULT_AGENT_ARGS: &[&str] = &["--stdio"];

/// `cleveragents-agent` next to this executable if it is there, else the bare
/// name (found on `PATH`).
pub fn default_agent() -> PathBuf {
    let name = format!("{DEFAULT_AGENT}{}", std::env::consts::EXE_SUFFIX);
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&name)))
        .filter(|candidate| candidate.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// The whole command: global options, the standard's commands, the
/// extension's derived groups.
pub fn command() -> Command {
    let exit_codes: String = failure::EXIT_TABLE
        .iter()
        .map(|(code, what)| format!("  {code}  {what}\n"))
        .collect();
    let root = Command::new("agents")
        .version(env!("CARGO_PKG_VERSION"))
        .disable_version_flag(true)
        .about("A2A client: talk to any A2A agent (a2a-cli v0.2), and to CleverAgents' extension methods")
        .long_about(
            "A2A client following the A2A CLI standard (a2a-cli v0.2).\n\n\
             Which agent: -a/--agent-card names one by its card (a host, a card URL, a card file, or an \
             AI Catalog entry); its first supported interface is used unless --transport says otherwise. \
             Without --agent-card, local mode: the CleverAgents agent executable is spawned over stdio \
             (--agent), running as you, with no credentials.",
        )
        .after_help(format!(
            "Defaults (each overridable by its flag, its A2ACLI_ variable, or a .env file; `agents config show` \
             prints the effective values and where each came from):\n  \
             transport: the card's first supported interface (--transport)\n  \
             task completion: wait until the task ends or needs input (--async)\n  \
             output: text (-o json)\n  detail: concise (--verbose)\n  \
             A2A version: the highest both sides support, never below 1.0 (--a2a-version)\n  \
             TLS verification: on (--insecure)\n\n\
             Exit status:\n{exit_codes}"
        ))
        .subcommand_required(true)
        .arg_required_else_help(true)
        .arg(
            Arg::new("version")
                .short('v')
                .long("version")
                .action(clap::ArgAction::Version)
                .help("Print the version and exit"),
        )
        .args(settings::args());
    let mut grafts = vec![("card", card::get_command())];
    grafts.extend(
        standard::task_commands()
            .into_iter()
            .map(|command| ("task", command)),
    );
    grafts.push(("task push-config", webhook::command()));
    let mut root = root.subcommand(standard::send_command());
    for command in tree::method_commands(grafts) {
        root = root.subcommand(command);
    }
    root.subcommand(
        Command::new("config")
            .about("Configuration (read-only)")
            .subcommand_required(true)
            .subcommand(
                Command::new("show").about("Show each setting's effective value and where it came from"),
            ),
    )
    .subcommand(login::command())
    .subcommand(chat::command())
    .subcommand(companions::conformance_command())
    .subcommand(companions::demo_command())
    .subcommand(
        Command::new("completion")
            .about("Print a shell completion script")
            .arg(
                Arg::new("shell")
                    .required(true)
                    .value_parser(clap::value_parser!(clap_complete::Shell)),
            ),
    )
}

/// Runs the CLI on the process's arguments; returns the exit status.
pub fn main() -> i32 {
    run_from(std::env::args_os())
}

/// Whether the raw arguments ask for JSON, for a failure found before they parse.
fn wants_json(args: &[OsString]) -> bool {
    let args: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let flag = args
        .windows(2)
        .any(|w| (w[0] == "-o" || w[0] == "--output") && w[1].eq_ignore_ascii_case("json"))
        || args
            .iter()
            .any(|a| a.eq_ignore_ascii_case("--output=json") || a.eq_ignore_ascii_case("-ojson"));
    flag || std::env::var("A2ACLI_OUTPUT").is_ok_and(|v| v.eq_ignore_ascii_case("json"))
}

/// Runs the CLI on `args` (the first is the program name); returns the exit status.
pub fn run_from<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let matches = match command().try_get_matches_from(&args) {
        Ok(matches) => matches,
        Err(error) => {
            use clap::error::ErrorKind;
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                output::stdout(&error.render().to_string());
                return if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    failure::EXIT_USAGE
                } else {
                    EXIT_OK
                };
            }
            let failure = Failure::usage(
                error
                    .render()
                    .to_string()
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches("error: "),
            )
            .hint("see `agents help` or `agents COMMAND --help`");
            if wants_json(&args) {
                output::stdout(&format!("{}\n", failure.envelope()));
            } else {
                eprint!("{}", error.render());
            }
            return failure.exit();
        }
    };
    let config = matches.get_one::<String>(id::CONFIG).cloned().or_else(|| {
        std::env::var(
            settings::option(id::CONFIG)
                .map(settings::Opt::env_name)
                .unwrap_or_default(),
        )
        .ok()
    });
    let files = match Files::load(config.as_deref()) {
        Ok(files) => files,
        Err(why) => {
            let failure = Failure::usage(why);
            report(
                &failure,
                if wants_json(&args) {
                    Format::Json
                } else {
                    Format::Text
                },
            );
            return failure.exit();
        }
    };
    let settings = Settings::resolve(Some(&matches), files);
    for warning in &settings.warnings {
        output::warn(warning);
    }
    let format = match settings.get(id::OUTPUT).map(Format::parse).transpose() {
        Ok(format) => format.unwrap_or(Format::Text),
        Err(why) => {
            let failure = Failure::usage(why);
            report(&failure, Format::Text);
            return failure.exit();
        }
    };
    let switches = (settings.switch(id::VERBOSE), settings.switch(id::DEBUG));
    let (verbose, debug) = match switches {
        (Ok(verbose), Ok(debug)) => (verbose, debug),
        (Err(why), _) | (_, Err(why)) => {
            let failure = Failure::usage(why);
            report(&failure, format);
            return failure.exit();
        }
    };
    let output = Output {
        format,
        stream: matches.get_flag(id::STREAM),
        verbose,
    };
    let debug = Debug::new(debug);
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            let failure = Failure::local(Local::Internal, format!("cannot start the runtime: {e}"));
            report(&failure, format);
            return failure.exit();
        }
    };
    match runtime.block_on(run(&matches, &settings, &output, &debug)) {
        Ok(()) => EXIT_OK,
        Err(failure) => {
            if !failure.reported {
                output.failure(&Failure {
                    message: debug.redact(&failure.message),
                    ..failure.clone()
                });
            }
            failure.exit()
        }
    }
}

fn report(failure: &Failure, format: Format) {
    Output {
        format,
        stream: false,
        verbose: false,
    }
    .failure(failure);
}

/// The subcommand path of `matches` and the innermost matches.
fn path_of(matches: &ArgMatches) -> (Vec<String>, &ArgMatches) {
    let mut path = Vec::new();
    let mut current = matches;
    while let Some((name, sub)) = current.subcommand() {
        path.push(name.to_string());
        current = sub;
    }
    (path, current)
}

async fn run(
    matches: &ArgMatches,
    settings: &Settings,
    output: &Output,
    debug: &Debug,
) -> Result<(), Failure> {
    let (path, sub) = path_of(matches);
    let path: Vec<&str> = path.iter().map(String::as_str).collect();
    match path.as_slice() {
        ["completion"] => {
            if let Some(shell) = sub.get_one::<clap_complete::Shell>("shell") {
                let mut script = Vec::new();
                clap_complete::generate(*shell, &mut command(), "agents", &mut script);
                output::stdout(&String::from_utf8_lossy(&script));
            }
            return Ok(());
        }
        ["config", "show"] => {
            config_show(settings, output);
            return Ok(());
        }
        ["auth", "login"] => return login::run(settings, output, debug, sub).await,
        ["demo-server"] => return companions::demo_server(settings, output, sub).await,
        _ => {}
    }
    // Params and usage are checked before the agent is contacted.
    let method = tree::method_at(&path.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let params = match method {
        Some(method) => Some(params::build(method, sub).map_err(Failure::usage)?),
        None => None,
    };
    let agent_args: Vec<OsString> = match matches.get_many::<String>(id::AGENT_ARG) {
        Some(args) => args.map(OsString::from).collect(),
        None => DEFAULT_AGENT_ARGS.iter().map(OsString::from).collect(),
    };
    let target = target::connect(settings, debug, agent_args).await?;
    let agent_flag = match (settings.source(id::AGENT_CARD), settings.get(id::AGENT_CARD)) {
        (Some(settings::Source::Flag), Some(reference)) => format!(" -a {reference}"),
        _ => String::new(),
    };
    let ctx = standard::Ctx {
        settings,
        output,
        debug,
        agent_flag,
    };
    let outcome = match (path.as_slice(), method, params) {
        (["send"], _, _) => standard::send(&ctx, &target, sub).await,
        (["card", "get"], _, _) => card::get(&ctx, &target, sub).await,
        (["task", "get"], _, _) => standard::task_get(&ctx, &target, sub).await,
        (["task", "cancel"], _, _) => standard::task_cancel(&ctx, &target, sub).await,
        (["task", "subscribe"], _, _) => standard::task_subscribe(&ctx, &target, sub).await,
        (["task", "download"], _, _) => download::task_download(&ctx, &target, sub).await,
        (["task", "push-config", webhook::COMMAND], _, _) => webhook::run(&ctx, &target, sub).await,
        (["chat"], _, _) => chat::run(&ctx, &target, sub).await,
        (["conformance"], _, _) => companions::conformance(settings, output, debug, &target, sub).await,
        ([tree::OPENRPC_COMMAND], _, _) => match target
            .transport
            .call(a2a::openrpc::DISCOVER_METHOD, json!({}))
            .await
        {
            Ok(document) => {
                output.document(&document, |out, value, _| text::generic(out, value));
                Ok(())
            }
            Err(e) => Err(ctx.fail(&target, &e, target.sends_credentials)),
        },
        (_, Some(method), Some(params)) => call(&ctx, &target, method, params, sub).await,
        _ => Err(Failure::usage("unknown command: see `agents help`")),
    };
    if let Err(error) = target.transport.shutdown().await {
        debug.log(&format!("closing the session: {error}"));
    }
    outcome
}

/// `config show`: every setting, its effective value and its source.
fn config_show(settings: &Settings, output: &Output) {
    let rows: Vec<Value> = settings
        .rows()
        .into_iter()
        .map(|(opt, value, source)| {
            json!({
                "name": opt.env_name(),
                "flag": format!("--{}", opt.long),
                "value": value,
                "source": source,
            })
        })
        .collect();
    let files = json!({
        "local": settings.files.local.as_ref().map(|f| f.path.display().to_string()),
        "global": settings.files.global.as_ref().map(|f| f.path.display().to_string()),
        "globalPath": dotenv::global_path().map(|p| p.display().to_string()),
    });
    let document = json!({ "settings": rows, "files": files });
    output.document(&document, |out, value, _| {
        for row in value["settings"].as_array().into_iter().flatten() {
            out.field("Setting", row["name"].as_str().unwrap_or(""));
            out.field("Flag", row["flag"].as_str().unwrap_or(""));
            out.field("Value", row["value"].as_str().unwrap_or(""));
            out.field("Source", row["source"].as_str().unwrap_or(""));
            out.gap();
        }
        out.field("Local File", value["files"]["local"].as_str().unwrap_or("(none)"));
        out.field(
            "Global File",
            value["files"]["globalPath"].as_str().unwrap_or("(none)"),
        );
    });
}

/// A derived command: one call of `method`, its result as the document; a
/// streaming method's events one per line; `--follow` follows the task
/// the answer names.
async fn call(
    ctx: &standard::Ctx<'_>,
    target: &Target,
    method: &'static MethodDescriptor,
    mut params: Value,
    sub: &ArgMatches,
) -> Result<(), Failure> {
    if !target.allows(method.name) {
        let capability = method.capability.unwrap_or("");
        return Err(Failure::local(
            Local::Usage,
            format!(
                "the agent's card does not declare the {capability} capability {} needs",
                method.name
            ),
        ));
    }
    if let Some(refused) = generation::refusal(method, &params, false, target.transport.protocol_version()) {
        return Err(Failure::usage(refused));
    }
    target.with_tenant(method.name, &mut params);
    identifiers(ctx.settings, method, &mut params);
    let sends = target.sends_credentials;
    if method.streaming {
        let mut events = target
            .transport
            .subscribe_checked(method.name, params)
            .await
            .map_err(|e| ctx.fail(target, &e, sends))?;
        let status = live_status(ctx.output);
        while let Some(item) = events.next().await {
            match item {
                Ok(event) => {
                    ctx.debug.log(&format!("< event {}", event.data));
                    let write = || {
                        ctx.output
                            .line(&event.data, |out, value, _| text::generic(out, value))
                    };
                    match &status {
                        Some(bar) => {
                            bar.suspend(write);
                            bar.set_message(status_text(&event.data));
                        }
                        None => write(),
                    }
                }
                Err(error) => {
                    if let Some(bar) = &status {
                        bar.finish_and_clear();
                    }
                    let failure = match error {
                        StreamError::Call(e) => ctx.fail(target, &e, sends),
                        StreamError::Gap(gap) => Failure::local(Local::Internal, gap.to_string()),
                    };
                    ctx.output.failure(&failure);
                    return Err(failure.reported());
                }
            }
        }
        if let Some(bar) = status {
            bar.finish_and_clear();
        }
        return Ok(());
    }
    let result = target
        .transport
        .call(method.name, params.clone())
        .await
        .map_err(|e| ctx.fail(target, &e, sends))?;
    let follow = sub
        .try_get_one::<bool>("follow")
        .ok()
        .flatten()
        .copied()
        .unwrap_or(false);
    let is_task_page = method.name == <a2a::methods::markers::ListTasks as Method>::NAME;
    if follow {
        ctx.output
            .line(&result, |out, value, _| text::generic(out, value));
        let Some(task_id) = followed_task(&result) else {
            return Ok(());
        };
        let mut subscribe = json!({ "id": task_id });
        let tenant = params
            .get(crate::wire::A2A_NAMESPACE_FIELD)
            .or_else(|| params.get(crate::wire::EXTENSION_NAMESPACE_FIELD));
        if let Some(tenant) = tenant {
            subscribe[crate::wire::A2A_NAMESPACE_FIELD] = tenant.clone();
        }
        let name = a2a::methods::markers::SubscribeToTask::NAME;
        target.with_tenant(name, &mut subscribe);
        let mut events = target
            .transport
            .subscribe_checked(name, subscribe)
            .await
            .map_err(|e| ctx.fail(target, &e, sends))?;
        let mut tracked = text::Tracked::default();
        while let Some(item) = events.next().await {
            match item {
                Ok(event) => {
                    tracked.observe(&event.data);
                    ctx.output.line(&event.data, |out, value, verbose| {
                        text::stream_event(out, value, &tracked, verbose)
                    });
                    // An interrupted task waits for its caller: the follow ends there.
                    if crate::http::is_final_event(&event.data) {
                        break;
                    }
                }
                Err(StreamError::Call(e)) => {
                    let failure = ctx.fail(target, &e, sends);
                    ctx.output.failure(&failure);
                    return Err(failure.reported());
                }
                Err(StreamError::Gap(gap)) => {
                    let failure = Failure::local(Local::Internal, gap.to_string());
                    ctx.output.failure(&failure);
                    return Err(failure.reported());
                }
            }
        }
        return Ok(());
    }
    if ctx.output.stream && is_task_page {
        // `task list --stream`: one Task per line (Appendix B).
        for task in result["tasks"].as_array().into_iter().flatten() {
            ctx.output.line(task, text::task);
        }
        return Ok(());
    }
    ctx.output.document(&result, |out, value, verbose| {
        if is_task_page {
            text::task_list(out, value, verbose)
        } else {
            text::generic(out, value)
        }
    });
    Ok(())
}

/// The global `--context-id` and `--task-id` (and their variables) fill the
/// params members of those names, where a method has them and the command
/// line gave none (`task list --context-id C`).
fn identifiers(settings: &Settings, method: &MethodDescriptor, params: &mut Value) {
    let members = crate::schema::definition(method.params_type)
        .and_then(|d| d.get("properties"))
        .and_then(Value::as_object);
    let Some(members) = members else { return };
    for (long, member) in [(id::CONTEXT_ID, "contextId"), (id::TASK_ID, "taskId")] {
        if let (Some(value), Some(object)) = (settings.get(long), params.as_object_mut()) {
            if members.contains_key(member) && !object.contains_key(member) {
                object.insert(member.to_string(), Value::String(value.to_string()));
            }
        }
    }
}

/// A live status line on stderr, only when a person watches it.
fn live_status(output: &Output) -> Option<indicatif::ProgressBar> {
    (output.format == Format::Text && output::stderr_is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar.set_message("waiting for events…");
        bar
    })
}

/// The status line's text for an event.
fn status_text(event: &Value) -> String {
    // A domain event names its type; a task event may name its domain event
    // in its metadata under the extension's URI.
    let kind = event
        .get("type")
        .and_then(Value::as_str)
        .or_else(|| {
            event
                .pointer("/statusUpdate/metadata")
                .and_then(Value::as_object)
                .and_then(|m| m.values().find_map(|v| v.get("event").and_then(Value::as_str)))
        })
        .map(str::to_string);
    let state = crate::http::event_state(event).map(|s| s.to_string());
    match (kind, state) {
        (Some(kind), Some(state)) => format!("{kind} · {state}"),
        (Some(kind), None) => kind,
        (None, Some(state)) => state,
        (None, None) => "event".into(),
    }
}

/// The task id an answer names: `taskId`, or the `task` alternative's id (a
/// task that already ended is not followed).
fn followed_task(result: &Value) -> Option<String> {
    if let Some(id) = result.get("taskId").and_then(Value::as_str) {
        return Some(id.to_string());
    }
    let task = result.get("task")?;
    if crate::http::is_final_event(result) {
        return None;
    }
    task.get("id").and_then(Value::as_str).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_line_names_the_event() {
        assert_eq!(
            status_text(&json!({"type": "tool.invoked", "seq": 3})),
            "tool.invoked"
        );
        assert_eq!(
            status_text(
                &json!({"statusUpdate": {"status": {"state": "TASK_STATE_WORKING"},
                "metadata": {"urn:cleveragents:extensions:v1": {"event": "plan.state_changed"}}}})
            ),
            "plan.state_changed · TASK_STATE_WORKING"
        );
        assert_eq!(status_text(&json!({})), "event");
    }

    #[test]
    fn command_tree_is_valid() {
        command().debug_assert();
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
