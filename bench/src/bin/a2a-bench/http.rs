//! A minimal keep-alive HTTP/1.1 client over one `TcpStream`: one request at a
//! time, the head written from a prefix built once per connection, the answer
//! read into a reused buffer.
//!
//! Hand-written rather than a full client so that the load generator, pinned
//! to one core like the server, spends as little as possible per request: no
//! header maps, no body streams, no per-request allocation once the buffers
//! have grown. A connection may instead carry the same requests over the gRPC
//! binding ([`crate::grpc`]).

use crate::grpc::GrpcConn;
use a2a::rpc::declared;
use a2a::Contract;
use bench::frames::{decode_chunked, parse_response_head, BodyFraming, ResponseHead};
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The protocol version every request asks for, in the header the contract names.
const A2A_VERSION_HEADER: &str = declared(Contract::A2a.version_header());
const PROTOCOL_VERSION: &str = declared(Contract::A2a.released_protocol_version());

/// One answer, borrowed from the connection's buffers until the next request.
pub struct Answer<'a> {
    pub status: u16,
    pub body: &'a [u8],
}

pub struct Conn {
    addr: SocketAddr,
    /// When set, requests go over the gRPC binding instead ([`GrpcConn`]).
    grpc: Option<GrpcConn>,
    stream: Option<TcpStream>,
    /// `POST / HTTP/1.1` and the fixed headers, up to `Content-Length: `.
    post_prefix: Vec<u8>,
    out: Vec<u8>,
    /// Bytes read; the front `consumed` of them belong to the previous answer.
    input: Vec<u8>,
    consumed: usize,
    /// The decoded body of a chunked answer.
    dechunked: Vec<u8>,
}

impl Conn {
    pub async fn connect(addr: SocketAddr) -> std::io::Result<Conn> {
        let post_prefix = format!(
            "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{A2A_VERSION_HEADER}: {PROTOCOL_VERSION}\r\nContent-Length: "
        )
        .into_bytes();
        let mut conn = Conn {
            addr,
            grpc: None,
            stream: None,
            post_prefix,
            out: Vec::with_capacity(1024),
            input: Vec::with_capacity(16 * 1024),
            consumed: 0,
            dechunked: Vec::new(),
        };
        conn.reconnect().await?;
        Ok(conn)
    }

    async fn reconnect(&mut self) -> std::io::Result<()> {
        let stream = TcpStream::connect(self.addr).await?;
        // Requests are one small write each; waiting to coalesce them only adds latency.
        stream.set_nodelay(true)?;
        self.stream = Some(stream);
        self.input.clear();
        self.consumed = 0;
        Ok(())
    }

    /// A connection whose requests go over the gRPC binding.
    pub async fn connect_grpc(addr: SocketAddr) -> Result<Conn, String> {
        let mut conn = Conn::connect(addr)
            .await
            .map_err(|e| format!("connect {addr}: {e}"))?;
        conn.stream = None;
        conn.grpc = Some(GrpcConn::connect(addr).await?);
        Ok(conn)
    }

    /// POSTs a JSON-RPC body to `/` and reads the whole answer (or makes the
    /// gRPC call it stands for, on a gRPC connection).
    pub async fn post(&mut self, body: &[u8]) -> Result<Answer<'_>, String> {
        if self.grpc.is_none() {
            return self.post_http(body).await;
        }
        match &mut self.grpc {
            Some(grpc) => grpc.call(body).await,
            None => Err("no gRPC connection".into()),
        }
    }

    async fn post_http(&mut self, body: &[u8]) -> Result<Answer<'_>, String> {
        self.out.clear();
        self.out.extend_from_slice(&self.post_prefix);
        self.out.extend_from_slice(body.len().to_string().as_bytes());
        self.out.extend_from_slice(b"\r\n\r\n");
        self.out.extend_from_slice(body);
        self.exchange().await
    }

    /// GETs `path` (used to wait until a server is up).
    pub async fn get(&mut self, path: &str) -> Result<Answer<'_>, String> {
        self.out.clear();
        self.out
            .extend_from_slice(format!("GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", self.addr).as_bytes());
        self.exchange().await
    }

    async fn exchange(&mut self) -> Result<Answer<'_>, String> {
        if self.stream.is_none() {
            self.reconnect().await.map_err(|e| format!("reconnect: {e}"))?;
        }
        self.input.drain(..self.consumed);
        self.consumed = 0;
        let result = self.write_and_read().await;
        if result.is_err() {
            // The connection's state is unknown after a failure: start afresh next time.
            self.stream = None;
        }
        let (head, body_len) = result?;
        if !head.keep_alive {
            self.stream = None;
        }
        let body = match head.framing {
            BodyFraming::Chunked => &self.dechunked[..],
            _ => &self.input[head.head_len..head.head_len + body_len],
        };
        Ok(Answer {
            status: head.status,
            body,
        })
    }

    /// Writes the queued request and reads until its answer is complete: its
    /// head and the body's length in `input`.
    async fn write_and_read(&mut self) -> Result<(ResponseHead, usize), String> {
        let stream = self.stream.as_mut().ok_or("not connected")?;
        stream
            .write_all(&self.out)
            .await
            .map_err(|e| format!("write: {e}"))?;
        let mut head = None;
        loop {
            if head.is_none() {
                head = parse_response_head(&self.input)?;
            }
            let mut eof_ends_body = false;
            if let Some(h) = head {
                let body = &self.input[h.head_len..];
                let done = match h.framing {
                    BodyFraming::Length(n) => (body.len() >= n).then_some((h.head_len + n, n)),
                    BodyFraming::Chunked => decode_chunked(body, &mut self.dechunked)?
                        .map(|used| (h.head_len + used, self.dechunked.len())),
                    BodyFraming::UntilClose => {
                        eof_ends_body = true;
                        None
                    }
                };
                if let Some((used, body_len)) = done {
                    self.consumed = used;
                    return Ok((h, body_len));
                }
            }
            if self.input.capacity() - self.input.len() < 4096 {
                self.input.reserve(16 * 1024);
            }
            let n = stream
                .read_buf(&mut self.input)
                .await
                .map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return match head {
                    Some(h) if eof_ends_body => {
                        self.consumed = self.input.len();
                        let body_len = self.input.len() - h.head_len;
                        let head = ResponseHead {
                            keep_alive: false,
                            ..h
                        };
                        Ok((head, body_len))
                    }
                    _ => Err("connection closed before the answer was complete".into()),
                };
            }
        }
    }
}
