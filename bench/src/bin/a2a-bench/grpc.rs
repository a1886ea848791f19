//! The gRPC binding's side of a connection: each JSON-RPC request a workload
//! writes is sent as the gRPC call that means the same (its method's rpc, the
//! params as protobuf, over HTTP/2 with one call at a time), and its answer is
//! handed back as the JSON-RPC answer it stands for, so every workload's
//! request and check serve both bindings unchanged. The transcoding runs here,
//! on the load generator's core; the server's CPU is what is measured.

use crate::http::Answer;
use a2a::rpc::declared;
use a2a::{Contract, ErrorKind};
use bytes::Bytes;
use grpc::{Code, Service, Status};
use serde_json::{json, Value};
use std::net::SocketAddr;
use tokio::net::TcpStream;

const A2A_VERSION_HEADER: &str = declared(Contract::A2a.version_header());
const PROTOCOL_VERSION: &str = declared(Contract::A2a.released_protocol_version());

pub struct GrpcConn {
    send: h2::client::SendRequest<Bytes>,
    authority: String,
    service: &'static Service,
    /// The JSON-RPC answer of the last call.
    out: Vec<u8>,
}

impl GrpcConn {
    /// An HTTP/2 connection (prior knowledge) to `addr`; its driver runs on
    /// the current `LocalSet`.
    pub async fn connect(addr: SocketAddr) -> Result<GrpcConn, String> {
        let service = Service::contract().map_err(str::to_string)?;
        let tcp = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("connect {addr}: {e}"))?;
        tcp.set_nodelay(true).map_err(|e| e.to_string())?;
        let (send, connection) = h2::client::handshake(tcp)
            .await
            .map_err(|e| format!("HTTP/2 handshake with {addr}: {e}"))?;
        tokio::task::spawn_local(async move {
            let _ = connection.await;
        });
        Ok(GrpcConn {
            send,
            authority: addr.to_string(),
            service,
            out: Vec::with_capacity(1024),
        })
    }

    /// Sends the JSON-RPC request `body` as its gRPC call; the answer as JSON-RPC.
    pub async fn call(&mut self, body: &[u8]) -> Result<Answer<'_>, String> {
        let request: Value = serde_json::from_slice(body).map_err(|e| format!("request: {e}"))?;
        let method = request["method"].as_str().ok_or("a request without a method")?;
        let rpc = self
            .service
            .rpc_of(method)
            .ok_or_else(|| format!("`{method}` has no rpc"))?;
        let params = request.get("params").cloned().unwrap_or_else(|| json!({}));
        let message = grpc::transcode::from_json(&rpc.input, &params.to_string(), ErrorKind::InvalidParams)
            .map_err(|e| e.to_string())?;
        let head = http::Request::post(format!("http://{}{}", self.authority, rpc.path))
            .header("content-type", grpc::CONTENT_TYPE)
            .header("te", "trailers")
            .header(A2A_VERSION_HEADER, PROTOCOL_VERSION)
            .body(())
            .map_err(|e| e.to_string())?;
        let mut send = self
            .send
            .clone()
            .ready()
            .await
            .map_err(|e| format!("ready: {e}"))?;
        let (answer, mut stream) = send.send_request(head, false).map_err(|e| format!("send: {e}"))?;
        stream
            .send_data(grpc::frame::encode(&message), true)
            .map_err(|e| format!("send body: {e}"))?;
        let answer = answer.await.map_err(|e| format!("answer: {e}"))?;
        let (parts, body) = answer.into_parts();
        let collected = grpc::answer::collect(&parts.headers, H2Body(body), 64 << 20).await?;
        let id = request["id"].clone();
        let outcome = match (collected.status.code, collected.messages.as_slice()) {
            (Code::Ok, [message]) => {
                let result = grpc::transcode::to_json(&rpc.output, message).map_err(|e| e.to_string())?;
                json!({"jsonrpc": "2.0", "id": id, "result": result})
            }
            (Code::Ok, messages) => return Err(format!("OK with {} messages", messages.len())),
            (_, _) => {
                let error = Status::into_error(collected.status, ErrorKind::InternalError);
                json!({"jsonrpc": "2.0", "id": id, "error": error})
            }
        };
        self.out.clear();
        serde_json::to_writer(&mut self.out, &outcome).map_err(|e| e.to_string())?;
        Ok(Answer {
            status: parts.status.as_u16(),
            body: &self.out,
        })
    }
}

/// An h2 response body as an `http_body::Body`, its trailers included.
struct H2Body(h2::RecvStream);

impl http_body::Body for H2Body {
    type Data = Bytes;
    type Error = h2::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, h2::Error>>> {
        use std::task::Poll;
        let body = &mut self.0;
        match body.poll_data(cx) {
            Poll::Ready(Some(Ok(data))) => {
                let _ = body.flow_control().release_capacity(data.len());
                return Poll::Ready(Some(Ok(http_body::Frame::data(data))));
            }
            Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
            Poll::Ready(None) => {}
            Poll::Pending => return Poll::Pending,
        }
        match body.poll_trailers(cx) {
            Poll::Ready(Ok(Some(trailers))) => Poll::Ready(Some(Ok(http_body::Frame::trailers(trailers)))),
            Poll::Ready(Ok(None)) => Poll::Ready(None),
            Poll::Ready(Err(e)) => Poll::Ready(Some(Err(e))),
            Poll::Pending => Poll::Pending,
        }
    }
}
