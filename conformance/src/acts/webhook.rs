//! The webhook endpoint a runner provides for push tests (`webhook_endpoint`,
//! §3.2): an HTTP/1.1 listener on loopback that records every request the
//! agent delivers and answers `200`. A test reads it through the runner
//! variables `{{webhook.url}}` (where to point a push configuration) and
//! `{{webhook.received}}` (the deliveries so far, each
//! `{method, path, headers, body}`).

use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Bound on one delivery's head and body: a push payload is one StreamResponse.
const MAX_REQUEST: usize = 4 << 20;

/// A running receiver; stops when dropped.
pub struct Webhook {
    pub url: String,
    received: Arc<Mutex<Vec<Value>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Webhook {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Webhook {
    /// Listens on an ephemeral loopback port.
    pub async fn start() -> Result<Webhook, String> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("cannot listen on loopback for the webhook: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("the webhook listener has no address: {e}"))?;
        let received: Arc<Mutex<Vec<Value>>> = Arc::default();
        let sink = received.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let sink = sink.clone();
                tokio::spawn(async move {
                    if let Some(delivery) = serve(socket).await {
                        if let Ok(mut list) = sink.lock() {
                            list.push(delivery);
                        }
                    }
                });
            }
        });
        Ok(Webhook {
            url: format!("http://{addr}/webhook"),
            received,
            task,
        })
    }

    /// The runner variable `webhook`: its URL and what it received so far.
    pub fn variable(&self) -> Value {
        let received = self.received.lock().map(|l| l.clone()).unwrap_or_default();
        json!({"url": self.url, "received": received})
    }
}

/// Reads one request (Content-Length or chunked body), answers 200, and
/// returns what was delivered.
async fn serve(mut socket: TcpStream) -> Option<Value> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = socket.read(&mut buf).await.ok().filter(|n| *n > 0)?;
        data.extend_from_slice(&buf[..n]);
        if data.len() > MAX_REQUEST {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_string();
    let path = request_line.next()?.to_string();
    let mut headers = Map::new();
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            headers.insert(
                name.trim().to_ascii_lowercase(),
                Value::String(value.trim().to_string()),
            );
        }
    }
    let mut body = data[head_end + 4..].to_vec();
    let chunked = headers
        .get("transfer-encoding")
        .and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case("chunked"));
    if chunked {
        while !body.windows(5).any(|w| w == b"0\r\n\r\n") {
            let n = socket.read(&mut buf).await.ok().filter(|n| *n > 0)?;
            body.extend_from_slice(&buf[..n]);
            if body.len() > MAX_REQUEST {
                return None;
            }
        }
        body = dechunk(&body)?;
    } else {
        let length: usize = headers
            .get("content-length")
            .and_then(Value::as_str)
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        if length > MAX_REQUEST {
            return None;
        }
        while body.len() < length {
            let n = socket.read(&mut buf).await.ok().filter(|n| *n > 0)?;
            body.extend_from_slice(&buf[..n]);
        }
        body.truncate(length);
    }
    let _ = socket
        .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        .await;
    let _ = socket.shutdown().await;
    let text = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Some(json!({"method": method, "path": path, "headers": headers, "body": body}))
}

/// Decodes a chunked transfer-encoded body.
fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dechunk_joins_chunks() {
        assert_eq!(
            dechunk(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"),
            Some(b"abcde".to_vec())
        );
        assert_eq!(dechunk(b"zz\r\n"), None);
    }

    #[tokio::test]
    async fn a_delivery_is_recorded_with_headers_and_json_body() {
        let hook = Webhook::start().await.unwrap();
        let client = reqwest::Client::new();
        let status = client
            .post(&hook.url)
            .header("X-A2A-Notification-Token", "tok")
            .body(r#"{"statusUpdate":{"taskId":"t"}}"#)
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status.as_u16(), 200);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let v = hook.variable();
            if let Some(first) = v["received"].get(0) {
                assert_eq!(first["method"], "POST");
                assert_eq!(first["headers"]["x-a2a-notification-token"], "tok");
                assert_eq!(first["body"]["statusUpdate"]["taskId"], "t");
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the delivery was never recorded"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}
