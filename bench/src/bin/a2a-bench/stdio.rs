//! The stdio workload: a peer spoken to over its stdin/stdout in NDJSON, the
//! binding's `initialize` handshake first, then `GetTask` round trips with a
//! window of requests outstanding (responses are matched by id, as the
//! binding allows them in any order).
//!
//! Plain blocking I/O on the driver's thread: one peer at a time, and a window
//! of small messages stays far below the pipes' buffers, so writing can never
//! wait on a reader that waits on us.

use crate::load::{Bounds, Tally};
use crate::process::Server;
use a2a::methods::markers;
use a2a::rpc::{declared, Method as _};
use a2a::Contract;
use bench::reply::{classify, Reply};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{ChildStdin, ChildStdout};
use std::time::Instant;

pub struct StdioPeer {
    pub server: Server,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
    line: Vec<u8>,
    next_id: u64,
}

/// The handshake the binding requires before anything else: the contract's
/// protocol version, with its extension activated.
pub fn initialize_params() -> String {
    let version = declared(Contract::A2a.released_protocol_version());
    let extension = declared(Contract::Cleveragents.extension_uri());
    format!(
        r#"{{"protocolVersion":"{version}","extensions":[{{"uri":"{extension}"}}],"clientInfo":{{"name":"a2a-bench","version":"0.1.0"}}}}"#
    )
}

impl StdioPeer {
    pub fn new(mut server: Server) -> Result<StdioPeer, String> {
        let child = server.child_mut();
        let input = child.stdin.take().ok_or("the peer has no stdin pipe")?;
        let output = child.stdout.take().ok_or("the peer has no stdout pipe")?;
        Ok(StdioPeer {
            server,
            input: BufWriter::new(input),
            output: BufReader::new(output),
            line: Vec::with_capacity(4096),
            next_id: 0,
        })
    }

    fn send(&mut self, id: u64, method: &str, params: &str) -> Result<(), String> {
        writeln!(
            self.input,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
        )
        .map_err(|e| format!("stdin of the peer: {e}"))
    }

    /// Reads the next line; `Err` at EOF (the peer is gone).
    fn read_line(&mut self) -> Result<&[u8], String> {
        self.line.clear();
        match self.output.read_until(b'\n', &mut self.line) {
            Ok(0) => Err("the peer closed its stdout".into()),
            Ok(_) => Ok(&self.line),
            Err(e) => Err(format!("stdout of the peer: {e}")),
        }
    }

    /// One request, answered before the next: its result.
    pub fn call(&mut self, method: &str, params: &str) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(id, method, params)?;
        self.input.flush().map_err(|e| e.to_string())?;
        loop {
            let line = self.read_line()?;
            if let Reply::Notification { .. } = classify(line)? {
                continue;
            }
            let mut answer: Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
            if answer["id"] != id {
                return Err(format!("answer to another id: {answer}"));
            }
            if let Some(error) = answer.get("error") {
                return Err(format!("{method}: {error}"));
            }
            return Ok(answer["result"].take());
        }
    }

    pub fn initialize(&mut self) -> Result<(), String> {
        self.call(markers::Initialize::NAME, &initialize_params())
            .map(drop)
    }

    /// `GetTask` of `task_id` with up to `window` requests outstanding.
    pub fn get_task_loop(&mut self, task_id: &str, window: usize, bounds: Bounds) -> Tally {
        let params = format!(r#"{{"id":"{task_id}"}}"#);
        let started = Instant::now();
        let deadline = started + bounds.time;
        let mut tally = Tally::default();
        let mut in_flight: HashMap<u64, Instant> = HashMap::with_capacity(window);
        let mut sent = 0;
        loop {
            let mut wrote = false;
            while in_flight.len() < window && sent < bounds.requests && Instant::now() < deadline {
                self.next_id += 1;
                let id = self.next_id;
                if let Err(error) = self.send(id, markers::GetTask::NAME, &params) {
                    tally.record_error(error);
                    return tally;
                }
                in_flight.insert(id, Instant::now());
                sent += 1;
                wrote = true;
            }
            if wrote {
                if let Err(error) = self.input.flush() {
                    tally.record_error(format!("stdin of the peer: {error}"));
                    return tally;
                }
            }
            if in_flight.is_empty() {
                break;
            }
            if let Err(error) = self.take_answer(&mut in_flight, &mut tally) {
                tally.record_error(error);
                break;
            }
        }
        tally.elapsed = started.elapsed();
        tally
    }

    /// Reads one message and settles the request it answers. `Err` only when
    /// the session cannot go on.
    fn take_answer(
        &mut self,
        in_flight: &mut HashMap<u64, Instant>,
        tally: &mut Tally,
    ) -> Result<(), String> {
        let line = self.read_line()?;
        let (id, outcome) = match classify(line) {
            Ok(Reply::Success { id }) => (id, Ok(())),
            Ok(Reply::Failure { id, error }) => (id, Err(error)),
            Ok(Reply::Notification { .. }) => return Ok(()),
            Err(error) => return Err(error),
        };
        let Some(sent) = id.and_then(|id| in_flight.remove(&id)) else {
            return Err(format!("an answer to no outstanding request: id {id:?}"));
        };
        tally.latencies_ns.push(sent.elapsed().as_nanos() as u64);
        tally.done += 1;
        if let Err(error) = outcome {
            tally.record_error(error);
        }
        Ok(())
    }
}
