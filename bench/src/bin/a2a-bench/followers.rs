//! The followers run (`--workloads followers`): what an idle open stream
//! costs the agent. On each agent store, [`FOLLOWERS`] clients follow the
//! namespace's domain events (`_cleveragents/events/subscribe` with
//! `follow`, from a cursor past every event, so nothing is sent but the
//! response head) over SSE, each on a connection of its own, and the agent's
//! RSS is read before they open and once they all have: the growth per
//! stream is what a follower costs while nothing happens.

use crate::args::Options;
use crate::deployment::{Deployment, HttpTarget};
use a2a::methods::markers;
use a2a::rpc::{declared, Method as _};
use a2a::Contract;
use serde::Serialize;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub const FOLLOWERS_WORKLOAD: &str = "followers";

/// Idle streams opened on each store.
pub const FOLLOWERS: usize = 2_000;

/// Streams opened and closed first, so one-time allocations (the first
/// stream's tables, the allocator's first pages for them) are not counted.
const WARM_UP: usize = 64;

/// How long the streams are left idle before the RSS is read.
const SETTLE: Duration = Duration::from_millis(500);

/// How long one stream may take to answer its head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// The measurement on one store.
#[derive(Clone, Debug, Serialize)]
pub struct FollowersRow {
    pub target: String,
    pub streams: usize,
    pub rss_before_bytes: u64,
    pub rss_after_bytes: u64,
    pub rss_per_stream_bytes: f64,
}

/// Runs the measurement on every agent store of `options`.
pub async fn bench(options: &Options) -> Result<Vec<FollowersRow>, String> {
    let mut rows = Vec::new();
    for store in &options.stores {
        let target = HttpTarget::Agent(*store);
        let mut deployment = Deployment::start(options, target).await?;
        let addrs = deployment.addrs();
        drop(open(&addrs, WARM_UP).await?);
        tokio::time::sleep(SETTLE).await;
        let before = deployment.rss_bytes()?;
        let streams = open(&addrs, FOLLOWERS).await?;
        tokio::time::sleep(SETTLE).await;
        let after = deployment.rss_bytes()?;
        drop(streams);
        deployment.check_alive(FOLLOWERS_WORKLOAD)?;
        let row = FollowersRow {
            target: target.name(),
            streams: FOLLOWERS,
            rss_before_bytes: before,
            rss_after_bytes: after,
            rss_per_stream_bytes: after.saturating_sub(before) as f64 / FOLLOWERS as f64,
        };
        eprintln!(
            "a2a-bench: {} idle followers on {}: RSS {:.1} -> {:.1} MB, {:.1} KB per stream",
            row.streams,
            row.target,
            before as f64 / 1048576.0,
            after as f64 / 1048576.0,
            row.rss_per_stream_bytes / 1024.0
        );
        rows.push(row);
    }
    Ok(rows)
}

/// `n` follow streams, dealt to `addrs` in turn, each open once its
/// response head (200, an event stream) has arrived.
async fn open(addrs: &[SocketAddr], n: usize) -> Result<Vec<TcpStream>, String> {
    let mut streams = Vec::with_capacity(n);
    for (i, addr) in addrs.iter().cycle().take(n).enumerate() {
        let mut stream = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("follower {i}: connect {addr}: {e}"))?;
        stream
            .write_all(&request(*addr, i))
            .await
            .map_err(|e| format!("follower {i}: {e}"))?;
        let head = tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut stream))
            .await
            .map_err(|_| format!("follower {i}: no answer within {HEAD_TIMEOUT:?}"))??;
        let event_stream = head
            .to_ascii_lowercase()
            .contains("content-type: text/event-stream");
        if !head.starts_with("HTTP/1.1 200") || !event_stream {
            return Err(format!("follower {i}: not a stream: {head}"));
        }
        streams.push(stream);
    }
    Ok(streams)
}

/// The subscription of follower `i`.
fn request(addr: SocketAddr, i: usize) -> Vec<u8> {
    // Past any cursor the run can reach: no backlog, only what comes next.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{i},"method":"{}","params":{{"follow":true,"after":{}}}}}"#,
        markers::EventsSubscribe::NAME,
        1u64 << 40
    );
    format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n\
         {}: {}\r\n{}: {}\r\nContent-Length: {}\r\n\r\n{body}",
        declared(Contract::A2a.version_header()),
        declared(Contract::A2a.released_protocol_version()),
        declared(Contract::A2a.extensions_header()),
        declared(Contract::Cleveragents.extension_uri()),
        body.len()
    )
    .into_bytes()
}

/// Reads up to the end of the response head.
async fn read_head(stream: &mut TcpStream) -> Result<String, String> {
    let mut head = Vec::new();
    let mut chunk = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut chunk).await.map_err(|e| e.to_string())?;
        if n == 0 || head.len() > 64 * 1024 {
            return Err(format!(
                "the answer ended early: {}",
                String::from_utf8_lossy(&head)
            ));
        }
        head.extend_from_slice(&chunk[..n]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// The table of the followers run.
pub fn render(rows: &[FollowersRow]) -> String {
    let mut out = format!(
        "followers: {FOLLOWERS} idle SSE streams of the domain events (`follow`), each on its own connection; agent RSS before and after they open\n\n"
    );
    out.push_str("| target | streams | RSS before MB | RSS after MB | RSS per stream KB |\n");
    out.push_str("| --- | ---: | ---: | ---: | ---: |\n");
    for row in rows {
        out.push_str(&format!(
            "| {} | {} | {:.1} | {:.1} | {:.1} |\n",
            row.target,
            row.streams,
            row.rss_before_bytes as f64 / 1048576.0,
            row.rss_after_bytes as f64 / 1048576.0,
            row.rss_per_stream_bytes / 1024.0
        ));
    }
    out
}
