//! `bench-floor PORT`: the HTTP floor the agent is measured against. A bare
//! hyper (HTTP/1.1) server on `127.0.0.1:PORT` doing the least any JSON-RPC
//! server must: read the body, parse it into a `serde_json::Value`, and
//! serialize an answer with its id around a canned result of the agent's
//! size and shape (for `SendStreamingMessage`, the agent's three SSE events).
//! `GET` answers a small JSON object, so readiness is probed like the agent's.
//!
//! One thread (a current-thread runtime), so pinned to one core it is
//! measured under the same conditions as the agent.

use a2a::methods::markers;
use a2a::rpc::Method as _;
use bench::canned::{Canned, Success};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// An answer body of ready chunks: with a known length for JSON (sent with
/// `Content-Length`), without for an event stream (sent chunked, one chunk
/// per event, as the agent sends it).
struct Chunks {
    chunks: VecDeque<Bytes>,
    exact_len: Option<u64>,
}

impl Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.chunks.pop_front().map(|chunk| Ok(Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        self.exact_len
            .map_or_else(SizeHint::default, SizeHint::with_exact)
    }
}

fn success(id: &Value, result: &Value) -> Vec<u8> {
    serde_json::to_vec(&Success::new(id, result)).unwrap_or_default()
}

fn respond(content_type: &'static str, chunks: VecDeque<Bytes>, exact: bool) -> Response<Chunks> {
    let exact_len = exact.then(|| chunks.iter().map(|c| c.len() as u64).sum());
    let mut response = Response::new(Chunks { chunks, exact_len });
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(content_type),
    );
    response
}

async fn handle(request: Request<Incoming>, canned: Arc<Canned>) -> Result<Response<Chunks>, Infallible> {
    if request.method() != Method::POST {
        let card = Bytes::from_static(br#"{"name":"bench-floor","version":"0.1.0"}"#);
        return Ok(respond("application/json", VecDeque::from([card]), true));
    }
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = &parsed["id"];
    let method = parsed["method"].as_str().unwrap_or("");
    if method == markers::SendStreamingMessage::NAME {
        let events = canned.stream_events.iter().enumerate().map(|(n, event)| {
            let mut frame = format!("id: {}\ndata: ", n + 1).into_bytes();
            frame.extend_from_slice(&success(id, event));
            frame.extend_from_slice(b"\n\n");
            Bytes::from(frame)
        });
        return Ok(respond("text/event-stream", events.collect(), false));
    }
    let answer = Bytes::from(success(id, canned.result(method)));
    Ok(respond("application/json", VecDeque::from([answer]), true))
}

async fn serve(port: u16) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let canned = Arc::new(Canned::new());
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let canned = canned.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| handle(request, canned.clone()));
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn main() {
    let Some(port) = std::env::args().nth(1).and_then(|p| p.parse::<u16>().ok()) else {
        eprintln!("usage: bench-floor PORT");
        std::process::exit(2);
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime");
    if let Err(e) = runtime.block_on(serve(port)) {
        eprintln!("bench-floor: {e}");
        std::process::exit(1);
    }
}
