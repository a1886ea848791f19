//! `bench-echo`: the stdio floor. A raw NDJSON pipe doing the least a stdio
//! JSON-RPC server must: read a line, parse it into a `serde_json::Value`, and
//! write one answer line with its id around a canned result of the agent's
//! size and shape (including for the `initialize` handshake, so the driver
//! treats it exactly like the agent).
//!
//! Output is buffered and flushed once no more input is already read, as a
//! real server coalesces answers to pipelined requests.

use bench::canned::{Canned, Success};
use serde_json::Value;
use std::io::{BufRead, BufReader, BufWriter, Write};

fn main() -> std::io::Result<()> {
    let canned = Canned::new();
    // Reads larger than stdin's own buffer bypass it, so this buffer alone
    // tells whether more input is already at hand.
    let mut input = BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut output = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let request: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
        let id = &request["id"];
        if !id.is_null() {
            let method = request["method"].as_str().unwrap_or("");
            serde_json::to_writer(&mut output, &Success::new(id, canned.result(method)))?;
            output.write_all(b"\n")?;
        }
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}
