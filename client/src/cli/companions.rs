//! The commands that run a companion program rather than call the agent:
//! `demo-server` (a2a-cli Tier 3: a local agent to practise on — the
//! project's own agent, in memory, with the conformance suites' scripted
//! behaviours) and `conformance` (Tier 2: the project's conformance gate,
//! `a2a-conformance`, run against the agent this command names).

use super::failure::{Failure, Local};
use super::output::{self, Format, Output};
use super::settings::{id, Settings};
use super::target::Target;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The conformance runner's executable name.
const RUNNER: &str = "a2a-conformance";
/// The line the agent prints once it listens.
const LISTENING: &str = "cleveragents-agent: listening on ";

/// `demo-server`.
pub fn demo_command() -> Command {
    Command::new("demo-server")
        .about("Run a local demo agent to practise on (in memory; messages starting tck-… choose a scripted behaviour)")
        .arg(
            Arg::new("listen")
                .long("listen")
                .value_name("ADDR")
                .default_value("127.0.0.1:0")
                .help("Address to serve on (loopback only)"),
        )
}

/// `conformance`.
pub fn conformance_command() -> Command {
    Command::new("conformance")
        .about("Check the agent against the A2A conformance gate (every MUST of the spec, over the chosen binding)")
        .arg(
            Arg::new("groups")
                .long("groups")
                .value_name("G1,G2")
                .help("Only these method groups (see `a2a-conformance --list-groups`)"),
        )
        .arg(
            Arg::new("strict")
                .long("strict")
                .action(ArgAction::SetTrue)
                .help("Judge SHOULD and stricter rules too (the gate's strict profile)"),
        )
}

/// A companion executable: beside this program, else on `PATH`.
fn companion(name: &str) -> PathBuf {
    let file = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&file)))
        .filter(|candidate| candidate.is_file())
        .unwrap_or_else(|| PathBuf::from(file))
}

/// `demo-server`: the agent in the foreground until it stops (Ctrl-C).
pub async fn demo_server(settings: &Settings, output: &Output, matches: &ArgMatches) -> Result<(), Failure> {
    let listen = matches
        .get_one::<String>("listen")
        .map_or("127.0.0.1:0", String::as_str);
    let loopback = listen
        .rsplit_once(':')
        .and_then(|(host, _)| {
            host.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .ok()
        })
        .is_some_and(|ip| ip.is_loopback());
    if !loopback {
        return Err(Failure::usage(format!(
            "--listen {listen}: the demo agent has no authentication, so it serves a loopback address only"
        )));
    }
    let program = settings
        .get(id::AGENT)
        .map(PathBuf::from)
        .unwrap_or_else(super::default_agent);
    let mut command = tokio::process::Command::new(&program);
    command
        .args([
            "--memory",
            "--executor",
            "tck",
            "--insecure-no-auth",
            "--listen",
            listen,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    ends_with_this_process(&mut command);
    let mut terminate = terminate_signal()?;
    let mut child = command.spawn().map_err(|e| {
        Failure::local(
            Local::Internal,
            format!("cannot start the demo agent {}: {e}", program.display()),
        )
        .hint("install cleveragents-agent beside this program or on PATH, or pass --agent PATH")
    })?;
    let stderr = child
        .stderr
        .take()
        .ok_or_else(|| Failure::local(Local::Internal, "no stderr of the demo agent"))?;
    let mut lines = BufReader::new(stderr).lines();
    let mut announced = false;
    loop {
        tokio::select! {
            line = lines.next_line() => match line {
                Ok(Some(line)) => {
                    if let (false, Some(url)) = (announced, line.strip_prefix(LISTENING)) {
                        announced = true;
                        let url = url.trim().to_string();
                        let card = format!("{}/.well-known/agent-card.json", url.trim_end_matches('/'));
                        output.document(&json!({ "url": url, "agentCard": card }), |out, value, _| {
                            out.field("URL", value["url"].as_str().unwrap_or(""));
                            out.field("Agent Card", value["agentCard"].as_str().unwrap_or(""));
                        });
                        eprintln!("demo agent ready: try `agents -a {url} send tck-complete-task hello`, `… send tck-multi-turn hi`, `… send --stream tck-stream-001 go`; Ctrl-C stops it");
                    } else {
                        eprintln!("{}", super::text::clean(&line));
                    }
                }
                Ok(None) | Err(_) => break,
            },
            _ = tokio::signal::ctrl_c() => {
                let _ = child.kill().await;
                return Ok(());
            }
            _ = terminate.recv() => {
                let _ = child.kill().await;
                return Ok(());
            }
        }
    }
    let status = child
        .wait()
        .await
        .map_err(|e| Failure::local(Local::Internal, e.to_string()))?;
    if status.success() {
        Ok(())
    } else {
        Err(Failure::local(
            Local::Internal,
            format!("the demo agent stopped: {status}"),
        ))
    }
}

/// Ctrl-C and SIGTERM stop the demo agent with this command; on Linux the
/// kernel also kills it if this process dies first (SIGKILL included), so
/// no demo agent outlives the command that started it.
#[cfg(target_os = "linux")]
fn ends_with_this_process(command: &mut tokio::process::Command) {
    use rustix::process::{getppid, set_parent_process_death_signal, Pid, Signal};
    let parent = Pid::from_raw(std::process::id() as i32);
    // SAFETY: the closure runs in the child between fork and exec and makes
    // only async-signal-safe system calls (prctl, getppid), allocating nothing.
    unsafe {
        command.pre_exec(move || {
            set_parent_process_death_signal(Some(Signal::KILL))?;
            // This process may have died before the signal was asked for.
            if getppid() != parent {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn ends_with_this_process(_command: &mut tokio::process::Command) {}

/// A stream of the SIGTERMs this process receives (none where there is no such signal).
#[cfg(unix)]
fn terminate_signal() -> Result<tokio::signal::unix::Signal, Failure> {
    use tokio::signal::unix::{signal, SignalKind};
    signal(SignalKind::terminate())
        .map_err(|e| Failure::local(Local::Internal, format!("cannot watch SIGTERM: {e}")))
}

#[cfg(not(unix))]
fn terminate_signal() -> Result<NoSignal, Failure> {
    Ok(NoSignal)
}

/// Where there is no SIGTERM: a signal that never comes.
#[cfg(not(unix))]
struct NoSignal;

#[cfg(not(unix))]
impl NoSignal {
    async fn recv(&mut self) -> Option<()> {
        std::future::pending().await
    }
}

/// `conformance`: the gate's command line for the agent `target` reaches.
fn runner_args(
    settings: &Settings,
    target: &Target,
    matches: &ArgMatches,
    report: &std::path::Path,
) -> Vec<String> {
    let mut args = Vec::new();
    match (&target.interface, &target.card_location) {
        (Some(interface), Some(card)) => {
            let jsonrpc = target
                .card
                .get("supportedInterfaces")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find(|i| i["protocolBinding"] == a2a::bindings::JSONRPC)
                .and_then(|i| i["url"].as_str())
                .map(str::to_string);
            let origin = reqwest::Url::parse(card)
                .map(|u| format!("{}/", u.origin().ascii_serialization()))
                .unwrap_or_default();
            args.extend(["--url".to_string(), jsonrpc.unwrap_or(origin)]);
            if card.starts_with("http") {
                args.extend(["--card".to_string(), card.clone()]);
            }
            if interface.binding == a2a::bindings::HTTP_JSON {
                args.extend(["--rest".to_string(), interface.url.clone()]);
            } else if interface.binding == a2a::bindings::GRPC {
                let scheme = if card.starts_with("https://") {
                    "https"
                } else {
                    "http"
                };
                let url = if interface.url.contains("://") {
                    interface.url.clone()
                } else {
                    format!("{scheme}://{}", interface.url)
                };
                args.extend(["--grpc".to_string(), url]);
            }
            if let Some(token) = settings.get(id::BEARER) {
                args.extend(["--token".to_string(), token.to_string()]);
            }
        }
        _ => {
            let program = settings
                .get(id::AGENT)
                .map(PathBuf::from)
                .unwrap_or_else(super::default_agent);
            args.extend([
                "--stdio".to_string(),
                format!(
                    "'{}' --stdio",
                    program.display().to_string().replace('\'', "'\\''")
                ),
            ]);
        }
    }
    if let Some(groups) = matches.get_one::<String>("groups") {
        args.extend(["--groups".to_string(), groups.clone()]);
    }
    if matches.get_flag("strict") {
        args.extend(["--profile".to_string(), "strict".to_string()]);
    }
    args.extend(["--json".to_string(), report.display().to_string()]);
    args
}

/// `conformance`: runs the gate; its verdict is the output (the command did
/// its job when the gate ran, whatever it found).
pub async fn conformance(
    settings: &Settings,
    output: &Output,
    debug: &super::debug::Debug,
    target: &Target,
    matches: &ArgMatches,
) -> Result<(), Failure> {
    let report = std::env::temp_dir().join(format!("agents-conformance-{}.json", std::process::id()));
    let args = runner_args(settings, target, matches, &report);
    let program = companion(RUNNER);
    debug.log(&format!("running {} {}", program.display(), args.join(" ")));
    let run = tokio::process::Command::new(&program)
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .await
        .map_err(|e| {
            Failure::local(
                Local::Internal,
                format!("cannot run the conformance gate {}: {e}", program.display()),
            )
            .hint(
                "build it with `cargo build --release -p cleveragents-conformance`, beside agents or on PATH",
            )
        })?;
    let text = std::fs::read_to_string(&report);
    let _ = std::fs::remove_file(&report);
    let document: Value = match text.ok().and_then(|t| serde_json::from_str(&t).ok()) {
        Some(document) => document,
        None => {
            return Err(Failure::local(
                Local::Internal,
                format!(
                    "the conformance gate gave no report: {}",
                    super::failure::one_line(&debug.redact(&String::from_utf8_lossy(&run.stderr)))
                ),
            ))
        }
    };
    let failed = document
        .pointer("/summary/failed")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    match output.format {
        Format::Json => output::stdout(&format!("{document}\n")),
        Format::Text => {
            let summary = &document["summary"];
            output.document(&document, |out, _, verbose| {
                out.field("Transport", document["transport"].as_str().unwrap_or(""));
                out.field("Result", if failed == 0 { "passed" } else { "failed" });
                for (label, key) in [
                    ("Cases", "total"),
                    ("Passed", "passed"),
                    ("Failed", "failed"),
                    ("Warnings", "warnings"),
                ] {
                    out.field(label, &summary[key].as_u64().unwrap_or(0).to_string());
                }
                for case in document["cases"].as_array().into_iter().flatten() {
                    let outcome = case["outcome"].as_str().unwrap_or("");
                    if outcome == "fail" || (verbose && outcome == "warning") {
                        out.field(
                            "Failure",
                            &format!(
                                "{} {}",
                                case["id"].as_str().unwrap_or(""),
                                case["detail"].as_str().unwrap_or("")
                            ),
                        );
                    }
                }
            });
        }
    }
    if failed > 0 {
        output::warn(&format!("the agent failed {failed} conformance case(s)"));
    }
    Ok(())
}
