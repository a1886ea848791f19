//! The HTTP transport against a scripted loopback peer: reads are retried and
//! writes are not, and a broken stream resumes from the last sequence number.

use crate::agent::{examples, runtime, typed};
use a2a::rpc::{CallError, Event};
use client::{Client, HttpConfig, HttpTransport};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// What the scripted peer saw: (method, Last-Event-ID).
type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

async fn read_request(stream: &mut BufReader<tokio::net::TcpStream>) -> Option<(Option<String>, Value)> {
    let mut length = 0usize;
    let mut last_event_id = None;
    for _ in 0..100 {
        let mut line = String::new();
        if stream.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().ok()?,
                "last-event-id" => last_event_id = Some(value.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.ok()?;
    Some((last_event_id, serde_json::from_slice(&body).ok()?))
}

fn sse_chunk(id: &Value, seq: usize, event: &Value) -> String {
    let data = json!({"jsonrpc": "2.0", "id": id, "result": event});
    let frame = format!("id: {seq}\ndata: {data}\n\n");
    format!("{:x}\r\n{frame}\r\n", frame.len())
}

/// GetTask fails once with 503, CancelTask always does, SubscribeToTask breaks
/// after its first event and, resumed, replays event 1 then sends 2 and 3.
async fn scripted_peer(seen: Seen) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut stream = BufReader::new(socket);
                let Some((last_event_id, request)) = read_request(&mut stream).await else {
                    return;
                };
                let method = request["method"].as_str().unwrap_or_default().to_string();
                let count = {
                    let mut seen = seen.lock().expect("lock");
                    seen.push((method.clone(), last_event_id));
                    seen.iter().filter(|(m, _)| *m == method).count()
                };
                let ex = examples();
                let unavailable =
                    "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                        .to_string();
                let reply = match (method.as_str(), count) {
                    ("GetTask", 1) | ("CancelTask", _) => unavailable,
                    ("GetTask", _) => {
                        let body =
                            json!({"jsonrpc": "2.0", "id": request["id"], "result": ex["GetTask"].result})
                                .to_string();
                        format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len())
                    }
                    ("SubscribeToTask", n) => {
                        let events = ex["SubscribeToTask"].events.clone().unwrap_or_default();
                        let mut out = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n".to_string();
                        if n == 1 {
                            // One event, then the connection dies mid-stream.
                            out.push_str(&sse_chunk(&request["id"], 1, &events[0]));
                        } else {
                            for (i, event) in events.iter().enumerate() {
                                out.push_str(&sse_chunk(&request["id"], i + 1, event));
                            }
                            out.push_str("0\r\n\r\n");
                        }
                        out
                    }
                    _ => unavailable,
                };
                let _ = stream.get_mut().write_all(reply.as_bytes()).await;
                let _ = stream.get_mut().flush().await;
            });
        }
    });
    addr
}

fn scripted_client(addr: SocketAddr) -> Client<HttpTransport> {
    let mut config = HttpConfig::new(format!("http://{addr}/"));
    config.backoff = Duration::from_millis(1);
    Client::new(HttpTransport::new(config).expect("transport"))
}

pub fn http_retries_reads_only() {
    runtime().block_on(async {
        let seen: Seen = Arc::default();
        let client = scripted_client(scripted_peer(seen.clone()).await);
        let ex = examples();
        let task = client
            .get_task(typed(&ex["GetTask"].params))
            .await
            .expect("retried read");
        assert_eq!(serde_json::to_value(task).ok(), ex["GetTask"].result);
        match client.cancel_task(typed(&json!({"id": "t"}))).await {
            Err(CallError::Transport(message)) => assert_eq!(message, "HTTP 503 Service Unavailable"),
            other => panic!("expected a transport error, got {other:?}"),
        }
        let methods: Vec<String> = seen
            .lock()
            .expect("lock")
            .iter()
            .map(|(m, _)| m.clone())
            .collect();
        // The read was sent twice; the write exactly once.
        assert_eq!(methods, ["GetTask", "GetTask", "CancelTask"]);
    });
}

pub fn http_stream_resumes_from_last_seq() {
    runtime().block_on(async {
        let seen: Seen = Arc::default();
        let client = scripted_client(scripted_peer(seen.clone()).await);
        let ex = examples();
        let events: Vec<Event<Value>> = client
            .transport()
            .subscribe_raw("SubscribeToTask", ex["SubscribeToTask"].params.clone())
            .await;
        let seqs: Vec<Option<u64>> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [Some(1), Some(2), Some(3)]);
        let data: Vec<Value> = events.into_iter().map(|e| e.data).collect();
        assert_eq!(Some(data), ex["SubscribeToTask"].events);
        let log = seen.lock().expect("lock").clone();
        assert_eq!(
            log,
            [
                ("SubscribeToTask".to_string(), None),
                ("SubscribeToTask".to_string(), Some("1".to_string()))
            ]
        );
    });
}

trait SubscribeRaw {
    async fn subscribe_raw(&self, method: &'static str, params: Value) -> Vec<Event<Value>>;
}

impl SubscribeRaw for HttpTransport {
    async fn subscribe_raw(&self, method: &'static str, params: Value) -> Vec<Event<Value>> {
        use a2a::rpc::Transport;
        let stream = self.subscribe(method, params).await.expect("subscribe");
        stream.map(|e| e.expect("event")).take(10).collect().await
    }
}

/// A peer answering every request with the GetTask example padded to
/// `padding` bytes of history text, announced (`content-length`) or chunked.
async fn oversized_peer(padding: usize, chunked: bool) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut stream = BufReader::new(socket);
                let Some((_, request)) = read_request(&mut stream).await else {
                    return;
                };
                let mut task = examples()["GetTask"].result.clone().expect("an example result");
                task["metadata"] = json!({"padding": "x".repeat(padding)});
                let body = json!({"jsonrpc": "2.0", "id": request["id"], "result": task}).to_string();
                let reply = if chunked {
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
                        body.len()
                    )
                } else {
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    )
                };
                let _ = stream.get_mut().write_all(reply.as_bytes()).await;
            });
        }
    });
    addr
}

pub fn http_answers_over_the_limit_are_refused() {
    runtime().block_on(async {
        let ex = examples();
        for chunked in [false, true] {
            let mut config = HttpConfig::new(format!("http://{}/", oversized_peer(4096, chunked).await));
            config.max_answer_bytes = 4096;
            config.backoff = Duration::from_millis(1);
            let client = Client::new(HttpTransport::new(config).expect("transport"));
            match client.get_task(typed(&ex["GetTask"].params)).await {
                Err(CallError::Transport(message)) => {
                    assert_eq!(
                        message, "the answer exceeds the limit of 4096 bytes",
                        "chunked: {chunked}"
                    )
                }
                other => panic!("expected a transport error (chunked: {chunked}), got {other:?}"),
            }
            // The same answer within the limit is read.
            let mut config = HttpConfig::new(format!("http://{}/", oversized_peer(16, chunked).await));
            config.max_answer_bytes = 4096;
            let client = Client::new(HttpTransport::new(config).expect("transport"));
            let task = client.get_task(typed(&ex["GetTask"].params)).await.expect("read");
            assert_eq!(
                task.metadata.map(|m| m["padding"].clone()),
                Some(json!("x".repeat(16)))
            );
        }
    });
}
