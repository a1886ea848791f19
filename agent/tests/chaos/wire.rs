//! The clients' side of the wire: one JSON-RPC call per connection over raw
//! HTTP/1.0, its outcome classified as a history checker needs it (an
//! answer, a definite failure, or unknown), and a `SubscribeToTask` stream
//! read for a while and then dropped, as a client that goes away does.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// How long a connection may take: a refused or unanswered connect sent nothing.
const CONNECT: Duration = Duration::from_secs(5);
/// How long a unary call may wait for its answer; an agent stopped by the
/// nemesis is continued long before this, so only a hung agent reaches it.
const ANSWER: Duration = Duration::from_secs(60);
/// The polling interval of a stream reader watching its own deadline.
const POLL: Duration = Duration::from_millis(100);

/// What a client was told.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The call's result.
    Ok(Value),
    /// A definite refusal: nothing happened (a JSON-RPC error, or no connection).
    Fail { code: i64, message: String },
    /// No answer: the call may or may not have taken effect.
    Unknown(String),
}

/// The protocol version every client speaks: the 1.1 draft, so every
/// event and task carries its generation and messages can be sent on a
/// condition (the agents serve the draft).
pub const VERSION: &str = "1.1";

/// The agent's switch that serves it.
pub const DRAFT_SWITCH: [&str; 2] = ["--draft-version", VERSION];

/// JSON-RPC's internal error.
const INTERNAL_ERROR: i64 = -32603;

/// The code a refused connection is recorded with (nothing was sent).
pub const NOT_CONNECTED: i64 = 0;

fn request(addr: &str, body: &[u8], last_event_id: Option<u64>) -> Vec<u8> {
    let mut head = format!(
        "POST / HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\nA2A-Version: {VERSION}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(id) = last_event_id {
        head.push_str(&format!("Last-Event-ID: {id}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn connect(addr: &str) -> Result<TcpStream, Outcome> {
    let not_connected = |e: String| Outcome::Fail {
        code: NOT_CONNECTED,
        message: format!("not connected: {e}"),
    };
    let parsed: SocketAddr = addr.parse().map_err(|e| not_connected(format!("{e}")))?;
    TcpStream::connect_timeout(&parsed, CONNECT).map_err(|e| not_connected(e.to_string()))
}

/// The JSON-RPC envelope of `method` with `params`.
pub fn envelope(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// One unary call, classified.
pub fn call(addr: &str, method: &str, params: Value) -> Outcome {
    let body = serde_json::to_vec(&envelope(method, params)).expect("encodes");
    let mut stream = match connect(addr) {
        Ok(stream) => stream,
        Err(outcome) => return outcome,
    };
    let mut exchange = || -> std::io::Result<Vec<u8>> {
        stream.set_read_timeout(Some(ANSWER))?;
        stream.write_all(&request(addr, &body, None))?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw)?;
        Ok(raw)
    };
    let raw = match exchange() {
        Ok(raw) => raw,
        Err(e) => return Outcome::Unknown(e.to_string()),
    };
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Outcome::Unknown("no response head".into());
    };
    let Ok(answer) = serde_json::from_slice::<Value>(&raw[split + 4..]) else {
        return Outcome::Unknown("a body cut short".into());
    };
    classify(answer)
}

/// A JSON-RPC answer as an outcome.
pub fn classify(answer: Value) -> Outcome {
    if let Some(result) = answer.get("result") {
        return Outcome::Ok(result.clone());
    }
    match answer.get("error") {
        // An internal error (the database gone mid-commit, say) promises
        // nothing about what was done.
        Some(error) if error["code"] == INTERNAL_ERROR => Outcome::Unknown(format!("error {error}")),
        Some(error) => Outcome::Fail {
            code: error["code"].as_i64().unwrap_or_default(),
            message: error["message"].as_str().unwrap_or_default().to_string(),
        },
        None => Outcome::Unknown(format!("neither result nor error: {answer}")),
    }
}

/// What one `SubscribeToTask` stream delivered before it ended or was dropped.
#[derive(Clone, Debug, Default)]
pub struct Stream {
    /// Each event: its SSE id and its JSON-RPC result.
    pub events: Vec<(Option<u64>, Value)>,
    /// The error the stream was refused with, if it was.
    pub refused: Option<(i64, String)>,
    /// True when the agent ended the stream (rather than the client, or a failure).
    pub ended: bool,
    /// Why no stream was opened, when the connection failed before it.
    pub not_connected: Option<String>,
}

/// Follows task `task_id` on `addr` (resuming after `last_event_id`, if
/// given) until the stream ends or `window` has passed, dropping it as soon
/// as `enough` holds of what it delivered.
pub fn follow(
    addr: &str,
    task_id: &str,
    last_event_id: Option<u64>,
    window: Duration,
    enough: &dyn Fn(&Stream) -> bool,
) -> Stream {
    let mut seen = Stream::default();
    let body = serde_json::to_vec(&envelope("SubscribeToTask", json!({"id": task_id}))).expect("encodes");
    let mut stream = match connect(addr) {
        Ok(stream) => stream,
        Err(Outcome::Fail { message, .. }) => {
            seen.not_connected = Some(message);
            return seen;
        }
        Err(_) => return seen,
    };
    if stream.set_read_timeout(Some(POLL)).is_err()
        || stream.write_all(&request(addr, &body, last_event_id)).is_err()
    {
        return seen;
    }
    let deadline = Instant::now() + window;
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    let mut id = None;
    let mut in_body = false;
    let mut plain = String::new();
    loop {
        if Instant::now() >= deadline {
            return seen;
        }
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => {
                // The end of the body: a refusal is one plain JSON answer,
                // which need not end with a newline.
                plain.push_str(&String::from_utf8_lossy(&line));
                if !plain.trim().is_empty() {
                    if let Ok(answer) = serde_json::from_str::<Value>(plain.trim()) {
                        if let Outcome::Fail { code, message } = classify(answer) {
                            seen.refused = Some((code, message));
                        }
                    }
                }
                seen.ended = seen.refused.is_none() && !seen.events.is_empty();
                return seen;
            }
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                // Part of a line may have been read; keep it for the next read.
                continue;
            }
            Err(_) => return seen,
        }
        if line.last() != Some(&b'\n') {
            continue;
        }
        let text = String::from_utf8_lossy(&std::mem::take(&mut line)).into_owned();
        let text = text.trim_end_matches(['\r', '\n']);
        if !in_body {
            in_body = text.is_empty();
            continue;
        }
        if let Some(value) = text.strip_prefix("id:") {
            id = value.trim().parse().ok();
        } else if let Some(data) = text.strip_prefix("data:") {
            let Ok(message) = serde_json::from_str::<Value>(data.trim()) else {
                return seen;
            };
            match classify(message) {
                Outcome::Ok(result) => {
                    seen.events.push((id.take(), result));
                    if enough(&seen) {
                        return seen;
                    }
                }
                Outcome::Fail { code, message } => {
                    seen.refused = Some((code, message));
                    return seen;
                }
                Outcome::Unknown(_) => return seen,
            }
        } else if !text.starts_with(':') && !text.is_empty() && !text.starts_with("event:") {
            plain.push_str(text);
        }
    }
}
