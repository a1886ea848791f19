//! `task push-config receive` against the real agent binary on the
//! conformance executor, configured to deliver to loopback webhooks: what
//! the receiver prints, what it refuses, and that the configuration it
//! registers is gone once it stops, however it stops.
//!
//! A `tck-cancel` task works until it is canceled, so a receive on it waits
//! until the test moves the task on: by canceling it, or by a message
//! (`tck-multi-turn …`) that leaves it input-required. The receive says on
//! stderr when it is registered and waiting; the test acts only then.
//! Nothing here decides by time.

use crate::agent::runtime;
use crate::cli::agents_command;
use crate::drafts::{run, Agent};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The header the agent sends the configuration's token in.
const TOKEN_HEADER: &str = "X-A2A-Notification-Token";
/// The header the agent numbers each delivered event with.
const SEQUENCE_HEADER: &str = "X-CleverAgents-Event-Sequence";

/// An agent that delivers to loopback webhooks (`push.allow_list`), and the
/// directory of its config file.
fn push_agent() -> (Agent, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("agent.json");
    let allow = json!({ "push": { "allow_list": ["127.0.0.1"] } });
    std::fs::write(&config, allow.to_string()).expect("config file");
    let agent = Agent::start_with(false, &["--config", config.to_str().expect("utf-8 path")]);
    (agent, dir)
}

fn ok_json(agent: &Agent, args: &[&str]) -> Value {
    let answer = run(agent, args);
    assert_eq!(answer.code, 0, "{args:?}: {}", answer.stderr);
    serde_json::from_str(answer.stdout.trim()).expect("JSON output")
}

fn task_of(agent: &Agent, id: &str) -> Value {
    ok_json(agent, &["-o", "json", "task", "get", id])
}

/// A task that is working, and stays so until it is canceled or continued.
fn working_task(agent: &Agent) -> (String, String) {
    let started = ok_json(agent, &["-o", "json", "send", "--async", "tck-cancel", "go"]);
    let id = started["task"]["id"].as_str().expect("task id").to_string();
    let context = started["task"]["contextId"]
        .as_str()
        .expect("context id")
        .to_string();
    // The executor moves it to working right after the send's answer.
    for _ in 0..200 {
        if task_of(agent, &id)["status"]["state"] == "TASK_STATE_WORKING" {
            return (id, context);
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("task {id} never started working");
}

/// The push configurations of a task.
fn configs(agent: &Agent, id: &str) -> Vec<Value> {
    let listed = ok_json(agent, &["-o", "json", "task", "push-config", "list", id]);
    listed["configs"].as_array().cloned().unwrap_or_default()
}

fn assert_stream_response(line: &Value) {
    let validator =
        jsonschema::validator_for(&client::schema::standalone("StreamResponse")).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(line).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{line}: {errors:?}");
}

/// A running `agents task push-config receive`.
struct Receiving {
    child: Child,
    stderr: mpsc::Receiver<String>,
    seen: Vec<String>,
}

/// What a receive came to.
struct Received {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Received {
    fn lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
            .collect()
    }
}

impl Receiving {
    fn start(agent: &Agent, args: &[&str]) -> Receiving {
        let mut all = vec!["--agent-card", agent.url.as_str()];
        all.extend(args);
        let mut child = agents_command()
            .args(&all)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run agents");
        let stderr = child.stderr.take().expect("stderr");
        let (lines, stderr_lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    return;
                }
            }
        });
        Receiving {
            child,
            stderr: stderr_lines,
            seen: Vec::new(),
        }
    }

    /// Waits until the receive says it is registered and waiting: the
    /// receiver's URL and the configuration's id.
    fn ready(&mut self) -> (String, String) {
        let mut url = None;
        loop {
            let line = self
                .stderr
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("the receive never got ready: {:?}", self.seen));
            self.seen.push(line.clone());
            if let Some(rest) = line.strip_prefix("push receiver: ") {
                url = rest.split(' ').next().map(str::to_string);
            }
            if let Some(rest) = line.strip_prefix("push config: ") {
                let id = rest.split(' ').next().expect("config id").to_string();
                return (url.expect("the receiver's URL first"), id);
            }
        }
    }

    /// Waits for the receive to end.
    fn finish(mut self) -> Received {
        let mut stdout = String::new();
        self.child
            .stdout
            .take()
            .expect("stdout")
            .read_to_string(&mut stdout)
            .expect("read stdout");
        let status = self.child.wait().expect("receive ends");
        self.seen.extend(self.stderr.iter());
        Received {
            code: status.code().unwrap_or(-1),
            stdout,
            stderr: self.seen.join("\n") + "\n",
        }
    }
}

/// POSTs `body` to the receiver; the status of its answer.
fn deliver(url: &str, body: &Value, headers: &[(&str, &str)]) -> u16 {
    runtime().block_on(async {
        let mut request = reqwest::Client::new()
            .post(url)
            .header("Content-Type", "application/a2a+json")
            .body(body.to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request
            .send()
            .await
            .expect("the receiver answers")
            .status()
            .as_u16()
    })
}

/// Each notification printed once, as it arrives, until the task ends; a
/// delivery without the token refused and not printed, a redelivery (same
/// sequence number) printed once; the configuration deleted afterwards.
pub fn cli_webhook_prints_notifications_until_the_task_ends() {
    let (agent, _dir) = push_agent();
    let (id, context) = working_task(&agent);
    let mut receiving = Receiving::start(&agent, &["-o", "json", "task", "push-config", "receive", &id]);
    let (url, config_id) = receiving.ready();
    let registered = configs(&agent, &id);
    assert_eq!(registered.len(), 1, "{registered:?}");
    let config = &registered[0];
    assert_eq!(
        (
            config["id"].as_str(),
            config["taskId"].as_str(),
            config["url"].as_str()
        ),
        (Some(config_id.as_str()), Some(id.as_str()), Some(url.as_str()))
    );
    let token = config["token"].as_str().expect("a token").to_string();
    assert!(
        token.len() == 64 && token.chars().all(|c| c.is_ascii_hexdigit()),
        "{token}"
    );
    // A forged notification: no token, or another one.
    let forged = json!({"statusUpdate": {"taskId": id, "contextId": context, "status": {"state": "TASK_STATE_COMPLETED"}}});
    assert_eq!(deliver(&url, &forged, &[]), 401);
    assert_eq!(deliver(&url, &forged, &[(TOKEN_HEADER, "0123456789abcdef")]), 401);
    // With the token: about another task, or not a StreamResponse.
    let other = json!({"statusUpdate": {"taskId": "another-task", "contextId": context, "status": {"state": "TASK_STATE_COMPLETED"}}});
    assert_eq!(deliver(&url, &other, &[(TOKEN_HEADER, &token)]), 400);
    assert_eq!(
        deliver(&url, &json!({"state": "done"}), &[(TOKEN_HEADER, &token)]),
        400
    );
    // A delivery made twice, as an agent retrying it does: printed once.
    let progress = json!({"statusUpdate": {"taskId": id, "contextId": context, "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-01-01T00:00:00Z"}}});
    let redelivery = [(TOKEN_HEADER, token.as_str()), (SEQUENCE_HEADER, "1000")];
    assert_eq!(deliver(&url, &progress, &redelivery), 200);
    assert_eq!(deliver(&url, &progress, &redelivery), 204);
    let canceled = ok_json(&agent, &["-o", "json", "task", "cancel", &id]);
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
    let received = receiving.finish();
    assert_eq!(received.code, 0, "{}", received.stderr);
    let lines = received.lines();
    for line in &lines {
        assert_stream_response(line);
    }
    assert_eq!(lines.len(), 2, "{}", received.stdout);
    assert_eq!(lines[0], progress);
    let last = &lines[1]["statusUpdate"];
    assert_eq!(
        (
            last["taskId"].as_str(),
            last["contextId"].as_str(),
            last["status"]["state"].as_str()
        ),
        (
            Some(id.as_str()),
            Some(context.as_str()),
            Some("TASK_STATE_CANCELED")
        ),
        "{}",
        received.stdout
    );
    assert_eq!(last["status"], canceled["status"]);
    assert!(
        received
            .stderr
            .contains(&format!("\nwarning: task {id} ended TASK_STATE_CANCELED\n")),
        "{}",
        received.stderr
    );
    assert_eq!(configs(&agent, &id), Vec::<Value>::new());
}

/// A task that comes to need input ends the receive (exit 0) with the
/// resume hint; in text, the notification is the record `send --stream`
/// prints. A task that already needs input is shown, and nothing registered.
pub fn cli_webhook_stops_when_the_task_needs_input() {
    let (agent, _dir) = push_agent();
    let (id, context) = working_task(&agent);
    let mut receiving = Receiving::start(&agent, &["task", "push-config", "receive", &id]);
    receiving.ready();
    let continued = ok_json(
        &agent,
        &[
            "-o",
            "json",
            "send",
            "--async",
            "--task-id",
            &id,
            "tck-multi-turn more",
        ],
    );
    assert_eq!(continued["task"]["id"], json!(id));
    let received = receiving.finish();
    assert_eq!(received.code, 0, "{}", received.stderr);
    let task = task_of(&agent, &id);
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let timestamp = task["status"]["timestamp"].as_str().expect("timestamp");
    assert_eq!(
        received.stdout,
        format!(
            "Event: status-update\nTask ID: {id}\nContext ID: {context}\nState: TASK_STATE_INPUT_REQUIRED\n\
             Timestamp: {timestamp}\nStatus Message:\n  Please provide more input\n\n"
        )
    );
    let resume = format!(
        "\nwarning: task {id} waits for input (TASK_STATE_INPUT_REQUIRED); answer it with: agents -a {} send --task-id {id} 'REPLY'\n",
        agent.url
    );
    assert!(received.stderr.contains(&resume), "{}", received.stderr);
    assert_eq!(configs(&agent, &id), Vec::<Value>::new());

    // A multi-turn task waiting for its next turn already: nothing to wait for.
    let waiting = ok_json(&agent, &["-o", "json", "send", "tck-multi-turn", "hello"]);
    let id = waiting["task"]["id"].as_str().expect("task id").to_string();
    let answer = run(&agent, &["-o", "json", "task", "push-config", "receive", &id]);
    assert_eq!(answer.code, 0, "{}", answer.stderr);
    let line: Value = serde_json::from_str(answer.stdout.trim()).expect("one JSON line");
    assert_stream_response(&line);
    assert_eq!(line, json!({ "task": task_of(&agent, &id) }));
    assert_eq!(line["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(
        answer.stderr,
        format!(
            "task {id} is already TASK_STATE_INPUT_REQUIRED: no notification will come\n\
             warning: task {id} waits for input (TASK_STATE_INPUT_REQUIRED); answer it with: agents -a {} send --task-id {id} 'REPLY'\n",
            agent.url
        )
    );
    assert_eq!(configs(&agent, &id), Vec::<Value>::new());
}

/// A long-running task followed to its end: each line a StreamResponse of
/// the task, the artifact among them, the last one completing it.
pub fn cli_webhook_follows_a_task_to_its_end() {
    let (agent, _dir) = push_agent();
    let started = ok_json(
        &agent,
        &["-o", "json", "send", "--async", "tck-long-running", "go"],
    );
    let id = started["task"]["id"].as_str().expect("task id").to_string();
    let answer = run(&agent, &["-o", "json", "task", "push-config", "receive", &id]);
    assert_eq!(answer.code, 0, "{}", answer.stderr);
    let lines: Vec<Value> = answer
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    for line in &lines {
        assert_stream_response(line);
    }
    let task = task_of(&agent, &id);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    let artifact = &task["artifacts"][0];
    assert_eq!(artifact["parts"], json!([{ "text": "Long-running result" }]));
    let context = task["contextId"].clone();
    let notified = json!([
        {"artifactUpdate": {"taskId": id, "contextId": context, "artifact": artifact}},
        {"statusUpdate": {"taskId": id, "contextId": context, "status": task["status"]}},
    ]);
    let working = json!({"statusUpdate": {"taskId": id, "contextId": context, "status": {"state": "TASK_STATE_WORKING"}}});
    match lines.as_slice() {
        // Registered while the task worked: its events as delivered (the
        // move to working among them if it came after the registration).
        [.., _, _] if json!(lines[lines.len() - 2..]) == notified => {
            for early in &lines[..lines.len() - 2] {
                assert_eq!(
                    early["statusUpdate"]["status"]["state"],
                    working["statusUpdate"]["status"]["state"]
                );
                assert_eq!(early["statusUpdate"]["taskId"], json!(id));
            }
        }
        // The task ended before the registration was in: the task as it ended.
        [only] => assert_eq!(only["task"]["status"], task["status"], "{}", answer.stdout),
        _ => panic!("unexpected notifications: {}", answer.stdout),
    }
    assert_eq!(configs(&agent, &id), Vec::<Value>::new());
}

/// `--timeout` ends a receive with exit 5 and Ctrl-C with exit 1, both
/// deleting the configuration; `--url` is what the agent is given.
pub fn cli_webhook_cleans_up_on_timeout_and_interrupt() {
    let (agent, _dir) = push_agent();
    let (id, _) = working_task(&agent);
    let answer = run(
        &agent,
        &[
            "-o",
            "json",
            "--timeout",
            "1s",
            "task",
            "push-config",
            "receive",
            &id,
        ],
    );
    assert_eq!(answer.code, 5, "{}", answer.stderr);
    let envelope: Value = serde_json::from_str(answer.stdout.trim()).expect("the error envelope");
    assert_eq!(
        envelope,
        json!({"error": {
            "code": "A2ACLI_ERR_TIMEOUT",
            "message": format!("--timeout passed before task {id} ended or paused"),
            "hint": format!("the task goes on: `agents task get {id} --wait`"),
            "a2aCode": null,
        }})
    );
    assert_eq!(configs(&agent, &id), Vec::<Value>::new());

    #[cfg(unix)]
    {
        let tunnel = "https://tunnel.example/hooks/a2a";
        let mut receiving = Receiving::start(
            &agent,
            &[
                "-o",
                "json",
                "task",
                "push-config",
                "receive",
                &id,
                "--url",
                tunnel,
            ],
        );
        let (url, config_id) = receiving.ready();
        assert_eq!(url, tunnel);
        let registered = configs(&agent, &id);
        assert_eq!(
            (
                registered.len(),
                registered[0]["id"].as_str(),
                registered[0]["url"].as_str()
            ),
            (1, Some(config_id.as_str()), Some(tunnel))
        );
        let status = std::process::Command::new("kill")
            .args(["-INT", &receiving.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let received = receiving.finish();
        assert_eq!(received.code, 1, "{}", received.stderr);
        let envelope: Value = serde_json::from_str(received.stdout.trim()).expect("the error envelope");
        assert_eq!(envelope["error"]["code"], "A2ACLI_ERR_INTERNAL");
        assert_eq!(
            envelope["error"]["message"],
            json!(format!("interrupted (Ctrl-C) before task {id} ended or paused"))
        );
        assert_eq!(configs(&agent, &id), Vec::<Value>::new());
    }
}

/// Refused before anything is registered: an agent whose card declares no
/// push notifications; an agent that does not call loopback addresses.
pub fn cli_webhook_refusals() {
    let agent = Agent::start_with(false, &[]);
    let (id, _) = working_task(&agent);
    // The card, as a file, without the capability.
    let mut card = ok_json(&agent, &["-o", "json", "card", "get"]);
    card["capabilities"]["pushNotifications"] = json!(false);
    let dir = tempfile::tempdir().expect("temp dir");
    let card_file = dir.path().join("card.json");
    std::fs::write(&card_file, card.to_string()).expect("card file");
    let answer = crate::cli::agents(&[
        "-a",
        card_file.to_str().expect("utf-8 path"),
        "-o",
        "json",
        "task",
        "push-config",
        "receive",
        &id,
    ]);
    assert_eq!(answer.code, 2, "{}", answer.stderr);
    let envelope: Value = serde_json::from_str(answer.stdout.trim()).expect("the error envelope");
    assert_eq!(
        envelope["error"]["message"],
        "the agent's card does not declare the pushNotifications capability task push-config receive needs"
    );
    // This agent has no allow list: a loopback webhook is refused.
    let answer = run(&agent, &["-o", "json", "task", "push-config", "receive", &id]);
    assert_eq!(answer.code, 1, "{}", answer.stderr);
    let envelope: Value = serde_json::from_str(answer.stdout.trim()).expect("the error envelope");
    assert_eq!(envelope["error"]["code"], "InvalidParamsError", "{envelope}");
    assert!(
        envelope["error"]["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("--url")),
        "{envelope}"
    );
    assert_eq!(configs(&agent, &id), Vec::<Value>::new());
}
