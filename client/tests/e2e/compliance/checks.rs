//! One check per requirement identifier: what `agents` is made to do, and
//! what must be observed for the requirement to pass. A check returns the
//! command lines it ran (the report's evidence) or why it failed. Every
//! check of a binding-sensitive requirement runs on JSON-RPC, HTTP+JSON and
//! gRPC.

use super::lab::{
    cli, task, Answer, Invocation, Lab, Peer, API_KEY, BEARER, CI_CLIENT, CI_SECRET, DEVICE_CLIENT,
};
use crate::cli::Run;
use serde_json::{json, Value};

pub type Outcome = Result<Vec<String>, String>;

/// The bindings every binding-sensitive check runs on.
pub const BINDINGS: [&str; 3] = ["JSONRPC", "HTTP+JSON", "GRPC"];

/// Evidence: the commands run, secrets hidden.
#[derive(Default)]
struct Ev(Vec<String>);

impl Ev {
    fn note(&mut self, args: &[&str]) {
        let shown: Vec<String> = args.iter().map(|a| scrub(a)).collect();
        let line = format!("agents {}", shown.join(" "));
        if !self.0.contains(&line) && self.0.len() < 6 {
            self.0.push(line);
        }
    }

    fn run(&mut self, args: &[&str]) -> Run {
        self.note(args);
        cli(args)
    }

    fn invoke(&mut self, invocation: Invocation<'_>) -> Run {
        let args: Vec<&str> = invocation.args.iter().map(String::as_str).collect();
        self.note(&args);
        invocation.run()
    }

    fn done(self) -> Outcome {
        Ok(self.0)
    }
}

/// An argument as the report shows it: the same on every run and every
/// machine (no secret, port, file path or generated id).
fn scrub(arg: &str) -> String {
    if arg.starts_with("file:///") {
        return "file://FILE".into();
    }
    if arg.starts_with('/') {
        return "FILE".into();
    }
    let mut text = arg.to_string();
    for secret in [BEARER, API_KEY, CI_SECRET] {
        text = text.replace(secret, "[REDACTED]");
    }
    if text.contains("127.0.0.1:") {
        text = redact_port(&text);
    }
    redact_ids(&text)
}

/// Generated ids (UUIDs) as `ID`.
fn redact_ids(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let is_uuid = |window: &[char]| {
        window.len() == 36
            && window.iter().enumerate().all(|(i, c)| match i {
                8 | 13 | 18 | 23 => *c == '-',
                _ => c.is_ascii_hexdigit(),
            })
    };
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if i + 36 <= chars.len() && is_uuid(&chars[i..i + 36]) {
            out.push_str("ID");
            i += 36;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Ports change every run; the report shows `127.0.0.1:PORT`.
fn redact_port(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("127.0.0.1:") {
        out.push_str(&rest[..at + 10]);
        rest = &rest[at + 10..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        out.push_str("PORT");
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

fn ensure(condition: bool, why: impl Into<String>) -> Result<(), String> {
    if condition {
        Ok(())
    } else {
        Err(why.into())
    }
}

fn ok(run: &Run, what: &str) -> Result<(), String> {
    ensure(
        run.code == 0,
        format!("{what}: exit {} ({})", run.code, first_line(&run.stderr)),
    )
}

fn first_line(text: &str) -> String {
    text.lines()
        .find(|l| !l.starts_with("waiting for"))
        .unwrap_or("")
        .to_string()
}

fn doc(run: &Run, what: &str) -> Result<Value, String> {
    serde_json::from_str(run.stdout.trim())
        .map_err(|e| format!("{what}: stdout is not one JSON document ({e}): {}", run.stdout))
}

fn jsonl(run: &Run, what: &str) -> Result<Vec<Value>, String> {
    run.stdout
        .lines()
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{what}: a line is not JSON ({e}): {l}")))
        .collect()
}

fn state(value: &Value) -> &str {
    value
        .pointer("/task/status/state")
        .or_else(|| value.pointer("/status/state"))
        .or_else(|| value.pointer("/statusUpdate/status/state"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn id_of(value: &Value) -> String {
    value
        .pointer("/task/id")
        .or_else(|| value.get("id"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

fn context_of(value: &Value) -> String {
    value
        .pointer("/task/contextId")
        .or_else(|| value.get("contextId"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// `-a OPEN --transport BINDING ARGS…`: a command to the open agent over one binding.
fn on<'a>(lab: &'a Lab, binding: &'a str, args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["-a", lab.open.url.as_str(), "--transport", binding];
    all.extend_from_slice(args);
    all
}

/// The same, asking for JSON.
fn on_json<'a>(lab: &'a Lab, binding: &'a str, args: &[&'a str]) -> Vec<&'a str> {
    let mut all = on(lab, binding, &["-o", "json"]);
    all.extend_from_slice(args);
    all
}

/// Sends `text` to the open agent over `binding` and returns the settled answer.
fn send(ev: &mut Ev, lab: &Lab, binding: &str, extra: &[&str], text: &str) -> Result<Value, String> {
    let mut args = vec![
        "-a",
        &lab.open.url,
        "--transport",
        binding,
        "-o",
        "json",
        "send",
        text,
    ];
    args.extend_from_slice(extra);
    let run = ev.run(&args);
    ok(&run, &format!("send over {binding}"))?;
    doc(&run, "send")
}

fn text_floor(text: &str) -> Result<(), String> {
    ensure(!text.contains('\u{1b}'), "a control sequence in text output")?;
    let mut in_block = false;
    for line in text.lines() {
        if line.is_empty() {
            in_block = false;
            continue;
        }
        if in_block {
            ensure(
                line.starts_with("  "),
                format!("a block line not indented: {line:?}"),
            )?;
            continue;
        }
        let Some((label, value)) = line.split_once(':') else {
            return Err(format!("not a Label: value line: {line:?}"));
        };
        ensure(
            label.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && !label.contains("  ")
                && !label.ends_with(' '),
            format!("not a label: {line:?}"),
        )?;
        if value.is_empty() {
            in_block = true;
        } else {
            ensure(
                value.starts_with(' '),
                format!("no space after the label: {line:?}"),
            )?;
        }
    }
    Ok(())
}

// ---- Tier 1 -------------------------------------------------------------

pub fn card_get_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let card = lab.open_card();
    let file = lab.file("card.json", &card.to_string()).display().to_string();
    let references = [
        lab.open.host(),
        lab.open.url.clone(),
        format!("{}.well-known/agent-card.json", lab.open.url),
        format!("file://{file}"),
        file.clone(),
    ];
    for reference in &references {
        let run = ev.run(&["-a", reference, "-o", "json", "card", "get"]);
        ok(&run, &format!("card get -a {reference}"))?;
        let got = doc(&run, "card")?;
        ensure(
            got["name"] == card["name"],
            format!("card from {reference}: {}", got["name"]),
        )?;
        let run = cli(&["-a", reference, "card", "get"]);
        ensure(
            run.stdout.starts_with("Name: CleverAgents\n"),
            format!("text card: {}", run.stdout),
        )?;
    }
    for binding in super::checks::BINDINGS {
        let run = ev.run(&on(lab, binding, &["card", "get"]));
        ensure(
            run.stdout.contains(&format!("Selected Interface: {binding} ")),
            format!("--transport {binding}: {}", run.stdout),
        )?;
    }
    ev.done()
}

pub fn send_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let answer = send(&mut ev, lab, binding, &[], "tck-complete-task hello")?;
        ensure(
            state(&answer) == "TASK_STATE_COMPLETED",
            format!("{binding}: {answer}"),
        )?;
        ensure(
            answer.pointer("/task/status/message/parts/0/text") == Some(&json!("Hello from TCK")),
            format!("{binding}: the agent's answer is missing: {answer}"),
        )?;
    }
    ev.done()
}

pub fn send_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let settled = send(&mut ev, lab, binding, &[], "tck-long-running go")?;
        ensure(
            state(&settled) == "TASK_STATE_COMPLETED",
            format!("{binding}: waited to {}", state(&settled)),
        )?;
        for flag in ["--async", "--return-immediately", "--no-wait"] {
            let started = send(&mut ev, lab, binding, &[flag], "tck-long-running go")?;
            ensure(
                matches!(state(&started), "TASK_STATE_SUBMITTED" | "TASK_STATE_WORKING"),
                format!("{binding} {flag}: returned {}", state(&started)),
            )?;
            ensure(
                !id_of(&started).is_empty() && !context_of(&started).is_empty(),
                "no identifiers",
            )?;
        }
    }
    ev.done()
}

pub fn send_003(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&on_json(lab, binding, &["--stream", "send", "tck-stream-001 go"]));
        ok(&run, "send --stream")?;
        let events = jsonl(&run, "send --stream")?;
        ensure(
            events.len() >= 2 && events[0].get("task").is_some(),
            format!("{binding}: first event: {:?}", events.first()),
        )?;
        ensure(
            state(events.last().unwrap_or(&Value::Null)) == "TASK_STATE_COMPLETED",
            format!("{binding}: last event"),
        )?;
        let run = ev.run(&on_json(
            lab,
            binding,
            &["--stream", "send", "tck-message-response x"],
        ));
        ok(&run, "a direct message")?;
        let events = jsonl(&run, "message")?;
        ensure(
            events.len() == 1 && events[0].get("message").is_some(),
            format!("{binding}: {:?}", events),
        )?;
    }
    // An agent that does not stream: the answer as one line, no hang.
    let card = lab.card_file(|c| c["capabilities"]["streaming"] = json!(false));
    let run = ev.run(&[
        "-a",
        &card,
        "-o",
        "json",
        "--stream",
        "--timeout",
        "30s",
        "send",
        "tck-complete-task x",
    ]);
    ok(&run, "--stream without streaming")?;
    let events = jsonl(&run, "no streaming")?;
    ensure(
        events.len() == 1 && state(&events[0]) == "TASK_STATE_COMPLETED",
        format!("{events:?}"),
    )?;
    ensure(
        run.stderr.contains("does not declare streaming"),
        format!("no notice: {}", run.stderr),
    )?;
    ev.done()
}

pub fn send_004(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let cases = [
            ("tck-artifact-text x", "Text:\n  Generated text content\n\n"),
            (
                "tck-artifact-data x",
                "Data:\n  {\n    \"count\": 42,\n    \"key\": \"value\"\n  }\n\n",
            ),
            (
                "tck-artifact-file x",
                "File Name: output.txt\nMedia Type: text/plain\nFile Size: 3 bytes\n",
            ),
            (
                "tck-artifact-file-url x",
                "File Name: output.txt\nMedia Type: text/plain\nFile URL: https://example.com/output.txt\n",
            ),
        ];
        for (message, shown) in cases {
            let run = ev.run(&on(lab, binding, &["send", message]));
            ok(&run, message)?;
            ensure(
                run.stdout.contains(shown),
                format!("{binding} {message}: {}", run.stdout),
            )?;
        }
    }
    ev.done()
}

/// The parts the agent received for the task of `answer`.
fn received_parts(lab: &Lab, answer: &Value) -> Result<Vec<Value>, String> {
    let id = id_of(answer);
    let run = cli(&[
        "-a",
        &lab.open.url,
        "-o",
        "json",
        "task",
        "get",
        &id,
        "--history",
        "1",
    ]);
    let task = doc(&run, "task get --history")?;
    Ok(task
        .pointer("/history/0/parts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default())
}

pub fn send_005(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let bin = lab.file("payload.bin", "{\"k\": 1}");
    let txt = lab.file("notes.txt", "plain");
    let bin = bin.display().to_string();
    let txt = txt.display().to_string();
    for binding in BINDINGS {
        let answer = send(
            &mut ev,
            lab,
            binding,
            &["--file", &bin, "--media-type", "application/json", "--file", &txt],
            "tck-complete-task x",
        )?;
        let parts = received_parts(lab, &answer)?;
        let media: Vec<&str> = parts.iter().filter_map(|p| p["mediaType"].as_str()).collect();
        ensure(
            media == ["application/json", "text/plain"],
            format!("{binding}: media types {media:?}"),
        )?;
    }
    let run = ev.run(&[
        "-a",
        &lab.open.url,
        "send",
        "--media-type",
        "text/plain",
        "--text",
        "x",
    ]);
    ensure(
        run.code == 2 && run.stderr.contains("A2ACLI_ERR_USAGE"),
        format!("a lone --media-type: {}", run.code),
    )?;
    ev.done()
}

pub fn send_006(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let data = lab.file("d.json", "{\"k\": [1, 2]}").display().to_string();
    let file = lab.file("f.txt", "file").display().to_string();
    for binding in BINDINGS {
        let args = [
            "--data", &data, "--text", "first", "--file", &file, "--text", "last",
        ];
        let answer = send(&mut ev, lab, binding, &args, "tck-complete-task x")?;
        let parts = received_parts(lab, &answer)?;
        let kinds: Vec<String> = parts
            .iter()
            .map(|p| {
                if let Some(t) = p["text"].as_str() {
                    format!("text:{t}")
                } else if p.get("data").is_some() {
                    format!("data:{}", p["data"])
                } else {
                    format!("file:{}", p["filename"].as_str().unwrap_or(""))
                }
            })
            .collect();
        let file_name = std::path::Path::new(&file)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("");
        ensure(
            kinds
                == [
                    "text:tck-complete-task x".to_string(),
                    "data:{\"k\":[1,2]}".into(),
                    "text:first".into(),
                    format!("file:{file_name}"),
                    "text:last".into(),
                ],
            format!("{binding}: parts {kinds:?}"),
        )?;
    }
    let run = ev.invoke(
        Invocation::new(&["-a", &lab.open.url, "-o", "json", "send", "--data", "-"])
            .stdin("{\"from\": \"stdin\"}"),
    );
    ok(&run, "--data -")?;
    let parts = received_parts(lab, &doc(&run, "send")?)?;
    ensure(
        parts.first().map(|p| &p["data"]) == Some(&json!({"from": "stdin"})),
        format!("--data -: {parts:?}"),
    )?;
    ev.done()
}

pub fn task_get_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let answer = send(&mut ev, lab, binding, &[], "tck-artifact-text x")?;
        let id = id_of(&answer);
        let run = ev.run(&on_json(lab, binding, &["task", "get", &id, "--history", "5"]));
        let task = doc(&run, "task get")?;
        ensure(
            task["id"] == json!(id) && task["artifacts"].as_array().is_some_and(|a| !a.is_empty()),
            format!("{task}"),
        )?;
        ensure(
            task["history"].as_array().is_some_and(|h| !h.is_empty()),
            "no history with --history",
        )?;
        let run = ev.run(&on(lab, binding, &["task", "get", &id]));
        ensure(
            run.stdout.contains("Text:\n  Generated text content\n"),
            format!("text: {}", run.stdout),
        )?;
    }
    ev.done()
}

pub fn task_cancel_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let started = send(&mut ev, lab, binding, &["--async"], "tck-cancel x")?;
        let id = id_of(&started);
        for _ in 0..2 {
            let run = ev.run(&on(lab, binding, &["task", "cancel", &id]));
            ok(&run, "cancel")?;
            ensure(
                run.stdout.contains("State: TASK_STATE_CANCELED\n"),
                format!("{binding}: {}", run.stdout),
            )?;
        }
        let done = send(&mut ev, lab, binding, &[], "tck-complete-task x")?;
        let run = ev.run(&on_json(lab, binding, &["task", "cancel", &id_of(&done)]));
        let envelope = doc(&run, "cancel a completed task")?;
        ensure(
            run.code == 1 && envelope["error"]["code"] == "TaskNotCancelableError",
            format!("{binding}: {envelope}"),
        )?;
        ensure(
            envelope["error"]["hint"]
                .as_str()
                .is_some_and(|h| h.contains("TASK_STATE_COMPLETED")),
            format!("the resulting state: {envelope}"),
        )?;
    }
    ev.done()
}

pub fn interact_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let first = send(&mut ev, lab, binding, &[], "tck-complete-task one")?;
        let context = context_of(&first);
        let second = send(
            &mut ev,
            lab,
            binding,
            &["--context-id", &context],
            "tck-complete-task two",
        )?;
        ensure(
            context_of(&second) == context && id_of(&second) != id_of(&first),
            format!("{binding}: {second}"),
        )?;
    }
    ev.done()
}

fn task_count(lab: &Lab) -> usize {
    let run = cli(&[
        "-a",
        &lab.open.url,
        "-o",
        "json",
        "task",
        "list",
        "--page-size",
        "100",
    ]);
    doc(&run, "list")
        .ok()
        .and_then(|p| p["totalSize"].as_u64())
        .unwrap_or(0) as usize
}

pub fn interact_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let open = send(&mut ev, lab, binding, &[], "tck-multi-turn hi")?;
        ensure(
            state(&open) == "TASK_STATE_INPUT_REQUIRED",
            format!("{binding}: {}", state(&open)),
        )?;
        let (id, context) = (id_of(&open), context_of(&open));
        let next = send(&mut ev, lab, binding, &["--task-id", &id], "more")?;
        ensure(
            id_of(&next) == id && state(&next) == "TASK_STATE_INPUT_REQUIRED",
            format!("{binding}: {next}"),
        )?;
        let done = send(
            &mut ev,
            lab,
            binding,
            &["--task-id", &id, "--context-id", &context],
            "done",
        )?;
        ensure(
            id_of(&done) == id && state(&done) == "TASK_STATE_COMPLETED",
            format!("{binding}: {done}"),
        )?;
        let before = task_count(lab);
        for refused in [
            vec!["--task-id", "no-such-task"],
            vec!["--task-id", &id, "--context-id", "another-context"],
        ] {
            let mut args = vec!["-a", &lab.open.url, "--transport", binding, "-o", "json"];
            args.extend(refused.iter().copied());
            args.extend(["send", "more"]);
            let run = ev.run(&args);
            let envelope = doc(&run, "refused")?;
            ensure(
                run.code != 0 && envelope.get("error").is_some(),
                format!("{binding} {refused:?}: {}", run.stdout),
            )?;
            ensure(
                envelope["error"]["hint"]
                    .as_str()
                    .is_some_and(|h| h.contains("--debug") && h.contains("no new task")),
                format!("{binding}: the hint: {envelope}"),
            )?;
        }
        ensure(
            task_count(lab) == before,
            format!("{binding}: a refused identifier created a task"),
        )?;
    }
    ev.done()
}

pub fn interact_003(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let run = ev.run(&[
        "-a",
        &lab.open.url,
        "--debug",
        "-o",
        "json",
        "send",
        "tck-complete-task x",
    ]);
    ok(&run, "send --debug")?;
    let request = run
        .stderr
        .lines()
        .find(|l| {
            l.contains("\"method\":\"SendStreamingMessage\"") || l.contains("\"method\":\"SendMessage\"")
        })
        .ok_or("no request on the wire log")?;
    ensure(
        !request.contains("\"taskId\"") && !request.contains("\"contextId\""),
        format!("invented: {request}"),
    )?;
    // A context is reused only when the caller names it: two sends, two contexts.
    let a = send(&mut ev, lab, "JSONRPC", &[], "tck-complete-task a")?;
    let b = send(&mut ev, lab, "JSONRPC", &[], "tck-complete-task b")?;
    ensure(context_of(&a) != context_of(&b), "a context was carried over")?;
    ev.done()
}

pub fn interact_004(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&on(lab, binding, &["send", "tck-multi-turn hi"]));
        ok(&run, "send")?;
        for label in ["Task ID: ", "Context ID: ", "State: TASK_STATE_INPUT_REQUIRED\n"] {
            ensure(
                run.stdout.contains(label),
                format!("{binding}: no {label}: {}", run.stdout),
            )?;
        }
        let id = run
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("Task ID: "))
            .unwrap_or("")
            .to_string();
        ensure(
            run.stdout.contains(&format!(
                "Resume: agents -a {} send --task-id {id} 'REPLY'\n",
                lab.open.url
            )),
            format!("{binding}: no resume command: {}", run.stdout),
        )?;
    }
    ev.done()
}

pub fn interact_005(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let home = super::lab::scratch("stateless");
    let run = ev.invoke(
        Invocation::new(&["-a", &lab.open.url, "-o", "json", "send", "tck-multi-turn hi"]).home(&home),
    );
    let answer = doc(&run, "send")?;
    let id = id_of(&answer);
    let mut kept = Vec::new();
    let mut stack = vec![home.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read_to_string(&path)
                .is_ok_and(|t| t.contains(&id) || t.contains(&context_of(&answer)))
            {
                kept.push(path.display().to_string());
            }
        }
    }
    ensure(kept.is_empty(), format!("identifiers kept in {kept:?}"))?;
    let run = ev.invoke(Invocation::new(&["-a", &lab.open.url, "task", "get"]).home(&home));
    ensure(run.code == 2, "task get without an id used a remembered one")?;
    let run = ev.run(&["-a", &lab.open.url, "send", "--continue", "x"]);
    ensure(run.code == 2, "--continue exists")?;
    ev.done()
}

pub fn task_poll_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let started = send(&mut ev, lab, binding, &["--async"], "tck-long-running go")?;
        let id = id_of(&started);
        let run = ev.run(&on_json(lab, binding, &["task", "get", &id]));
        ensure(
            matches!(
                state(&doc(&run, "one read")?),
                "TASK_STATE_SUBMITTED" | "TASK_STATE_WORKING" | "TASK_STATE_COMPLETED"
            ),
            "one read",
        )?;
        let run = ev.run(&on_json(
            lab,
            binding,
            &["--poll-interval", "200ms", "task", "get", &id, "--wait"],
        ));
        ensure(
            state(&doc(&run, "wait")?) == "TASK_STATE_COMPLETED",
            format!("{binding}: {}", run.stdout),
        )?;
    }
    ev.done()
}

pub fn task_poll_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let started = send(&mut ev, lab, "JSONRPC", &["--async"], "tck-cancel x")?;
    let id = id_of(&started);
    let run = ev.run(&[
        "-a",
        &lab.open.url,
        "--debug",
        "--poll-interval",
        "100ms",
        "--timeout",
        "2s",
        "task",
        "get",
        &id,
        "--wait",
    ]);
    ensure(
        run.code == 5 && run.stderr.contains("Code: A2ACLI_ERR_TIMEOUT\n"),
        format!("timeout: exit {} {}", run.code, run.stderr),
    )?;
    let first = run
        .stderr
        .lines()
        .position(|l| l.starts_with(&format!("waiting for task {id} ")));
    let error = run.stderr.lines().position(|l| l.starts_with("Error: "));
    ensure(
        first.is_some() && first < error,
        "the task id is not printed before the wait",
    )?;
    // Backoff: at 100 ms without it, 2 s would hold about 20 reads; with it, at most 10.
    let reads = run
        .stderr
        .lines()
        .filter(|l| l.contains("\"method\":\"GetTask\""))
        .count();
    ensure(
        (2..=10).contains(&reads),
        format!("{reads} reads in 2 s at a 100 ms interval"),
    )?;
    cli(&["-a", &lab.open.url, "task", "cancel", &id]);
    ev.done()
}

pub fn task_poll_003(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        for (message, settled) in [
            ("tck-input-required x", "TASK_STATE_INPUT_REQUIRED"),
            ("tck-auth-required x", "TASK_STATE_AUTH_REQUIRED"),
        ] {
            let answer = send(&mut ev, lab, binding, &["--timeout", "60s"], message)?;
            ensure(
                state(&answer) == settled,
                format!("{binding}: {message}: {}", state(&answer)),
            )?;
            let run = ev.run(&on_json(
                lab,
                binding,
                &["--timeout", "60s", "task", "get", &id_of(&answer), "--wait"],
            ));
            ensure(
                state(&doc(&run, "wait")?) == settled,
                "task get --wait did not stop",
            )?;
            // Following the waiting task ends at once too, streamed or not
            // (this is where it used to hang until killed).
            for stream in [&["--stream"][..], &[]] {
                let mut args = vec![
                    "-a",
                    &lab.open.url,
                    "--transport",
                    binding,
                    "-o",
                    "json",
                    "--timeout",
                    "60s",
                ];
                args.extend_from_slice(stream);
                let id = id_of(&answer);
                args.extend(["task", "subscribe", &id]);
                let run = ev.run(&args);
                ok(
                    &run,
                    &format!("{binding} task subscribe {stream:?} on a waiting task"),
                )?;
                let last = jsonl(&run, "subscribe")?.pop().unwrap_or_default();
                ensure(state(&last) == settled, format!("{binding} subscribe: {last}"))?;
            }
        }
    }
    // UNSPECIFIED is neither: a peer answers it twice, then COMPLETED.
    let peer = Peer::start(|method, before, _| match method {
        "/card.json" => Answer::Document(json!(null)),
        "GetTask" if before < 2 => Answer::Result(task("t1", "TASK_STATE_UNSPECIFIED")),
        "GetTask" => Answer::Result(task("t1", "TASK_STATE_COMPLETED")),
        _ => Answer::Status(404),
    });
    let card = lab
        .file("peer.json", &super::lab::card_at(&peer.url, false).to_string())
        .display()
        .to_string();
    let run = ev.run(&[
        "-a",
        &card,
        "-o",
        "json",
        "--poll-interval",
        "100ms",
        "task",
        "get",
        "t1",
        "--wait",
    ]);
    ensure(
        state(&doc(&run, "unspecified")?) == "TASK_STATE_COMPLETED",
        run.stdout.to_string(),
    )?;
    ensure(
        peer.calls("GetTask") >= 3,
        format!("{} reads", peer.calls("GetTask")),
    )?;
    ev.done()
}

pub fn task_poll_004(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    // The stream breaks after the first event, and every new one fails: the
    // wait polls to the end.
    let peer = Peer::start(|method, _, _| match method {
        "SendStreamingMessage" => Answer::Events(vec![json!({"task": task("t2", "TASK_STATE_SUBMITTED")})]),
        "SubscribeToTask" => Answer::Status(503),
        "GetTask" => Answer::Result(task("t2", "TASK_STATE_COMPLETED")),
        _ => Answer::Status(404),
    });
    let card = lab
        .file("peer.json", &super::lab::card_at(&peer.url, true).to_string())
        .display()
        .to_string();
    let run = ev.run(&[
        "-a",
        &card,
        "-o",
        "json",
        "--poll-interval",
        "100ms",
        "--timeout",
        "60s",
        "send",
        "go",
    ]);
    ok(&run, "send")?;
    ensure(
        state(&doc(&run, "send")?) == "TASK_STATE_COMPLETED",
        run.stdout.to_string(),
    )?;
    ensure(
        peer.calls("SendStreamingMessage") == 1 && peer.calls("GetTask") >= 1,
        "no fallback to polling",
    )?;
    ev.done()
}

pub fn out_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&on_json(lab, binding, &["send", "tck-long-running go"]));
        let answer = doc(&run, "stdout holds the payload only")?;
        ensure(
            !id_of(&answer).is_empty() && !context_of(&answer).is_empty() && !state(&answer).is_empty(),
            "ids",
        )?;
        ensure(
            run.stderr.contains("waiting for task"),
            "no diagnostics on stderr",
        )?;
        for args in [
            vec!["send", "tck-complete-task x"],
            vec!["task", "get", &id_of(&answer)],
            vec!["task", "list"],
        ] {
            let mut all = vec!["-a", &lab.open.url, "--transport", binding];
            all.extend(args.iter().copied());
            let run = ev.run(&all);
            for label in ["Task ID: ", "Context ID: ", "State: "] {
                ensure(run.stdout.contains(label), format!("{args:?}: no {label}"))?;
            }
            ensure(!run.stdout.contains("waiting for"), "diagnostics on stdout")?;
        }
    }
    ev.done()
}

pub fn out_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&on_json(lab, binding, &["send", "tck-stream-001 go"]));
        ensure(
            run.stdout.trim().lines().count() == 1,
            format!("{binding}: not one document"),
        )?;
        let answer = doc(&run, "send")?;
        ensure(
            state(&answer) == "TASK_STATE_COMPLETED" && answer.pointer("/task/artifacts/0").is_some(),
            format!("{answer}"),
        )?;
        let started = id_of(&send(&mut ev, lab, binding, &["--async"], "tck-long-running go")?);
        let run = ev.run(&on_json(lab, binding, &["task", "subscribe", &started]));
        let task = doc(&run, "subscribe")?;
        ensure(
            state(&task) == "TASK_STATE_COMPLETED" && task.get("id").is_some(),
            format!("subscribe: {task}"),
        )?;
    }
    ev.done()
}

pub fn out_003(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&on_json(lab, binding, &["--stream", "send", "tck-stream-003 go"]));
        let events = jsonl(&run, "JSONL")?;
        ensure(events.len() >= 3, "too few lines")?;
        let last = events.last().cloned().unwrap_or_default();
        ensure(
            state(&last) == "TASK_STATE_COMPLETED",
            format!("{binding}: last line {last}"),
        )?;
        let run = ev.run(&on_json(
            lab,
            binding,
            &["--stream", "--timeout", "1s", "send", "tck-cancel x"],
        ));
        let events = jsonl(&run, "JSONL with a timeout")?;
        let last = events.last().cloned().unwrap_or_default();
        ensure(
            run.code == 5 && last["error"]["code"] == "A2ACLI_ERR_TIMEOUT",
            format!("{binding}: last line {last}"),
        )?;
    }
    ev.done()
}

pub fn out_004(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let mut seen = Vec::new();
    for binding in BINDINGS {
        let run = ev.run(&on_json(lab, binding, &["task", "get", "no-such-task"]));
        let envelope = doc(&run, "envelope")?;
        seen.push((run.code, envelope["error"]["code"].clone()));
    }
    ensure(
        seen.iter().all(|s| *s == (1, json!("TaskNotFoundError"))),
        format!("{seen:?}"),
    )?;
    let run = ev.run(&["-a", &lab.secured.url, "-o", "json", "task", "get", "x"]);
    let envelope = doc(&run, "credentials")?;
    ensure(
        envelope["error"]["code"] == "A2ACLI_ERR_CREDENTIALS_MISSING"
            && envelope["error"]["hint"]
                .as_str()
                .is_some_and(|h| h.contains("--bearer")),
        format!("{envelope}"),
    )?;
    let mut keys: Vec<&String> = envelope["error"]
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    keys.sort();
    ensure(
        keys == ["a2aCode", "code", "hint", "message"],
        format!("envelope members {keys:?}"),
    )?;
    ev.done()
}

pub fn out_005(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for args in [
        vec!["send", "tck-artifact-data x"],
        vec!["send", "tck-stream-001 go"],
        vec!["--stream", "send", "tck-stream-001 go"],
        vec!["send", "tck-multi-turn x"],
        vec!["card", "get"],
        vec!["task", "list"],
        vec!["config", "show"],
    ] {
        let mut all = vec!["-a", &lab.open.url];
        all.extend(args.iter().copied());
        let run = ev.run(&all);
        ok(&run, &format!("{args:?}"))?;
        text_floor(&run.stdout).map_err(|e| format!("{args:?}: {e}"))?;
    }
    // Interactive chat off a terminal: text only, never a prompt.
    let run = ev.invoke(Invocation::new(&["-a", &lab.open.url, "chat"]).stdin("tck-multi-turn hi\ndone\n"));
    ok(&run, "chat off a terminal")?;
    text_floor(&run.stdout)?;
    ev.done()
}

pub fn out_006(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&on(lab, binding, &["--async", "send", "tck-long-running go"]));
        ensure(
            run.stdout.contains("Task ID: ") && run.stdout.contains("Context ID: "),
            "text",
        )?;
        let answer = send(&mut ev, lab, binding, &["--async"], "tck-long-running go")?;
        ensure(
            !id_of(&answer).is_empty() && !context_of(&answer).is_empty(),
            "json",
        )?;
    }
    ev.done()
}

pub fn exit_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    // A port nobody listens on: bound, then closed.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed = format!("http://{}/", listener.local_addr().expect("addr"));
    drop(listener);
    let started = send(&mut ev, lab, "JSONRPC", &["--async"], "tck-cancel x")?;
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (vec!["-a", &lab.open.url, "card", "get"], 0, ""),
        (
            vec!["-a", &lab.open.url, "task", "get", "no-such-task"],
            1,
            "TaskNotFoundError",
        ),
        (vec!["-a", &lab.open.url, "send"], 2, "A2ACLI_ERR_USAGE"),
        (vec!["--no-such-flag"], 2, "A2ACLI_ERR_USAGE"),
        (vec!["-a", &closed, "card", "get"], 3, "A2ACLI_ERR_UNREACHABLE"),
        (
            vec!["-a", &lab.secured.url, "task", "list"],
            4,
            "A2ACLI_ERR_CREDENTIALS_MISSING",
        ),
        (
            vec!["-a", &lab.secured.url, "--bearer", "wrong", "task", "list"],
            4,
            "A2ACLI_ERR_AUTH_FAILED",
        ),
    ];
    for (args, code, name) in cases {
        let mut all = vec!["-o", "json"];
        all.extend(args.iter().copied());
        let run = ev.run(&all);
        ensure(
            run.code == code,
            format!("{args:?}: exit {} not {code}", run.code),
        )?;
        if !name.is_empty() {
            ensure(
                doc(&run, "envelope")?["error"]["code"] == name,
                format!("{args:?}: {}", run.stdout),
            )?;
        }
    }
    let id = id_of(&started);
    let run = ev.run(&[
        "-a",
        &lab.open.url,
        "-o",
        "json",
        "--timeout",
        "1s",
        "task",
        "get",
        &id,
        "--wait",
    ]);
    ensure(
        run.code == 5 && doc(&run, "timeout")?["error"]["code"] == "A2ACLI_ERR_TIMEOUT",
        "timeout",
    )?;
    cli(&["-a", &lab.open.url, "task", "cancel", &id]);
    ev.done()
}

pub fn exit_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for (message, settled, warning) in [
        (
            "tck-task-failure x",
            "TASK_STATE_FAILED",
            "ended TASK_STATE_FAILED",
        ),
        (
            "tck-reject-task x",
            "TASK_STATE_REJECTED",
            "ended TASK_STATE_REJECTED",
        ),
        (
            "tck-input-required x",
            "TASK_STATE_INPUT_REQUIRED",
            "waits for input",
        ),
        (
            "tck-auth-required x",
            "TASK_STATE_AUTH_REQUIRED",
            "waits for authentication",
        ),
    ] {
        let run = ev.run(&["-a", &lab.open.url, "-o", "json", "send", message]);
        ensure(run.code == 0, format!("{message}: exit {}", run.code))?;
        ensure(state(&doc(&run, message)?) == settled, message.to_string())?;
        ensure(
            run.stderr.contains("warning: task ") && run.stderr.contains(warning),
            format!("{message}: {}", run.stderr),
        )?;
    }
    ev.done()
}

pub fn auth_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&[
            "-a",
            &lab.secured.url,
            "--transport",
            binding,
            "--bearer",
            BEARER,
            "task",
            "list",
        ]);
        ok(&run, &format!("{binding} --bearer"))?;
        let run = ev.invoke(
            Invocation::new(&["-a", &lab.secured.url, "--transport", binding, "task", "list"])
                .env("A2ACLI_BEARER", BEARER),
        );
        ok(&run, &format!("{binding} A2ACLI_BEARER"))?;
    }
    // The card puts the API key in the `key` query parameter: only there is it accepted.
    for binding in ["JSONRPC", "HTTP+JSON"] {
        let run = ev.run(&[
            "-a",
            &lab.secured.url,
            "--transport",
            binding,
            "--api-key",
            API_KEY,
            "--debug",
            "task",
            "list",
        ]);
        ok(&run, &format!("{binding} --api-key"))?;
        ensure(
            run.stderr.contains("?key=[REDACTED]") || run.stderr.contains("&key=[REDACTED]"),
            "the key is not in the query",
        )?;
        let run = ev.invoke(
            Invocation::new(&["-a", &lab.secured.url, "--transport", binding, "task", "list"])
                .env("A2ACLI_API_KEY", API_KEY),
        );
        ok(&run, &format!("{binding} A2ACLI_API_KEY"))?;
    }
    let run = ev.run(&[
        "-a",
        &lab.secured.url,
        "--transport",
        "GRPC",
        "--api-key",
        API_KEY,
        "task",
        "list",
    ]);
    ensure(
        run.code == 4 && run.stderr.contains("query parameter"),
        "a query key over gRPC is refused before any call",
    )?;
    let help = cli(&["help", "send"]).stdout;
    let svc = help
        .lines()
        .skip_while(|l| !l.contains("--svc-param"))
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    ensure(
        svc.contains("service parameter") && !svc.to_lowercase().contains("authenticat"),
        format!("--svc-param help: {svc}"),
    )?;
    let run = ev.run(&[
        "-a",
        &lab.open.url,
        "--svc-param",
        "x-trace-id:abc123",
        "--debug",
        "card",
        "get",
    ]);
    ok(&run, "--svc-param")?;
    ev.done()
}

pub fn auth_002(_lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let help = ev.run(&["--help"]).stdout;
    for (flag, variable) in [
        ("--bearer", "A2ACLI_BEARER"),
        ("--api-key", "A2ACLI_API_KEY"),
        ("--client-secret", "A2ACLI_CLIENT_SECRET"),
    ] {
        let line = help
            .lines()
            .skip_while(|l| !l.contains(&format!("{flag} <")))
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        ensure(
            line.contains(variable),
            format!("{flag} names no variable: {line}"),
        )?;
        if flag != "--client-secret" {
            ensure(
                line.contains("process table") && line.contains("shell history"),
                format!("{flag}: no warning: {line}"),
            )?;
        }
    }
    ev.done()
}

pub fn auth_008(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let run = ev.run(&[
        "-a",
        &lab.open.url,
        "--bearer",
        "not-for-this-agent",
        "--debug",
        "task",
        "list",
    ]);
    ok(&run, "task list")?;
    ensure(run.stderr.contains("warning: --bearer not sent"), "no warning")?;
    ensure(
        !run.stderr.to_lowercase().contains("authorization:"),
        "a credential was sent",
    )?;
    // The card itself is read without credentials.
    let run = ev.run(&[
        "-a",
        &lab.secured.url,
        "--bearer",
        BEARER,
        "--debug",
        "card",
        "get",
    ]);
    ensure(
        run.stderr.contains("(Agent Card, no credentials)"),
        "the card read carried credentials",
    )?;
    ev.done()
}

pub fn auth_004(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&[
            "-a",
            &lab.secured.url,
            "--transport",
            binding,
            "--bearer",
            BEARER,
            "--svc-param",
            "x-secret-param:s3cr3t-value",
            "--debug",
            "--verbose",
            "send",
            "tck-complete-task x",
        ]);
        ok(&run, binding)?;
        ensure(run.stderr.contains("debug: "), "no diagnostics")?;
        for secret in [BEARER, "s3cr3t-value"] {
            ensure(
                !run.stderr.contains(secret) && !run.stdout.contains(secret),
                format!("{binding}: a credential shows"),
            )?;
        }
    }
    let run = ev.run(&[
        "-a",
        &lab.secured.url,
        "--transport",
        "JSONRPC",
        "--api-key",
        API_KEY,
        "--debug",
        "task",
        "list",
    ]);
    ensure(!run.stderr.contains(API_KEY), "the API key shows")?;
    ev.done()
}

pub fn tx_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    // The card lists HTTP+JSON first: it is used.
    let card = lab.card_file(|c| {
        if let Some(list) = c["supportedInterfaces"].as_array_mut() {
            list.sort_by_key(|i| i["protocolBinding"] != "HTTP+JSON");
        }
    });
    let run = ev.run(&["-a", &card, "--debug", "task", "list"]);
    ok(&run, "task list")?;
    ensure(
        run.stderr.contains(": using HTTP+JSON "),
        first_line(&run.stderr).to_string(),
    )?;
    let card = lab.card_file(|c| {
        if let Some(list) = c["supportedInterfaces"].as_array_mut() {
            list.sort_by_key(|i| i["protocolBinding"] != "GRPC");
        }
    });
    let run = ev.run(&["-a", &card, "--debug", "task", "list"]);
    ensure(
        run.code == 0 && run.stderr.contains(": using GRPC "),
        "GRPC first",
    )?;
    ev.done()
}

pub fn tx_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let run = ev.run(&["-a", &lab.open.url, "--debug", "task", "list"]);
    ensure(run.stderr.contains(": using JSONRPC "), "the first interface")?;
    let run = ev.run(&[
        "-a",
        &lab.open.url,
        "--transport",
        "grpc",
        "--transport",
        "JSONRPC",
        "--debug",
        "task",
        "list",
    ]);
    ensure(
        run.code == 0 && run.stderr.contains(": using GRPC "),
        "the first preferred",
    )?;
    let only_rpc = lab.card_file(|c| {
        if let Some(list) = c["supportedInterfaces"].as_array_mut() {
            list.retain(|i| i["protocolBinding"] == "JSONRPC");
        }
    });
    let run = ev.run(&[
        "-a",
        &only_rpc,
        "--transport",
        "GRPC",
        "--transport",
        "http+json",
        "--transport",
        "jsonrpc",
        "--debug",
        "task",
        "list",
    ]);
    ensure(
        run.code == 0 && run.stderr.contains(": using JSONRPC "),
        "absent bindings skipped",
    )?;
    ev.done()
}

pub fn tx_003(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let card = lab.card_file(|c| {
        for interface in c["supportedInterfaces"].as_array_mut().into_iter().flatten() {
            interface["tenant"] = json!("acme");
        }
    });
    for binding in BINDINGS {
        let run = ev.run(&[
            "-a",
            &card,
            "--transport",
            binding,
            "--debug",
            "-o",
            "json",
            "send",
            "tck-complete-task x",
        ]);
        ok(&run, binding)?;
        let wire: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with("debug: >")).collect();
        let carries = |l: &&str| l.contains("\"tenant\":\"acme\"") || l.contains("/acme/");
        ensure(
            wire.iter().any(carries),
            format!("{binding}: no tenant on the wire"),
        )?;
        let id = id_of(&doc(&run, "send")?);
        // Where the tenant is the namespace: found there, not in the default one.
        let run = ev.run(&[
            "-a",
            &card,
            "--transport",
            binding,
            "-o",
            "json",
            "task",
            "get",
            &id,
        ]);
        ok(&run, "get in the tenant")?;
        let run = cli(&[
            "-a",
            &lab.open.url,
            "--transport",
            binding,
            "-o",
            "json",
            "task",
            "get",
            &id,
        ]);
        ensure(
            run.code == 1,
            format!("{binding}: the task is in the default namespace"),
        )?;
    }
    let run = ev.run(&["-a", &lab.open.url, "--debug", "task", "list"]);
    ensure(
        !run.stderr.contains("\"tenant\""),
        "a tenant where none is declared",
    )?;
    ev.done()
}

pub fn ver_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&on(lab, binding, &["--debug", "send", "tck-complete-task x"]));
        ok(&run, binding)?;
        let requests = run
            .stderr
            .lines()
            .filter(|l| {
                ["GET", "POST", "DELETE"]
                    .iter()
                    .any(|verb| l.starts_with(&format!("debug: > {verb} ")))
            })
            .count();
        let versions = run
            .stderr
            .lines()
            .filter(|l| l.to_ascii_lowercase().starts_with("debug: > a2a-version: 1.0"))
            .count();
        if binding != "GRPC" {
            ensure(
                requests > 0 && versions == requests,
                format!("{binding}: {versions} of {requests} requests say A2A-Version"),
            )?;
        }
    }
    let legacy = lab.card_file(|c| {
        if let Some(list) = c["supportedInterfaces"].as_array_mut() {
            list.retain(|i| i["protocolVersion"] == "0.3");
        }
    });
    let run = ev.run(&["-a", &legacy, "task", "list"]);
    ensure(
        run.code != 0 && run.stderr.contains("0.3"),
        "a 0.3-only agent is not refused",
    )?;
    let run = ev.run(&["-a", &lab.open.url, "--a2a-version", "0.3", "task", "list"]);
    ensure(run.code == 2, "--a2a-version 0.3 accepted")?;
    ev.done()
}

pub fn default_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let run = ev.run(&["-a", &lab.open.url, "send", "tck-long-running go"]);
    ensure(
        run.stdout.starts_with("Task ID: ") && run.stdout.contains("State: TASK_STATE_COMPLETED"),
        "text, waited",
    )?;
    ensure(!run.stdout.contains("Message ID:"), "not concise")?;
    let run = ev.run(&["-a", &lab.open.url, "--verbose", "send", "tck-complete-task x"]);
    ensure(run.stdout.contains("Message ID:"), "--verbose shows nothing more")?;
    let help = ev.run(&["--help"]).stdout;
    for default in [
        "transport: the card's first supported interface",
        "task completion: wait",
        "output: text",
        "detail: concise",
        "A2A version: the highest both sides support, never below 1.0",
        "TLS verification: on",
    ] {
        ensure(
            help.contains(default),
            format!("help lacks the default `{default}`"),
        )?;
    }
    ev.done()
}

pub fn config_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let home = super::lab::scratch("config");
    let run = ev.invoke(
        Invocation::new(&["-a", &lab.secured.url, "auth", "login", "--client-id", CI_CLIENT])
            .env("A2ACLI_CLIENT_SECRET", CI_SECRET)
            .home(&home),
    );
    ok(&run, "auth login")?;
    let dir = home.join(".config/a2a-cli");
    let mut files = Vec::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if entry.path().is_dir() {
                stack.push(entry.path());
            } else {
                files.push(entry.path());
            }
        }
    }
    ensure(!files.is_empty(), "nothing kept under ~/.config/a2a-cli")?;
    for file in &files {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or(0);
        ensure(mode == 0o600, format!("{} is {mode:o}", file.display()))?;
    }
    let run = ev.invoke(
        Invocation::new(&["config", "show"])
            .home(&home)
            .env("A2ACLI_API_KEY", "hidden-key-1"),
    );
    ok(&run, "config show")?;
    ensure(
        run.stdout
            .contains("Setting: A2ACLI_API_KEY\nFlag: --api-key\nValue: (set, not shown)\n"),
        "secret shown",
    )?;
    ensure(!run.stdout.contains("hidden-key-1"), "a secret in config show")?;
    ev.done()
}

pub fn cli_001(_lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for args in [
        vec!["help"],
        vec!["--help"],
        vec!["help", "send"],
        vec!["send", "--help"],
        vec!["task", "get", "--help"],
    ] {
        let run = ev.run(&args);
        ensure(
            run.code == 0 && run.stdout.contains("Usage: agents"),
            format!("{args:?}"),
        )?;
    }
    for flag in ["-v", "--version"] {
        let run = ev.run(&[flag]);
        ensure(
            run.code == 0 && run.stdout == format!("agents {}\n", env!("CARGO_PKG_VERSION")),
            flag.to_string(),
        )?;
    }
    let run = ev.run(&["--help"]);
    ensure(
        run.stdout.contains("[default: 2s]") && run.stdout.contains("[default: text]"),
        "help shows no defaults",
    )?;
    ev.done()
}

/// The skill the tool ships.
fn skills() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("skill");
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if entry.path().is_dir() {
                stack.push(entry.path());
            } else if entry.file_name() == "SKILL.md" {
                found.push(entry.path());
            }
        }
    }
    found
}

pub fn skill_001(_lab: &Lab) -> Outcome {
    let found = skills();
    ensure(found.len() == 1, format!("{} skills", found.len()))?;
    let text = std::fs::read_to_string(&found[0]).map_err(|e| e.to_string())?;
    ensure(
        text.starts_with("---\nname: agents\n") && text.contains("compatibility:"),
        "frontmatter",
    )?;
    ensure(text.lines().count() <= 40, "not lean")?;
    ensure(
        text.contains("agents help") && text.contains("--help"),
        "does not defer to help",
    )?;
    ensure(
        !text.contains("task push-config") && !text.contains("demo-server"),
        "enumerates the command surface",
    )?;
    Ok(vec!["client/skill/agents/SKILL.md".into()])
}

pub fn skill_002(_lab: &Lab) -> Outcome {
    let found = skills();
    let text = std::fs::read_to_string(found.first().ok_or("no skill")?).map_err(|e| e.to_string())?;
    for normative in ["MUST", "SHALL", "A2ACLI_ERR_", "§"] {
        ensure(
            !text.contains(normative),
            format!("the skill restates the specification: {normative}"),
        )?;
    }
    // No requirement identifier (A2ACLI_<AREA>_<NNN>) either.
    let cites = text.split("A2ACLI_").skip(1).any(|rest| {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        word.rsplit('_')
            .next()
            .is_some_and(|n| n.len() == 3 && n.chars().all(|c| c.is_ascii_digit()))
    });
    ensure(!cites, "the skill cites a requirement identifier")?;
    Ok(vec!["client/skill/agents/SKILL.md".into()])
}

// ---- Tier 2 -------------------------------------------------------------

pub fn card_get_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let run = ev.run(&["-a", &lab.open.url, "card", "get", "--validate"]);
    ensure(run.code == 0 && run.stderr.contains("valid: "), "a valid card")?;
    let broken = lab.card_file(|c| {
        c.as_object_mut().map(|c| c.remove("name"));
        c["capabilities"]["streaming"] = json!("yes");
    });
    let run = ev.run(&["-a", &broken, "card", "get", "--validate"]);
    ensure(
        run.code == 1 && run.stderr.contains("Code: A2ACLI_ERR_CARD_INVALID\n"),
        run.stderr.to_string(),
    )?;
    ev.done()
}

pub fn task_list_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let first = send(&mut ev, lab, binding, &[], "tck-complete-task a")?;
        let context = context_of(&first);
        send(
            &mut ev,
            lab,
            binding,
            &["--context-id", &context],
            "tck-task-failure b",
        )?;
        send(
            &mut ev,
            lab,
            binding,
            &["--context-id", &context],
            "tck-complete-task c",
        )?;
        let run = ev.run(&on_json(
            lab,
            binding,
            &["task", "list", "--context-id", &context],
        ));
        let page = doc(&run, "list")?;
        ensure(
            page["tasks"].as_array().map(Vec::len) == Some(3),
            format!("{binding}: context filter: {page}"),
        )?;
        let run = ev.run(&on_json(
            lab,
            binding,
            &["task", "list", "--context-id", &context, "--status", "completed"],
        ));
        let page = doc(&run, "list")?;
        ensure(
            page["tasks"].as_array().map(Vec::len) == Some(2),
            format!("{binding}: status filter"),
        )?;
        let run = ev.run(&on_json(
            lab,
            binding,
            &["task", "list", "--context-id", &context, "--page-size", "2"],
        ));
        let page = doc(&run, "page 1")?;
        let token = page["nextPageToken"].as_str().unwrap_or("").to_string();
        ensure(!token.is_empty(), format!("{binding}: no cursor"))?;
        let run = ev.run(&on_json(
            lab,
            binding,
            &[
                "task",
                "list",
                "--context-id",
                &context,
                "--page-size",
                "2",
                "--page-token",
                &token,
            ],
        ));
        let page = doc(&run, "page 2")?;
        ensure(
            page["tasks"].as_array().map(Vec::len) == Some(1),
            format!("{binding}: page 2"),
        )?;
    }
    ev.done()
}

pub fn task_subscribe_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let started = send(&mut ev, lab, binding, &["--async"], "tck-long-running go")?;
        let run = ev.run(&on_json(
            lab,
            binding,
            &["--stream", "task", "subscribe", &id_of(&started)],
        ));
        let events = jsonl(&run, "subscribe")?;
        ensure(
            events.first().is_some_and(|e| e.get("task").is_some()),
            format!("{binding}: first event"),
        )?;
        ensure(
            state(events.last().unwrap_or(&Value::Null)) == "TASK_STATE_COMPLETED",
            format!("{binding}: last event"),
        )?;
    }
    ev.done()
}

pub fn task_subscribe_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    // The first subscription drops after the task; the next one's first event is the whole task, settled.
    let peer = Peer::start(|method, before, _| match method {
        "SubscribeToTask" if before == 0 => {
            Answer::Events(vec![json!({"task": task("t3", "TASK_STATE_WORKING")})])
        }
        "SubscribeToTask" => Answer::Events(vec![json!({"task": task("t3", "TASK_STATE_COMPLETED")})]),
        "GetTask" => Answer::Result(task("t3", "TASK_STATE_COMPLETED")),
        _ => Answer::Status(404),
    });
    let card = lab
        .file("peer.json", &super::lab::card_at(&peer.url, true).to_string())
        .display()
        .to_string();
    let run = ev.run(&[
        "-a",
        &card,
        "-o",
        "json",
        "--stream",
        "--timeout",
        "60s",
        "task",
        "subscribe",
        "t3",
    ]);
    ok(&run, "subscribe")?;
    let events = jsonl(&run, "subscribe")?;
    ensure(
        state(events.last().unwrap_or(&Value::Null)) == "TASK_STATE_COMPLETED",
        format!("{events:?}"),
    )?;
    ensure(peer.calls("SubscribeToTask") >= 2, "the stream was not resumed")?;
    ev.done()
}

/// `auth login` in `home` with `args`; the login's document.
fn login(
    ev: &mut Ev,
    lab: &Lab,
    home: &std::path::Path,
    args: &[&str],
    secret: Option<&str>,
) -> Result<Value, String> {
    let mut all = vec!["-a", &lab.secured.url, "-o", "json", "auth", "login"];
    all.extend_from_slice(args);
    let mut invocation = Invocation::new(&all).home(home);
    if let Some(secret) = secret {
        invocation = invocation.env("A2ACLI_CLIENT_SECRET", secret);
    }
    let run = ev.invoke(invocation);
    ok(&run, "auth login")?;
    doc(&run, "login")
}

pub fn auth_005(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let home = super::lab::scratch("device");
    // The person approves on "another device" as soon as the code is shown.
    let oauth = &lab.oauth;
    let approver = std::thread::scope(|scope| {
        let handle = scope.spawn(|| {
            for _ in 0..600 {
                if let Some(code) = oauth.pending_user_codes().first() {
                    return oauth.approve(code, Some("tester"));
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            false
        });
        let result = login(
            &mut ev,
            lab,
            &home,
            &["--client-id", DEVICE_CLIENT, "--flow", "device"],
            None,
        );
        (result, handle.join().unwrap_or(false))
    });
    let (login, approved) = approver;
    let login = login?;
    ensure(approved, "no code to approve")?;
    ensure(
        login["flow"] == "deviceCode" && login["scheme"] == "openIdConnect",
        format!("{login}"),
    )?;
    ev.done()
}

pub fn auth_006(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let home = super::lab::scratch("client-credentials");
    let login = login(&mut ev, lab, &home, &["--client-id", CI_CLIENT], Some(CI_SECRET))?;
    ensure(
        login["flow"] == "clientCredentials" && login["scheme"] == "oauth2",
        format!("{login}"),
    )?;
    let run = ev.invoke(
        Invocation::new(&[
            "-a",
            &lab.secured.url,
            "-o",
            "json",
            "auth",
            "login",
            "--client-id",
            CI_CLIENT,
        ])
        .env("A2ACLI_CLIENT_SECRET", "wrong")
        .home(&home),
    );
    ensure(
        run.code == 4 && doc(&run, "refused")?["error"]["code"] == "A2ACLI_ERR_AUTH_FAILED",
        "a bad secret",
    )?;
    ev.done()
}

pub fn auth_007(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let home = super::lab::scratch("attach");
    let run = ev.invoke(Invocation::new(&["-a", &lab.secured.url, "task", "list"]).home(&home));
    ensure(run.code == 4, "called without a login")?;
    login(&mut ev, lab, &home, &["--client-id", CI_CLIENT], Some(CI_SECRET))?;
    for binding in BINDINGS {
        let run = ev.invoke(
            Invocation::new(&[
                "-a",
                &lab.secured.url,
                "--transport",
                binding,
                "--debug",
                "task",
                "list",
            ])
            .home(&home),
        );
        ok(&run, &format!("{binding} with the stored token"))?;
        ensure(
            run.stderr.contains("a stored token for scheme"),
            "not the stored token",
        )?;
    }
    ev.done()
}

pub fn tx_004(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&on(lab, binding, &["--debug", "task", "list"]));
        ensure(
            run.code == 0 && run.stderr.contains(&format!(": using {binding} ")),
            binding.to_string(),
        )?;
    }
    ev.done()
}

pub fn ver_003(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let card = lab.card_file(|c| {
        c["capabilities"] =
            json!({"streaming": false, "pushNotifications": false, "extendedAgentCard": false});
    });
    let run = ev.run(&["-a", &card, "--debug", "--stream", "send", "tck-complete-task x"]);
    ensure(
        run.code == 0 && !run.stderr.contains("SendStreamingMessage"),
        "streamed without the capability",
    )?;
    let run = ev.run(&["-a", &card, "--debug", "task", "push-config", "list", "t"]);
    ensure(
        run.code == 2 && !run.stderr.contains("debug: > POST"),
        "push without the capability",
    )?;
    let run = ev.run(&[
        "-a",
        &card,
        "--bearer",
        "x",
        "--debug",
        "card",
        "get",
        "--extended",
    ]);
    ensure(
        run.code != 0 && !run.stderr.contains("GetExtendedAgentCard"),
        "the extended card without the capability",
    )?;
    ev.done()
}

pub fn config_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let home = super::lab::scratch("precedence");
    let global = home.join(".config/a2a-cli");
    std::fs::create_dir_all(&global).map_err(|e| e.to_string())?;
    std::fs::write(
        global.join(".env"),
        "A2ACLI_POLL_INTERVAL=9s\nA2ACLI_RETRIES=7\nA2ACLI_OUTPUT=json\nA2ACLI_CALL_TIMEOUT=40s\n",
    )
    .map_err(|e| e.to_string())?;
    let project = home.join("project/sub");
    std::fs::create_dir_all(&project).map_err(|e| e.to_string())?;
    std::fs::write(
        home.join("project/.env"),
        "A2ACLI_POLL_INTERVAL=5s\nA2ACLI_RETRIES=6\nA2ACLI_CALL_TIMEOUT=30s\n",
    )
    .map_err(|e| e.to_string())?;
    let run = ev.invoke(
        Invocation::new(&["--poll-interval", "1s", "config", "show"])
            .home(&home)
            .cwd(&project)
            .env("A2ACLI_RETRIES", "3"),
    );
    let shown = doc(&run, "config show")?;
    let row = |name: &str| -> (String, String) {
        let row = shown["settings"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["name"] == name)
            .cloned()
            .unwrap_or_default();
        (
            row["value"].as_str().unwrap_or("").to_string(),
            row["source"].as_str().unwrap_or("").to_string(),
        )
    };
    let expect = |name: &str, value: &str, source: &str| -> Result<(), String> {
        let (v, s) = row(name);
        ensure(
            v == value && s.starts_with(source),
            format!("{name}: {v} from {s}, not {value} from {source}"),
        )
    };
    expect("A2ACLI_POLL_INTERVAL", "1s", "flag")?;
    expect("A2ACLI_RETRIES", "3", "environment")?;
    expect(
        "A2ACLI_CALL_TIMEOUT",
        "30s",
        &format!("file {}", home.join("project/.env").display()),
    )?;
    expect(
        "A2ACLI_OUTPUT",
        "json",
        &format!("file {}", global.join(".env").display()),
    )?;
    expect("A2ACLI_TIMEOUT", "", "unset")?;
    expect("A2ACLI_AGENT_CARD", "", "unset")?;
    // Scoped by agent: a file for one agent, chosen with --config.
    let scoped = home.join("secured.env");
    std::fs::write(
        &scoped,
        format!("A2ACLI_AGENT_CARD={}\nA2ACLI_BEARER={BEARER}\n", lab.secured.url),
    )
    .map_err(|e| e.to_string())?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&scoped, std::fs::Permissions::from_mode(0o600)).map_err(|e| e.to_string())?;
    let run = ev.invoke(
        Invocation::new(&[
            "--config",
            scoped.to_str().unwrap_or(""),
            "-o",
            "text",
            "task",
            "list",
        ])
        .home(&home),
    );
    ok(&run, "--config scoped to an agent")?;
    ev.done()
}

pub fn download_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let dir = super::lab::scratch(&format!("download-{}", binding.replace('+', "-")));
        let dir_arg = dir.display().to_string();
        for (message, file, content) in [
            ("tck-artifact-file x", "output.txt", "tck"),
            ("tck-artifact-text x", "", "Generated text content"),
            ("tck-artifact-data x", "", "\"value\""),
        ] {
            let answer = send(&mut ev, lab, binding, &[], message)?;
            let run = ev.run(&on_json(
                lab,
                binding,
                &["task", "download", &id_of(&answer), "--dir", &dir_arg, "--force"],
            ));
            let report = doc(&run, "download")?;
            let path = report["files"][0]["path"].as_str().unwrap_or("").to_string();
            ensure(
                file.is_empty() || path.ends_with(file),
                format!("{binding}: {path}"),
            )?;
            let saved = std::fs::read_to_string(&path).unwrap_or_default();
            ensure(saved.contains(content), format!("{binding} {message}: {saved:?}"))?;
        }
    }
    ev.done()
}

pub fn out_007(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&on(lab, binding, &["--debug", "send", "tck-complete-task x"]));
        ok(&run, binding)?;
        ensure(
            run.stderr.contains("debug: > POST ") && run.stderr.contains("debug: <"),
            format!("{binding}: no wire"),
        )?;
        ensure(
            run.stderr.contains("\"messageId\""),
            format!("{binding}: no message body"),
        )?;
        ensure(!run.stdout.contains("debug:"), "diagnostics on stdout")?;
    }
    ev.done()
}

pub fn conform_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    super::lab::build_companion("cleveragents-conformance", "a2a-conformance");
    for binding in BINDINGS {
        let run = ev.run(&on(lab, binding, &["conformance", "--groups", "messaging"]));
        ok(&run, binding)?;
        ensure(
            run.stdout.contains("Result: passed\n"),
            format!("{binding}: {}", run.stdout),
        )?;
    }
    ev.done()
}

pub fn cli_002(_lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = ev.run(&["completion", shell]);
        ensure(
            run.code == 0 && run.stdout.contains("agents") && run.stdout.contains("push-config"),
            shell.to_string(),
        )?;
    }
    ev.done()
}

pub fn push_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let started = send(&mut ev, lab, binding, &["--async"], "tck-cancel x")?;
        let id = id_of(&started);
        let config = json!({"taskId": id, "url": "https://push.example/hook", "token": "t-1"}).to_string();
        let base = [
            "-a",
            lab.open.url.as_str(),
            "--transport",
            binding,
            "-o",
            "json",
            "task",
            "push-config",
        ];
        let mut create: Vec<&str> = base.to_vec();
        create.extend(["create", "--params", &config]);
        let run = ev.run(&create);
        let created = doc(&run, "create")?;
        let config_id = created["id"].as_str().unwrap_or("").to_string();
        ensure(
            !config_id.is_empty() && created["url"] == "https://push.example/hook",
            format!("{binding}: {created}"),
        )?;
        let mut get: Vec<&str> = base.to_vec();
        get.extend(["get", &id, &config_id]);
        let got = doc(&ev.run(&get), "get")?;
        ensure(got["id"] == json!(config_id), format!("{binding}: get {got}"))?;
        let mut list: Vec<&str> = base.to_vec();
        list.extend(["list", &id]);
        let listed = doc(&ev.run(&list), "list")?;
        ensure(
            listed["configs"].as_array().map(Vec::len) == Some(1),
            format!("{binding}: list {listed}"),
        )?;
        let mut delete: Vec<&str> = base.to_vec();
        delete.extend(["delete", &id, &config_id]);
        ok(&ev.run(&delete), "delete")?;
        let listed = doc(&ev.run(&list), "list")?;
        ensure(
            listed["configs"].as_array().is_none_or(Vec::is_empty),
            format!("{binding}: after delete {listed}"),
        )?;
        cli(&["-a", &lab.open.url, "task", "cancel", &id]);
    }
    ev.done()
}

// ---- Tier 3 -------------------------------------------------------------

pub fn card_get_003(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&[
            "-a",
            &lab.secured.url,
            "--transport",
            binding,
            "--bearer",
            BEARER,
            "-o",
            "json",
            "card",
            "get",
            "--extended",
        ]);
        ok(&run, binding)?;
        ensure(
            doc(&run, "extended")?["name"] == "CleverAgents",
            "the extended card",
        )?;
    }
    let run = ev.run(&["-a", &lab.secured.url, "--debug", "card", "get", "--extended"]);
    ensure(
        run.code == 4 && !run.stderr.contains("GetExtendedAgentCard"),
        "fetched without a declared scheme's credentials",
    )?;
    ev.done()
}

pub fn card_get_004(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let signers = super::lab::test_key("card-signers.jwks.json")
        .display()
        .to_string();
    let impostor = super::lab::test_key("impostor.jwks.json").display().to_string();
    let run = ev.run(&["-a", &lab.open.url, "--trusted-keys", &signers, "card", "get"]);
    ensure(
        run.code == 0
            && run
                .stdout
                .contains("Signature: verified (signed by test-es256, test-rs256)\n"),
        "verified",
    )?;
    let run = ev.run(&["-a", &lab.open.url, "--trusted-keys", &impostor, "card", "get"]);
    ensure(
        run.code == 0
            && run.stdout.contains("Signature: unverifiable (")
            && !run.stdout.contains("verified (signed"),
        "an impostor",
    )?;
    let run = ev.run(&["-a", &lab.open.url, "card", "get"]);
    ensure(
        run.stdout.contains("Signature: unverifiable (no trusted keys"),
        "no keys",
    )?;
    let unsigned = lab.card_file(|_| {});
    let run = ev.run(&["-a", &unsigned, "card", "get"]);
    ensure(
        run.code == 0 && run.stdout.contains("Signature: absent"),
        "absent",
    )?;
    ev.done()
}

pub fn card_get_005(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let card_url = format!("{}.well-known/agent-card.json", lab.open.url);
    let catalog = json!({"specVersion": "1.0", "entries": [
        {"identifier": "urn:air:example.com:mcp:weather", "type": "application/mcp-server-card+json", "url": "https://mcp.example/card"},
        {"identifier": "urn:air:example.com:a2a:research", "type": "application/a2a-agent-card+json", "url": card_url},
        {"identifier": "urn:air:example.com:a2a:other", "displayName": "Other", "type": "application/a2a-agent-card+json", "url": card_url}
    ]});
    let peer = Peer::start(move |path, _, _| match path {
        "/.well-known/ai-catalog.json" => Answer::Document(catalog.clone()),
        _ => Answer::Status(404),
    });
    let host = peer
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    for reference in [
        format!("{}.well-known/ai-catalog.json#research", peer.url),
        format!("{host}#urn:air:example.com:a2a:research"),
        format!("{host}#Other"),
    ] {
        let run = ev.run(&["-a", &reference, "-o", "json", "send", "tck-complete-task x"]);
        ok(&run, &reference)?;
        ensure(
            state(&doc(&run, "send")?) == "TASK_STATE_COMPLETED",
            reference.clone(),
        )?;
    }
    let run = ev.run(&[
        "-a",
        &format!("{}.well-known/ai-catalog.json", peer.url),
        "card",
        "get",
    ]);
    ensure(
        run.code == 3 && run.stderr.contains("#research"),
        "several agents without a name",
    )?;
    ev.done()
}

pub fn tx_005(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let answer = send(&mut ev, lab, "GRPC", &[], "tck-stream-001 go")?;
    ensure(state(&answer) == "TASK_STATE_COMPLETED", "gRPC send")?;
    let run = ev.run(&[
        "-a",
        &lab.open.url,
        "--transport",
        "GRPC",
        "-o",
        "json",
        "--stream",
        "send",
        "tck-stream-001 go",
    ]);
    ensure(jsonl(&run, "gRPC stream")?.len() >= 3, "gRPC stream")?;
    ev.done()
}

pub fn auth_010(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let home = super::lab::scratch("oidc");
    let login = login(
        &mut ev,
        lab,
        &home,
        &["--client-id", CI_CLIENT, "--scheme", "openIdConnect"],
        Some(CI_SECRET),
    )?;
    ensure(login["scheme"] == "openIdConnect", format!("{login}"))?;
    let run = ev.invoke(Invocation::new(&["-a", &lab.secured.url, "--debug", "task", "list"]).home(&home));
    ok(&run, "with the OpenID Connect token")?;
    ensure(
        run.stderr.contains("a stored token for scheme openIdConnect"),
        "not the OIDC token",
    )?;
    ev.done()
}

pub fn auth_011(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let run = ev.run(&on(lab, binding, &["send", "tck-auth-required x"]));
        ensure(
            run.code == 0 && run.stdout.contains("State: TASK_STATE_AUTH_REQUIRED\n"),
            format!("{binding}: {}", run.stdout),
        )?;
        ensure(run.stderr.contains("waits for authentication"), "no warning")?;
        let id = run
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("Task ID: "))
            .unwrap_or("")
            .to_string();
        ensure(
            run.stdout.contains(&format!("send --task-id {id} ")),
            "no resume command",
        )?;
        let resumed = ev.run(&on_json(
            lab,
            binding,
            &["send", "--task-id", &id, "credentials supplied"],
        ));
        ensure(
            resumed.code == 0 && id_of(&doc(&resumed, "resume")?) == id,
            format!("{binding}: resume"),
        )?;
    }
    ev.done()
}

pub fn demo_server_001(_lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    ev.note(&["demo-server"]);
    let mut child = crate::cli::agents_command()
        .args(["demo-server"])
        .env("A2ACLI_AGENT", crate::drafts::agent_binary())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut url = String::new();
    {
        use std::io::BufRead;
        let mut out = std::io::BufReader::new(child.stdout.take().ok_or("stdout")?);
        let mut line = String::new();
        while out.read_line(&mut line).unwrap_or(0) > 0 {
            if let Some(found) = line.strip_prefix("URL: ") {
                url = found.trim().to_string();
                break;
            }
            line.clear();
        }
    }
    let outcome = (|| {
        ensure(url.starts_with("http://127.0.0.1:"), "no URL")?;
        let run = ev.run(&["-a", &url, "-o", "json", "send", "tck-complete-task hello"]);
        ensure(
            run.code == 0 && state(&doc(&run, "send")?) == "TASK_STATE_COMPLETED",
            "the demo agent",
        )
    })();
    let _ = child.kill();
    let _ = child.wait();
    outcome?;
    // Killed outright, the command takes its demo agent with it: the port
    // stops answering (the kernel's signal is asynchronous, so wait boundedly).
    let addr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let gone = (0..600).any(|_| {
        let refused = std::net::TcpStream::connect(&addr).is_err();
        if !refused {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        refused
    });
    ensure(
        gone,
        "the demo agent outlived `agents demo-server` killed with SIGKILL",
    )?;
    ev.done()
}

pub fn ver_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let run = ev.run(&["-a", &lab.open.url, "--debug", "task", "list"]);
    ensure(
        run.stderr
            .to_ascii_lowercase()
            .contains("debug: > a2a-extensions: urn:cleveragents:extensions:v1"),
        "no declared extensions",
    )?;
    let card = lab.card_file(|c| {
        c["capabilities"]["extensions"] = json!([{"uri": "urn:example:must-have:v1", "required": true}]);
    });
    let run = ev.run(&["-a", &card, "-o", "json", "task", "list"]);
    ensure(
        run.code == 1 && doc(&run, "required")?["error"]["code"] == "ExtensionSupportRequiredError",
        run.stdout.to_string(),
    )?;
    ev.done()
}

/// An agent over https whose certificate `ca` issued, requiring a client
/// certificate of `ca` (mutual TLS) and naming its caller by the
/// certificate's common name.
fn tls_agent(dir: &std::path::Path) -> (super::lab::Agent, super::pki::Ca, super::pki::Pair) {
    let ca = super::pki::Ca::new(dir, "compliance-ca");
    let server = ca.server(dir, "server", &["127.0.0.1"], super::pki::Validity::Current);
    let client = ca.client(dir, "tester");
    let config = dir.join("tls.json");
    let admin = json!({"*": "admin"});
    std::fs::write(
        &config,
        json!({"server": {"auth": {
            "mtls": {"ca_file": ca.cert_file},
            "bearer_tokens": [{"secret": BEARER, "subject": "tester"}],
            "principals": [{"subject": "tester", "namespaces": admin}]
        }}})
        .to_string(),
    )
    .expect("config");
    let agent = super::lab::Agent::launch(&[
        "--tls-cert",
        server.cert_file.to_str().unwrap_or(""),
        "--tls-key",
        server.key_file.to_str().unwrap_or(""),
        "--config",
        config.to_str().unwrap_or(""),
    ]);
    (agent, ca, client)
}

pub fn auth_003(_lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let dir = super::lab::scratch("insecure");
    let (agent, _, client) = tls_agent(&dir);
    let (cert, key) = (
        client.cert_file.display().to_string(),
        client.key_file.display().to_string(),
    );
    // Verification is on: an unknown CA is refused.
    let run = ev.run(&[
        "-a",
        &agent.url,
        "--client-cert",
        &cert,
        "--client-key",
        &key,
        "task",
        "list",
    ]);
    ensure(
        run.code == 3 && run.stderr.contains("Code: A2ACLI_ERR_UNREACHABLE\n"),
        format!("verification off by default? {}", run.stderr),
    )?;
    ensure(
        !run.stderr.contains("--insecure)"),
        "a warning without --insecure",
    )?;
    let run = ev.run(&["-a", &agent.url, "--insecure", "--bearer", BEARER, "task", "list"]);
    ok(&run, "--insecure with a bearer token")?;
    ensure(
        run.stderr
            .contains("warning: TLS certificate verification is OFF (--insecure)"),
        "no warning",
    )?;
    ensure(
        run.stderr.contains(
            "warning: credentials are being sent over a connection whose certificate is NOT verified",
        ),
        "no credential warning",
    )?;
    ev.done()
}

pub fn auth_009(_lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    let dir = super::lab::scratch("mtls");
    let (agent, ca, client) = tls_agent(&dir);
    let ca_file = ca.cert_file.display().to_string();
    let (cert, key) = (
        client.cert_file.display().to_string(),
        client.key_file.display().to_string(),
    );
    for binding in BINDINGS {
        let run = ev.run(&[
            "-a",
            &agent.url,
            "--transport",
            binding,
            "--ca-file",
            &ca_file,
            "--client-cert",
            &cert,
            "--client-key",
            &key,
            "-o",
            "json",
            "send",
            "tck-complete-task x",
        ]);
        ok(&run, &format!("{binding} with a client certificate"))?;
        ensure(
            state(&doc(&run, "send")?) == "TASK_STATE_COMPLETED",
            binding.to_string(),
        )?;
        let run = ev.run(&[
            "-a",
            &agent.url,
            "--transport",
            binding,
            "--ca-file",
            &ca_file,
            "-o",
            "json",
            "task",
            "list",
        ]);
        ensure(
            run.code == 4,
            format!("{binding} without a certificate: exit {}", run.code),
        )?;
    }
    ev.done()
}

pub fn chat_001(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    // Piped turns: the context carries, and the waiting task is answered.
    let run = ev.invoke(
        Invocation::new(&["-a", &lab.open.url, "-o", "json", "chat"])
            .stdin("tck-multi-turn hi\ndone\ntck-complete-task again\n"),
    );
    ok(&run, "chat with piped turns")?;
    let turns = jsonl(&run, "chat")?;
    ensure(turns.len() == 3, format!("{} turns", turns.len()))?;
    ensure(state(&turns[0]) == "TASK_STATE_INPUT_REQUIRED", "turn 1")?;
    ensure(
        id_of(&turns[1]) == id_of(&turns[0]) && state(&turns[1]) == "TASK_STATE_COMPLETED",
        "turn 2 answers the waiting task",
    )?;
    ensure(id_of(&turns[2]) != id_of(&turns[0]), "turn 3 starts a new task")?;
    ensure(
        turns.iter().all(|t| context_of(t) == context_of(&turns[0])),
        "the context did not carry",
    )?;
    // On a terminal (a real pseudo-terminal, screen read back).
    ev.note(&["-a", "URL", "chat", "(on a terminal, under tmux)"]);
    std::panic::catch_unwind(crate::chat::chat_on_a_terminal_carries_context_and_task)
        .map_err(|_| "chat on a terminal: see the chat test".to_string())?;
    ev.done()
}

pub fn push_002(lab: &Lab) -> Outcome {
    let mut ev = Ev::default();
    for binding in BINDINGS {
        let started = send(&mut ev, lab, binding, &["--async"], "tck-long-running go")?;
        let id = id_of(&started);
        let run = ev.run(&on_json(
            lab,
            binding,
            &["--timeout", "60s", "task", "push-config", "receive", &id],
        ));
        ok(&run, &format!("{binding} receive"))?;
        let received = jsonl(&run, "receive")?;
        let last = received.last().cloned().unwrap_or_default();
        ensure(
            state(&last) == "TASK_STATE_COMPLETED",
            format!("{binding}: last notification {last}"),
        )?;
        let run = cli(&[
            "-a",
            &lab.open.url,
            "-o",
            "json",
            "task",
            "push-config",
            "list",
            &id,
        ]);
        let listed = doc(&run, "list")?;
        ensure(
            listed["configs"].as_array().is_none_or(Vec::is_empty),
            "the receiver's config was left behind",
        )?;
    }
    ev.done()
}
