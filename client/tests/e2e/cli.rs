//! The `agents` CLI over stdio and HTTP: every command's `--json` output valid
//! and equal to its schema example, text output and `--follow`, exit codes
//! per error, the agent card and shell completions.

use crate::agent::{examples, http_agent, ADMIN_KEY, AGENT_ENV, TOKEN};
use client::cli::render;
use serde_json::{json, Value};
use std::process::Command;

pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub(crate) fn agents(args: &[&str]) -> Run {
    // A data directory without an admin key: no test reads the user's own.
    let no_data = std::env::temp_dir().join(format!("agents-e2e-no-data-{}", std::process::id()));
    agents_in(args, &no_data)
}

/// `agents` with `data_dir` as the local agent's data directory.
fn agents_in(args: &[&str], data_dir: &std::path::Path) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_agents"))
        .args(args)
        .env(a2a::rpc::local::DATA_DIR_ENV, data_dir)
        .env(AGENT_ENV, "1")
        .env(
            "CLEVERAGENTS_AGENT",
            std::env::current_exe().expect("test executable"),
        )
        .env_remove("CLEVERAGENTS_SERVER")
        .env_remove("CLEVERAGENTS_TOKEN")
        .env_remove("CLEVERAGENTS_API_KEY")
        .output()
        .expect("run agents");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn server_args() -> Vec<String> {
    vec![
        "--server".into(),
        format!("http://{}/", http_agent()),
        "--token".into(),
        TOKEN.into(),
    ]
}

fn validator(type_name: &str) -> jsonschema::Validator {
    jsonschema::validator_for(&client::schema::standalone(type_name)).expect("schema compiles")
}

fn assert_valid(type_name: &str, value: &Value) {
    let validator = validator(type_name);
    let errors: Vec<String> = validator.iter_errors(value).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{type_name}: {errors:?}");
}

/// Runs every method's command with its schema example as `--params` and
/// checks the `--json` output: valid against the result schema and equal to the
/// example answer.
fn every_command_json(mode: &[String]) {
    let mut count = 0;
    for method in a2a::METHODS {
        let Some(path) = client::cli::tree::command_path(method) else {
            continue;
        };
        let example = &examples()[method.name];
        let params = example.params.to_string();
        let mut args: Vec<&str> = mode.iter().map(String::as_str).collect();
        args.push("--json");
        args.extend(path.iter().map(String::as_str));
        args.extend(["--params", params.as_str()]);
        let run = agents(&args);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", method.name);
        let lines: Vec<Value> = run
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON line"))
            .collect();
        for line in &lines {
            assert_valid(method.result_type, line);
        }
        if method.streaming {
            assert_eq!(Some(lines), example.events, "{}", method.name);
        } else {
            // The server answers GetExtendedAgentCard itself, with its own card.
            if method.name != "GetExtendedAgentCard" {
                assert_eq!(
                    lines,
                    [example.result.clone().unwrap_or(Value::Null)],
                    "{}",
                    method.name
                );
            }
        }
        count += 1;
    }
    assert_eq!(count, a2a::METHODS.iter().filter(|m| m.is_dispatched()).count());
}

pub fn cli_every_command_json_over_stdio() {
    every_command_json(&[]);
}

pub fn cli_every_command_json_over_http() {
    every_command_json(&server_args());
}

pub fn cli_every_command_json_over_rest() {
    let mut args = server_args();
    args.extend(["--binding".to_string(), "rest".to_string()]);
    every_command_json(&args);
}

pub fn cli_text_output_and_follow() {
    let ex = examples();
    // plan execute --follow: the result, then the task's events in order.
    let run = agents(&[
        "plan",
        "execute",
        "5b0e8c1e-3a41-4f0a-9d2c-7a1e2f4b9c10",
        "--namespace",
        "acme",
        "--follow",
    ]);
    let execution = ex["_cleveragents/plan/execute"]
        .result
        .clone()
        .unwrap_or_default();
    let expected = format!(
        "{}{}",
        render::result_text(&execution),
        "#1 task 8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b working\n\
         #2 artifact q3-summary: - Revenue grew 12% quarter over quarter. - EMEA overtook North America as the largest region. - Hardware margins fell 3 points on component costs.\n\
         #3 status completed\n"
    );
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, expected.as_str(), "")
    );
    assert!(run
        .stdout
        .starts_with("plan:\n  id: 5b0e8c1e-3a41-4f0a-9d2c-7a1e2f4b9c10\n"));

    // The same over HTTP, with --json: the result line, then one line per event.
    let mut args = server_args();
    args.extend(["--json", "plan", "execute", "p", "--follow"].map(String::from));
    let run = agents(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let mut expected = vec![execution];
    expected.extend(ex["SubscribeToTask"].events.clone().unwrap_or_default());
    assert_eq!((run.code, lines), (0, expected));

    // A page of tasks as a table.
    let run = agents(&["tasks", "list"]);
    let (id, ctx) = (
        "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b",
        "c3f1a2b4-7d5e-4c1a-9b8e-2f6d0a1e5c77",
    );
    let expected = format!(
        "{:<36}  {:<36}  {:<12}  STATUS.TIMESTAMP\n{id}  {ctx}  COMPLETED     2025-11-03T09:14:27.512Z\npageSize: 10\ntotalSize: 1\n",
        "ID", "CONTEXTID", "STATUS.STATE"
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, expected.as_str()));

    // `send "text"` builds the message from its words.
    let run = agents(&["--json", "send", "Summarize", "the", "report"]);
    let answer: Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
    assert_eq!((run.code, Some(answer)), (0, ex["SendMessage"].result.clone()));

    // `registry actions add -f action.json` with just the action spec in the file.
    let spec = ex["_cleveragents/registry/actions/add"].params["action"].clone();
    let path = std::env::temp_dir().join(format!("agents-e2e-action-{}.json", std::process::id()));
    std::fs::write(&path, spec.to_string()).expect("write spec");
    let path_text = path.to_string_lossy().into_owned();
    let run = agents(&[
        "--json",
        "registry",
        "actions",
        "add",
        "-f",
        &path_text,
        "--namespace",
        "acme",
    ]);
    let _ = std::fs::remove_file(&path);
    let answer: Value = serde_json::from_str(run.stdout.trim()).unwrap_or(Value::Null);
    assert_eq!(
        (run.code, run.stderr.as_str(), Some(answer)),
        (0, "", ex["_cleveragents/registry/actions/add"].result.clone())
    );
}

/// `agents events …` is the namespace event stream (`events subscribe`): the
/// same events over stdio and HTTP, as JSON lines with `--json` and one text
/// line per event otherwise.
pub fn cli_events_command() {
    let ex = examples();
    let expected = ex["_cleveragents/events/subscribe"]
        .events
        .clone()
        .unwrap_or_default();
    let filter = ["--type", "session.message"];
    for mode in [vec![], server_args()] {
        for command in [&["events"][..], &["events", "subscribe"][..]] {
            let mut args: Vec<&str> = mode.iter().map(String::as_str).collect();
            args.push("--json");
            args.extend(command);
            args.extend(filter);
            let run = agents(&args);
            let lines: Vec<Value> = run
                .stdout
                .lines()
                .map(|l| serde_json::from_str(l).expect("JSON line"))
                .collect();
            assert_eq!(
                (run.code, run.stderr.as_str(), &lines),
                (0, "", &expected),
                "{args:?}"
            );
        }
        let mut args: Vec<&str> = mode.iter().map(String::as_str).collect();
        args.extend([
            "events",
            "--plan",
            "p1",
            "--type",
            "tool.invoked",
            "--type",
            "plan.error",
            "--follow",
        ]);
        let run = agents(&args);
        let task = "9d3e5f7a-1b2c-4d6e-8f0a-2b4c6d8e0f13";
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (
                0,
                format!("#1 session.message task {task}#1: task {task} submitted\n").as_str(),
                ""
            ),
            "{args:?}"
        );
    }
    // A type the schema does not name is a usage error, before any call.
    let run = agents(&["events", "--type", "plan.bogus"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
}

pub fn cli_error_exit_codes() {
    let cases: Vec<(Vec<String>, i32, String)> = vec![
        (
            vec!["tasks".into(), "get".into(), "missing".into()],
            4,
            "error: No such thing as `missing` here (TASK_NOT_FOUND)\n".into(),
        ),
        (
            vec!["plan".into(), "status".into(), "missing".into()],
            4,
            "error: No such thing as `missing` here (NOT_FOUND)\n".into(),
        ),
        (
            vec!["plan".into(), "cancel".into(), "done".into()],
            7,
            "error: Plan `done` already ended (INVALID_STATE)\n".into(),
        ),
        (
            vec!["plan".into(), "status".into()],
            2,
            "error: missing required <PLAN_ID> for _cleveragents/plan/status\n".into(),
        ),
        (
            vec!["tasks".into(), "list".into(), "--params".into(), "{".into()],
            2,
            "error: --params is not valid JSON: EOF while parsing an object at line 1 column 1\n".into(),
        ),
        (
            vec!["--agent".into(), "/nonexistent/agent".into(), "health".into(), "check".into()],
            3,
            "error: cannot reach the agent: cannot start agent `/nonexistent/agent`: No such file or directory (os error 2)\n".into(),
        ),
    ];
    for (args, code, stderr) in cases {
        let run = agents(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(
            (run.code, run.stderr.as_str(), run.stdout.as_str()),
            (code, stderr.as_str(), ""),
            "{args:?}"
        );
    }
    // session/list arrived in 1.2: a 1.1 session does not have it.
    let run = agents(&["--extension-version", "1.1", "session", "list"]);
    assert_eq!(run.code, 8);
    assert!(
        run.stderr.starts_with("error: ") && run.stderr.ends_with("(METHOD_NOT_FOUND)\n"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1);
    // An unsupported minor version (unknown, or retired as 1.0 is) is refused at initialize.
    for version in ["1.9", "1.0"] {
        let run = agents(&["--extension-version", version, "health", "check"]);
        assert_eq!(run.code, 8);
        assert!(run.stderr.ends_with("(VERSION_MISMATCH)\n"), "{}", run.stderr);
    }
    // Unknown command: clap's usage error.
    assert_eq!(agents(&["bogus"]).code, 2);
    // Server mode: no token, wrong token, nobody listening.
    let url = format!("http://{}/", http_agent());
    let run = agents(&["--server", &url, "health", "check"]);
    assert_eq!(run.code, 5);
    assert!(run.stderr.ends_with("(AUTH_REQUIRED)\n"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1);
    let run = agents(&["--server", &url, "--token", "wrong", "health", "check"]);
    assert_eq!(run.code, 5);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed_url = format!("http://{}/", closed.local_addr().expect("addr"));
    drop(closed);
    let run = agents(&["--server", &closed_url, "--retries", "0", "health", "check"]);
    assert_eq!(run.code, 3);
    assert!(
        run.stderr.starts_with("error: cannot reach the agent: "),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1);
}

pub fn cli_card_and_completions() {
    let run = agents(&["--json", "card"]);
    let card: Value = serde_json::from_str(run.stdout.trim()).expect("card JSON");
    assert_eq!((run.code, &card["name"]), (0, &json!("CleverAgents")));
    assert_valid("AgentCard", &card);
    let mut args = server_args();
    args.extend(["--json".into(), "card".into()]);
    let run = agents(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let card: Value = serde_json::from_str(run.stdout.trim()).expect("card JSON");
    assert_eq!((run.code, &card["name"]), (0, &json!("CleverAgents")));
    assert_valid("AgentCard", &card);
    for shell in ["bash", "zsh", "fish"] {
        let run = agents(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}");
        assert!(run.stdout.contains("registry"), "{shell}");
    }
    let run = agents(&["--help"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("Exit codes:\n   0  success\n"));
}

/// `agents openrpc` asks the agent (`rpc.discover`) over stdio and HTTP and
/// prints the contract's document; the HTTP server also serves it, public,
/// at `GET /openrpc.json`.
pub fn cli_openrpc_over_both_transports() {
    let expected: Value = serde_json::from_str(a2a::openrpc::DOCUMENT).expect("document");
    let run = agents(&["--json", "openrpc"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let local: Value = serde_json::from_str(run.stdout.trim()).expect("document JSON");
    assert_eq!(local, expected);
    let mut args = server_args();
    args.push("openrpc".into());
    let run = agents(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let remote: Value = serde_json::from_str(&run.stdout).expect("pretty document JSON");
    assert_eq!(remote, expected);
    assert!(run.stdout.starts_with("{\n  \""), "pretty-printed without --json");
    let (status, content_type, body) = crate::agent::runtime().block_on(async {
        let response = reqwest::get(format!("http://{}/openrpc.json", http_agent()))
            .await
            .expect("GET /openrpc.json");
        let status = response.status().as_u16();
        let content_type = response.headers().get("content-type").cloned();
        (status, content_type, response.text().await.expect("body"))
    });
    assert_eq!(status, 200, "served without credentials");
    assert_eq!(
        content_type.as_ref().and_then(|v| v.to_str().ok()),
        Some("application/json")
    );
    assert_eq!(body, a2a::openrpc::DOCUMENT);
}

/// Without credentials, a server on this machine is called with the admin API
/// key of the local data directory; without a key there, it answers 401.
pub fn cli_uses_the_local_admin_key_for_a_loopback_server() {
    let dir = std::env::temp_dir().join(format!("agents-e2e-data-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("data dir");
    let key_file = a2a::rpc::local::admin_key_path(&dir);
    std::fs::write(&key_file, format!("{ADMIN_KEY}\n")).expect("key written");
    let url = format!("http://{}/", http_agent());
    let args = ["--server", url.as_str(), "--json", "health", "check"];
    let run = agents_in(&args, &dir);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (0, ""),
        "with the local admin key"
    );
    std::fs::remove_file(&key_file).expect("key removed");
    let run = agents_in(&args, &dir);
    assert_eq!(run.code, client::cli::exit::AUTH, "without a key: {}", run.stderr);
    assert!(run.stderr.contains("AUTH_REQUIRED"), "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `agents card --verify` checks the card's signatures against a JWK Set
/// over stdio and HTTP: the signers' keys verify, an impostor's key under the
/// same kid does not (exit 5), and without keys it is a usage error.
pub fn cli_card_verify_checks_signatures() {
    let signers = crate::agent::test_key("card-signers.jwks.json");
    let impostor = crate::agent::test_key("impostor.jwks.json");
    let signers = signers.to_str().expect("path");
    let impostor = impostor.to_str().expect("path");
    let mut http = server_args();
    http.extend(["--json".into(), "card".into(), "--verify".into()]);
    let http: Vec<&str> = http.iter().map(String::as_str).collect();
    let stdio = ["--json", "card", "--verify"];
    for (mode, args) in [("stdio", &stdio[..]), ("http", &http[..])] {
        let mut with = vec!["--trusted-keys", signers];
        with.extend_from_slice(args);
        let run = agents(&with);
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        assert_eq!(
            run.stderr.trim(),
            "verified: signed by test-es256, test-rs256",
            "{mode}"
        );
        let card: Value = serde_json::from_str(run.stdout.trim()).expect("card JSON");
        assert_eq!(card["signatures"].as_array().map(Vec::len), Some(2), "{mode}");

        let mut with = vec!["--trusted-keys", impostor];
        with.extend_from_slice(args);
        let run = agents(&with);
        assert_eq!(run.code, 5, "{mode}: {}", run.stderr);
        assert!(
            run.stderr.contains(
                "the Agent Card's signature by `test-es256` does not verify: the card is not what was signed"
            ),
            "{mode}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{mode}: an unverified card is not printed");

        let run = agents(args);
        assert_eq!(run.code, 2, "{mode}: {}", run.stderr);
        assert!(
            run.stderr.contains("card --verify needs --trusted-keys"),
            "{mode}: {}",
            run.stderr
        );
    }
}
