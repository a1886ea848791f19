//! A connection-per-request HTTP/1.1 exchange with the agent over a raw
//! socket, so a test controls every header byte (malformed ones included) and
//! reads the whole answer, SSE streams included.

use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;

/// One HTTP exchange, read to the end of the response.
pub struct Reply {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }

    pub fn is_stream(&self) -> bool {
        self.header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
    }

    /// The JSON-RPC messages of the body: the one JSON object, or each SSE `data:`.
    pub fn messages(&self) -> Vec<Value> {
        let text = String::from_utf8_lossy(&self.body);
        if self.is_stream() {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|data| serde_json::from_str(data.trim()).expect("each SSE data is JSON"))
                .collect()
        } else {
            vec![serde_json::from_str(&text).unwrap_or_else(|e| panic!("JSON body ({e}): {text}"))]
        }
    }

    /// The SSE events of a stream: each event's `id:` (when numeric) and its `data:`.
    pub fn events(&self) -> Vec<(Option<u64>, Value)> {
        let text = String::from_utf8_lossy(&self.body);
        let mut events = Vec::new();
        let mut id = None;
        for line in text.lines() {
            if let Some(value) = line.strip_prefix("id:") {
                id = value.trim().parse().ok();
            } else if let Some(data) = line.strip_prefix("data:") {
                let data = serde_json::from_str(data.trim()).unwrap_or(Value::Null);
                events.push((id.take(), data));
            }
        }
        events
    }

    /// The error the exchange ended with, if it did.
    pub fn error(&self) -> Option<Value> {
        self.messages().last()?.get("error").cloned()
    }
}

fn decode_chunked(mut raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let Some(end) = raw.windows(2).position(|w| w == b"\r\n") else {
            return body;
        };
        let size_text = String::from_utf8_lossy(&raw[..end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16).unwrap_or(0);
        raw = &raw[end + 2..];
        if size == 0 || raw.len() < size {
            return body;
        }
        body.extend_from_slice(&raw[..size]);
        raw = raw.get(size + 2..).unwrap_or_default();
    }
}

/// POSTs the JSON-RPC `call` to `addr` with `headers` (and `A2A-Version: 1.0`)
/// and reads the answer to the end.
pub fn post(addr: &str, headers: &[(&str, &[u8])], call: &Value) -> Reply {
    try_post(addr, headers, call).unwrap_or_else(|e| panic!("{call}: {e}"))
}

/// [`post`], with a failed exchange (the agent gone mid-answer, say) as an error
/// rather than a panic. A read that waits a minute for a byte counts as failed,
/// so a hung agent fails a test instead of hanging it.
pub fn try_post(addr: &str, headers: &[(&str, &[u8])], call: &Value) -> std::io::Result<Reply> {
    try_post_as(addr, Some("1.0"), headers, call)
}

/// [`post`] to `path` (a query string included) rather than `/`.
#[allow(dead_code)] // not every test binary posts elsewhere
pub fn post_to(addr: &str, path: &str, headers: &[(&str, &[u8])], call: &Value) -> Reply {
    let body = serde_json::to_vec(call).expect("encodes");
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    exchange(addr, head, headers, &body).unwrap_or_else(|e| panic!("POST {path}: {e}"))
}

/// [`post`] speaking the A2A version `version` (`None`: no `A2A-Version` header).
#[allow(dead_code)] // not every test binary speaks another version
pub fn post_as(addr: &str, version: Option<&str>, headers: &[(&str, &[u8])], call: &Value) -> Reply {
    try_post_as(addr, version, headers, call).unwrap_or_else(|e| panic!("{call}: {e}"))
}

fn try_post_as(
    addr: &str,
    version: Option<&str>,
    headers: &[(&str, &[u8])],
    call: &Value,
) -> std::io::Result<Reply> {
    let body = serde_json::to_vec(call).expect("encodes");
    let version = version
        .map(|v| format!("A2A-Version: {v}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{version}Connection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    exchange(addr, head, headers, &body)
}

/// Sends one request (`head`: its request line and fixed headers, each line
/// ended) with `headers` and `body`, and reads the answer to the end.
fn exchange(addr: &str, head: String, headers: &[(&str, &[u8])], body: &[u8]) -> std::io::Result<Reply> {
    let broken = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let mut request = head.into_bytes();
    for (name, value) in headers {
        request.extend_from_slice(name.as_bytes());
        request.extend_from_slice(b": ");
        request.extend_from_slice(value);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"\r\n");
    request.extend_from_slice(body);
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(60)))?;
    stream.write_all(&request)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| broken("no response head"))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| broken("no status code"))?;
    let rest = &raw[split + 4..];
    let chunked = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
    let body = if chunked {
        decode_chunked(rest)
    } else {
        rest.to_vec()
    };
    Ok(Reply { status, head, body })
}

/// GETs `path` from `addr` with `headers` and reads the answer to the end.
#[allow(dead_code)] // not every test binary reads a GET endpoint
pub fn get(addr: &str, path: &str, headers: &[(&str, &[u8])]) -> Reply {
    let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    exchange(addr, head, headers, &[]).unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

/// Connects to `addr`, sends `opening` and then nothing, and asserts that the
/// server closes the connection. The wait is bounded far beyond any limit a
/// test sets, so only a server that never cuts the client off fails.
pub fn assert_stalled_client_is_cut_off(addr: &str, opening: &[u8], what: &str) {
    let mut stalled = TcpStream::connect(addr).expect("connect");
    stalled.write_all(opening).expect("the opening bytes");
    stalled
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .expect("timeout");
    let mut buffer = [0u8; 64];
    match stalled.read(&mut buffer) {
        Ok(0) => {}
        Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => {}
        other => panic!("the server kept {what} open: {other:?}"),
    }
}
