//! The A2A 1.1 draft against the real agent binary (`cleveragents-agent`,
//! built beside `agents`), started with and without `--draft-version 1.1` on
//! the conformance executor: the version each transport picks from the card,
//! `tasks get --wait`, `--if-generation`, and their refusal where the agent
//! offers no 1.1.
//!
//! A `tck-multi-turn` message leaves its task input-required at generation
//! 2; another message to the task moves it on. Nothing here waits on time:
//! a long-poll is released by the send the test makes.

use crate::cli::{agents, Run};
use a2a::rpc::Transport as _;
use client::{GrpcTransport, HttpBinding, HttpConfig, HttpTransport, StdioConfig, StdioTransport};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

/// The agent binary next to `agents`, built (once) from the workspace so it
/// is the agent of this tree.
pub(crate) fn agent_binary() -> &'static PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let agents = PathBuf::from(env!("CARGO_BIN_EXE_agents"));
        let binary = agents.with_file_name(format!("cleveragents-agent{}", std::env::consts::EXE_SUFFIX));
        let profile = agents
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|n| n.to_str());
        if let (Some(cargo), Some(profile)) = (std::env::var_os("CARGO"), profile) {
            let mut build = Command::new(cargo);
            build.args([
                "build",
                "--quiet",
                "-p",
                "cleveragents-agent",
                "--bin",
                "cleveragents-agent",
            ]);
            if profile == "release" {
                build.arg("--release");
            }
            let status = build
                .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
                .status()
                .expect("run cargo build");
            assert!(status.success(), "building cleveragents-agent failed");
        }
        assert!(binary.is_file(), "no agent binary at {}", binary.display());
        binary
    })
}

/// The agent's arguments: in memory, the conformance executor, and the draft if asked.
fn agent_args(draft: bool) -> Vec<&'static str> {
    let mut args = vec!["--memory", "--executor", "tck"];
    if draft {
        args.extend(["--draft-version", "1.1"]);
    }
    args
}

fn agent_command(draft: bool) -> Command {
    let mut command = Command::new(agent_binary());
    command
        .args(agent_args(draft))
        .env_remove("CLEVERAGENTS_DRAFT_VERSIONS")
        .env_remove("CLEVERAGENTS_EXECUTOR");
    command
}

/// A real agent serving HTTP on an ephemeral loopback port; killed on drop.
pub(crate) struct Agent {
    child: Child,
    pub(crate) url: String,
}

impl Agent {
    pub(crate) fn start(draft: bool) -> Agent {
        Agent::start_with(draft, &[])
    }

    /// An agent started with `extra` arguments as well (`--config FILE`, say).
    pub(crate) fn start_with(draft: bool, extra: &[&str]) -> Agent {
        let mut child = agent_command(draft)
            .args(["--listen", "127.0.0.1:0", "--insecure-no-auth"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("agent starts");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let url = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|line| {
                line.strip_prefix("cleveragents-agent: listening on ")
                    .map(str::to_string)
            })
            .expect("the agent reports its address");
        // Keep draining its log so it never blocks writing it.
        std::thread::spawn(move || lines.for_each(drop));
        Agent {
            child,
            url: url.trim().to_string(),
        }
    }

    fn server_args(&self) -> Vec<String> {
        vec!["--agent-card".into(), self.url.clone()]
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn run(agent: &Agent, args: &[&str]) -> Run {
    let mut all: Vec<String> = agent.server_args();
    all.extend(args.iter().map(|a| a.to_string()));
    agents(&all.iter().map(String::as_str).collect::<Vec<_>>())
}

pub(crate) fn json_of(run: &Run) -> Value {
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    serde_json::from_str(run.stdout.trim()).expect("JSON output")
}

/// A `tck-multi-turn` task: input-required at generation 2 (where generations are kept).
fn multi_turn_task(agent: &Agent) -> (String, Value) {
    let answer = json_of(&run(agent, &["-o", "json", "send", "tck-multi-turn", "hello"]));
    let task = answer["task"].clone();
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    (task["id"].as_str().expect("task id").to_string(), task)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The version every transport speaks, and whether GetTask carries a generation.
pub fn transports_speak_1_1_only_where_the_card_offers_it() {
    for (draft, version) in [(false, "1.0"), (true, "1.1")] {
        let agent = Agent::start(draft);
        let (id, task) = multi_turn_task(&agent);
        assert_eq!(task.get("generation"), draft.then(|| json!(2)).as_ref());
        runtime().block_on(async {
            let config = HttpConfig::new(agent.url.clone());
            let plain = HttpTransport::new(config.clone()).expect("transport");
            assert_eq!(
                plain.protocol_version(),
                "1.0",
                "no card read: the released version"
            );
            let jsonrpc = HttpTransport::negotiated(config.clone()).await.expect("JSON-RPC");
            let rest = HttpTransport::from_card(config.clone(), HttpBinding::Rest)
                .await
                .expect("REST");
            let grpc = GrpcTransport::from_card(config.clone()).await.expect("gRPC");
            let versions = [
                jsonrpc.protocol_version(),
                rest.protocol_version(),
                grpc.protocol_version(),
            ];
            assert_eq!(versions, [version; 3], "draft {draft}");
            let get = || json!({ "id": id.clone(), "historyLength": 0 });
            for (name, answer) in [
                ("jsonrpc", jsonrpc.call("GetTask", get()).await),
                ("rest", rest.call("GetTask", get()).await),
                ("grpc", grpc.call("GetTask", get()).await),
            ] {
                let answer = answer.unwrap_or_else(|e| panic!("{name}: {e}"));
                let generation = client::generation::generation_of(&answer);
                assert_eq!(generation, draft.then_some(2), "{name}, draft {draft}");
            }
            let mut stdio = StdioConfig::new(agent_binary());
            stdio.args = std::iter::once("--stdio")
                .chain(agent_args(draft))
                .map(std::ffi::OsString::from)
                .collect();
            let stdio = StdioTransport::spawn(stdio).await.expect("stdio agent");
            assert_eq!(stdio.protocol_version(), version, "stdio, draft {draft}");
            assert_eq!(stdio.session()["protocolVersion"], version);
            stdio.shutdown().await.expect("shutdown");
        });
        // The CLI shows the generation where 1.1 is spoken.
        let shown = json_of(&run(&agent, &["-o", "json", "task", "get", &id]));
        assert_eq!(shown.get("generation"), draft.then(|| json!(2)).as_ref());
    }
}

/// `task get --wait` polls a working task until it ends: held by the agent
/// where it speaks 1.1 (long-polling reads), at `--poll-interval` otherwise.
pub fn cli_wait_returns_when_the_task_ends() {
    for draft in [true, false] {
        let agent = Agent::start(draft);
        let started = json_of(&run(
            &agent,
            &["-o", "json", "send", "--async", "tck-long-running", "go"],
        ));
        let id = started["task"]["id"].as_str().expect("task id").to_string();
        let waited = run(
            &agent,
            &[
                "-o",
                "json",
                "--poll-interval",
                "200ms",
                "task",
                "get",
                &id,
                "--wait",
            ],
        );
        let task = json_of(&waited);
        assert_eq!(
            (task["id"].as_str(), task["status"]["state"].as_str()),
            (Some(id.as_str()), Some("TASK_STATE_COMPLETED")),
            "draft {draft}"
        );
        assert!(
            waited.stderr.starts_with(&format!("waiting for task {id} ")),
            "{}",
            waited.stderr
        );
    }
}

/// A wait nothing ends is bounded by `--timeout`: exit 5, A2ACLI_ERR_TIMEOUT,
/// naming the task so it can be picked up.
pub fn cli_wait_is_bounded_by_the_timeout() {
    let agent = Agent::start(true);
    let started = json_of(&run(
        &agent,
        &["-o", "json", "send", "--async", "tck-cancel", "go"],
    ));
    let id = started["task"]["id"].as_str().expect("task id").to_string();
    for binding in ["JSONRPC", "GRPC"] {
        let answer = run(
            &agent,
            &[
                "-o",
                "json",
                "--transport",
                binding,
                "--timeout",
                "1s",
                "task",
                "get",
                &id,
                "--wait",
            ],
        );
        assert_eq!(answer.code, 5, "{binding}: {}", answer.stderr);
        let envelope: Value = serde_json::from_str(&answer.stdout).expect("envelope");
        assert_eq!(envelope["error"]["code"], "A2ACLI_ERR_TIMEOUT", "{binding}");
        assert_eq!(
            envelope["error"]["hint"],
            json!(format!("the task goes on: `agents task get {id} --wait`")),
            "{binding}"
        );
    }
    // The send's own wait is bounded the same way.
    let answer = run(&agent, &["--timeout", "1s", "send", "tck-cancel", "again"]);
    assert_eq!(answer.code, 5, "{}", answer.stderr);
    assert!(
        answer.stderr.contains("Code: A2ACLI_ERR_TIMEOUT\n"),
        "{}",
        answer.stderr
    );
}

/// A send on a stale generation is refused with TaskGenerationMismatchError
/// on every binding, blocking or streamed; on the current one it goes through.
pub fn cli_if_generation_refuses_a_stale_send() {
    let agent = Agent::start(true);
    let (id, _) = multi_turn_task(&agent);
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        for stream in [false, true] {
            let mut args = vec!["-o", "json", "--transport", binding];
            if stream {
                args.push("--stream");
            }
            args.extend(["send", "--task-id", &id, "--if-generation", "1", "more"]);
            let stale = run(&agent, &args);
            assert_eq!(stale.code, 1, "{binding} {stream}: {}", stale.stderr);
            let last = stale.stdout.lines().last().unwrap_or_default().to_string();
            let envelope: Value = serde_json::from_str(&last).expect("envelope");
            assert_eq!(
                envelope["error"]["code"], "TaskGenerationMismatchError",
                "{binding} {stream}"
            );
        }
    }
    let current = json_of(&run(
        &agent,
        &[
            "-o",
            "json",
            "send",
            "--task-id",
            &id,
            "--if-generation",
            "2",
            "more",
        ],
    ));
    assert!(
        current["task"]["generation"].as_i64().is_some_and(|g| g > 2),
        "{current}"
    );
}

/// Without the draft, `--if-generation` is not sent: a usage error naming the
/// version, on every binding and over stdio.
pub fn cli_generations_need_an_agent_offering_1_1() {
    let agent = Agent::start(false);
    let (id, _) = multi_turn_task(&agent);
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        let send = run(
            &agent,
            &[
                "--transport",
                binding,
                "send",
                "--task-id",
                &id,
                "--if-generation",
                "2",
                "x",
            ],
        );
        assert_eq!(
            (send.code, send.stderr.as_str()),
            (
                2,
                "Error: --if-generation needs A2A 1.1, which the agent does not offer here (it speaks 1.0)\nCode: A2ACLI_ERR_USAGE\n"
            )
        );
    }
    // Over stdio as well: the session was initialized in 1.0.
    let agent_path = agent_binary().display().to_string();
    let mut args = vec!["--agent", agent_path.as_str(), "--agent-arg", "--stdio"];
    for arg in agent_args(false) {
        args.extend(["--agent-arg", arg]);
    }
    args.extend(["send", "--task-id", "any", "--if-generation", "2", "x"]);
    let send = agents(&args);
    assert_eq!(send.code, 2, "{}", send.stderr);
}
