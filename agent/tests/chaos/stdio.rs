//! Local mode's side of the wire: a client spawns `cleveragents-agent
//! --stdio` on the data directory (a front of its background agent) and
//! speaks JSON-RPC over NDJSON on the front's pipes. A subscription is a
//! `SubscribeToTask` whose events arrive as `stream/event` notifications
//! (their `taskSeq` is the event's id), a resumption is `stream/resume`
//! with the last id seen, and a client drops a stream with `stream/cancel`.
//!
//! A front that dies (the nemesis killed it, or the background agent it
//! served) leaves the call in flight unknown; the client's next call spawns
//! a new front. Every front's pid is registered in [`Fronts`] while it may be
//! signalled, so the nemesis never signals a process that was reaped.

use crate::client::Client;
use crate::common::AGENT;
use crate::wire::{self, classify, Outcome, Stream, NOT_CONNECTED};
use rustix::process::{kill_process, Pid, Signal};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long an answer may take: an agent stopped by the nemesis is
/// continued long before this, so only a hung one reaches it.
const ANSWER: Duration = Duration::from_secs(60);
/// How long a front may take to start (and start a background agent) and
/// initialize its session; well beyond the front's own start-up bound.
const OPENING: Duration = Duration::from_secs(120);
/// How long, once the run is over, a client still waits for an answer
/// before it abandons the call (unknown), as a user who gives up would.
const LAST_WAIT: Duration = Duration::from_secs(5);
/// How often a client waiting for an answer looks whether the run is over.
const POLL: Duration = Duration::from_millis(100);

/// The pids of the clients' fronts, by client, while they may be signalled.
#[derive(Default)]
pub struct Fronts(Mutex<BTreeMap<u64, u32>>);

impl Fronts {
    /// SIGKILLs the front of the `pick`-th client (modulo how many have one
    /// open); false when no client has one.
    pub fn kill_one(&self, pick: u64) -> bool {
        let fronts = self.0.lock().expect("fronts");
        let Some(pid) = fronts.values().nth((pick % fronts.len().max(1) as u64) as usize) else {
            return false;
        };
        // Registered, so not reaped yet: the pid is still this front's.
        let pid = Pid::from_raw(*pid as i32).expect("a process id");
        kill_process(pid, Signal::KILL).is_ok()
    }

    /// Stops signalling client `client`'s front (before it is reaped).
    fn forget(&self, client: u64) {
        self.0.lock().expect("fronts").remove(&client);
    }
}

/// How every front of a run is spawned.
pub struct Launch {
    /// The agent's arguments: `--stdio`, the data directory, the settings.
    pub args: Vec<OsString>,
    /// Where the fronts' stderr goes (one file for the run).
    pub log: PathBuf,
    pub fronts: Arc<Fronts>,
    /// Set when the run is over: the clients' waits end soon after.
    pub over: Arc<AtomicBool>,
}

/// What a front said next.
enum Next {
    Message(Value),
    /// Nothing before the deadline.
    Silent,
    /// Its stdout closed: the front exited (or was killed).
    Closed,
}

/// One front process and its session.
struct Front {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
    /// The run's end, for a client that gives up waiting after it (not for
    /// the final reads), and when this front first saw it.
    over: Option<Arc<AtomicBool>>,
    seen_over: Option<Instant>,
}

impl Front {
    /// Spawns a front for client `client` and initializes its session.
    fn open(launch: &Launch, client: u64, gives_up: bool) -> Result<Front, String> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&launch.log)
            .map_err(|e| format!("the fronts' log: {e}"))?;
        let mut child = Command::new(AGENT)
            .args(&launch.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot spawn a front: {e}"))?;
        launch.fronts.0.lock().expect("fronts").insert(client, child.id());
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                // A line cut short by a killed process ends the session too.
                let Some(value) = line.ok().and_then(|l| serde_json::from_str::<Value>(&l).ok()) else {
                    return;
                };
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        let mut front = Front {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 1,
            over: gives_up.then(|| launch.over.clone()),
            seen_over: None,
        };
        let params = json!({"protocolVersion": wire::VERSION, "extensions": [],
                            "clientInfo": {"name": "chaos", "version": "1"}});
        let answer = front.send("initialize", params).and_then(|id| {
            front
                .answer(id, Instant::now() + OPENING)
                .ok_or_else(|| "no answer".to_string())
        });
        match answer {
            Ok(answer) if answer.get("result").is_some() => Ok(front),
            failed => {
                let status = front.end(launch, client, true);
                Err(format!(
                    "no session ({}): the front {status}",
                    failed.map_or_else(|e| e, |a| a.to_string())
                ))
            }
        }
    }

    /// Writes one request; its id.
    fn send(&mut self, method: &str, params: Value) -> Result<u64, String> {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let stdin = self.stdin.as_mut().ok_or("stdin closed")?;
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("the front's stdin: {e}"))?;
        Ok(id)
    }

    /// The next message before `deadline` (or, for a client that gives up,
    /// before [`LAST_WAIT`] after the run is over).
    fn next(&mut self, deadline: Instant) -> Next {
        loop {
            let now = Instant::now();
            let mut until = deadline;
            if let Some(over) = &self.over {
                until = match over.load(Ordering::SeqCst) {
                    true => until.min(*self.seen_over.get_or_insert(now) + LAST_WAIT),
                    false => until.min(now + POLL),
                };
            }
            match self.lines.recv_timeout(until.saturating_duration_since(now)) {
                Ok(message) => return Next::Message(message),
                Err(RecvTimeoutError::Disconnected) => return Next::Closed,
                Err(RecvTimeoutError::Timeout) => {
                    let given_up = self
                        .seen_over
                        .is_some_and(|seen| seen + LAST_WAIT <= Instant::now());
                    if Instant::now() >= deadline || given_up {
                        return Next::Silent;
                    }
                }
            }
        }
    }

    /// The response to request `id` (other messages are stale: dropped).
    fn answer(&mut self, id: u64, deadline: Instant) -> Option<Value> {
        loop {
            match self.next(deadline) {
                Next::Message(message) if message["id"] == id => return Some(message),
                Next::Message(_) => {}
                Next::Silent | Next::Closed => return None,
            }
        }
    }

    /// Ends the front: killed at once when `kill`, otherwise by closing its
    /// stdin (the session's clean end), killed after a bound. Its exit status.
    fn end(mut self, launch: &Launch, client: u64, kill: bool) -> String {
        launch.fronts.forget(client);
        drop(self.stdin.take());
        if kill {
            let _ = self.child.kill();
        }
        let deadline = Instant::now() + if self.over.is_some() { LAST_WAIT } else { ANSWER };
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("exited ({status})"),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
                _ => {
                    let _ = self.child.kill();
                    return format!("was killed ({:?})", self.child.wait().ok());
                }
            }
        }
    }
}

/// A local client: its current front, spawned when a call needs one.
pub struct Local {
    launch: Arc<Launch>,
    client: u64,
    front: Option<Front>,
    /// Fronts spawned so far.
    opened: u64,
}

impl Local {
    pub fn new(launch: Arc<Launch>, client: u64) -> Local {
        Local {
            launch,
            client,
            front: None,
            opened: 0,
        }
    }

    fn front(&mut self) -> Result<&mut Front, String> {
        if self.front.is_none() {
            self.opened += 1;
            // Client 0 makes the final reads, after the run: it waits on.
            self.front = Some(Front::open(&self.launch, self.client, self.client > 0)?);
        }
        Ok(self.front.as_mut().expect("opened"))
    }

    /// The front is lost (dead, or no longer answering): killed and reaped.
    fn lose(&mut self, why: &str) -> String {
        let status = match self.front.take() {
            Some(front) => front.end(&self.launch, self.client, true),
            None => "was gone".to_string(),
        };
        format!("{why}: front {} of client {} {status}", self.opened, self.client)
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        if let Some(front) = self.front.take() {
            front.end(&self.launch, self.client, false);
        }
    }
}

impl Client for Local {
    /// One store, one agent at a time: the client reaches whichever runs.
    fn agents(&self) -> usize {
        1
    }

    fn call(&mut self, _agent: usize, method: &str, params: Value) -> Outcome {
        let front = match self.front() {
            Ok(front) => front,
            Err(why) => {
                return Outcome::Fail {
                    code: NOT_CONNECTED,
                    message: why,
                }
            }
        };
        let id = match front.send(method, params) {
            Ok(id) => id,
            Err(e) => return Outcome::Unknown(self.lose(&e)),
        };
        match front.answer(id, Instant::now() + ANSWER) {
            Some(answer) => classify(answer),
            None => Outcome::Unknown(self.lose("no answer")),
        }
    }

    fn follow(
        &mut self,
        _agent: usize,
        task: &str,
        after: Option<u64>,
        window: Duration,
        enough: &dyn Fn(&Stream) -> bool,
    ) -> Stream {
        let mut seen = Stream::default();
        let front = match self.front() {
            Ok(front) => front,
            Err(why) => {
                seen.not_connected = Some(why);
                return seen;
            }
        };
        let subscribe = json!({"id": task});
        let sent = match after {
            None => front.send("SubscribeToTask", subscribe),
            Some(after) => front.send(
                "stream/resume",
                json!({"method": "SubscribeToTask", "params": subscribe, "lastEventId": after}),
            ),
        };
        let Ok(id) = sent else {
            self.lose("the subscription was not sent");
            return seen;
        };
        let deadline = Instant::now() + window;
        loop {
            match front.next(deadline) {
                Next::Message(message) if message["id"] == id => {
                    // The stream's end: its final response.
                    match classify(message) {
                        Outcome::Ok(_) => seen.ended = !seen.events.is_empty(),
                        Outcome::Fail { code, message } => seen.refused = Some((code, message)),
                        Outcome::Unknown(_) => {}
                    }
                    return seen;
                }
                Next::Message(message) if message["params"]["requestId"] == id => {
                    let params = &message["params"];
                    seen.events
                        .push((params["taskSeq"].as_u64(), params["event"].clone()));
                    if enough(&seen) {
                        break;
                    }
                }
                Next::Message(_) => {}
                Next::Silent => break,
                Next::Closed => {
                    self.lose("the stream broke");
                    return seen;
                }
            }
        }
        // Dropped: cancelled, and both answers awaited so that nothing of
        // this stream is left for the next call. Events that come meanwhile
        // were not looked at.
        let dropped = front
            .send("stream/cancel", json!({"requestId": id}))
            .and_then(|cancel| {
                let deadline = Instant::now() + ANSWER;
                let (mut cancelled, mut ended) = (false, false);
                while !(cancelled && ended) {
                    match front.next(deadline) {
                        Next::Message(message) if message["id"] == cancel => cancelled = true,
                        Next::Message(message) if message["id"] == id => ended = true,
                        Next::Message(_) => {}
                        Next::Silent | Next::Closed => return Err("no end of the stream".to_string()),
                    }
                }
                Ok(())
            });
        if let Err(why) = dropped {
            self.lose(&why);
        }
        seen
    }
}
