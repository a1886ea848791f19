//! The `agents` CLI over stdio and HTTP: every command's `-o json` output
//! valid and equal to its schema example, text output and `--follow`, the
//! error envelope and exit status of each failure, the agent card, its
//! signatures and shell completions.

use crate::agent::{examples, http_agent, ADMIN_KEY, AGENT_ENV, TOKEN};
use client::cli::text;
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

/// A directory of the test's own for the CLI's home and working directory,
/// so no configuration of the machine's user (a `.env`, `~/.config/a2a-cli`)
/// reaches the tool.
pub(crate) fn isolated_home() -> std::path::PathBuf {
    let home = std::env::temp_dir().join(format!("agents-e2e-home-{}", std::process::id()));
    std::fs::create_dir_all(&home).expect("home");
    home
}

/// The `agents` command, isolated from the user's configuration.
pub(crate) fn agents_command() -> Command {
    let home = isolated_home();
    let mut command = Command::new(env!("CARGO_BIN_EXE_agents"));
    command
        .current_dir(&home)
        .env("HOME", &home)
        .env_remove("XDG_CONFIG_HOME")
        .env(AGENT_ENV, "1")
        .env("A2ACLI_AGENT", std::env::current_exe().expect("test executable"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("A2ACLI_") && name != "A2ACLI_AGENT" {
            command.env_remove(name);
        }
    }
    command
}

/// `agents` with `data_dir` as the local agent's data directory.
fn agents_in(args: &[&str], data_dir: &std::path::Path) -> Run {
    let output = agents_command()
        .args(args)
        .env(a2a::rpc::local::DATA_DIR_ENV, data_dir)
        .stdin(std::process::Stdio::null())
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
        "--agent-card".into(),
        format!("http://{}/", http_agent()),
        "--bearer".into(),
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

/// The events a command shows of `events`: up to the first that settles
/// the task (the standard's commands stop there), or all of them.
fn shown_events(method: &a2a::MethodDescriptor, events: Vec<Value>) -> Vec<Value> {
    if client::cli::tree::standard_invocation(method.name).is_none() {
        return events;
    }
    let end = events
        .iter()
        .position(client::http::is_final_event)
        .map_or(events.len(), |i| i + 1);
    events[..end].to_vec()
}

/// Runs every method's command with its schema example as `--params` and
/// checks the `-o json` output: valid against the result schema and equal to
/// the example answer.
fn every_command_json(mode: &[String]) {
    let mut count = 0;
    for method in a2a::METHODS {
        let Some(mut words) = client::cli::tree::invocation(method) else {
            continue;
        };
        if method.name == "SendMessage" {
            // The answer as it comes, not the task once settled.
            words.push("--async".into());
        }
        let example = &examples()[method.name];
        let params = example.params.to_string();
        let mut args: Vec<&str> = mode.iter().map(String::as_str).collect();
        args.extend(["-o", "json"]);
        args.extend(words.iter().map(String::as_str));
        // (`card get --extended` takes no params: the card is the agent's.)
        if method.name != "GetExtendedAgentCard" {
            args.extend(["--params", params.as_str()]);
        }
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
            let expected = example.events.clone().map(|events| shown_events(method, events));
            assert_eq!(Some(lines), expected, "{}", method.name);
        } else if method.name != "GetExtendedAgentCard" {
            // (The server answers GetExtendedAgentCard itself, with its own card.)
            assert_eq!(
                lines,
                [example.result.clone().unwrap_or(Value::Null)],
                "{}",
                method.name
            );
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
    args.extend(["--transport".to_string(), "HTTP+JSON".to_string()]);
    every_command_json(&args);
}

/// Text as the tool renders a generic result.
fn generic_text(value: &Value) -> String {
    let mut out = text::Text::new();
    text::generic(&mut out, value);
    out.finish()
}

pub fn cli_text_output_and_follow() {
    let ex = examples();
    // plan execute --follow: the result, then the task's events in order,
    // each restating the task, its context and its state.
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
    let (task, context) = (
        "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b",
        "c3f1a2b4-7d5e-4c1a-9b8e-2f6d0a1e5c77",
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let result_text = generic_text(&execution);
    assert!(
        result_text.starts_with("plan.id: 5b0e8c1e-3a41-4f0a-9d2c-7a1e2f4b9c10\n"),
        "{result_text}"
    );
    let events = run
        .stdout
        .strip_prefix(&format!("{result_text}\n"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    // Each record starts at its `Event:` field (a block's blank line closes the block, not the record).
    let records: Vec<&str> = events.split("Event: ").filter(|r| !r.is_empty()).collect();
    assert_eq!(records.len(), 3, "{events}");
    assert!(records[0].starts_with(&format!(
        "task\nTask ID: {task}\nContext ID: {context}\nState: TASK_STATE_WORKING\n"
    )));
    assert!(records[1].starts_with(&format!(
        "artifact-update\nTask ID: {task}\nContext ID: {context}\nState: TASK_STATE_WORKING\nLast Chunk: true\nArtifact ID: "
    )));
    assert!(
        records[1].contains("Text:\n  - Revenue grew 12% quarter over quarter.\n"),
        "{}",
        records[1]
    );
    assert!(records[2].starts_with(&format!(
        "status-update\nTask ID: {task}\nContext ID: {context}\nState: TASK_STATE_COMPLETED\n"
    )));

    // The same over HTTP, with -o json: the result line, then one line per event.
    let mut args = server_args();
    args.extend(["-o", "json", "plan", "execute", "p", "--follow"].map(String::from));
    let run = agents(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let mut expected = vec![execution];
    expected.extend(ex["SubscribeToTask"].events.clone().unwrap_or_default());
    assert_eq!((run.code, lines), (0, expected));

    // A page of tasks: one record per task, then the page's fields.
    let run = agents(&["task", "list"]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (
            0,
            format!(
                "Task ID: {task}\nContext ID: {context}\nState: TASK_STATE_COMPLETED\nTimestamp: 2025-11-03T09:14:27.512Z\n\nTotal Size: 1\n"
            )
            .as_str()
        )
    );
    // With --stream: one Task per line.
    let run = agents(&["-o", "json", "--stream", "task", "list"]);
    let page = ex["ListTasks"].result.clone().unwrap_or_default();
    assert_eq!(
        (run.code, run.stdout.trim()),
        (0, page["tasks"][0].to_string().as_str())
    );

    // `send --async "text"` builds the message from its words.
    let run = agents(&["-o", "json", "send", "--async", "Summarize", "the", "report"]);
    let answer: Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
    assert_eq!((run.code, Some(answer)), (0, ex["SendMessage"].result.clone()));

    // `registry actions add -f action.json` with just the action spec in the file.
    let spec = ex["_cleveragents/registry/actions/add"].params["action"].clone();
    let path = std::env::temp_dir().join(format!("agents-e2e-action-{}.json", std::process::id()));
    std::fs::write(&path, spec.to_string()).expect("write spec");
    let path_text = path.to_string_lossy().into_owned();
    let run = agents(&[
        "-o",
        "json",
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
/// same events over stdio and HTTP, as JSON lines with `-o json` and one text
/// record per event otherwise.
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
            args.extend(["-o", "json"]);
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
        let text: String = expected
            .iter()
            .map(|e| format!("{}\n", generic_text(e)))
            .collect();
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (0, text.as_str(), ""),
            "{args:?}"
        );
        assert!(run.stdout.contains("type: session.message\n"), "{}", run.stdout);
    }
    // A type the schema does not name is a usage error, before any call.
    let run = agents(&["events", "--type", "plan.bogus"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(run.stderr.contains("Code: A2ACLI_ERR_USAGE\n"), "{}", run.stderr);
}

/// The error text a failure writes on stderr.
fn error_text(message: &str, code: &str, a2a_code: Option<i64>, hint: Option<&str>) -> String {
    let mut out = format!("Error: {message}\nCode: {code}\n");
    if let Some(a2a_code) = a2a_code {
        out.push_str(&format!("A2A Code: {a2a_code}\n"));
    }
    if let Some(hint) = hint {
        out.push_str(&format!("Hint: {hint}\n"));
    }
    out
}

pub fn cli_error_exit_codes() {
    let missing = "No such thing as `missing` here";
    let cases: Vec<(Vec<&str>, i32, String)> = vec![
        (vec!["task", "get", "missing"], 1, error_text(missing, "TaskNotFoundError", Some(-32001), None)),
        (vec!["plan", "status", "missing"], 1, error_text(missing, "CLEVERAGENTS_NOT_FOUND", Some(-32001), None)),
        (
            vec!["plan", "cancel", "done"],
            1,
            error_text("Plan `done` already ended", "CLEVERAGENTS_INVALID_STATE", Some(-32004), None),
        ),
        (
            vec!["plan", "status"],
            2,
            error_text("missing required <PLAN_ID> for _cleveragents/plan/status", "A2ACLI_ERR_USAGE", None, None),
        ),
        (
            vec!["task", "list", "--params", "{"],
            2,
            error_text(
                "--params is not valid JSON: EOF while parsing an object at line 1 column 1",
                "A2ACLI_ERR_USAGE",
                None,
                None,
            ),
        ),
        (
            vec!["send"],
            2,
            error_text("nothing to send: give the text, or --text, --file or --data", "A2ACLI_ERR_USAGE", None, None),
        ),
        (
            vec!["send", "--media-type", "text/plain", "--text", "x"],
            2,
            error_text(
                "--media-type text/plain follows no --text, --file or --data: put it right after the part it describes",
                "A2ACLI_ERR_USAGE",
                None,
                None,
            ),
        ),
        (
            vec!["--async", "--stream", "send", "x"],
            2,
            error_text(
                "--async and --stream do not go together: --async returns at once, --stream follows",
                "A2ACLI_ERR_USAGE",
                None,
                None,
            ),
        ),
    ];
    for (args, code, stderr) in cases {
        let run = agents(&args);
        assert_eq!(
            (run.code, run.stderr.as_str(), run.stdout.as_str()),
            (code, stderr.as_str(), ""),
            "{args:?}"
        );
    }
    // In JSON, the envelope is the one document on stdout.
    let run = agents(&["-o", "json", "task", "get", "missing"]);
    assert_eq!((run.code, run.stderr.as_str()), (1, ""));
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout).ok(),
        Some(
            json!({"error": {"code": "TaskNotFoundError", "message": missing, "hint": null, "a2aCode": -32001}})
        )
    );
    let run = agents(&["-o", "json", "bogus"]);
    assert_eq!(run.code, 2);
    let envelope: Value = serde_json::from_str(&run.stdout).expect("envelope");
    assert_eq!(envelope["error"]["code"], "A2ACLI_ERR_USAGE");
    // The local agent cannot be started: unreachable, exit 3.
    let run = agents(&["--agent", "/nonexistent/agent", "health", "check"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("Code: A2ACLI_ERR_UNREACHABLE\n"),
        "{}",
        run.stderr
    );
    // session/list arrived in 1.2: a 1.1 session does not have it.
    let run = agents(&["--extension-version", "1.1", "session", "list"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("Code: CLEVERAGENTS_METHOD_NOT_FOUND\n"),
        "{}",
        run.stderr
    );
    // An unsupported minor version (unknown, or retired as 1.0 is) is refused at initialize.
    for version in ["1.9", "1.0"] {
        let run = agents(&["--extension-version", version, "health", "check"]);
        assert_eq!(run.code, 3, "{}", run.stderr);
        assert!(run.stderr.contains("VERSION_MISMATCH"), "{}", run.stderr);
    }
    // Server mode: no credentials, wrong credentials, nobody listening, no card.
    let url = format!("http://{}/", http_agent());
    let run = agents(&["-a", &url, "health", "check"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("Code: A2ACLI_ERR_CREDENTIALS_MISSING\nA2A Code: -32002\nHint: this agent takes "),
        "{}",
        run.stderr
    );
    let run = agents(&["-a", &url, "--bearer", "wrong", "health", "check"]);
    assert_eq!(run.code, 4);
    assert!(
        run.stderr.contains("Code: A2ACLI_ERR_AUTH_FAILED\n"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("wrong"),
        "a credential never shows: {}",
        run.stderr
    );
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed_url = format!("http://{}/", closed.local_addr().expect("addr"));
    drop(closed);
    let run = agents(&["-a", &closed_url, "health", "check"]);
    assert_eq!(run.code, 3);
    assert!(
        run.stderr.contains("Code: A2ACLI_ERR_UNREACHABLE\n"),
        "{}",
        run.stderr
    );
    let run = agents(&["-a", &format!("{url}cards/none.json"), "card", "get"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("Code: A2ACLI_ERR_CARD_NOT_FOUND\nA2A Code: 404\n"),
        "{}",
        run.stderr
    );
    let bad = isolated_home().join("bad-card.json");
    std::fs::write(&bad, "{not json").expect("write");
    let run = agents(&["-a", bad.to_str().expect("path"), "card", "get"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("Code: A2ACLI_ERR_CARD_INVALID\n"),
        "{}",
        run.stderr
    );
}

pub fn cli_card_and_completions() {
    let run = agents(&["-o", "json", "card", "get"]);
    let card: Value = serde_json::from_str(run.stdout.trim()).expect("card JSON");
    assert_eq!((run.code, &card["name"]), (0, &json!("CleverAgents")));
    assert_valid("AgentCard", &card);
    let mut args = server_args();
    args.extend([
        "-o".into(),
        "json".into(),
        "card".into(),
        "get".into(),
        "--validate".into(),
    ]);
    let run = agents(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let card: Value = serde_json::from_str(run.stdout.trim()).expect("card JSON");
    assert_eq!((run.code, &card["name"]), (0, &json!("CleverAgents")));
    assert_eq!(run.stderr, "valid: the card matches the A2A AgentCard schema\n");
    assert_valid("AgentCard", &card);
    for shell in ["bash", "zsh", "fish"] {
        let run = agents(&["completion", shell]);
        assert_eq!(run.code, 0, "{shell}");
        assert!(run.stdout.contains("registry"), "{shell}");
    }
    // A reader that stops early (`| head -1`) ends the output quietly.
    let mut child = agents_command()
        .args(["completion", "bash"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("agents");
    let mut first = String::new();
    {
        use std::io::BufRead;
        let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        out.read_line(&mut first).expect("first line");
    }
    let output = child.wait_with_output().expect("agents ends");
    assert_eq!((first.as_str(), output.status.code()), ("_agents() {\n", Some(0)));
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    let run = agents(&["--help"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains("Exit status:\n  0  the command did its job"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("[default: 2s] [env: A2ACLI_POLL_INTERVAL]"),
        "{}",
        run.stdout
    );
    let run = agents(&["-v"]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, format!("agents {}\n", env!("CARGO_PKG_VERSION")).as_str())
    );
    let run = agents(&["help", "send"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("--media-type <TYPE>"), "{}", run.stdout);
}

/// `agents openrpc` asks the agent (`rpc.discover`) over stdio and HTTP and
/// prints the contract's document; the HTTP server also serves it, public,
/// at `GET /openrpc.json`.
pub fn cli_openrpc_over_both_transports() {
    let expected: Value = serde_json::from_str(a2a::openrpc::DOCUMENT).expect("document");
    let run = agents(&["-o", "json", "openrpc"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let local: Value = serde_json::from_str(run.stdout.trim()).expect("document JSON");
    assert_eq!(local, expected);
    let mut args = server_args();
    args.extend(["-o".into(), "json".into(), "openrpc".into()]);
    let run = agents(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let remote: Value = serde_json::from_str(&run.stdout).expect("document JSON");
    assert_eq!(remote, expected);
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

/// Without credentials, a server on this machine whose card takes an API key
/// is called with the admin API key of the local data directory; without a
/// key there, it answers 401.
pub fn cli_uses_the_local_admin_key_for_a_loopback_server() {
    let dir = std::env::temp_dir().join(format!("agents-e2e-data-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("data dir");
    let key_file = a2a::rpc::local::admin_key_path(&dir);
    std::fs::write(&key_file, format!("{ADMIN_KEY}\n")).expect("key written");
    let url = format!("http://{}/", http_agent());
    let args = ["-a", url.as_str(), "-o", "json", "health", "check"];
    let run = agents_in(&args, &dir);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (0, ""),
        "with the local admin key"
    );
    std::fs::remove_file(&key_file).expect("key removed");
    let run = agents_in(&args, &dir);
    assert_eq!(
        run.code,
        client::cli::failure::EXIT_AUTH,
        "without a key: {}",
        run.stderr
    );
    let envelope: Value = serde_json::from_str(&run.stdout).expect("envelope");
    assert_eq!(envelope["error"]["code"], "A2ACLI_ERR_CREDENTIALS_MISSING");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `card get` reports the card's signatures against a JWK Set over stdio and
/// HTTP: verified by the signers' keys, unverifiable with an impostor's key
/// under the same kid (a warning; the card is still shown, never as
/// verified), unverifiable without keys.
pub fn cli_card_verify_checks_signatures() {
    let signers = crate::agent::test_key("card-signers.jwks.json");
    let impostor = crate::agent::test_key("impostor.jwks.json");
    let signers = signers.to_str().expect("path");
    let impostor = impostor.to_str().expect("path");
    let mut http = server_args();
    http.extend(["card".into(), "get".into()]);
    let http: Vec<&str> = http.iter().map(String::as_str).collect();
    let stdio = ["card", "get"];
    for (mode, args) in [("stdio", &stdio[..]), ("http", &http[..])] {
        let mut with = vec!["--trusted-keys", signers];
        with.extend_from_slice(args);
        let run = agents(&with);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{mode}");
        assert!(
            run.stdout
                .ends_with("Signature: verified (signed by test-es256, test-rs256)\n"),
            "{mode}: {}",
            run.stdout
        );

        let mut with = vec!["--trusted-keys", impostor];
        with.extend_from_slice(args);
        let run = agents(&with);
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        let line = run.stdout.lines().last().unwrap_or_default().to_string();
        assert!(line.starts_with("Signature: unverifiable ("), "{mode}: {line}");
        assert!(
            line.contains(
                "the Agent Card's signature by `test-es256` does not verify: the card is not what was signed"
            ),
            "{mode}: {line}"
        );
        assert!(
            run.stderr.starts_with("warning: signature unverifiable ("),
            "{mode}: {}",
            run.stderr
        );

        let run = agents(args);
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        assert!(
            run.stdout
                .ends_with("Signature: unverifiable (no trusted keys: --trusted-keys JWKS)\n"),
            "{mode}: {}",
            run.stdout
        );
    }
}
