//! Secure by default, on the real agent binary: server mode without
//! authentication refuses a network address with a clear message;
//! `--admin-key` creates an owner-only admin API key once, says where it is and
//! authenticates with it across restarts; and no configured secret ever reaches
//! the logs, the diagnostics or an error message, whatever callers present.

mod common;

use a2a::methods::markers;
use a2a::rpc::{local, Method};
use a2a::ErrorKind;
use common::http::{post, Reply};
use common::{ServerAgent, AGENT};
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_network_address_without_authentication_refuses_to_start() {
    let mut child = Command::new(AGENT)
        .args(["--memory", "--listen", "0.0.0.0:7420"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("agent starts");
    // A generous bound, so an agent that serves instead fails the test rather than hanging it.
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("agent status") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the agent served 0.0.0.0:7420 without authentication");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr).expect("stderr");
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        "cleveragents-agent: refusing to listen on 0.0.0.0:7420 without authentication: anonymous callers \
         there would have every right. Listen on a loopback address (127.0.0.1, ::1), configure an \
         authentication scheme (auth.api_keys, auth.bearer_tokens or auth.jwt), or set auth.insecure_no_auth \
         to serve anonymous callers anyway (command line: --admin-key to create an admin API key, or \
         --insecure-no-auth)\n"
    );
}

fn call(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

fn with_key(key: &str) -> [(&str, &[u8]); 1] {
    [("X-API-Key", key.as_bytes())]
}

#[test]
fn the_admin_key_is_created_once_owner_only_and_admits_its_holder_everywhere() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data_dir = dir.path().join("data");
    let data = data_dir.to_str().expect("utf-8 path");
    let log = dir.path().join("agent.log");
    let key_file = local::admin_key_path(&data_dir);
    // An admin method, in a namespace no configuration names.
    let diagnostics = call(markers::DiagnosticsRun::NAME, json!({"namespace": "anywhere"}));

    let mut agent = ServerAgent::start_logged(&["--admin-key", "--data-dir", data], &[], &log);
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(
        text.contains(&format!(
            "cleveragents-agent: admin API key in {}\n",
            key_file.display()
        )),
        "{text}"
    );
    let key = std::fs::read_to_string(&key_file).expect("key file");
    let key = key.trim().to_string();
    assert_eq!(key.len(), 64, "32 random bytes, hex");
    assert!(key.bytes().all(|b| b.is_ascii_hexdigit()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "readable by the owner only");
    }
    assert!(!text.contains(&key), "the key is not logged");

    let anonymous = post(&agent.addr(), &[], &diagnostics);
    assert_eq!(anonymous.status, 401);
    let admitted = post(&agent.addr(), &with_key(&key), &diagnostics);
    assert_eq!(admitted.status, 200, "{:?}", admitted.messages());
    assert!(admitted.error().is_none(), "{:?}", admitted.messages());

    // The same key after a restart: created once, then reused.
    agent.kill();
    let agent = ServerAgent::start_logged(&["--admin-key", "--data-dir", data], &[], &log);
    assert_eq!(std::fs::read_to_string(&key_file).expect("key file").trim(), key);
    let admitted = post(&agent.addr(), &with_key(&key), &diagnostics);
    assert_eq!(admitted.status, 200);
}

#[test]
fn admin_key_needs_a_data_directory() {
    let output = Command::new(AGENT)
        .args(["--memory", "--admin-key", "--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .output()
        .expect("agent runs");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "cleveragents-agent: --admin-key keeps the key in the data directory, which --memory does not have\n"
    );
}

const API_KEY: &str = "logs-api-key-5e1c7a";
const BEARER: &str = "logs-bearer-token-93d0f2";
const HS_SECRET: &str = "logs-hs256-secret-of-sufficient-length-77ab";
const PUSH_TOKEN: &str = "logs-push-token-4b8e";
const PUSH_CREDENTIALS: &str = "logs-push-credentials-c0d1";

#[test]
fn no_secret_reaches_the_logs_diagnostics_or_error_messages() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data_dir = dir.path().join("data");
    let config = dir.path().join("agent.json");
    let credential = |secret: &str, subject: &str| json!({"secret": secret, "subject": subject});
    let admin = json!({"*": "admin"});
    std::fs::write(
        &config,
        json!({
            "push": {"allow_list": ["127.0.0.1:9"]},
            "server": {"auth": {
                "api_keys": [credential(API_KEY, "key-holder")],
                "bearer_tokens": [credential(BEARER, "token-holder")],
                "jwt": {"hs256_secret": HS_SECRET},
                "principals": [
                    {"subject": "key-holder", "namespaces": admin},
                    {"subject": "token-holder", "namespaces": admin},
                ],
            }},
        })
        .to_string(),
    )
    .expect("config");
    let log = dir.path().join("agent.log");
    let args = [
        "--admin-key",
        "--data-dir",
        data_dir.to_str().expect("utf-8"),
        "--config",
        config.to_str().expect("utf-8"),
    ];
    let mut agent = ServerAgent::start_logged(&args, &[("CLEVERAGENTS_LOG", "trace")], &log);
    let admin_key = std::fs::read_to_string(local::admin_key_path(&data_dir)).expect("admin key");
    let admin_key = admin_key.trim().to_string();
    let secrets = [
        API_KEY,
        BEARER,
        HS_SECRET,
        PUSH_TOKEN,
        PUSH_CREDENTIALS,
        admin_key.as_str(),
    ];

    let addr = agent.addr();
    let mut replies: Vec<Reply> = Vec::new();
    let send = call(
        markers::SendMessage::NAME,
        json!({"message": {"messageId": "logs-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}}),
    );
    let good: Vec<Vec<(&str, Vec<u8>)>> = vec![
        vec![("X-API-Key", API_KEY.into())],
        vec![("X-API-Key", admin_key.clone().into_bytes())],
        vec![("Authorization", format!("Bearer {BEARER}").into_bytes())],
    ];
    // Near misses of every secret: each must be refused without being echoed.
    let near_misses: Vec<Vec<(&str, Vec<u8>)>> = secrets
        .iter()
        .flat_map(|secret| {
            [
                vec![("X-API-Key", format!("{secret}x").into_bytes())],
                vec![("Authorization", format!("Bearer {secret}x").into_bytes())],
                vec![("Authorization", format!("Basic {secret}").into_bytes())],
            ]
        })
        .collect();
    for headers in good.iter().chain(&near_misses) {
        let headers: Vec<(&str, &[u8])> = headers.iter().map(|(n, v)| (*n, v.as_slice())).collect();
        replies.push(post(&addr, &headers, &send));
    }
    for reply in &replies[good.len()..] {
        assert_eq!(reply.status, 401);
        let error = reply.error().expect("an error");
        assert_eq!(error["data"][0]["reason"], ErrorKind::ExtAuthRequired.reason());
    }
    let key = with_key(API_KEY);
    let task_id = replies[0].messages()[0]["result"]["task"]["id"]
        .as_str()
        .expect("a task")
        .to_string();
    let push = call(
        markers::CreateTaskPushNotificationConfig::NAME,
        json!({"taskId": task_id, "url": "http://127.0.0.1:9/hook", "token": PUSH_TOKEN,
               "authentication": {"scheme": "Bearer", "credentials": PUSH_CREDENTIALS}}),
    );
    replies.push(post(&addr, &key, &push));
    assert_eq!(replies.last().map(|r| r.status), Some(200));
    for method in [markers::DiagnosticsRun::NAME, markers::HealthCheck::NAME] {
        replies.push(post(&addr, &key, &call(method, json!({}))));
        assert!(
            replies.last().and_then(Reply::error).is_none(),
            "{method} answers"
        );
    }
    agent.kill();

    let logged = std::fs::read_to_string(&log).expect("log");
    // The log is the full trace of these calls, so a leak would be in it.
    assert!(
        logged.contains("key-holder") && logged.contains("token-holder"),
        "{logged}"
    );
    for secret in &secrets {
        assert!(!logged.contains(secret), "a secret is in the log:\n{logged}");
    }
    // The push config's own token and credentials are the caller's to read back;
    // nothing else the agent answers may carry a secret.
    let answers = replies
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != replies.len() - 3)
        .map(|(_, r)| String::from_utf8_lossy(&r.body).to_string())
        .collect::<Vec<_>>()
        .join("\n");
    for secret in &secrets {
        assert!(!answers.contains(secret), "a secret is in an answer:\n{answers}");
    }
}

/// An API key with characters a query string must encode.
const QUERY_KEY: &str = "logs-query-key-6d1f+/=";
/// [`QUERY_KEY`] as a query parameter's value.
const QUERY_KEY_ENCODED: &str = "logs-query-key-6d1f%2B%2F%3D";

#[test]
fn an_api_key_in_the_query_string_reaches_neither_the_log_nor_an_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("agent.json");
    std::fs::write(
        &config,
        json!({"server": {"auth": {
            "api_key_location": "query",
            "api_key_name": "api_key",
            "api_keys": [{"secret": QUERY_KEY, "subject": "query-key-holder"}],
            "principals": [{"subject": "query-key-holder", "namespaces": {"*": "admin"}}],
        }}})
        .to_string(),
    )
    .expect("config");
    let log = dir.path().join("agent.log");
    let args = ["--memory", "--config", config.to_str().expect("utf-8")];
    let mut agent = ServerAgent::start_logged(&args, &[("CLEVERAGENTS_LOG", "trace")], &log);
    let addr = agent.addr();
    let keyed = |path: &str| format!("{path}?api_key={QUERY_KEY_ENCODED}");
    let near_miss = |path: &str| format!("{path}?api_key={QUERY_KEY_ENCODED}x");
    let send = |id: &str| {
        call(
            markers::SendMessage::NAME,
            json!({"message": {"messageId": id, "role": "ROLE_USER", "parts": [{"text": "hello"}]}}),
        )
    };

    let mut replies = Vec::new();
    let sent = common::http::post_to(&addr, &keyed("/"), &[], &send("query-1"));
    assert_eq!(sent.status, 200);
    let task_id = sent.messages()[0]["result"]["task"]["id"]
        .as_str()
        .expect("a task")
        .to_string();
    replies.push(sent);
    // The key in a header is no credential when the card says query.
    let header = common::http::post(&addr, &[("api_key", QUERY_KEY.as_bytes())], &send("query-2"));
    assert_eq!(header.status, 401);
    assert_eq!(
        header.header("www-authenticate"),
        Some("ApiKey realm=\"cleveragents\", query=\"api_key\"")
    );
    replies.push(header);
    let refused = common::http::post_to(&addr, &near_miss("/"), &[], &send("query-3"));
    assert_eq!(refused.status, 401);
    assert_eq!(
        refused.error().expect("an error")["message"],
        "Invalid credentials: unknown API key"
    );
    replies.push(refused);
    let unknown = common::http::post_to(&addr, &keyed("/"), &[], &call("NoSuchMethod", json!({})));
    assert_eq!(unknown.error().expect("an error")["code"], -32601);
    replies.push(unknown);
    let streaming = call(
        markers::SendStreamingMessage::NAME,
        json!({"message": {"messageId": "query-4", "role": "ROLE_USER", "parts": [{"text": "hello"}]}}),
    );
    let stream = common::http::post_to(&addr, &keyed("/"), &[], &streaming);
    assert!(stream.is_stream(), "{}", stream.head);
    assert!(stream.error().is_none(), "{:?}", stream.messages());
    replies.push(stream);
    for (path, status) in [
        (keyed(&format!("/rest/tasks/{task_id}")), 200),
        (keyed("/rest/extendedAgentCard"), 200),
        (near_miss(&format!("/rest/tasks/{task_id}")), 401),
        (keyed("/rest/no-such-route"), 404),
        (keyed("/no-such-path"), 404),
        (keyed("/metrics"), 200),
        (keyed("/.well-known/agent-card.json"), 200),
    ] {
        let reply = common::http::get(&addr, &path, &[("A2A-Version", b"1.0")]);
        assert_eq!(reply.status, status, "{path}");
        replies.push(reply);
    }
    // HTTP/2 as well.
    let h2 = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async {
            let client = reqwest::Client::builder()
                .http2_prior_knowledge()
                .build()
                .expect("client");
            let response = client
                .get(format!(
                    "http://{addr}{}",
                    keyed(&format!("/rest/tasks/{task_id}"))
                ))
                .header("A2A-Version", "1.0")
                .send()
                .await
                .expect("an answer");
            assert_eq!(response.version(), reqwest::Version::HTTP_2);
            (response.status().as_u16(), response.text().await.expect("a body"))
        });
    assert_eq!(h2.0, 200, "{}", h2.1);
    agent.kill();

    let logged = std::fs::read_to_string(&log).expect("log");
    // The log is the full trace of these calls, so a leak would be in it.
    assert!(logged.contains("query-key-holder"), "{logged}");
    let answers = replies
        .iter()
        .map(|r| format!("{}\n{}", r.head, String::from_utf8_lossy(&r.body)))
        .chain([h2.1])
        .collect::<Vec<_>>()
        .join("\n");
    for leak in [QUERY_KEY, QUERY_KEY_ENCODED, "logs-query-key-6d1f"] {
        assert!(!logged.contains(leak), "`{leak}` is in the log:\n{logged}");
        assert!(!answers.contains(leak), "`{leak}` is in an answer:\n{answers}");
    }
}
