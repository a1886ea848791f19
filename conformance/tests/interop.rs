//! Interop with the official A2A Python SDK: `conformance/interop/run.sh`
//! installs `a2a-sdk` (pinned) into a venv under `target/` and runs
//! `interop/client.py` against our agent over JSON-RPC and over HTTP+JSON
//! (REST) — agent card, send, stream, get, list, cancel. The agent here is the reference application with
//! the TCK executor (it can leave a task open, so cancel is exercised for real),
//! served over loopback HTTP in this process.
//!
//! Needs `python3` and network access to PyPI on the first run (the venv is
//! reused afterwards).

mod common;

use common::serve_http;
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_client_talks_to_our_agent() {
    let config = app::AppConfig {
        executor: app::ExecutorKind::Tck,
        ..Default::default()
    };
    let app = app::App::open(app::StoreConfig::Memory, config).expect("the app opens in memory");
    let http = serve_http(Arc::new(a2a::Router::new(app))).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/interop/run.sh");
    for binding in ["JSONRPC", "HTTP+JSON"] {
        let url = http.url.clone();
        let out = tokio::task::spawn_blocking(move || {
            std::process::Command::new("bash")
                .arg(script)
                .args(["--url", &url, "--binding", binding])
                .output()
                .expect("bash runs the interop script")
        })
        .await
        .expect("the script finishes");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{binding}: stdout:\n{stdout}\nstderr:\n{stderr}"
        );
        for step in [
            &format!("card: CleverAgents (4 interface(s)), over {binding}\n"),
            "send: task ",
            "stream: ",
            "get: ",
            "list: ",
            "cancel: ",
            "interop: OK",
        ] {
            assert!(
                stdout.contains(step),
                "{binding}: missing step `{step}`:\n{stdout}"
            );
        }
        assert!(
            stdout.contains(" CANCELED\n"),
            "{binding}: an open task was canceled:\n{stdout}"
        );
        assert!(
            stdout.contains("cancel (finished task): TaskNotCancelableError"),
            "{binding}: {stdout}"
        );
    }
}
