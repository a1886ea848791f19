//! Encrypted server mode on the real agent binary, with certificates each test
//! makes: the card, JSON-RPC, SSE and HTTP+JSON over https (HTTP/2 and
//! HTTP/1.1 by ALPN); the client's exact errors for a server certificate it
//! must refuse; client certificates admitting and refusing per principal and
//! namespace; a certificate rotated while a stream stays open; bad input over
//! TLS, handshakes that never finish and clear text on the TLS port; the
//! refusals to start and the TLS-terminating proxy's rules.

mod common;

use a2a::types::{SendMessageRequest, StreamResponse, TaskState};
use a2a::ErrorKind;
use client::{CallError, Client, HttpConfig, HttpTransport, TlsFiles};
use common::http::{get, post};
use common::pki::{Ca, Pair, Validity};
use common::{ServerAgent, AGENT};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// An agent serving https with `pair`, with further arguments.
fn https_agent(pair: &Pair, args: &[&str]) -> ServerAgent {
    let mut all = vec![
        "--tls-cert",
        path(&pair.cert_file),
        "--tls-key",
        path(&pair.key_file),
    ];
    all.extend_from_slice(args);
    let agent = ServerAgent::start_with(&all);
    assert!(
        agent.endpoint.starts_with("https://127.0.0.1:"),
        "{}",
        agent.endpoint
    );
    agent
}

/// The agent's origin, `https://127.0.0.1:PORT`.
fn origin(agent: &ServerAgent) -> String {
    agent.endpoint.trim_end_matches('/').to_string()
}

/// `host:port` of the agent.
fn host_port(agent: &ServerAgent) -> String {
    origin(agent).trim_start_matches("https://").to_string()
}

fn transport(agent: &ServerAgent, tls: TlsFiles) -> HttpTransport {
    let mut config = HttpConfig::new(agent.endpoint.clone());
    config.tls = tls;
    config.retries = 0;
    HttpTransport::new(config).expect("transport")
}

fn trusting(ca: &Ca) -> TlsFiles {
    TlsFiles {
        ca_file: Some(ca.cert_file.clone()),
        ..TlsFiles::default()
    }
}

fn holding(ca: &Ca, pair: &Pair) -> TlsFiles {
    TlsFiles {
        ca_file: Some(ca.cert_file.clone()),
        client_cert: Some(pair.cert_file.clone()),
        client_key: Some(pair.key_file.clone()),
        ..TlsFiles::default()
    }
}

fn message(id: &str, tenant: Option<&str>) -> SendMessageRequest {
    let mut request =
        json!({"message": {"messageId": id, "role": "ROLE_USER", "parts": [{"text": "over TLS"}]}});
    if let Some(tenant) = tenant {
        request["tenant"] = json!(tenant);
    }
    serde_json::from_value(request).expect("request")
}

fn transport_error(error: CallError) -> String {
    match error {
        CallError::Transport(text) => text,
        other => panic!("expected a transport error, got {other:?}"),
    }
}

fn rpc_kind(error: CallError) -> Option<ErrorKind> {
    match error {
        CallError::Rpc(error) => error.kind::<ErrorKind>(),
        other => panic!("expected an error answer, got {other:?}"),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// A raw HTTPS client trusting `ca` only, otherwise as `shape` makes it.
fn raw_client(ca: &Ca, shape: fn(reqwest::ClientBuilder) -> reqwest::ClientBuilder) -> reqwest::Client {
    let pem = std::fs::read(&ca.cert_file).expect("CA file");
    let builder = reqwest::Client::builder()
        .use_rustls_tls()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(&pem).expect("CA certificate"));
    shape(builder).build().expect("client")
}

/// [`raw_client`] as it comes.
fn as_is(builder: reqwest::ClientBuilder) -> reqwest::ClientBuilder {
    builder
}

#[test]
fn https_serves_the_card_json_rpc_streams_and_rest_over_http2_and_http1() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ca = Ca::new(dir.path(), "test-ca");
    let pair = ca.server(
        dir.path(),
        "server",
        &["127.0.0.1", "localhost"],
        Validity::Current,
    );
    let agent = https_agent(&pair, &["--memory"]);
    let origin = origin(&agent);
    runtime().block_on(async {
        let transport = transport(&agent, trusting(&ca));
        let card = transport.agent_card().await.expect("card over https");
        let urls: Vec<(&str, &str)> = card["supportedInterfaces"]
            .as_array()
            .expect("interfaces")
            .iter()
            .map(|i| {
                (
                    i["protocolBinding"].as_str().unwrap_or(""),
                    i["url"].as_str().unwrap_or(""),
                )
            })
            .collect();
        let endpoint = format!("{origin}/");
        let rest = format!("{origin}/rest");
        assert_eq!(
            urls,
            [
                ("JSONRPC", endpoint.as_str()),
                ("JSONRPC", endpoint.as_str()),
                // No stdio interface: an HTTP client cannot reach it.
                ("HTTP+JSON", rest.as_str()),
                // gRPC over the same TLS listener, at its host:port.
                ("GRPC", origin.trim_start_matches("https://")),
            ]
        );

        let client = Client::new(transport.clone());
        let sent = client
            .send_message(message("tls-1", None))
            .await
            .expect("SendMessage");
        let sent = serde_json::to_value(sent).expect("encodes");
        let task_id = sent["task"]["id"].as_str().expect("a task").to_string();
        assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");

        let mut stream = client
            .send_streaming_message(message("tls-2", None))
            .await
            .expect("SendStreamingMessage");
        let mut last = None;
        while let Some(event) = stream.next().await {
            if let StreamResponse::StatusUpdate(update) = event.expect("event").data {
                last = Some(update.status.state);
            }
        }
        assert_eq!(last, Some(TaskState::Completed));

        let mut rest_config = HttpConfig::new(agent.endpoint.clone());
        rest_config.tls = trusting(&ca);
        let rest = Client::new(HttpTransport::rest(rest_config).await.expect("REST transport"));
        let got = rest
            .get_task(serde_json::from_value(json!({"id": task_id})).expect("params"))
            .await
            .expect("GetTask over HTTP+JSON");
        assert_eq!(got.id, task_id);

        // ALPN: HTTP/2 when the client offers it, HTTP/1.1 when it does not.
        let card_url = format!("{origin}/.well-known/agent-card.json");
        let http1_only: fn(reqwest::ClientBuilder) -> reqwest::ClientBuilder = |b| b.http1_only();
        for (shape, version) in [
            (as_is as fn(_) -> _, reqwest::Version::HTTP_2),
            (http1_only, reqwest::Version::HTTP_11),
        ] {
            let raw = raw_client(&ca, shape);
            let answer = raw.get(&card_url).send().await.expect("card");
            assert_eq!((answer.status().as_u16(), answer.version()), (200, version));
            let call = json!({"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": task_id}});
            let answer = raw
                .post(&endpoint)
                .header("A2A-Version", "1.0")
                .header("Content-Type", "application/json")
                .body(call.to_string())
                .send()
                .await
                .expect("JSON-RPC");
            assert_eq!(answer.version(), version);
            let body: Value =
                serde_json::from_slice(&answer.bytes().await.expect("body")).expect("JSON answer");
            assert_eq!(body["id"], 7);
            assert_eq!(body["result"]["id"], json!(task_id));

            // Bad input over TLS gets the answers it gets in clear text.
            let post = |body: Vec<u8>| {
                raw.post(&endpoint)
                    .header("A2A-Version", "1.0")
                    .header("Content-Type", "application/json")
                    .body(body)
                    .send()
            };
            let answer = post(b"{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\"".to_vec())
                .await
                .expect("answer");
            let body: Value =
                serde_json::from_slice(&answer.bytes().await.expect("body")).expect("JSON answer");
            assert_eq!(body["error"]["code"], -32700, "{body}");
            if version != reqwest::Version::HTTP_2 {
                // Over HTTP/1.1 the server answers a declared oversize body
                // before reading it and closes, so a client still writing
                // sees a broken pipe rather than the answer (the clear-text
                // suite reads that answer on a raw socket).
                continue;
            }
            let oversize = vec![b' '; 4 * 1024 * 1024 + 1];
            let answer = post(oversize).await.expect("answer");
            assert_eq!(answer.status(), 413);
            let body: Value =
                serde_json::from_slice(&answer.bytes().await.expect("body")).expect("JSON answer");
            assert_eq!(body["error"]["code"], -32600, "{body}");
            assert_eq!(
                body["error"]["message"],
                "Request body exceeds the limit of 4194304 bytes"
            );
        }

        // TLS 1.2 is served too.
        let tls12 = raw_client(&ca, |b| b.max_tls_version(reqwest::tls::Version::TLS_1_2));
        assert_eq!(
            tls12
                .get(&card_url)
                .send()
                .await
                .expect("card over TLS 1.2")
                .status(),
            200
        );

        // Clear text on the TLS port gets no HTTP answer, and harms nothing.
        let plain = format!("http://{}/.well-known/agent-card.json", host_port(&agent));
        assert!(reqwest::Client::new().get(&plain).send().await.is_err());
        assert_eq!(
            raw_client(&ca, as_is)
                .get(&card_url)
                .send()
                .await
                .expect("card")
                .status(),
            200
        );
    });
}

#[test]
fn a_handshake_that_never_finishes_is_cut_off_like_a_slow_header() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ca = Ca::new(dir.path(), "test-ca");
    let pair = ca.server(dir.path(), "server", &["127.0.0.1"], Validity::Current);
    let config = dir.path().join("agent.json");
    std::fs::write(
        &config,
        json!({"server": {"limits": {"header_read_timeout_ms": 300}}}).to_string(),
    )
    .expect("config");
    let agent = https_agent(&pair, &["--memory", "--config", path(&config)]);
    // The first bytes of a TLS record, then nothing.
    common::http::assert_stalled_client_is_cut_off(
        &host_port(&agent),
        &[0x16, 0x03, 0x01, 0x02, 0x00],
        "a stalled handshake",
    );
    runtime().block_on(async {
        let card = transport(&agent, trusting(&ca))
            .agent_card()
            .await
            .expect("still serving");
        assert_eq!(card["name"], "CleverAgents");
    });
}

#[test]
fn the_client_names_why_it_refuses_a_server_certificate() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ca = Ca::new(dir.path(), "test-ca");
    let stranger = Ca::new(dir.path(), "stranger-ca");
    let cases = [
        (
            ca.server(dir.path(), "valid", &["127.0.0.1"], Validity::Current),
            trusting(&stranger),
            "the server's certificate is not issued by a trusted CA",
        ),
        (
            ca.server(dir.path(), "valid-again", &["127.0.0.1"], Validity::Current),
            TlsFiles::default(),
            "the server's certificate is not issued by a trusted CA",
        ),
        (
            ca.server(dir.path(), "expired", &["127.0.0.1"], Validity::Expired),
            trusting(&ca),
            "the server's certificate has expired",
        ),
        (
            ca.server(
                dir.path(),
                "elsewhere",
                &["agents.example.test"],
                Validity::Current,
            ),
            trusting(&ca),
            "the server's certificate is not valid for the server's name",
        ),
    ];
    let rt = runtime();
    for (pair, tls, reason) in cases {
        let agent = https_agent(&pair, &["--memory"]);
        let expected = format!("TLS handshake with {} failed: {reason}", origin(&agent));
        rt.block_on(async {
            let transport = transport(&agent, tls);
            let error = transport.agent_card().await.expect_err("refused");
            assert_eq!(transport_error(error), expected);
            let error = Client::new(transport)
                .send_message(message("refused", None))
                .await
                .expect_err("refused");
            assert_eq!(transport_error(error), expected);
        });
    }
}

#[test]
fn client_certificates_admit_and_refuse_per_principal_and_namespace() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server_ca = Ca::new(dir.path(), "server-ca");
    let client_ca = Ca::new(dir.path(), "client-ca");
    let rogue_ca = Ca::new(dir.path(), "rogue-ca");
    let pair = server_ca.server(dir.path(), "server", &["127.0.0.1"], Validity::Current);
    let alice = client_ca.client(dir.path(), "alice");
    let bob = client_ca.client(dir.path(), "bob");
    let forged_alice = rogue_ca.client(dir.path(), "alice-forged");
    let config = dir.path().join("agent.json");
    std::fs::write(
        &config,
        json!({"server": {"auth": {
            "mtls": {"ca_file": client_ca.cert_file},
            "principals": [
                {"subject": "alice", "namespaces": {"team-a": "writer"}},
                {"subject": "bob", "namespaces": {"team-a": "reader"}}
            ]
        }}})
        .to_string(),
    )
    .expect("config");
    let agent = https_agent(&pair, &["--memory", "--config", path(&config)]);
    runtime().block_on(async {
        // The card is public: no certificate needed, and it declares the scheme.
        let card = transport(&agent, trusting(&server_ca)).agent_card().await.expect("card");
        assert_eq!(
            card["securitySchemes"],
            json!({"mtls": {"mtlsSecurityScheme": {
                "description": "Client certificate issued by the operator's CA; its common name names the caller."
            }}})
        );
        assert_eq!(card["securityRequirements"], json!([{"schemes": {"mtls": {}}}]));

        let alice = Client::new(transport(&agent, holding(&server_ca, &alice)));
        let sent = alice
            .send_message(message("alice-1", Some("team-a")))
            .await
            .expect("alice writes in team-a");
        let sent = serde_json::to_value(sent).expect("encodes");
        let task_id = sent["task"]["id"].as_str().expect("a task").to_string();
        // A namespace she holds no role in is answered as one that does not
        // exist, as for every scheme.
        let refused = alice.send_message(message("alice-2", Some("team-b"))).await.expect_err("team-b");
        assert_eq!(rpc_kind(refused), Some(ErrorKind::TaskNotFound));

        let bob = Client::new(transport(&agent, holding(&server_ca, &bob)));
        let read = bob
            .get_task(serde_json::from_value(json!({"id": task_id, "tenant": "team-a"})).expect("params"))
            .await
            .expect("bob reads in team-a");
        assert_eq!(read.id, task_id);
        let refused = bob.send_message(message("bob-1", Some("team-a"))).await.expect_err("reader");
        assert_eq!(rpc_kind(refused), Some(ErrorKind::ExtAuthForbidden));

        let nobody = Client::new(transport(&agent, trusting(&server_ca)));
        let refused = nobody.send_message(message("nobody", Some("team-a"))).await.expect_err("anonymous");
        assert_eq!(rpc_kind(refused), Some(ErrorKind::ExtAuthRequired));

        // Refused in the handshake. Under TLS 1.3 the client has finished
        // its side before the server's verdict, so it learns of it as a
        // failed send on a closed connection, worded as the race between its
        // request and the server's alert fell out.
        let forged = Client::new(transport(&agent, holding(&server_ca, &forged_alice)));
        let refused = forged.send_message(message("forged", Some("team-a"))).await.expect_err("rogue CA");
        let text = transport_error(refused);
        assert!(
            text.starts_with(&format!("error sending request for url ({}/): client error ", origin(&agent))),
            "{text}"
        );
        let listed = alice
            .list_tasks(serde_json::from_value(json!({"tenant": "team-a"})).expect("params"))
            .await
            .expect("alice lists team-a");
        assert_eq!(listed.tasks.len(), 1, "the forged call stored nothing");
    });
}

#[test]
fn a_rotated_certificate_serves_new_connections_while_an_open_stream_goes_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let old_ca = Ca::new(dir.path(), "old-ca");
    let new_ca = Ca::new(dir.path(), "new-ca");
    let serving = old_ca.server(dir.path(), "server", &["127.0.0.1"], Validity::Current);
    let agent = https_agent(&serving, &["--memory", "--executor", "tck"]);
    runtime().block_on(async {
        let before = Client::new(transport(&agent, trusting(&old_ca)));
        let open = before
            .send_message(message("tck-input-required-rotation", None))
            .await
            .expect("a task left waiting for input");
        let open = serde_json::to_value(open).expect("encodes");
        let task_id = open["task"]["id"].as_str().expect("a task").to_string();
        assert_eq!(open["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
        let mut stream = before
            .subscribe_to_task(serde_json::from_value(json!({"id": task_id})).expect("params"))
            .await
            .expect("SubscribeToTask");
        let first = stream.next().await.expect("the task first").expect("event");
        assert!(matches!(first.data, StreamResponse::Task(_)), "{:?}", first.data);

        new_ca
            .server(dir.path(), "rotated", &["127.0.0.1"], Validity::Current)
            .install_as(&serving);

        // New connections get the new certificate.
        let error = transport(&agent, trusting(&old_ca))
            .agent_card()
            .await
            .expect_err("old CA");
        assert_eq!(
            transport_error(error),
            format!(
                "TLS handshake with {} failed: the server's certificate is not issued by a trusted CA",
                origin(&agent)
            )
        );
        let after = Client::new(transport(&agent, trusting(&new_ca)));
        let canceled = after
            .cancel_task(serde_json::from_value(json!({"id": task_id})).expect("params"))
            .await
            .expect("CancelTask on a new connection");
        assert_eq!(canceled.status.state, TaskState::Canceled);

        // The stream opened before the rotation carries on, to its end.
        let mut last = None;
        while let Some(event) = stream.next().await {
            if let StreamResponse::StatusUpdate(update) = event.expect("event").data {
                last = Some(update.status.state);
            }
        }
        assert_eq!(last, Some(TaskState::Canceled));
    });
}

/// The agent's exit code and stderr when it refuses to start.
fn refusal(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(AGENT)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .expect("agent runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn clear_text_credentials_and_inconsistent_tls_settings_refuse_to_start() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ca = Ca::new(dir.path(), "test-ca");
    let pair = ca.server(dir.path(), "server", &["127.0.0.1"], Validity::Current);
    let other = ca.server(dir.path(), "other", &["127.0.0.1"], Validity::Current);
    let write = |name: &str, config: Value| {
        let file = dir.path().join(name);
        std::fs::write(&file, config.to_string()).expect("config");
        file
    };
    let keyed = write(
        "keyed.json",
        json!({"server": {"auth": {"api_keys": [{"secret": "k-1", "subject": "ops"}]}}}),
    );
    let mtls = write(
        "mtls.json",
        json!({"server": {"auth": {"mtls": {"ca_file": ca.cert_file}}}}),
    );
    let cert = path(&pair.cert_file);
    let key = path(&pair.key_file);
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--memory", "--config", path(&keyed), "--listen", "0.0.0.0:7443"],
            "refusing to listen on 0.0.0.0:7443 without TLS: callers there would send their credentials in clear \
             text. Give the listener a certificate (http.tls.cert_file and http.tls.key_file), listen on a loopback \
             address (127.0.0.1, ::1), or set http.behind_tls_proxy when a TLS-terminating proxy forwards to it \
             (command line: --tls-cert FILE --tls-key FILE, or --behind-tls-proxy)"
                .into(),
        ),
        (
            vec!["--memory", "--config", path(&keyed), "--listen", "[::]:7443", "--behind-tls-proxy"],
            "invalid server configuration: http.behind_tls_proxy needs agent.public_url: the https URL clients \
             reach the proxy at"
                .into(),
        ),
        (
            vec!["--memory", "--config", path(&mtls), "--listen", "127.0.0.1:0"],
            "invalid server configuration: auth.mtls needs http.tls: client certificates are asked for in the \
             listener's TLS handshake"
                .into(),
        ),
        (
            vec!["--memory", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", path(&other.key_file)],
            format!(
                "TLS: the key in {} does not fit the certificate in {cert}",
                path(&other.key_file)
            ),
        ),
        (
            vec!["--memory", "--listen", "127.0.0.1:0", "--tls-cert", key, "--tls-key", key],
            format!("TLS: the certificate file {key} holds no PEM certificate"),
        ),
    ];
    for (args, message) in cases {
        let (code, stderr) = refusal(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr, format!("cleveragents-agent: {message}\n"), "{args:?}");
    }
    let (code, stderr) = refusal(&["--memory", "--listen", "127.0.0.1:0", "--tls-cert", cert]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("cleveragents-agent: --tls-cert and --tls-key go together\nusage: "),
        "{stderr}"
    );
}

#[test]
fn behind_a_proxy_only_what_a_trusted_proxy_forwards_from_https_is_served() {
    let dir = tempfile::tempdir().expect("temp dir");
    let start = |name: &str, trusted: &str| {
        let file = dir.path().join(name);
        std::fs::write(
            &file,
            json!({"server": {
                "agent": {"public_url": "https://agents.example.test/"},
                "http": {"trusted_proxies": [trusted]},
                "auth": {"api_keys": [{"secret": "k-proxy", "subject": "ops"}],
                         "principals": [{"subject": "ops", "namespaces": {"*": "admin"}}]}
            }})
            .to_string(),
        )
        .expect("config");
        ServerAgent::start_with(&["--memory", "--behind-tls-proxy", "--config", path(&file)])
    };
    let forwarded: &[(&str, &[u8])] = &[("X-API-Key", b"k-proxy"), ("X-Forwarded-Proto", b"https")];
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}});
    let refused_text =
        "this agent serves requests that reach it through its TLS-terminating proxy over https\n";

    let agent = start("trusted.json", "127.0.0.0/8");
    let card = get(
        &agent.addr(),
        "/.well-known/agent-card.json",
        &[("X-Forwarded-Proto", b"https")],
    );
    assert_eq!(card.status, 200);
    let card: Value = serde_json::from_slice(&card.body).expect("card");
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        "https://agents.example.test/"
    );
    assert_eq!(
        card["supportedInterfaces"][2]["url"],
        "https://agents.example.test/rest"
    );
    let served = post(&agent.addr(), forwarded, &call);
    assert_eq!(served.status, 200);
    assert!(served.error().is_none(), "{:?}", served.messages());
    for headers in [
        &[("X-API-Key", &b"k-proxy"[..])][..],
        &[
            ("X-API-Key", &b"k-proxy"[..]),
            ("X-Forwarded-Proto", &b"http"[..]),
        ][..],
    ] {
        let refused = post(&agent.addr(), headers, &call);
        assert_eq!(
            (refused.status, String::from_utf8_lossy(&refused.body).as_ref()),
            (403, refused_text)
        );
    }

    let untrusted = start("untrusted.json", "10.0.0.0/8");
    let refused = post(&untrusted.addr(), forwarded, &call);
    assert_eq!(
        (refused.status, String::from_utf8_lossy(&refused.body).as_ref()),
        (403, refused_text)
    );
}
