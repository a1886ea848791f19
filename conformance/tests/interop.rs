//! Interop with the official A2A SDK clients, each driven by its own script
//! over JSON-RPC and over HTTP+JSON (REST) — agent card, send, stream, get,
//! list, cancel:
//! - Python: `conformance/interop/run.sh` installs `a2a-sdk` with its gRPC
//!   client (pinned) into a venv under `target/` and runs `interop/client.py`,
//!   over gRPC too, and with a push notification config round trip;
//! - Python, A2A 0.3: `run.sh --protocol 0.3` installs `a2a-sdk` 0.3.x
//!   (pinned) into a venv of its own and runs `interop/client_v03.py`, the
//!   SDK's 0.3 JSON-RPC client (no `A2A-Version` header): card, message/send,
//!   message/stream, tasks/get, tasks/cancel, push config set/get;
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

/// The Python SDK's interop script.
const PYTHON: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/interop/run.sh");

/// Runs an SDK's interop script against `url` over `binding` and checks every
/// step it reports; its output, for further checks.
async fn drive(script: &'static str, url: &str, binding: &'static str) -> String {
    drive_with(script, url, binding, &[]).await
}

/// [`drive`] of the Python SDK, which also round-trips a push notification config.
async fn drive_python(url: &str, binding: &'static str, extra: &[&str]) {
    let stdout = drive_with(PYTHON, url, binding, extra).await;
    assert!(
        stdout.contains("\npush config: create, get, list, delete interop-config-"),
        "{binding}: {stdout}"
    );
}

/// [`drive`] with further arguments to the script.
async fn drive_with(script: &'static str, url: &str, binding: &'static str, extra: &[&str]) -> String {
    let url = url.to_string();
    let extra: Vec<String> = extra.iter().map(|a| a.to_string()).collect();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("bash")
            .arg(script)
            .args(["--url", &url, "--binding", binding])
            .args(&extra)
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
        // JSON-RPC 1.0 and 0.3, HTTP+JSON, gRPC (not stdio: no HTTP client reaches it).
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
    stdout.into_owned()
}

/// Runs the Python SDK's 0.3 client against `url` and checks every step it
/// reports, with the exact values it prints.
async fn drive_v0_3(url: &str) {
    let script = PYTHON;
    let endpoint = url.to_string();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("bash")
            .arg(script)
            .args(["--url", &endpoint, "--protocol", "0.3"])
            .output()
            .expect("bash runs the interop script")
    })
    .await
    .expect("the script finishes");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let starts = |prefix: &str| lines.iter().any(|l| l.starts_with(prefix));
    let line = |prefix: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(prefix))
            .copied()
            .unwrap_or_else(|| panic!("missing step `{prefix}`:\n{stdout}"))
    };
    // The card's 0.3 fields name this endpoint.
    assert_eq!(
        line("card: "),
        format!("card: CleverAgents, protocolVersion 0.3.0, JSONRPC at {url}")
    );
    let sent = line("send: task ");
    let task_id = sent
        .strip_prefix("send: task ")
        .and_then(|rest| rest.strip_suffix(" completed"))
        .unwrap_or_else(|| panic!("send answers a completed task: {sent}"));
    // A plain message names no suite behaviour: the default executor answers
    // it — the task, working, then completed.
    assert_eq!(
        line("stream: "),
        "stream: 3 event(s) task,status-update,status-update, ends completed"
    );
    assert_eq!(line("get: "), format!("get: {task_id} completed"));
    let canceled = line("cancel: ");
    assert!(
        canceled.ends_with(" canceled") && !canceled.contains(task_id),
        "{canceled}"
    );
    assert_eq!(
        line("cancel (finished task): "),
        "cancel (finished task): JSONRPCError -32002"
    );
    assert!(starts("push config: set and get interop-v03-config-"), "{stdout}");
    assert!(starts("interop: OK"), "{stdout}");
}

fn tck_router() -> Arc<a2a::Router<app::App>> {
    let config = app::AppConfig {
        executor: app::ExecutorKind::Tck,
        ..Default::default()
    };
    let app = app::App::with_store(std::sync::Arc::new(app::store::MemoryStore::new()), config);
    Arc::new(a2a::Router::new(app))
}

async fn tck_agent() -> common::Http {
    serve_http(tck_router()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_client_talks_to_our_agent_over_https() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = rcgen::KeyPair::generate().expect("key");
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "interop-ca");
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign];
    let ca_pem = ca.self_signed(&key).expect("CA").pem();
    let issuer = rcgen::Issuer::new(ca, key);
    let server_key = rcgen::KeyPair::generate().expect("key");
    let server = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()])
        .expect("server params")
        .signed_by(&server_key, &issuer)
        .expect("server certificate");
    let file = |name: &str, text: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("PEM file");
        path
    };
    let ca_file = file("ca.pem", ca_pem);
    let mut config = common::server_config();
    config.http.tls = Some(server::TlsConfig {
        cert_file: file("server.pem", server.pem()),
        key_file: file("server.key", server_key.serialize_pem()),
    });
    let https = common::serve_http_with(config, tck_router()).await;
    assert!(https.url.starts_with("https://127.0.0.1:"), "{}", https.url);
    let ca = ca_file.to_str().expect("utf-8 path");
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        drive_python(&https.url, binding, &["--ca-file", ca]).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_client_talks_to_our_agent() {
    let http = tck_agent().await;
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        drive_python(&http.url, binding, &[]).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_0_3_client_talks_to_our_agent() {
    let http = tck_agent().await;
    drive_v0_3(&http.url).await;
}
