//! `agents chat` as a person sees it on a terminal, and as a script sees it
//! through pipes, against the real agent binary on the conformance executor
//! (`tck-multi-turn` keeps its task input-required until a message starting
//! with `done`); and the live status line of `agents events --follow`.
//!
//! The terminal is a tmux session on a server of the test's own: keys are
//! sent to it and its screen is read back. Nothing waits on time to decide:
//! each step waits until the screen shows what it expects, bounded only by
//! a generous deadline so that a failure cannot hang the suite.

use crate::cli::{agents, agents_command};
use crate::drafts::Agent;
use client::cli::text;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const AGENTS: &str = env!("CARGO_BIN_EXE_agents");
/// How long a step may take before the test gives up on it.
const DEADLINE: Duration = Duration::from_secs(60);
/// The tmux session's name.
const SESSION: &str = "e2e";
/// What the chat prompts with (its trailing space is not on the screen).
const PROMPT: &str = "you>";

/// A terminal (tmux, 200 columns) running one command; killed on drop.
struct Terminal {
    dir: PathBuf,
    socket: PathBuf,
    /// Where the command's exit status is written once it ends.
    status: PathBuf,
}

/// Runs a command and writes its exit status to a file (128 + the signal's
/// number when a signal ended it): tmux itself does not always learn the
/// status of a command that ends at once. Ctrl-C reaches the command; the
/// shell outlives it to write the status.
const WITH_STATUS: &str = r#"trap : INT; status=$1; shift; "$@"; code=$?; echo "$code" > "$status.part"; mv "$status.part" "$status""#;

impl Terminal {
    /// Runs `command` on a new terminal, with the environment and working
    /// directory `agents` is isolated in.
    fn run(name: &str, command: &[&str]) -> Terminal {
        let installed = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            installed,
            "these tests need tmux for a terminal: scripts/tmux installs it (Debian's tmux package)"
        );
        let dir = std::env::temp_dir().join(format!("agents-e2e-tty-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("terminal directory");
        let config = dir.join("tmux.conf");
        // The pane stays once its command ends, so its last screen can be read.
        std::fs::write(
            &config,
            "set -g remain-on-exit on\nset -g history-limit 10000\nset -g status off\n",
        )
        .expect("tmux configuration");
        let terminal = Terminal {
            socket: dir.join("socket"),
            status: dir.join("status"),
            dir,
        };
        let isolated = agents_command();
        let mut tmux = terminal.tmux();
        for (key, value) in isolated.get_envs() {
            match value {
                Some(value) => tmux.env(key, value),
                None => tmux.env_remove(key),
            };
        }
        if let Some(dir) = isolated.get_current_dir() {
            tmux.current_dir(dir);
        }
        let status = tmux
            .env_remove("TMUX")
            .env_remove("NO_COLOR")
            .env("LC_ALL", "C.UTF-8")
            .arg("-f")
            .arg(&config)
            .args(["new-session", "-d", "-x", "200", "-y", "50", "-s", SESSION, "--"])
            .args(["sh", "-c", WITH_STATUS, "sh"])
            .arg(&terminal.status)
            .args(command)
            .status()
            .expect("run tmux");
        assert!(status.success(), "tmux new-session: {status}");
        terminal
    }

    fn tmux(&self) -> Command {
        let mut tmux = Command::new("tmux");
        tmux.arg("-u").arg("-S").arg(&self.socket);
        tmux
    }

    fn tmux_output(&self, args: &[&str]) -> String {
        let output = self.tmux().args(args).output().expect("run tmux");
        assert!(output.status.success(), "tmux {args:?}: {output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// The screen with its scrollback, wrapped lines joined, trailing
    /// blanks and the pane's own end notice left out; with `escapes`, the
    /// attributes as the control sequences that set them.
    fn capture(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-J", "-S", "-", "-t", SESSION];
        if escapes {
            args.push("-e");
        }
        self.tmux_output(&args)
    }

    fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .capture(false)
            .lines()
            .map(|l| l.trim_end().to_string())
            .filter(|l| !l.starts_with("Pane is dead"))
            .collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    }

    /// Waits until the screen satisfies `ready`; its lines then.
    fn wait_for(&self, what: &str, ready: impl Fn(&[String]) -> bool) -> Vec<String> {
        let start = Instant::now();
        loop {
            let lines = self.lines();
            if ready(&lines) {
                return lines;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "the screen never showed {what}:\n{}",
                lines.join("\n")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the `n`th prompt (counting the first as 1).
    fn prompt(&self, n: usize) -> Vec<String> {
        self.wait_for(&format!("prompt {n}"), |lines| {
            lines.iter().filter(|l| l.starts_with(PROMPT)).count() == n
                && lines.last().map(String::as_str) == Some(PROMPT)
        })
    }

    /// Types `text` and Enter.
    fn line(&self, text: &str) {
        self.tmux_output(&["send-keys", "-t", SESSION, "-l", text]);
        self.keys("Enter");
    }

    /// Presses a key (`C-c`, `C-d`, `Enter`).
    fn keys(&self, key: &str) {
        self.tmux_output(&["send-keys", "-t", SESSION, key]);
    }

    /// Waits until the command ends; its exit status.
    fn exit_status(&self) -> i32 {
        let start = Instant::now();
        loop {
            if let Ok(status) = std::fs::read_to_string(&self.status) {
                return status.trim().parse().expect("exit status");
            }
            assert!(
                start.elapsed() < DEADLINE,
                "the command never ended:\n{}",
                self.lines().join("\n")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The screen's turns: each from its prompt line up to the next prompt,
/// without the lines of progress (each checked to be a state in flight),
/// blank lines and `^C` echoes.
fn turns(lines: &[String]) -> Vec<Vec<String>> {
    let mut turns: Vec<Vec<String>> = vec![Vec::new()];
    for line in lines {
        // The terminal echoes Ctrl-C as `^C`.
        let line = line.trim_end_matches("^C").trim_end();
        if let Some(state) = line.strip_prefix("· ") {
            assert!(
                ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"].contains(&state),
                "progress line {line}"
            );
            continue;
        }
        if line.is_empty() {
            continue;
        }
        if line.starts_with(PROMPT) {
            turns.push(Vec::new());
        }
        turns.last_mut().expect("a turn").push(line.to_string());
    }
    turns
}

/// The value of the `label: value` line at `index` of `turn`.
fn value_at<'a>(turn: &'a [String], index: usize, label: &str) -> &'a str {
    turn.get(index)
        .and_then(|line| line.strip_prefix(&format!("{label}: ")))
        .unwrap_or_else(|| panic!("no {label} at line {index} of {turn:#?}"))
}

fn strings(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

/// `agents -a URL ARGS…` as a script runs it, its JSON answer.
fn json_answer(url: &str, args: &[&str]) -> Value {
    let mut all = vec!["-a", url, "-o", "json"];
    all.extend(args);
    let run = agents(&all);
    assert_eq!(run.code, 0, "{all:?}: {}", run.stderr);
    serde_json::from_str(run.stdout.trim()).expect("JSON answer")
}

/// `agents ARGS…` with `input` piped to its stdin: (exit status, stdout, stderr).
fn piped(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = agents_command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run agents");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write the turns");
    let output = child.wait_with_output().expect("agents ends");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    )
}

fn card_location(url: &str) -> String {
    format!("{}/.well-known/agent-card.json", url.trim_end_matches('/'))
}

/// A terminal chat: the prompt, the agent's words, the ids and state after
/// each turn; an input-required task answered by the next line, completed
/// in the same context; a new task in that context after it; `/task`; and
/// `/quit` ending with 0. Emphasis only here, on the terminal.
pub fn chat_on_a_terminal_carries_context_and_task() {
    let agent = Agent::start(false);
    let url = agent.url.as_str();
    let name = json_answer(url, &["card", "get"])["name"]
        .as_str()
        .expect("card name")
        .to_string();
    let terminal = Terminal::run("chat", &[AGENTS, "-a", url, "chat"]);
    let lines = terminal.prompt(1);
    assert_eq!(
        lines,
        [
            format!(
                "Chatting with {name} ({}). Each line is a message; /help lists the commands, /quit or Ctrl-D ends.",
                card_location(url)
            ),
            PROMPT.to_string()
        ]
    );

    terminal.line("tck-multi-turn hello");
    let first = turns(&terminal.prompt(2))[1].clone();
    let task = value_at(&first, 2, "Task ID").to_string();
    let context = value_at(&first, 3, "Context ID").to_string();
    assert_eq!(
        first,
        [
            "you> tck-multi-turn hello".to_string(),
            "agent> Please provide more input".into(),
            format!("Task ID: {task}"),
            format!("Context ID: {context}"),
            "State: TASK_STATE_INPUT_REQUIRED".into(),
            format!("task {task} waits for input (TASK_STATE_INPUT_REQUIRED): the next line answers it"),
        ]
    );

    // The next line answers the waiting task: the same task, the same context.
    terminal.line("done");
    let second = turns(&terminal.prompt(3))[2].clone();
    assert_eq!(
        second,
        [
            "you> done".to_string(),
            "agent> Conversation complete".into(),
            format!("Task ID: {task}"),
            format!("Context ID: {context}"),
            "State: TASK_STATE_COMPLETED".into(),
        ]
    );

    // A task that ended is not continued: a new one, in the same context.
    terminal.line("tck-complete-task hi");
    let third = turns(&terminal.prompt(4))[3].clone();
    let next = value_at(&third, 2, "Task ID").to_string();
    assert_ne!(next, task);
    assert_eq!(
        third,
        [
            "you> tck-complete-task hi".to_string(),
            "agent> Hello from TCK".into(),
            format!("Task ID: {next}"),
            format!("Context ID: {context}"),
            "State: TASK_STATE_COMPLETED".into(),
        ]
    );
    // The agent agrees.
    for id in [&task, &next] {
        let read = json_answer(url, &["task", "get", id]);
        assert_eq!(
            (read["contextId"].as_str(), read["status"]["state"].as_str()),
            (Some(context.as_str()), Some("TASK_STATE_COMPLETED"))
        );
    }

    terminal.line("/task");
    let shown = turns(&terminal.prompt(5))[4].clone();
    assert_eq!(
        shown,
        [
            "you> /task".to_string(),
            format!("Last Task ID: {next}"),
            format!("Context ID: {context}"),
            "State: TASK_STATE_COMPLETED".into(),
            format!("Continue With: agents -a {url} --context-id {context} chat"),
        ]
    );
    // The prompt and the labels are bold: control sequences, on a terminal only.
    assert!(
        terminal.capture(true).contains("\u{1b}[1myou>"),
        "{}",
        terminal.capture(true)
    );

    terminal.line("/quit");
    assert_eq!(terminal.exit_status(), 0);
    let last = turns(&terminal.lines()).pop().expect("the last turn");
    assert_eq!(
        last,
        [
            "you> /quit".to_string(),
            format!("To go on with this conversation later: agents -a {url} --context-id {context} chat"),
        ]
    );
}

/// Ctrl-C while the agent works stops waiting for the turn (the task goes
/// on, and the screen says how to find it), not the chat; `/cancel` cancels
/// that task; Ctrl-C at the prompt ends the chat with 0.
pub fn chat_on_a_terminal_ctrl_c_stops_a_turn_and_cancel_ends_its_task() {
    let agent = Agent::start(false);
    let url = agent.url.as_str();
    let terminal = Terminal::run("chat-interrupt", &[AGENTS, "-a", url, "chat"]);
    terminal.prompt(1);
    terminal.line("tck-cancel go");
    terminal.wait_for("the task working", |lines| {
        lines.iter().any(|l| l == "· TASK_STATE_WORKING")
    });
    terminal.keys("C-c");
    let stopped = turns(&terminal.prompt(2))[1].clone();
    let task = stopped
        .get(1)
        .and_then(|l| l.strip_prefix("Stopped waiting for task "))
        .and_then(|l| l.split(';').next())
        .unwrap_or_else(|| panic!("{stopped:#?}"))
        .to_string();
    assert_eq!(
        stopped,
        [
            "you> tck-cancel go".to_string(),
            format!(
                "Stopped waiting for task {task}; the task goes on. Follow it with `agents -a {url} task get {task} --wait`, or /cancel it."
            ),
        ]
    );
    // The task goes on.
    let read = json_answer(url, &["task", "get", &task]);
    assert_eq!(read["status"]["state"], "TASK_STATE_WORKING");
    let context = read["contextId"].as_str().expect("context").to_string();

    terminal.line("/cancel");
    let canceled = turns(&terminal.prompt(3))[2].clone();
    assert_eq!(
        canceled,
        [
            "you> /cancel".to_string(),
            format!("Task ID: {task}"),
            format!("Context ID: {context}"),
            "State: TASK_STATE_CANCELED".into(),
        ]
    );
    assert_eq!(
        json_answer(url, &["task", "get", &task])["status"]["state"],
        "TASK_STATE_CANCELED"
    );

    // Ctrl-C at the prompt ends the chat.
    terminal.keys("C-c");
    assert_eq!(terminal.exit_status(), 0);
    let last = turns(&terminal.lines()).pop().expect("the last turn");
    assert_eq!(
        last,
        [
            "you>".to_string(),
            format!("To go on with this conversation later: agents -a {url} --context-id {context} chat"),
        ]
    );
}

/// A task that waits for authentication: the agent's message, how to
/// authenticate, and the next line resuming the same task; Ctrl-D ends.
pub fn chat_on_a_terminal_auth_required_says_how_to_go_on() {
    let agent = Agent::start(false);
    let url = agent.url.as_str();
    let terminal = Terminal::run("chat-auth", &[AGENTS, "-a", url, "chat"]);
    terminal.prompt(1);
    terminal.line("tck-auth-required please");
    let waiting = turns(&terminal.prompt(2))[1].clone();
    let task = value_at(&waiting, 2, "Task ID").to_string();
    let context = value_at(&waiting, 3, "Context ID").to_string();
    assert_eq!(
        waiting,
        [
            "you> tck-auth-required please".to_string(),
            "agent> Authentication required to continue".into(),
            format!("Task ID: {task}"),
            format!("Context ID: {context}"),
            "State: TASK_STATE_AUTH_REQUIRED".into(),
            format!(
                "task {task} waits for authentication (TASK_STATE_AUTH_REQUIRED): where the agent's message says \
                 where to sign in, do that; the next line then resumes the task"
            ),
            format!(
                "credentials for this agent itself are read when the chat starts: end it, sign in with \
                 `agents -a {url} auth login` (or give --bearer TOKEN / --api-key KEY, or A2ACLI_BEARER / \
                 A2ACLI_API_KEY), then resume with `agents -a {url} --task-id {task} chat`"
            ),
        ]
    );
    terminal.line("tck-complete-task signed in");
    let resumed = turns(&terminal.prompt(3))[2].clone();
    assert_eq!(
        resumed,
        [
            "you> tck-complete-task signed in".to_string(),
            "agent> Hello from TCK".into(),
            format!("Task ID: {task}"),
            format!("Context ID: {context}"),
            "State: TASK_STATE_COMPLETED".into(),
        ]
    );
    terminal.keys("C-d");
    assert_eq!(terminal.exit_status(), 0);
}

/// stdin a terminal, stdout not: no prompt, no wait on the terminal, a
/// usage error (exit 2) saying what to do instead; in JSON its envelope is
/// the one line on stdout.
pub fn chat_refuses_a_terminal_when_its_output_is_not_one() {
    let agent = Agent::start(false);
    let url = agent.url.as_str();
    let redirect = r#"out="$1"; shift; exec "$@" > "$out""#;
    let out = std::env::temp_dir().join(format!("agents-e2e-chat-out-{}", std::process::id()));
    let out_path = out.display().to_string();
    let hint =
        "pipe the turns in, one message per line (printf 'hello\\n' | agents chat), or use `agents send`";
    let message =
        "chat takes its turns from a terminal only when its output goes to one: stdout is not a terminal";

    let terminal = Terminal::run(
        "chat-usage",
        &["sh", "-c", redirect, "sh", &out_path, AGENTS, "-a", url, "chat"],
    );
    assert_eq!(terminal.exit_status(), 2);
    assert_eq!(
        terminal.lines(),
        [
            format!("Error: {message}"),
            "Code: A2ACLI_ERR_USAGE".into(),
            format!("Hint: {hint}"),
        ]
    );
    assert_eq!(read(&out), "");
    drop(terminal);

    let terminal = Terminal::run(
        "chat-usage-json",
        &[
            "sh", "-c", redirect, "sh", &out_path, AGENTS, "-a", url, "-o", "json", "chat",
        ],
    );
    assert_eq!(terminal.exit_status(), 2);
    assert_eq!(terminal.lines(), Vec::<String>::new());
    let envelope: Value = serde_json::from_str(&read(&out)).expect("the envelope");
    assert_eq!(
        envelope,
        serde_json::json!({"error": {"code": "A2ACLI_ERR_USAGE", "message": message, "hint": hint, "a2aCode": null}})
    );
    assert_eq!(read(&out).lines().count(), 1);
    let _ = std::fs::remove_file(&out);
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Turns piped in: the `text` floor, exactly, and nothing a terminal would
/// interpret; in JSON one SendMessageResponse per turn; `--task-id` names
/// the task the first line answers; and with stdout on a terminal, still
/// no prompt and no control sequence.
pub fn chat_with_piped_turns_writes_the_text_floor() {
    let agent = Agent::start(false);
    let url = agent.url.as_str();
    let (code, stdout, stderr) = piped(&["-a", url, "chat"], "tck-multi-turn hello\ndone\n");
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let task = lines[0].strip_prefix("Task ID: ").expect("task id");
    let context = lines[1].strip_prefix("Context ID: ").expect("context id");
    let stamps: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("Timestamp: "))
        .collect();
    assert_eq!(stamps.len(), 2, "{stdout}");
    assert_eq!(
        stdout,
        format!(
            "Task ID: {task}\nContext ID: {context}\nState: TASK_STATE_INPUT_REQUIRED\nTimestamp: {}\n\
             Status Message:\n  Please provide more input\n\n\
             Resume: agents -a {url} send --task-id {task} 'REPLY'\n\n\
             Task ID: {task}\nContext ID: {context}\nState: TASK_STATE_COMPLETED\nTimestamp: {}\n\
             Status Message:\n  Conversation complete\n\n",
            stamps[0], stamps[1]
        )
    );
    assert_eq!(
        stderr,
        format!(
            "warning: task {task} waits for input (TASK_STATE_INPUT_REQUIRED): the next line answers it\n"
        )
    );
    assert!(!stdout.contains('\u{1b}') && !stderr.contains('\u{1b}'));

    // JSON: exactly one SendMessageResponse line per turn.
    let (code, stdout, stderr) = piped(&["-a", url, "-o", "json", "chat"], "tck-multi-turn hello\ndone\n");
    assert_eq!(code, 0, "{stderr}");
    let answers: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(answers.len(), 2, "{stdout}");
    let task = answers[0]["task"]["id"].as_str().expect("task id");
    let context = answers[0]["task"]["contextId"].as_str().expect("context id");
    let seen: Vec<(&str, &str, &str)> = answers
        .iter()
        .map(|a| {
            (
                a["task"]["id"].as_str().unwrap_or(""),
                a["task"]["contextId"].as_str().unwrap_or(""),
                a["task"]["status"]["state"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (task, context, "TASK_STATE_INPUT_REQUIRED"),
            (task, context, "TASK_STATE_COMPLETED")
        ]
    );
    assert!(!stdout.contains('\u{1b}'));

    // --task-id: the first line answers that task.
    let started = json_answer(url, &["send", "tck-multi-turn", "hi"]);
    let task = started["task"]["id"].as_str().expect("task id");
    let (code, stdout, stderr) = piped(&["-a", url, "--task-id", task, "-o", "json", "chat"], "done\n");
    assert_eq!((code, stderr.as_str()), (0, ""));
    let answer: Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
    assert_eq!(
        (
            answer["task"]["id"].as_str(),
            answer["task"]["contextId"].as_str(),
            answer["task"]["status"]["state"].as_str()
        ),
        (
            Some(task),
            started["task"]["contextId"].as_str(),
            Some("TASK_STATE_COMPLETED")
        )
    );

    // Piped turns, stdout on a terminal: the floor, no prompt, no emphasis.
    let terminal = Terminal::run(
        "chat-piped",
        &[
            "sh",
            "-c",
            r#"printf 'tck-complete-task hi\n' | exec "$@""#,
            "sh",
            AGENTS,
            "-a",
            url,
            "chat",
        ],
    );
    assert_eq!(terminal.exit_status(), 0);
    let lines = terminal.lines();
    let task = value_at(&lines, 0, "Task ID").to_string();
    let context = value_at(&lines, 1, "Context ID").to_string();
    let stamp = value_at(&lines, 3, "Timestamp").to_string();
    assert_eq!(
        lines,
        strings(&[
            &format!("Task ID: {task}"),
            &format!("Context ID: {context}"),
            "State: TASK_STATE_COMPLETED",
            &format!("Timestamp: {stamp}"),
            "Status Message:",
            "  Hello from TCK",
        ])
    );
    assert!(!terminal.capture(true).contains('\u{1b}'));
}

/// The events of `--follow` as `text` shows them: each the text of the
/// JSON event, a blank line after it.
fn events_text(url: &str) -> String {
    let run = agents(&["-a", url, "-o", "json", "events"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
        .lines()
        .map(|line| {
            let event: Value = serde_json::from_str(line).expect("an event");
            let mut out = text::Text::new();
            text::generic(&mut out, &event);
            format!("{}\n", out.finish())
        })
        .collect()
}

/// Whether `line` is the live status line showing `message` (after its
/// spinner glyph).
fn status_line(line: &str, message: &str) -> bool {
    let mut chars = line.chars();
    chars.next().is_some_and(|glyph| !glyph.is_ascii()) && chars.as_str() == format!(" {message}")
}

/// `events --follow` on a terminal: a live status line under the events
/// while they arrive; with stdout piped and stderr a terminal, the status
/// line on the terminal and the events on stdout, without a control sequence.
pub fn events_follow_shows_a_status_line_on_a_terminal() {
    let agent = Agent::start(false);
    let url = agent.url.as_str();
    let terminal = Terminal::run("events", &[AGENTS, "-a", url, "events", "--follow"]);
    terminal.wait_for("the status line", |lines| {
        lines.len() == 1 && status_line(&lines[0], "waiting for events…")
    });
    json_answer(url, &["send", "tck-complete-task", "hi"]);
    let expected = events_text(url);
    assert_eq!(
        expected.matches("type: session.message\n").count(),
        2,
        "{expected}"
    );
    let expected: Vec<String> = expected.lines().map(str::to_string).collect();
    let lines = terminal.wait_for("the events above the status line", |lines| {
        lines.len() == expected.len() + 1
            && lines[..expected.len()] == expected[..]
            && status_line(&lines[expected.len()], "session.message")
    });
    assert!(!lines.is_empty());
    // Ctrl-C ends the follow as it ends any command that does not catch it.
    terminal.keys("C-c");
    assert_eq!(terminal.exit_status(), 130);
    drop(terminal);

    let agent = Agent::start(false);
    let url = agent.url.as_str();
    let out = std::env::temp_dir().join(format!("agents-e2e-events-out-{}", std::process::id()));
    let out_path = out.display().to_string();
    let terminal = Terminal::run(
        "events-piped",
        &[
            "sh",
            "-c",
            r#"out="$1"; shift; exec "$@" > "$out""#,
            "sh",
            &out_path,
            AGENTS,
            "-a",
            url,
            "events",
            "--follow",
        ],
    );
    terminal.wait_for("the status line", |lines| {
        lines.len() == 1 && status_line(&lines[0], "waiting for events…")
    });
    json_answer(url, &["send", "tck-complete-task", "hi"]);
    let expected = events_text(url);
    let start = Instant::now();
    while read(&out) != expected {
        assert!(
            start.elapsed() < DEADLINE,
            "stdout never had the events:\n{}",
            read(&out)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The terminal shows the status line alone; stdout has the events, plain.
    terminal.wait_for("the status line after the events", |lines| {
        lines.len() == 1 && status_line(&lines[0], "session.message")
    });
    assert!(!read(&out).contains('\u{1b}'));
    terminal.keys("C-c");
    assert_eq!(terminal.exit_status(), 130);
    let _ = std::fs::remove_file(&out);
}
