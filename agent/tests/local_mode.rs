//! Local mode with real processes: every client spawns `cleveragents-agent
//! --stdio` (a front), and the fronts of one data directory share its
//! background agent. Several clients at once beside a follower; work that
//! outlives the client that started it; a background agent killed mid-plan
//! and the plan finished for the next client; tasks a dead agent left working
//! failed, never left working; another user refused; idle exit; two
//! extension minors at once; a server on the same directory serving local
//! clients; fronts that waited while an agent started served together;
//! `--stop`. No sleep synchronises anything: a test waits for an
//! answer, an event, a process's exit or a lock.

mod common;

use common::AGENT;
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A bound on any one wait, so a broken agent fails the test instead of hanging it.
const HANG_GUARD: Duration = Duration::from_secs(120);

const PROJECT: &str = "site";
const ACTION: &str = "release-notes";

/// One client's session: a front spawned over its pipes.
struct Front {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    /// Messages read while waiting for another one.
    held: VecDeque<Value>,
    next_id: u64,
}

impl Front {
    /// Spawns a front on `data_dir` and initializes a session at extension
    /// minor `minor`.
    fn open(data_dir: &Path, args: &[&str], minor: &str) -> Front {
        let mut child = Command::new(AGENT)
            .arg("--stdio")
            .arg("--data-dir")
            .arg(data_dir)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("front starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let value = serde_json::from_str(&line).expect("one JSON message per line");
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        let mut front = Front {
            stdin: child.stdin.take(),
            child,
            lines,
            held: VecDeque::new(),
            next_id: 1,
        };
        let initialized = front.call(
            "initialize",
            json!({"protocolVersion": "1.0",
                   "extensions": [{"uri": "urn:cleveragents:extensions:v1", "version": minor}],
                   "clientInfo": {"name": "local-mode-test", "version": "1"}}),
        );
        assert_eq!(
            initialized["result"]["extensions"][0]["version"], minor,
            "initialized: {initialized}"
        );
        front
    }

    fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let stdin = self.stdin.as_mut().expect("session open");
        writeln!(stdin, "{line}").expect("front reads its stdin");
        stdin.flush().expect("flush");
        id
    }

    fn next(&mut self) -> Option<Value> {
        self.lines.recv_timeout(HANG_GUARD).ok()
    }

    /// The response to request `id` (messages of other requests are kept).
    fn response(&mut self, id: u64) -> Value {
        if let Some(at) = self.held.iter().position(|m| m["id"] == id) {
            return self.held.remove(at).expect("held");
        }
        loop {
            let message = self.next().expect("the response arrives");
            if message["id"] == id {
                return message;
            }
            self.held.push_back(message);
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.response(id)
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let answer = self.call(method, params);
        assert!(answer.get("error").is_none(), "{method} failed: {answer}");
        answer["result"].clone()
    }

    /// The next event of stream `id`; `None` once its final response came.
    fn event(&mut self, id: u64) -> Option<Value> {
        let is_ours = |m: &Value| m["id"] == id || m["params"]["requestId"] == id;
        let message = match self.held.iter().position(is_ours) {
            Some(at) => self.held.remove(at).expect("held"),
            None => loop {
                let message = self.next().expect("the stream goes on or ends");
                if is_ours(&message) {
                    break message;
                }
                self.held.push_back(message);
            },
        };
        if message["id"] == id {
            assert!(message.get("error").is_none(), "stream failed: {message}");
            return None;
        }
        Some(message["params"]["event"].clone())
    }

    /// Closes stdin (the binding's clean end) and waits for the front to exit.
    fn close(mut self) -> ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("the front exits")
    }
}

fn message(text: &str) -> Value {
    json!({"message": {"messageId": common_id(text), "role": "ROLE_USER", "parts": [{"text": text}]}})
}

/// A message id for `text` (the TCK executor reads its scenario from the id).
fn common_id(text: &str) -> String {
    format!("{text}-{}", std::process::id())
}

fn data_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    (dir, data)
}

/// The pid the data directory's owner recorded.
fn owner_pid(data: &Path) -> u32 {
    let text = std::fs::read_to_string(data.join("run/agent.pid")).expect("pid file");
    text.split_whitespace()
        .next()
        .and_then(|pid| pid.parse().ok())
        .expect("a pid")
}

fn sigkill(pid: u32) {
    let pid = rustix::process::Pid::from_raw(pid as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::KILL).expect("SIGKILL");
}

/// Waits until no process owns the data directory any more (its agent
/// lock is free), which is when the background agent has exited.
fn wait_until_released(data: &Path) {
    let lock = std::fs::File::open(data.join("run/agent.lock")).expect("lock file");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let taken = rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive);
        let _ = tx.send(taken.is_ok());
    });
    assert_eq!(
        rx.recv_timeout(HANG_GUARD),
        Ok(true),
        "the agent let go of the data directory"
    );
}

/// The project and an action of `steps` template steps, each rendering its
/// own line.
fn seed_registry(front: &mut Front, steps: usize) {
    front.result(
        "_cleveragents/registry/projects/add",
        json!({"project": {"name": PROJECT, "files": [
            {"path": "README.md", "mediaType": "text/markdown", "text": "# Site\n"}]}}),
    );
    let steps: Vec<Value> = (0..steps)
        .map(|i| {
            json!({"id": format!("s{i}"), "name": format!("Step {i}"), "tool": "template",
                        "arguments": {"template": format!("line {i}\n")}})
        })
        .collect();
    front.result(
        "_cleveragents/registry/actions/add",
        json!({"action": {"name": ACTION, "steps": steps}}),
    );
}

/// SendMessage that starts the plan in a new task.
fn plan_message(id: &str, return_immediately: bool) -> Value {
    json!({"message": {"messageId": common_id(id), "role": "ROLE_USER",
                       "parts": [{"data": {"action": ACTION, "project": PROJECT}}]},
           "configuration": {"returnImmediately": return_immediately}})
}

/// Follows task `task_id` to its end (if it has not ended already) and
/// returns the task as it ended.
fn finished_task(front: &mut Front, task_id: &str) -> Value {
    let id = front.send("SubscribeToTask", json!({"id": task_id}));
    let first = front.response_or_event(id);
    if let Some(first) = first {
        assert_eq!(first["task"]["id"], task_id, "the first event is the task");
        while front.event(id).is_some() {}
    }
    front.result("GetTask", json!({"id": task_id}))
}

impl Front {
    /// The first event of stream `id`, or `None` when the stream was refused
    /// because the task had already ended (UnsupportedOperation, -32004).
    fn response_or_event(&mut self, id: u64) -> Option<Value> {
        let message = loop {
            let message = match self.held.pop_front() {
                Some(m) => m,
                None => self.next().expect("the stream answers"),
            };
            if message["id"] == id || message["params"]["requestId"] == id {
                break message;
            }
        };
        if message["id"] == id {
            assert_eq!(
                message["error"]["code"], -32004,
                "only an ended task is refused: {message}"
            );
            return None;
        }
        Some(message["params"]["event"].clone())
    }
}

#[test]
fn clients_share_one_background_agent_beside_a_follower() {
    let (_dir, data) = data_dir();
    let mut seeder = Front::open(&data, &[], "1.2");
    seed_registry(&mut seeder, 2);
    let agent = owner_pid(&data);
    assert!(seeder.close().success());

    let mut follower = Front::open(&data, &[], "1.2");
    let follow = follower.send("_cleveragents/events/subscribe", json!({"follow": true}));

    // Sequential commands, each a client of its own.
    let mut plain = Vec::new();
    for n in 0..3 {
        let mut client = Front::open(&data, &[], "1.2");
        let sent = client.result("SendMessage", message(&format!("sequential-{n}")));
        assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
        plain.push(sent["task"]["id"].clone());
        assert!(client.close().success());
    }
    // Concurrent commands.
    let workers: Vec<_> = (0..3)
        .map(|n| {
            let data = data.clone();
            std::thread::spawn(move || {
                let mut client = Front::open(&data, &[], "1.1");
                let sent = client.result("SendMessage", message(&format!("concurrent-{n}")));
                let state = sent["task"]["status"]["state"].clone();
                (sent["task"]["id"].clone(), state, client.close().code())
            })
        })
        .collect();
    for worker in workers {
        let (id, state, exit) = worker.join().expect("worker");
        assert_eq!((state, exit), (json!("TASK_STATE_COMPLETED"), Some(0)));
        plain.push(id);
    }
    // A plan started by another client.
    let mut runner = Front::open(&data, &[], "1.2");
    let sent = runner.result("SendMessage", plan_message("plan", false));
    let plan_task = sent["task"]["id"].clone();
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(runner.close().success());

    // The follower saw every client's work as it happened, in cursor order,
    // up to the plan's end.
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut cursor = 0;
    loop {
        let event = follower.event(follow).expect("the follower's stream stays open");
        let at = event["cursor"].as_u64().expect("cursor");
        assert!(at > cursor, "cursors increase: {at} after {cursor}");
        cursor = at;
        let task = event["taskId"].as_str().expect("task id").to_string();
        seen.entry(task)
            .or_default()
            .push(event["type"].as_str().expect("type").to_string());
        if event["taskId"] == plan_task
            && event["event"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
        {
            break;
        }
    }
    let mut expected: BTreeMap<String, Vec<String>> = plain
        .iter()
        .map(|id| {
            let id = id.as_str().expect("task id").to_string();
            (
                id,
                vec!["session.message".to_string(), "session.message".to_string()],
            )
        })
        .collect();
    expected.insert(
        plan_task.as_str().expect("task id").to_string(),
        [
            "session.message",
            "plan.created",
            "plan.phase_changed",
            "tool.invoked",
            "tool.completed",
            "tool.invoked",
            "tool.completed",
            "plan.phase_changed",
            "plan.state_changed",
        ]
        .map(String::from)
        .to_vec(),
    );
    assert_eq!(seen, expected);
    assert!(follower.close().success());
    // One agent served them all.
    assert_eq!(owner_pid(&data), agent);
}

#[test]
fn work_outlives_the_client_that_started_it() {
    let (_dir, data) = data_dir();
    // A short idle period: only the running task keeps the agent alive.
    let args = ["--executor", "tck", "--idle-timeout-ms", "100"];
    let mut client = Front::open(&data, &args, "1.2");
    let mut request = message("tck-long-running");
    request["configuration"] = json!({"returnImmediately": true});
    let sent = client.result("SendMessage", request);
    let task_id = sent["task"]["id"].as_str().expect("task id").to_string();
    assert_ne!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(client.close().success());

    let mut later = Front::open(&data, &args, "1.2");
    let task = finished_task(&mut later, &task_id);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "Long-running result");
    assert!(later.close().success());
}

#[test]
fn a_killed_background_agent_finishes_its_plan_for_the_next_client() {
    const STEPS: usize = 120;
    let (_dir, data) = data_dir();
    let mut client = Front::open(&data, &[], "1.2");
    seed_registry(&mut client, STEPS);
    let sent = client.result("SendMessage", plan_message("long-plan", true));
    let task_id = sent["task"]["id"].as_str().expect("task id").to_string();
    let stream = client.send("SubscribeToTask", json!({"id": task_id}));
    // Killed once the plan is under way.
    if client.response_or_event(stream).is_some() {
        client.event(stream);
    }
    let killed = owner_pid(&data);
    sigkill(killed);
    // The front reports the lost session and fails.
    assert_eq!(client.close().code(), Some(2));

    let mut next = Front::open(&data, &[], "1.2");
    assert_ne!(owner_pid(&data), killed, "a new background agent");
    let task = finished_task(&mut next, &task_id);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    let plans = next.result("_cleveragents/plan/list", json!({}));
    assert_eq!(plans["items"].as_array().map(Vec::len), Some(1), "{plans}");
    let plan_id = plans["items"][0]["id"].as_str().expect("the plan").to_string();
    let status = next.result("_cleveragents/plan/status", json!({"planId": plan_id}));
    assert_eq!(status["plan"]["state"], "PLAN_STATE_COMPLETED");
    let steps = status["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), STEPS);
    assert!(
        steps.iter().all(|s| s["state"] == "PLAN_STEP_STATE_SUCCEEDED"),
        "{status}"
    );
    // Every step's output once, in order: the resumed run redid no finished step twice.
    let names: Vec<&str> = task["artifacts"]
        .as_array()
        .expect("artifacts")
        .iter()
        .map(|a| a["name"].as_str().expect("name"))
        .collect();
    let expected: Vec<String> = (0..STEPS).map(|i| format!("s{i}")).collect();
    assert_eq!(names, expected);
    assert!(next.close().success());
}

#[test]
fn tasks_a_dead_agent_left_working_are_failed_by_the_next_one() {
    let (_dir, data) = data_dir();
    let args = ["--executor", "tck"];
    let mut client = Front::open(&data, &args, "1.2");
    // Working until cancelled: no run of this agent will move it on.
    let mut request = message("tck-cancel");
    request["configuration"] = json!({"returnImmediately": true});
    let sent = client.result("SendMessage", request);
    let task_id = sent["task"]["id"].as_str().expect("task id").to_string();
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
    sigkill(owner_pid(&data));
    assert_eq!(client.close().code(), Some(2));

    let mut next = Front::open(&data, &args, "1.2");
    let task = next.result("GetTask", json!({"id": task_id}));
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED");
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"],
        "The agent stopped before this task finished; send the message again to retry."
    );
    assert!(next.close().success());
}

#[test]
fn clients_of_two_extension_minors_are_served_at_once() {
    let (_dir, data) = data_dir();
    let mut older = Front::open(&data, &[], "1.1");
    let mut newer = Front::open(&data, &[], "1.2");
    let params = json!({"title": "Release"});
    let refused = older.call("_cleveragents/session/create", params.clone());
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    let created = newer.result("_cleveragents/session/create", params);
    assert_eq!(created["title"], "Release");
    assert!(created["id"].is_string(), "{created}");
    assert!(older.close().success());
    assert!(newer.close().success());
}

#[test]
fn an_idle_background_agent_exits_and_the_next_client_starts_another() {
    let (_dir, data) = data_dir();
    let args = ["--idle-timeout-ms", "100"];
    let mut client = Front::open(&data, &args, "1.2");
    let sent = client.result("SendMessage", message("before"));
    let first = owner_pid(&data);
    assert!(client.close().success());

    wait_until_released(&data);
    assert!(!data.join("run/agent.sock").exists(), "the socket went with it");
    assert!(!data.join("run/agent.pid").exists(), "and its pid");

    let mut later = Front::open(&data, &args, "1.2");
    assert_ne!(owner_pid(&data), first);
    assert_eq!(
        later.result("GetTask", json!({"id": sent["task"]["id"]}))["id"],
        sent["task"]["id"]
    );
    assert!(later.close().success());
}

#[test]
fn stop_ends_the_background_agent() {
    let (_dir, data) = data_dir();
    let mut client = Front::open(&data, &[], "1.2");
    client.result("ListTasks", json!({}));
    let pid = owner_pid(&data);
    assert!(client.close().success());
    let stop = || {
        Command::new(AGENT)
            .arg("--stop")
            .arg("--data-dir")
            .arg(&data)
            .output()
            .expect("--stop runs")
    };
    let stopped = stop();
    assert_eq!(stopped.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&stopped.stdout),
        format!("stopped the background agent (pid {pid}) of {}\n", data.display())
    );
    wait_until_released(&data);
    let again = stop();
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        format!("no agent runs on {}\n", data.display())
    );
}

#[test]
fn a_server_on_the_data_directory_serves_local_clients_too() {
    let (_dir, data) = data_dir();
    let data_arg = data.to_str().expect("utf-8 path");
    let mut server = common::ServerAgent::start_with(&["--data-dir", data_arg]);
    let sent = common::http::post(
        &server.addr(),
        &[],
        &json!({"jsonrpc": "2.0", "id": 1,
        "method": "SendMessage", "params": message("over-http")}),
    );
    let task = sent.messages()[0]["result"]["task"].clone();

    let mut local = Front::open(&data, &[], "1.2");
    assert_eq!(local.result("GetTask", json!({"id": task["id"]})), task);
    assert_eq!(owner_pid(&data), server.pid());
    assert!(local.close().success());

    let stop = Command::new(AGENT)
        .arg("--stop")
        .arg("--data-dir")
        .arg(&data)
        .output()
        .expect("--stop runs");
    assert_eq!(stop.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&stop.stderr),
        format!(
            "cleveragents-agent: a server-mode agent (pid {}) holds {}: stop it the way it was started\n",
            server.pid(),
            data.display()
        )
    );
    assert!(server.terminate().success());
    assert!(
        !data.join("run/agent.sock").exists(),
        "the server removed its socket"
    );
}

#[test]
fn another_user_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    const NOBODY: u32 = 65534;
    assert_eq!(
        rustix::process::geteuid().as_raw(),
        0,
        "acting as another user needs root (the suite runs as root)"
    );
    let (dir, data) = data_dir();
    let open_up = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    };
    open_up(dir.path(), 0o755);
    let mut owner = Front::open(&data, &[], "1.2");
    owner.result("ListTasks", json!({}));

    // The front of another user refuses the data directory at once.
    let other = Command::new(AGENT)
        .arg("--stdio")
        .arg("--data-dir")
        .arg(&data)
        .uid(NOBODY)
        .gid(NOBODY)
        .stdin(Stdio::null())
        .output()
        .expect("front runs");
    assert_eq!(other.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&other.stderr),
        format!(
            "cleveragents-agent: the data directory {} belongs to uid 0, not to this user (uid {NOBODY}): local mode serves each user's own data only\n",
            data.display()
        )
    );

    // Even with the socket opened up to everyone, the agent checks who
    // calls, and answers before reading anything from them.
    open_up(&data, 0o755);
    open_up(&data.join("run"), 0o777);
    open_up(&data.join("run/agent.sock"), 0o666);
    let script = "import os, socket, sys\n\
                  os.setgid(65534); os.setuid(65534)\n\
                  s = socket.socket(socket.AF_UNIX)\n\
                  s.connect(sys.argv[1])\n\
                  sys.stdout.write(s.makefile().readline())\n";
    let answer = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(data.join("run/agent.sock"))
        .output()
        .expect("python3 runs");
    assert!(
        answer.status.success(),
        "{}",
        String::from_utf8_lossy(&answer.stderr)
    );
    let answer: Value = serde_json::from_slice(&answer.stdout).expect("one answer");
    assert_eq!(
        answer,
        json!({"refused": {"reason": format!(
            "the local agent on {} serves its own user (uid 0) only; uid {NOBODY} was refused",
            data.join("run").display()
        )}})
    );
    // The owner's session goes on.
    owner.result("ListTasks", json!({}));
    assert!(owner.close().success());
}

#[test]
fn push_deliveries_go_on_after_every_client_has_exited() {
    use common::webhook::{Mode, Receiver};
    let receiver = Receiver::start(Mode::Unavailable);
    let (dir, data) = data_dir();
    let config = dir.path().join("config.json");
    let settings =
        json!({"push": {"allow_list": ["127.0.0.1"], "max_attempts": 1000, "initial_backoff_ms": 20}});
    std::fs::write(&config, settings.to_string()).expect("config");
    let config = config.to_str().expect("utf-8 path");
    // A short idle period: only the deliveries still owed keep the agent on.
    let args = ["--config", config, "--idle-timeout-ms", "100"];
    let mut client = Front::open(&data, &args, "1.2");
    let mut request = message("pushed");
    request["configuration"] =
        json!({"taskPushNotificationConfig": {"url": receiver.url, "token": "local-token"}});
    let sent = client.result("SendMessage", request);
    let task_id = sent["task"]["id"].as_str().expect("task id").to_string();
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(client.close().success());

    // The webhook refuses for a while, then takes them: every event arrives.
    receiver.wait_for("retries", |posts| {
        posts.iter().filter(|p| p.status == 503).count() >= 3
    });
    receiver.set(Mode::Accept);
    let posts = receiver.wait_for("every event delivered", |posts| {
        posts.iter().filter(|p| p.status == 200).count() == 3
    });
    let accepted: Vec<(String, u64)> = posts
        .iter()
        .filter(|p| p.status == 200)
        .map(|p| (p.task_id.clone(), p.seq))
        .collect();
    assert_eq!(
        accepted,
        vec![(task_id.clone(), 1), (task_id.clone(), 2), (task_id, 3)]
    );
}

#[test]
fn a_session_from_a_file_is_relayed_over_the_socket() {
    let (dir, data) = data_dir();
    // A file cannot be handed to the agent's reactor: the front relays it.
    let input = dir.path().join("session.ndjson");
    let lines = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
               "params": {"protocolVersion": "1.0", "extensions": [],
                          "clientInfo": {"name": "from-a-file", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": message("relayed")}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&input, text).expect("session file");
    let output = Command::new(AGENT)
        .arg("--stdio")
        .arg("--data-dir")
        .arg(&data)
        .stdin(std::fs::File::open(&input).expect("session file"))
        .output()
        .expect("front runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<Value> = output
        .stdout
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("one JSON answer per line"))
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["result"]["protocolVersion"], "1.0");
    assert_eq!(
        answers[1]["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    // The same agent serves a client on pipes, which reads the task back.
    let mut client = Front::open(&data, &[], "1.2");
    let task_id = answers[1]["result"]["task"]["id"].clone();
    assert_eq!(client.result("GetTask", json!({"id": task_id}))["id"], task_id);
    assert!(client.close().success());
}

/// The fronts waiting in `run/start.lock` (its blocked `flock` waiters,
/// as `/proc/locks` lists them).
fn waiting_to_start(data: &Path) -> usize {
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::metadata(data.join("run/start.lock"))
        .expect("lock file")
        .ino();
    let locks = std::fs::read_to_string("/proc/locks").expect("/proc/locks");
    locks
        .lines()
        .filter(|line| line.contains("->") && line.contains(&format!(":{inode} ")))
        .count()
}

#[test]
fn fronts_that_waited_for_an_agent_to_start_are_served_together() {
    let (_dir, data) = data_dir();
    std::fs::create_dir_all(data.join("run")).expect("run directory");
    // As while another front starts the agent: the start lock is held.
    let held = std::fs::File::create(data.join("run/start.lock")).expect("lock file");
    rustix::fs::flock(&held, rustix::fs::FlockOperation::LockExclusive).expect("start lock");
    let spawn = || {
        Command::new(AGENT)
            .arg("--stdio")
            .arg("--data-dir")
            .arg(&data)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("front starts")
    };
    let mut fronts = [spawn(), spawn()];
    // Both found no agent and wait for the start lock.
    let deadline = std::time::Instant::now() + HANG_GUARD;
    while waiting_to_start(&data) < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the fronts wait to start an agent"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // An agent comes up meanwhile (a server on the directory), and the
    // lock is let go: each front finds the agent.
    let data_arg = data.to_str().expect("utf-8 path");
    let mut server = common::ServerAgent::start_with(&["--data-dir", data_arg]);
    drop(held);
    let (tx, answers) = mpsc::channel();
    for front in &mut fronts {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "1.0", "extensions": [],
                       "clientInfo": {"name": "waited", "version": "1"}}});
        let mut stdin = front.stdin.take().expect("stdin");
        writeln!(stdin, "{initialize}").expect("front reads its stdin");
        let stdout = front.stdout.take().expect("stdout");
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send((line, stdin));
        });
    }
    // Both sessions are open at once: neither front keeps the other waiting
    // for the end of its session.
    let mut sessions = Vec::new();
    for _ in 0..2 {
        let (line, stdin) = answers.recv_timeout(HANG_GUARD).expect("a front answers");
        let answer: Value = serde_json::from_str(&line).unwrap_or(json!({"no answer": line}));
        assert_eq!(answer["result"]["protocolVersion"], "1.0", "{answer}");
        sessions.push(stdin);
    }
    drop(sessions);
    for front in &mut fronts {
        assert!(front.wait().expect("the front exits").success());
    }
    assert!(server.terminate().success());
}
