//! The stdio binding (`urn:cleveragents:bindings:stdio:v1`) over any byte
//! pipes: a spawned agent ([`CommandConnector`]), or in-memory pipes in tests.
//! A session opens with the `initialize` handshake; `stream/event`
//! notifications carry a stream's events.
//!
//! Requests may be in flight together, as the binding allows (§5 of its
//! spec): a long-polling call and the message that wakes it, a subscription
//! and the message that moves its task on. Whichever call is waiting reads
//! the next line and keeps what belongs to another request for it, so every
//! answer reaches the call it is for.

use super::{
    clip, single_response, Activation, Answer, BoxFuture, Connector, Extra, Transport, EXTENSION_URI,
};
use a2a::methods::markers::{self, Initialize};
use a2a::rpc::{Method, Request};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The id of the stdio `initialize` request the suite opens a session with.
const INIT_ID: &str = "conformance-init";

type Reader = BufReader<Box<dyn AsyncRead + Send + Unpin>>;
type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// What one line of the agent's stdout is, for the request it belongs to.
enum Line {
    /// A `stream/event`: its `seq` and event.
    Event(Option<u64>, Value),
    /// The final response.
    Response(Value),
}

/// The agent's stdout and the lines read for requests other than the reader's.
struct Inbox {
    reader: Reader,
    /// By the JSON text of the request id (`null` for an unreadable one).
    kept: HashMap<String, VecDeque<Line>>,
}

/// The stdio binding over a pair of pipes.
pub struct StdioTransport {
    writer: Mutex<Writer>,
    inbox: Mutex<Inbox>,
    timeout: Duration,
    /// The spawned agent, kept so it dies with the transport.
    _child: Option<tokio::process::Child>,
    /// The `initialize` result.
    pub init: Value,
}

impl StdioTransport {
    /// Opens a session on `reader`/`writer`: sends `initialize` (at the
    /// activation's protocol version, with the CleverAgents extension if
    /// `activation` asks for it, at its minor version or the newest) and
    /// checks its result.
    pub async fn start(
        reader: Box<dyn AsyncRead + Send + Unpin>,
        writer: Writer,
        activation: Activation<'_>,
        timeout: Duration,
        child: Option<tokio::process::Child>,
    ) -> Result<StdioTransport, String> {
        let mut transport = StdioTransport {
            writer: Mutex::new(writer),
            inbox: Mutex::new(Inbox {
                reader: BufReader::new(reader),
                kept: HashMap::new(),
            }),
            timeout,
            _child: child,
            init: Value::Null,
        };
        let mut extensions = Vec::new();
        if let Activation::Extension(version) = activation {
            let mut extension = json!({"uri": EXTENSION_URI});
            if let Some(v) = version {
                extension["version"] = json!(v);
            }
            extensions.push(extension);
        }
        let init = Request::new(
            INIT_ID.to_string(),
            <Initialize as Method>::NAME,
            json!({"protocolVersion": activation.protocol_version(), "extensions": extensions,
                   "clientInfo": {"name": "a2a-conformance", "version": env!("CARGO_PKG_VERSION")}}),
        );
        // Every member is already JSON, so encoding cannot fail.
        let init = serde_json::to_string(&init).unwrap_or_default();
        match transport.send(init, json!(INIT_ID), Extra::default()).await {
            Answer::Result(r) => {
                transport.init = r;
                Ok(transport)
            }
            other => Err(format!("stdio initialize failed: {}", other.summary())),
        }
    }

    async fn send(&self, message: String, expect_id: Value, extra: Extra) -> Answer {
        match tokio::time::timeout(self.timeout, self.send_inner(message, expect_id, extra)).await {
            Ok(answer) => answer,
            Err(_) => Answer::Broken(format!("no final response within {:?}", self.timeout)),
        }
    }

    async fn send_inner(&self, message: String, expect_id: Value, mut extra: Extra) -> Answer {
        let mut line = message.replace('\n', " ");
        line.push('\n');
        {
            let mut writer = self.writer.lock().await;
            if let Err(e) = writer.write_all(line.as_bytes()).await {
                return Answer::Broken(format!("cannot write to the agent's stdin: {e}"));
            }
            if let Err(e) = writer.flush().await {
                return Answer::Broken(format!("cannot flush the agent's stdin: {e}"));
            }
        }
        let key = expect_id.to_string();
        let mut events = Vec::new();
        loop {
            let line = match self.next_for(&key).await {
                Ok(line) => line,
                Err(why) => return Answer::Broken(why),
            };
            if let Some(opened) = extra.opened.take() {
                let _ = opened.send(());
            }
            let value = match line {
                Line::Event(seq, event) => {
                    if seq != Some(events.len() as u64 + 1) {
                        return Answer::Broken(format!(
                            "stream/event seq {seq:?} where {} was due",
                            events.len() + 1
                        ));
                    }
                    events.push(event);
                    continue;
                }
                Line::Response(value) => value,
            };
            let answer = single_response(value, &expect_id);
            let is_stream_end = matches!(&answer, Answer::Result(Value::Null)) || !events.is_empty();
            return match answer {
                Answer::Result(Value::Null) if is_stream_end => Answer::Stream { events, error: None },
                Answer::Error(e) if !events.is_empty() => Answer::Stream {
                    events,
                    error: Some(e),
                },
                other if events.is_empty() => other,
                other => Answer::Broken(format!("a stream ended with {}", other.summary())),
            };
        }
    }

    /// The next line for the request whose id reads `key`: one kept for it,
    /// or the next one read (keeping those of other requests for them).
    async fn next_for(&self, key: &str) -> Result<Line, String> {
        loop {
            let mut inbox = self.inbox.lock().await;
            if let Some(line) = inbox.kept.get_mut(key).and_then(VecDeque::pop_front) {
                return Ok(line);
            }
            let (owner, line) = read_line(&mut inbox.reader).await?;
            // A response the agent could not give the request's id (a broken
            // envelope's) is the reader's: such requests are sent alone.
            if owner == key || owner == "null" {
                return Ok(line);
            }
            inbox.kept.entry(owner).or_default().push_back(line);
        }
    }
}

/// Reads one non-blank line: the id (JSON text) of the request it belongs to, and what it is.
async fn read_line(reader: &mut Reader) -> Result<(String, Line), String> {
    let mut buf = String::new();
    loop {
        buf.clear();
        match reader.read_line(&mut buf).await {
            Ok(0) => return Err("the agent closed its stdout".into()),
            Ok(_) => {}
            Err(e) => return Err(format!("cannot read the agent's stdout: {e}")),
        }
        let text = buf.trim();
        if text.is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(text)
            .map_err(|e| format!("stdout line is not JSON ({e}): {}", clip(text)))?;
        if value.get("method").and_then(Value::as_str) == Some(markers::StreamEvent::NAME) {
            let params = value.get("params").cloned().unwrap_or(Value::Null);
            let owner = params.get("requestId").cloned().unwrap_or(Value::Null);
            let seq = params.get("seq").and_then(Value::as_u64);
            let event = params.get("event").cloned().unwrap_or(Value::Null);
            return Ok((owner.to_string(), Line::Event(seq, event)));
        }
        let owner = value.get("id").cloned().unwrap_or(Value::Null);
        return Ok((owner.to_string(), Line::Response(value)));
    }
}

impl Transport for StdioTransport {
    fn exchange_with<'a>(&'a self, message: String, expect_id: Value, extra: Extra) -> BoxFuture<'a, Answer> {
        Box::pin(self.send(message, expect_id, extra))
    }
    fn kind(&self) -> &'static str {
        "stdio"
    }
    fn agent_card(&self) -> Option<Value> {
        self.init.get("agentCard").cloned()
    }
}

/// Spawns `sh -c COMMAND` per session and speaks the stdio binding to it.
pub struct CommandConnector {
    pub command: String,
    pub timeout: Duration,
}

impl Connector for CommandConnector {
    fn connect<'a>(
        &'a self,
        activation: Activation<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn Transport>, String>> {
        Box::pin(async move {
            let mut child = tokio::process::Command::new("sh")
                .arg("-c")
                .arg(&self.command)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::inherit())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| format!("cannot spawn `{}`: {e}", self.command))?;
            let stdin = child.stdin.take().ok_or("the agent has no stdin pipe")?;
            let stdout = child.stdout.take().ok_or("the agent has no stdout pipe")?;
            let t = StdioTransport::start(
                Box::new(stdout),
                Box::new(stdin),
                activation,
                self.timeout,
                Some(child),
            )
            .await?;
            Ok(Box::new(t) as Box<dyn Transport>)
        })
    }
    fn kind(&self) -> &'static str {
        "stdio"
    }
    /// Each session is a process of its own: whether they share a store is
    /// the agent's configuration, which the runner cannot see.
    fn sessions_share_state(&self) -> bool {
        false
    }
}
