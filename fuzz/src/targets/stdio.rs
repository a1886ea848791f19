//! A whole stdio session: the input is what a client writes to the agent's
//! stdin (NDJSON frames, the initialize handshake, any requests), served by
//! the application on a memory store until EOF. The session must end, and
//! stdout must carry nothing but JSON-RPC messages, one per line.
//! Push notifications are off, so no input can make the harness call out.

use a2a::rpc::Dispatch;
use app::App;
use server::ServerConfig;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// Far above what a session of one input needs; reaching it is a hang.
const SESSION_BOUND: Duration = Duration::from_secs(20);

pub fn run(data: &[u8]) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let dispatch: Arc<dyn Dispatch> = Arc::new(a2a::Router::new(App::in_memory()));
        let mut config = ServerConfig::default();
        config.agent.capabilities.push_notifications = false;
        let (output, mut written) = tokio::io::duplex(1 << 16);
        let stdout = tokio::spawn(async move {
            let mut bytes = Vec::new();
            written.read_to_end(&mut bytes).await.map(|_| bytes)
        });
        let session = server::serve_stdio(&config, dispatch, data, output);
        let _ = tokio::time::timeout(SESSION_BOUND, session)
            .await
            .expect("a stdio session ends at EOF");
        let bytes = stdout.await.expect("stdout reader").expect("stdout is readable");
        for line in bytes.split(|b| *b == b'\n').filter(|line| !line.is_empty()) {
            let message: serde_json::Value = serde_json::from_slice(line)
                .unwrap_or_else(|e| panic!("stdout carries a line that is not JSON ({e})"));
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
        }
    });
}
