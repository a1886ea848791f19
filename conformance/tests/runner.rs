//! The runner binary as CI uses it: it fails — non-zero exit, a report naming
//! each broken case, its level and section, and why — against a deliberately
//! broken handler, passes our agent under `--profile strict` with the
//! committed baseline, and treats the baseline strictly.

mod common;

use a2a::rpc::{BoxFuture, CallContext, Dispatch, Outcome, Params};
use a2a::ErrorKind;
use common::{app_dispatch, args, read_json, runner, scratch, serve_http, BASELINE};
use serde_json::json;
use std::sync::Arc;

/// The real application, with three defects a conformant agent must not have.
struct Broken {
    inner: Arc<dyn Dispatch>,
}

impl Dispatch for Broken {
    fn dispatch_params<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Params,
    ) -> BoxFuture<'a, Outcome> {
        // The params as a value, as this dispatcher reads them.
        let params = params.into_json().ok().flatten();
        Box::pin(async move {
            match method {
                // A result of the wrong shape: a number where the task id goes.
                "GetTask" => Outcome::from_value(Ok(json!({"id": 7}))),
                // The right reason with the wrong code.
                "CancelTask" => Outcome::Single(Err(a2a::Error {
                    code: -32099,
                    message: "gone".into(),
                    data: Some(json!([{"@type": a2a::rpc::ERROR_INFO_TYPE,
                                       "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}])),
                })),
                // Invalid params reported in the wrong domain.
                "ListTasks" => {
                    let kind = ErrorKind::from_reason("urn:cleveragents:extensions:v1", "INVALID_PARAMS");
                    Outcome::Single(Err(a2a::Error::from_kind(kind.expect("registry entry"))))
                }
                _ => self.inner.dispatch(ctx, method, params).await,
            }
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runner_fails_a_broken_handler_with_a_clear_report() {
    let http = serve_http(Arc::new(Broken {
        inner: app_dispatch(),
    }))
    .await;
    let dir = scratch("broken");
    let (json_path, junit_path) = (dir.join("report.json"), dir.join("report.xml"));
    let out = runner(args(&[
        "--url",
        &http.url,
        "--groups",
        "messaging",
        "--json",
        json_path.to_str().expect("utf-8 path"),
        "--junit",
        junit_path.to_str().expect("utf-8 path"),
    ]))
    .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("FAIL  [http] GetTask/example-1 (MUST A2A §3.1.3): GetTask result does not validate against `Task`: ")
            && stdout.contains("/id: 7 is not of type \"string\""),
        "{stdout}"
    );
    // A missing field is a SHOULD (§5.7), but a code the registry disowns is a MUST (§5.4).
    assert!(
        stdout.contains("FAIL  [http] CancelTask/missing/id (MUST A2A §5.4): error -32099 TASK_NOT_FOUND@a2a-protocol.org \"gone\": the registry gives TASK_NOT_FOUND@a2a-protocol.org code -32001, not -32099"),
        "{stdout}"
    );
    // The right code with another contract's ErrorInfo: only the project's strict rule.
    assert!(
        stdout.contains("WARN  [http] ListTasks/wrong-type/pageSize (strict A2A §9.5): error -32602 INVALID_PARAMS@urn:cleveragents:extensions:v1 \"Invalid parameters\": code -32602 is INVALID_PARAMS@a2a-protocol.org in the registry, not INVALID_PARAMS@urn:cleveragents:extensions:v1"),
        "{stdout}"
    );
    assert!(stdout.contains("— FAIL"), "{stdout}");

    let report = read_json(&json_path);
    let outcome = |id: &str| {
        report["cases"]
            .as_array()
            .and_then(|cases| cases.iter().find(|c| c["id"] == json!(id)))
            .map(|c| c["outcome"].clone())
    };
    assert_eq!(outcome("GetTask/example-1"), Some(json!("fail")));
    assert_eq!(outcome("ListTasks/wrong-type/pageSize"), Some(json!("warning")));
    // The broken GetTask answers even bad params: a wrong type is a MUST
    // (§3.3.2), a missing field a SHOULD (§5.7), a warning under `spec`.
    assert_eq!(outcome("GetTask/wrong-type/id"), Some(json!("fail")));
    assert_eq!(outcome("GetTask/missing/id"), Some(json!("warning")));
    assert_eq!(
        outcome("SendMessage/example-1"),
        Some(json!("pass")),
        "untouched methods still pass"
    );
    assert_eq!(report["transport"], json!("http"));
    assert!(report["summary"]["failed"].as_u64().is_some_and(|n| n > 0));

    let junit = std::fs::read_to_string(&junit_path).expect("JUnit report");
    assert!(
        junit.contains("<testcase classname=\"http.messaging\" name=\"GetTask/example-1\""),
        "{junit}"
    );
    assert!(
        junit.contains("<failure message=\"GetTask result does not validate against `Task`"),
        "{junit}"
    );
    assert!(
        junit.contains("<property name=\"section\" value=\"A2A §3.1.3\"/>"),
        "{junit}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runner_passes_our_agent_under_the_strict_profile_with_the_committed_baseline() {
    let http = serve_http(app_dispatch()).await;
    let dir = scratch("ours");
    let baseline = dir.join("expected-failures.txt");
    std::fs::write(&baseline, BASELINE).expect("baseline copy");
    let out = runner(args(&[
        "--url",
        &http.url,
        "--profile",
        "strict",
        "--expected-failures",
        baseline.to_str().expect("utf-8 path"),
    ]))
    .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.lines().any(|l| l == "http: profile strict · contract cleveragents (the Agent Card declares urn:cleveragents:extensions:v1) · streaming, pushNotifications, no extendedAgentCard"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l == "http: MUST: 0 failed · SHOULD: 0 failed · strict: 0 failed"),
        "{stdout}"
    );
    assert!(stdout.contains(" 0 failed, 0 warnings, "), "{stdout}");
    assert!(stdout.contains(" 0 stale baseline entries — PASS"), "{stdout}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listed_case_that_passes_is_stale_and_an_unlisted_failure_fails() {
    let http = serve_http(Arc::new(Broken {
        inner: app_dispatch(),
    }))
    .await;
    let dir = scratch("stale");
    let baseline = dir.join("expected-failures.txt");
    // GetTask/example-1 fails (broken shape) and is listed: expected.
    // SendMessage/missing/message passes but is listed: stale.
    std::fs::write(
        &baseline,
        "GetTask/example-1\nSendMessage/missing/message # passes\n",
    )
    .expect("baseline");
    let out = runner(args(&[
        "--url",
        &http.url,
        "--groups",
        "messaging",
        "--profile",
        "strict",
        "--expected-failures",
        baseline.to_str().expect("utf-8 path"),
    ]))
    .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "STALE [http] SendMessage/missing/message (SHOULD A2A §5.7): listed in the expected-failures file but passed"
        ),
        "{stdout}"
    );
    assert!(
        !stdout.contains("FAIL  [http] GetTask/example-1 "),
        "a listed failure is expected: {stdout}"
    );
    assert!(
        stdout.contains("FAIL  [http] GetTask/missing/id (SHOULD A2A §5.7):"),
        "an unlisted failure fails: {stdout}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn bad_usage_exits_2() {
    assert_eq!(runner(args(&["--url"])).await.status.code(), Some(2));
    assert_eq!(
        runner(args(&["--url", "http://127.0.0.1:9/", "--groups", "nope"]))
            .await
            .status
            .code(),
        Some(2)
    );
    assert_eq!(runner(args(&[])).await.status.code(), Some(2));
    for (flag, value) in [("--profile", "lenient"), ("--contract", "mcp")] {
        let out = runner(args(&["--url", "http://127.0.0.1:9/", flag, value])).await;
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
    }
    let listed = runner(args(&["--list-groups"])).await;
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout),
        "messaging\npush_config\nagent_card\nplan\nregistry\ncontext\nsync\nnamespace\nhealth\nsession\nevents\nenvelope\nversioning\nscenarios\nv0_3\nv1_1\n"
    );
}

#[tokio::test]
async fn listed_cases_carry_their_level_and_section() {
    let listed = runner(args(&[
        "--list-cases",
        "--groups",
        "messaging,agent_card,scenarios",
    ]))
    .await;
    let text = String::from_utf8_lossy(&listed.stdout);
    let line = |id: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
    };
    assert_eq!(line("agent_card/public-card").as_deref(), Some("MUST A2A §4.4.1"));
    assert_eq!(line("GetTask/example-1").as_deref(), Some("MUST A2A §3.1.3"));
    assert_eq!(line("GetTask/missing/id").as_deref(), Some("SHOULD A2A §5.7"));
    assert_eq!(line("GetTask/wrong-type/id").as_deref(), Some("MUST A2A §3.3.2"));
    assert_eq!(
        line("scenarios/subscribe-resume").as_deref(),
        Some("strict A2A §9.4.2")
    );
    assert_eq!(
        line("scenarios/registry-crud").as_deref(),
        Some("MUST urn:cleveragents:extensions:v1")
    );
    let v0_3 = runner(args(&["--list-cases", "--groups", "v0_3"])).await;
    let v0_3 = String::from_utf8_lossy(&v0_3.stdout);
    let level_of = |id: &str| {
        v0_3.lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
    };
    for (id, level) in [
        ("v0_3/message/send/example-1", "MUST A2A 0.3 §7.1"),
        ("v0_3/tasks/subscribe/example-1", "MUST A2A 0.3 §7.9"),
        ("v0_3/getExtendedAgentCard/example-1", "MUST A2A 0.3 §7.10"),
        ("v0_3/tasks/get/missing/id", "SHOULD A2A 0.3 §8.1"),
        ("v0_3/tasks/get/task-not-found", "MUST A2A 0.3 §8.2"),
        ("v0_3/current-name/GetTask", "strict A2A 0.3 §8.1"),
        ("v0_3/scenarios/stream-order", "MUST A2A 0.3 §7.2"),
        ("v0_3/scenarios/cross-version", "strict A2A §3.6.2"),
    ] {
        assert_eq!(level_of(id).as_deref(), Some(level), "{id}:\n{v0_3}");
    }
    assert!(v0_3.lines().all(|l| l.starts_with("v0_3/")), "{v0_3}");
    let pure = runner(args(&["--list-cases", "--contract", "a2a"])).await;
    let pure = String::from_utf8_lossy(&pure.stdout);
    assert!(!pure.contains("_cleveragents/"), "{pure}");
    assert!(!pure.contains("scenarios/registry-crud"), "{pure}");
    assert!(pure.contains("versioning/unknown-method/a2a "), "{pure}");
}

/// The extension schema of the workspace's downstream example.
const NOTES_SCHEMA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../examples/downstream/schema/notes-ext.json"
);

/// The runner on the Agent Card group at `url`, with the example extension's schema.
async fn gated(url: &str) -> std::process::Output {
    runner(args(&[
        "--url",
        url,
        "--groups",
        "agent_card",
        "--extension-schema",
        NOTES_SCHEMA,
    ]))
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_schema_is_gated_when_the_card_declares_it() {
    // Our agent does not declare the example's extension: nothing of it runs.
    let http = common::serve_http(common::app_dispatch()).await;
    let out = gated(&http.url).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("extension notes (urn:example:notes:v1) is not declared by the Agent Card: its 8 cases were not run"),
        "{stdout}"
    );
    assert!(!stdout.contains("_notes/echo"), "{stdout}");

    // A card that declares it, over an agent that does not implement it: every
    // case of the extension fails, at MUST of the extension's URI.
    let mut config = common::server_config();
    config.agent.extensions.push(a2a::types::AgentExtension {
        uri: Some("urn:example:notes:v1".into()),
        description: None,
        required: Some(false),
        params: None,
    });
    let http = common::serve_http_with(config, common::app_dispatch()).await;
    let out = gated(&http.url).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let failed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("FAIL") && l.contains("(MUST urn:example:notes:v1)"))
        .collect();
    assert_eq!(failed.len(), 8, "{stdout}");
    assert!(
        failed.contains(
            &"FAIL  [http] versioning/unknown-method/notes (MUST urn:example:notes:v1): error -32601: expected ErrorInfo METHOD_NOT_FOUND@urn:example:notes:v1, got METHOD_NOT_FOUND@a2a-protocol.org"
        ),
        "{stdout}"
    );
}

#[tokio::test]
async fn an_unreadable_extension_schema_is_bad_usage() {
    let out = runner(args(&[
        "--url",
        "http://127.0.0.1:9/",
        "--extension-schema",
        "no/such/schema.json",
    ]))
    .await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("a2a-conformance: --extension-schema no/such/schema.json: "),
        "{stderr}"
    );
    let a2a_schema = concat!(env!("CARGO_MANIFEST_DIR"), "/../schema/a2a.json");
    let out = runner(args(&[
        "--url",
        "http://127.0.0.1:9/",
        "--extension-schema",
        a2a_schema,
    ]))
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).ends_with("`x-contract.extensionUri` is missing\n"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
