//! Load benchmark of the HTTP binding: `GetTask` and `SendMessage` against an
//! in-memory handler, and a bare hyper + serde_json echo server measured in the
//! same run as the baseline. Prints req/s, p50 and p99 latency, and the ratio
//! of throughput to the baseline.
//!
//! Run: `cargo bench -p cleveragents-server --bench http_load`
//! (env `BENCH_REQUESTS` per scenario, default 40000; `BENCH_CONNECTIONS`, default 32).

use a2a::handlers::*;
use a2a::rpc::{CallContext, Error, Reply};
use a2a::types::*;
use a2a::Router;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

struct MemoryHandler {
    task: Task,
}

impl MessagingHandler for MemoryHandler {
    async fn get_task(&self, _ctx: &CallContext, _params: GetTaskRequest) -> Result<Reply<Task>, Error> {
        Ok(self.task.clone().into())
    }
    async fn send_message(
        &self,
        _ctx: &CallContext,
        _params: SendMessageRequest,
    ) -> Result<SendMessageResponse, Error> {
        Ok(SendMessageResponse::Task(self.task.clone()))
    }
}
impl PushConfigHandler for MemoryHandler {}
impl AgentCardHandler for MemoryHandler {}
impl PlanHandler for MemoryHandler {}
impl RegistryHandler for MemoryHandler {}
impl ContextHandler for MemoryHandler {}
impl SyncHandler for MemoryHandler {}
impl NamespaceHandler for MemoryHandler {}
impl HealthHandler for MemoryHandler {}
impl SessionHandler for MemoryHandler {}
impl EventsHandler for MemoryHandler {}

/// The baseline: parse the JSON-RPC body, answer its params as the result.
async fn start_baseline() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let service = service_fn(|request: hyper::Request<hyper::body::Incoming>| async move {
                    let body = request
                        .into_body()
                        .collect()
                        .await
                        .map(|c| c.to_bytes())
                        .unwrap_or_default();
                    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let answer = json!({"jsonrpc": "2.0", "id": value["id"], "result": value["params"]});
                    let bytes = serde_json::to_vec(&answer).unwrap_or_default();
                    let mut response = hyper::Response::new(Full::new(Bytes::from(bytes)));
                    response.headers_mut().insert(
                        "content-type",
                        hyper::header::HeaderValue::from_static("application/json"),
                    );
                    Ok::<_, std::convert::Infallible>(response)
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

async fn start_server() -> SocketAddr {
    let task: Task = serde_json::from_value(json!({
        "id": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b",
        "contextId": "c3f1a2b4-7d5e-4c1a-9b8e-2f6d0a1e5c77",
        "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2025-11-03T09:14:27.512Z"},
        "artifacts": [{"artifactId": "a1", "name": "summary", "parts": [{"text": "- one\n- two\n- three", "mediaType": "text/markdown"}]}]
    }))
    .expect("task");
    let router = Router::new(Arc::new(MemoryHandler { task }));
    let mut config = server::ServerConfig::default();
    config.http.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    let server = server::HttpServer::bind(config, Arc::new(router))
        .await
        .expect("bind");
    let addr = server.local_addr().expect("addr");
    tokio::spawn(server.serve(std::future::pending()));
    addr
}

async fn load(
    addr: SocketAddr,
    body: Value,
    requests: usize,
    connections: usize,
) -> (f64, Duration, Duration) {
    let body = Bytes::from(serde_json::to_vec(&body).expect("encode"));
    let per_connection = requests / connections;
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..connections {
        let body = body.clone();
        workers.push(tokio::spawn(async move {
            let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
            let _ = stream.set_nodelay(true);
            let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .expect("handshake");
            tokio::spawn(connection);
            let mut latencies = Vec::with_capacity(per_connection);
            for _ in 0..per_connection {
                let request = hyper::Request::post("/")
                    .header("content-type", "application/json")
                    .header("a2a-version", "1.0")
                    .header("host", "localhost")
                    .body(Full::new(body.clone()))
                    .expect("request");
                let t = Instant::now();
                let response = sender.send_request(request).await.expect("send");
                assert_eq!(response.status(), 200);
                let bytes = response.into_body().collect().await.expect("body").to_bytes();
                assert!(bytes.starts_with(b"{\"jsonrpc\":\"2.0\""));
                latencies.push(t.elapsed());
            }
            latencies
        }));
    }
    let mut all = Vec::with_capacity(requests);
    for worker in workers {
        all.extend(worker.await.expect("worker"));
    }
    let elapsed = started.elapsed();
    all.sort();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)];
    (all.len() as f64 / elapsed.as_secs_f64(), pct(0.50), pct(0.99))
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let requests: usize = std::env::var("BENCH_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40_000);
    let connections: usize = std::env::var("BENCH_CONNECTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    runtime.block_on(async {
        let baseline = start_baseline().await;
        let server = start_server().await;
        let get_task = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b", "historyLength": 1}});
        let send = json!({"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": {"message": {
            "messageId": "0f4e6a1c", "role": "ROLE_USER", "parts": [{"text": "Summarize the attached report in three bullet points."}]}}});
        // Warm up both servers.
        load(baseline, get_task.clone(), connections * 50, connections).await;
        load(server, get_task.clone(), connections * 50, connections).await;
        println!("{requests} requests per scenario over {connections} keep-alive connections");
        println!("{:<28} {:>12} {:>10} {:>10} {:>8}", "scenario", "req/s", "p50", "p99", "ratio");
        for (name, body) in [("GetTask", get_task), ("SendMessage", send)] {
            let (base_rps, base_p50, base_p99) = load(baseline, body.clone(), requests, connections).await;
            let (rps, p50, p99) = load(server, body, requests, connections).await;
            println!("{:<28} {:>12.0} {:>10.1?} {:>10.1?} {:>8}", format!("baseline echo ({name} body)"), base_rps, base_p50, base_p99, "1.00");
            println!("{:<28} {:>12.0} {:>10.1?} {:>10.1?} {:>8.2}", format!("server {name}"), rps, p50, p99, rps / base_rps);
        }
    });
}
