//! Levels, profiles, contract and capabilities, through the runner binary
//! against our agent over loopback HTTP:
//!
//! - an agent that falls short only of a SHOULD (an error without ErrorInfo)
//!   and of a strict rule (an ErrorInfo reason of its own) passes `--profile
//!   spec` with warnings and fails `--profile strict`;
//! - `--contract a2a`, and a card that does not declare the extension, call no
//!   `_cleveragents/` method (the dispatcher records every call);
//! - a card with `pushNotifications: false` makes the push cases expect
//!   -32003 — met by an agent that refuses them, failed by one that serves them.

mod common;

use a2a::rpc::{BoxFuture, CallContext, Dispatch, Outcome, Params};
use common::{
    app_dispatch, args, case, our_card, read_json, runner, scratch, serve_card, serve_http, serve_http_with,
    server_config, stdout, Recorder,
};
use serde_json::json;
use std::sync::Arc;

/// The real application, with two shortfalls below MUST: an unknown method is
/// answered -32601 without ErrorInfo (SHOULD, §9.5), and a `GetTask` without
/// its `id` is answered -32602 with an ErrorInfo reason the registry does not
/// give -32602 (the project's strict rule).
struct Lax {
    inner: Arc<dyn Dispatch>,
}

impl Dispatch for Lax {
    fn dispatch_params<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Params,
    ) -> BoxFuture<'a, Outcome> {
        // The params as a value, as this dispatcher reads them.
        let params = params.into_json().ok().flatten();
        Box::pin(async move {
            if a2a::find_method(method).is_none() {
                return Outcome::Single(Err(a2a::Error {
                    code: -32601,
                    message: "Method not found".into(),
                    data: None,
                }));
            }
            let without_id = params
                .as_ref()
                .is_some_and(|p| p.is_object() && p.get("id").is_none());
            if method == "GetTask" && without_id {
                return Outcome::Single(Err(a2a::Error {
                    code: -32602,
                    message: "id is required".into(),
                    data: Some(json!([{"@type": a2a::rpc::ERROR_INFO_TYPE,
                                       "reason": "FIELD_REQUIRED", "domain": "a2a-protocol.org"}])),
                }));
            }
            self.inner.dispatch(ctx, method, params).await
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_should_or_strict_shortfall_warns_under_spec_and_fails_under_strict() {
    let http = serve_http(Arc::new(Lax {
        inner: app_dispatch(),
    }))
    .await;
    let dir = scratch("lax");
    let (json_path, junit_path) = (dir.join("report.json"), dir.join("report.xml"));
    let run = |profile: &str| {
        runner(args(&[
            "--url",
            &http.url,
            "--groups",
            "messaging,versioning",
            "--contract",
            "a2a",
            "--profile",
            profile,
            "--json",
            json_path.to_str().expect("utf-8 path"),
            "--junit",
            junit_path.to_str().expect("utf-8 path"),
        ]))
    };
    let unknown = "[http] versioning/unknown-method/a2a (SHOULD A2A §9.5): error -32601 (no ErrorInfo) \"Method not found\" carries no google.rpc.ErrorInfo (reason, domain) in `data`\n";
    let missing = "[http] GetTask/missing/id (strict A2A §9.5): error -32602 FIELD_REQUIRED@a2a-protocol.org \"id is required\": code -32602 is INVALID_PARAMS@a2a-protocol.org in the registry, not FIELD_REQUIRED@a2a-protocol.org\n";

    let spec = run("spec").await;
    let text = stdout(&spec);
    assert_eq!(spec.status.code(), Some(0), "{text}");
    assert!(text.contains(&format!("WARN  {unknown}")), "{text}");
    assert!(text.contains(&format!("WARN  {missing}")), "{text}");
    assert!(!text.contains("FAIL "), "{text}");
    assert!(
        text.contains("\nhttp: MUST: 0 failed · SHOULD: 1 warning · strict: 1 warning\n"),
        "{text}"
    );
    assert!(text.contains(" 0 failed, 2 warnings, "), "{text}");
    assert!(text.ends_with(" — PASS\n"), "{text}");
    let report = read_json(&json_path);
    assert_eq!(report["profile"], "spec");
    assert_eq!(report["contract"], "a2a");
    assert_eq!(
        report["summary"]["by_level"],
        json!({"MUST": 0, "SHOULD": 1, "MAY": 0, "strict": 1})
    );
    let warned = case(&report, "GetTask/missing/id");
    assert_eq!(warned["outcome"], "warning");
    assert_eq!(
        (&warned["level"], &warned["section"]),
        (&json!("SHOULD"), &json!("A2A §5.7"))
    );
    assert_eq!(
        warned["violated"],
        json!({"level": "strict", "section": "A2A §9.5"})
    );
    let junit = std::fs::read_to_string(&junit_path).expect("JUnit report");
    assert!(
        junit.contains("<system-out>warning (SHOULD A2A §9.5): error -32601 (no ErrorInfo)"),
        "{junit}"
    );

    let strict = run("strict").await;
    let text = stdout(&strict);
    assert_eq!(strict.status.code(), Some(1), "{text}");
    assert!(text.contains(&format!("FAIL  {unknown}")), "{text}");
    assert!(text.contains(&format!("FAIL  {missing}")), "{text}");
    assert!(!text.contains("WARN "), "{text}");
    assert!(
        text.contains("\nhttp: MUST: 0 failed · SHOULD: 1 failed · strict: 1 failed\n"),
        "{text}"
    );
    assert!(text.contains(" 2 failed, 0 warnings, "), "{text}");
    assert!(text.ends_with(" — FAIL\n"), "{text}");
    assert_eq!(
        case(&read_json(&json_path), "GetTask/missing/id")["outcome"],
        "fail"
    );
    let junit = std::fs::read_to_string(&junit_path).expect("JUnit report");
    assert!(junit.contains("type=\"strict\">"), "{junit}");
    assert!(junit.contains("type=\"SHOULD\">"), "{junit}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The methods a run called that belong to the extension.
fn extension_calls(calls: &[String]) -> Vec<&String> {
    let prefix = a2a::Contract::Cleveragents
        .method_prefix()
        .expect("the extension has a prefix");
    calls.iter().filter(|m| m.starts_with(prefix)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_a2a_contract_never_calls_an_extension_method() {
    let recorder = Recorder::new(app_dispatch());
    let calls = recorder.methods.clone();
    let http = serve_http(Arc::new(recorder)).await;

    // Forced: our card declares the extension, and it is still not called.
    let forced = runner(args(&[
        "--url",
        &http.url,
        "--contract",
        "a2a",
        "--profile",
        "strict",
    ]))
    .await;
    let text = stdout(&forced);
    assert_eq!(forced.status.code(), Some(0), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("http: profile strict · contract a2a (forced by --contract) · ")),
        "{text}"
    );
    let seen = common::Recorder::calls(&calls);
    assert!(seen.iter().any(|m| m == "SendMessage"), "{seen:?}");
    assert!(seen.iter().any(|m| m == "NoSuchConformanceMethod"), "{seen:?}");
    assert_eq!(extension_calls(&seen), Vec::<&String>::new());

    // Detected: a card without the extension. A static card has one form for
    // every reader, so it lists no 0.3 interface either (a 0.3 client would
    // find none of its fields in it); group v0_3 is then left out.
    let mut card = our_card(&server_config());
    card["capabilities"]["extensions"] = json!([]);
    let interfaces = card["supportedInterfaces"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    card["supportedInterfaces"] = json!(interfaces
        .into_iter()
        .filter(|i| i["protocolVersion"] != "0.3")
        .collect::<Vec<_>>());
    let served = serve_card(card).await;
    calls.lock().expect("the record").clear();
    let detected = runner(args(&[
        "--url",
        &http.url,
        "--card",
        &served.url,
        "--profile",
        "strict",
    ]))
    .await;
    let text = stdout(&detected);
    assert_eq!(detected.status.code(), Some(0), "{text}");
    assert!(
        text.contains("contract a2a (the Agent Card does not declare urn:cleveragents:extensions:v1)"),
        "{text}"
    );
    assert!(
        text.contains("note  [http] groups plan, registry, context, sync, namespace, health, session, events belong to the extension, which is not gated under contract a2a"),
        "{text}"
    );
    assert!(
        text.contains("note  [http] group v0_3 was not run: the Agent Card lists no interface at A2A 0.3"),
        "{text}"
    );
    let seen = common::Recorder::calls(&calls);
    assert!(!seen.is_empty());
    assert_eq!(extension_calls(&seen), Vec::<&String>::new());

    // The same record sees them when the extension is gated.
    calls.lock().expect("the record").clear();
    let full = runner(args(&["--url", &http.url, "--groups", "health,versioning"])).await;
    assert_eq!(full.status.code(), Some(0), "{}", stdout(&full));
    let seen = common::Recorder::calls(&calls);
    assert!(!extension_calls(&seen).is_empty(), "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_without_push_notifications_makes_the_push_cases_expect_the_unsupported_error() {
    let dir = scratch("push-off");
    let json_path = dir.join("report.json");
    let json_arg = json_path.to_str().expect("utf-8 path");

    // An agent that declares no push notifications and refuses them: conformant.
    let mut config = server_config();
    config.agent.capabilities.push_notifications = false;
    let refusing = serve_http_with(config, app_dispatch()).await;
    let out = runner(args(&[
        "--url",
        &refusing.url,
        "--groups",
        "push_config,scenarios",
        "--profile",
        "strict",
        "--json",
        json_arg,
    ]))
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = read_json(&json_path);
    assert_eq!(report["capabilities"]["pushNotifications"], false);
    let create = case(&report, "CreateTaskPushNotificationConfig/example-1");
    assert_eq!(
        (&create["level"], &create["section"], &create["outcome"]),
        (&json!("MUST"), &json!("A2A §3.3.4"), &json!("pass"))
    );
    assert_eq!(
        create["capability"],
        json!({"name": "pushNotifications", "declared": false})
    );
    assert_eq!(
        create["detail"],
        "error -32003 PUSH_NOTIFICATION_NOT_SUPPORTED@a2a-protocol.org"
    );
    assert_eq!(
        case(&report, "scenarios/push-config-crud")["detail"],
        "push notifications are not declared: create, get, list and delete answer -32003 PUSH_NOTIFICATION_NOT_SUPPORTED"
    );

    // An agent whose card says no push notifications but serves them: each push
    // example (pointed at a real task) fails, expecting -32003.
    let serving = serve_http(app_dispatch()).await;
    let mut card = our_card(&server_config());
    card["capabilities"]["pushNotifications"] = json!(false);
    let served = serve_card(card).await;
    let out = runner(args(&[
        "--url",
        &serving.url,
        "--card",
        &served.url,
        "--groups",
        "push_config",
        "--json",
        json_arg,
    ]))
    .await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL  [http] CreateTaskPushNotificationConfig/example-1 (MUST A2A §3.3.4): expected error -32003 PUSH_NOTIFICATION_NOT_SUPPORTED@a2a-protocol.org, got a result\n"),
        "{text}"
    );
    let report = read_json(&json_path);
    let failed: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["outcome"] == "fail")
        .filter_map(|c| c["id"].as_str())
        .collect();
    let examples: Vec<String> = a2a::METHODS
        .iter()
        .filter(|d| d.capability == Some(a2a::capabilities::PUSH_NOTIFICATIONS))
        .map(|d| format!("{}/example-1", d.name))
        .collect();
    for example in &examples {
        assert!(failed.contains(&example.as_str()), "{example} fails: {failed:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
