//! The stdio rows: the agent over its stdio binding (in-memory store, served
//! in the spawned process), the path a local client really takes (a front
//! handing its pipes to the data directory's background agent on SQLite,
//! the CPU of both counted), and the raw NDJSON echo pipe as their floor,
//! each spawned pinned to the server core and driven the same way. The local
//! row also times whole client sessions, spawn to exit, with the background
//! agent running.

use crate::args::Options;
use crate::load::Bounds;
use crate::process::Server;
use crate::report::Row;
use crate::stdio::StdioPeer;
use crate::workloads::STDIO_WORKLOAD;
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::types::Role;
use bench::procfs::{rss_bytes, CpuMeter};
use bench::reply::task_id_of;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The row of the local front to the background agent.
pub const LOCAL: &str = "agent/local";

/// Requests outstanding at once on the pipe.
pub const WINDOW: usize = 16;

/// The SendMessage that creates the task the loop then reads.
fn create_params() -> String {
    let role = Role::User;
    format!(r#"{{"message":{{"messageId":"bench-stdio","role":"{role}","parts":[{{"text":"hello"}}]}}}}"#)
}

pub fn bench(options: &Options) -> Result<Vec<Row>, String> {
    let agent_args = ["--stdio".to_string(), "--memory".to_string()];
    let echo = run_peer(options, "echo", true, &options.echo, &[], Peer::Direct)?;
    let agent = run_peer(
        options,
        "agent/memory",
        false,
        &options.agent,
        &agent_args,
        Peer::Direct,
    )?;
    // What a local client really takes: a front, handing its pipes to the
    // data directory's background agent (SQLite), measured together.
    let local = run_peer(options, LOCAL, false, &options.agent, &[], Peer::Local)?;
    Ok(vec![echo, agent, local])
}

/// How the peer under test is reached.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Peer {
    /// The spawned process serves the session itself.
    Direct,
    /// The spawned process is a front for a background agent on a data
    /// directory in the scratch directory.
    Local,
}

/// The background agent's pid, as it records it in its run directory.
fn background_pid(data_dir: &Path) -> Result<u32, String> {
    let text = std::fs::read_to_string(data_dir.join("run/agent.pid"))
        .map_err(|e| format!("no background agent recorded in {}: {e}", data_dir.display()))?;
    text.split_whitespace()
        .next()
        .and_then(|pid| pid.parse().ok())
        .ok_or_else(|| format!("unreadable pid file: {text}"))
}

fn run_peer(
    options: &Options,
    target: &str,
    is_floor: bool,
    program: &Path,
    args: &[String],
    peer: Peer,
) -> Result<Row, String> {
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch dir: {e}"))?;
    let data_dir = scratch.path().join("data");
    let mut args = args.to_vec();
    if peer == Peer::Local {
        args.extend([
            "--stdio".into(),
            "--data-dir".into(),
            data_dir.display().to_string(),
        ]);
    }
    let server = Server::start(options.server_core, program, &args, scratch, true)?;
    let mut peer_session = StdioPeer::new(server)?;
    let prepared = peer_session
        .initialize()
        .and_then(|()| peer_session.call(markers::SendMessage::NAME, &create_params()));
    let task_id = match prepared {
        Ok(result) => task_id_of(&result).ok_or_else(|| format!("SendMessage created no task: {result}"))?,
        Err(error) => {
            let log = peer_session.server.log_tail(10).join("\n  ");
            return Err(format!("stdio {target}: {error}\n  {log}"));
        }
    };
    let warmup = peer_session.get_task_loop(&task_id, WINDOW, Bounds::warmup(options));
    let mut pids = vec![peer_session.server.pid()];
    if peer == Peer::Local {
        pids.push(background_pid(&data_dir)?);
    }
    let meter = CpuMeter::start(&pids, None).map_err(|e| e.to_string())?;
    let measured = peer_session.get_task_loop(&task_id, WINDOW, Bounds::measured(options));
    let spent = meter.stop().map_err(|e| e.to_string())?;
    let mut row = Row::new(STDIO_WORKLOAD, target, is_floor, &warmup, measured);
    row.set_cpu(spent);
    row.rss_bytes = rss_bytes(*pids.last().unwrap_or(&pids[0])).ok();
    peer_session.server.check_alive()?;
    eprintln!(
        "a2a-bench: stdio on {target}: {:.0} req/s, {} errors",
        row.req_per_s, row.errors
    );
    for line in peer_session.server.log_tail(5) {
        eprintln!("a2a-bench: stdio {target} stderr: {line}");
    }
    if peer == Peer::Local {
        let trips = round_trips(program, &data_dir, &task_id, ROUND_TRIPS);
        let stopped = Command::new(program)
            .arg("--stop")
            .arg("--data-dir")
            .arg(&data_dir)
            .output()
            .map_err(|e| format!("cannot stop the background agent: {e}"))?;
        if !stopped.status.success() {
            return Err(format!(
                "--stop failed: {}",
                String::from_utf8_lossy(&stopped.stderr)
            ));
        }
        let follows = follow_latencies(program, &data_dir, FOLLOWED);
        let mut trips = trips?;
        trips.sort_unstable();
        let at = |q: f64| trips[((trips.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1000.0;
        eprintln!(
            "a2a-bench: local round trip (a client spawns the front, initialize, GetTask, exit), {} runs with the background agent running: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            trips.len(),
            at(0.5),
            at(0.99),
            at(1.0)
        );
        let mut follows = follows?;
        follows.sort_unstable();
        let at = |q: f64| follows[((follows.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1000.0;
        eprintln!(
            "a2a-bench: local follower (one client follows the domain events, another sends messages), {} messages: the follower sees each p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms after it was sent",
            follows.len(),
            at(0.5),
            at(0.99),
            at(1.0)
        );
    }
    Ok(row)
}

/// Messages whose arrival at a follower is timed.
const FOLLOWED: usize = 100;

/// Spawns a client's front on `data_dir`, over pipes.
fn spawn_front(program: &Path, data_dir: &Path) -> Result<std::process::Child, String> {
    Command::new(program)
        .arg("--stdio")
        .arg("--data-dir")
        .arg(data_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot spawn the front: {e}"))
}

/// A spawned front with its session initialized: the process, its stdin,
/// and its stdout's lines with the instant each arrived.
struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<(Instant, String)>,
}

fn session(program: &Path, data_dir: &Path) -> Result<Session, String> {
    let mut child = spawn_front(program, data_dir)?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send((Instant::now(), line)).is_err() {
                return;
            }
        }
    });
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":0,"method":"{}","params":{}}}"#,
        markers::Initialize::NAME,
        crate::stdio::initialize_params()
    )
    .map_err(|e| e.to_string())?;
    rx.recv_timeout(Duration::from_secs(30))
        .map_err(|_| "no initialize answer")?;
    Ok(Session {
        child,
        stdin,
        lines: rx,
    })
}

/// Times how long after one client sends a message another, following the
/// namespace's domain events, receives the new task's first event.
fn follow_latencies(program: &Path, data_dir: &Path, count: usize) -> Result<Vec<Duration>, String> {
    let wait = Duration::from_secs(30);
    let mut follower = session(program, data_dir)?;
    writeln!(
        follower.stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"{}","params":{{"follow":true}}}}"#,
        markers::EventsSubscribe::NAME
    )
    .map_err(|e| e.to_string())?;
    let mut sender = session(program, data_dir)?;
    let mut times = Vec::with_capacity(count);
    for n in 0..count {
        let marker = format!("followed-{n}-{}", std::process::id());
        let sent = Instant::now();
        writeln!(
            sender.stdin,
            r#"{{"jsonrpc":"2.0","id":{},"method":"{}","params":{{"message":{{"messageId":"{marker}","role":"{}","parts":[{{"text":"hi"}}]}}}}}}"#,
            n + 1,
            markers::SendMessage::NAME,
            Role::User
        )
        .map_err(|e| e.to_string())?;
        sender
            .lines
            .recv_timeout(wait)
            .map_err(|_| "no answer to SendMessage")?;
        loop {
            let (at, line) = follower
                .lines
                .recv_timeout(wait)
                .map_err(|_| "the follower saw nothing")?;
            if line.contains(&marker) {
                times.push(at.duration_since(sent));
                break;
            }
        }
    }
    for session in [follower, sender] {
        let Session { mut child, stdin, .. } = session;
        drop(stdin);
        let _ = child.wait();
    }
    Ok(times)
}

/// Client spawns measured one after another.
const ROUND_TRIPS: usize = 100;

/// Times `count` whole client sessions: spawn `program --stdio` on
/// `data_dir`, initialize, GetTask of `task_id`, close stdin, wait for the
/// exit.
fn round_trips(
    program: &Path,
    data_dir: &Path,
    task_id: &str,
    count: usize,
) -> Result<Vec<Duration>, String> {
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"{}","params":{}}}"#,
        markers::Initialize::NAME,
        crate::stdio::initialize_params()
    );
    let get = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"{}","params":{{"id":"{task_id}"}}}}"#,
        markers::GetTask::NAME
    );
    let mut times = Vec::with_capacity(count);
    for _ in 0..count {
        let begun = Instant::now();
        let mut child = spawn_front(program, data_dir)?;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        writeln!(stdin, "{init}\n{get}").map_err(|e| e.to_string())?;
        drop(stdin);
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let answers = BufReader::new(stdout).lines().map_while(Result::ok).count();
        let status = child.wait().map_err(|e| e.to_string())?;
        times.push(begun.elapsed());
        if answers != 2 || !status.success() {
            return Err(format!(
                "a client session got {answers} answers and ended {status}"
            ));
        }
    }
    Ok(times)
}
