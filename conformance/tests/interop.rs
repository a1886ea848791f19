//! Interop with the official A2A SDK clients, each driven by its own script
//! over JSON-RPC and over HTTP+JSON (REST) — agent card, send, stream, get,
//! list, cancel:
//! - Python: `conformance/interop/run.sh` installs `a2a-sdk` (pinned) into a
//!   venv under `target/` and runs `interop/client.py`;
//! - JavaScript: `conformance/interop/js/run.sh` installs `@a2a-js/sdk`
//!   (pinned by its `package.json`) under `target/` and runs `client.mjs`.
//!
//! The agent here is the reference application with the TCK executor (it can
//! leave a task open, so cancel is exercised for real), served over loopback
//! HTTP in this process. Needs `python3`, `node` and `npm`, and network access to
//! PyPI and npm on the first run (the installs are reused afterwards).

mod common;

use common::serve_http;
use std::sync::Arc;

/// Runs an SDK's interop script against `url` over `binding` and checks every
/// step it reports.
async fn drive(script: &'static str, url: &str, binding: &'static str) {
    let url = url.to_string();
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
        "{script} {binding}: stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    for step in [
        &format!("card: CleverAgents (4 interface(s)), over {binding}\n"),
        "send: task ",
        "stream: ",
        "get: ",
        "list: ",
        "cancel: ",
        " CANCELED\n",
        "cancel (finished task): TaskNotCancelableError",
        "interop: OK",
    ] {
        assert!(
            stdout.contains(step),
            "{script} {binding}: missing step `{step}`:\n{stdout}"
        );
    }
}

async fn tck_agent() -> common::Http {
    let config = app::AppConfig {
        executor: app::ExecutorKind::Tck,
        ..Default::default()
    };
    let app = app::App::open(app::StoreConfig::Memory, config).expect("the app opens in memory");
    serve_http(Arc::new(a2a::Router::new(app))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_client_talks_to_our_agent() {
    let http = tck_agent().await;
    for binding in ["JSONRPC", "HTTP+JSON"] {
        drive(
            concat!(env!("CARGO_MANIFEST_DIR"), "/interop/run.sh"),
            &http.url,
            binding,
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_javascript_sdk_client_talks_to_our_agent() {
    let http = tck_agent().await;
    for binding in ["JSONRPC", "HTTP+JSON"] {
        drive(
            concat!(env!("CARGO_MANIFEST_DIR"), "/interop/js/run.sh"),
            &http.url,
            binding,
        )
        .await;
    }
}
