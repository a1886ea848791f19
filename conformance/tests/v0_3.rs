//! Group `v0_3` through the runner binary, against our agent over loopback
//! HTTP: what the Agent Card declares decides whether it runs; an agent that
//! lists a 0.3 interface but does not read an absent `A2A-Version` as 0.3
//! fails it with the 0.3 requirement named; a card without push
//! notifications makes the 0.3 push cases expect -32003; and in-process runs
//! over both transports give the same 0.3 answers (see also `agent.rs`).

mod common;

use common::{
    app_dispatch, args, case, our_card, read_json, runner, scratch, serve_card, serve_http, serve_http_with,
    server_config, stdout, Recorder,
};
use serde_json::json;
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_agent_passes_the_0_3_group_with_every_method_and_alias_exercised() {
    let dir = scratch("v0_3-ours");
    let json_path = dir.join("report.json");
    let http = serve_http(app_dispatch()).await;
    let out = runner(args(&[
        "--url",
        &http.url,
        "--groups",
        "v0_3",
        "--profile",
        "strict",
        "--json",
        json_path.to_str().expect("utf-8 path"),
    ]))
    .await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let report = read_json(&json_path);
    let cases = report["cases"].as_array().expect("cases");
    assert!(cases.iter().all(|c| c["group"] == "v0_3"), "{text}");
    // Every method of the 0.3 table, under its name and each alias, ran its example.
    for m in a2a::v0_3::METHODS {
        for wire in std::iter::once(m.name).chain(m.aliases.iter().copied()) {
            let example = case(&report, &format!("v0_3/{wire}/example-1"));
            assert_eq!(example["outcome"], "pass", "{example}");
            assert_eq!(example["method"], wire);
        }
    }
    assert_eq!(
        case(&report, "v0_3/agent-card")["detail"],
        "0.3 fields protocolVersion, url, preferredTransport, additionalInterfaces, supportsAuthenticatedExtendedCard valid; url is the 0.3 interface's"
    );
    let get = case(&report, "v0_3/tasks/get/example-1");
    assert_eq!(
        (&get["level"], &get["section"]),
        (&json!("MUST"), &json!("A2A 0.3 §7.3"))
    );
    assert_eq!(get["detail"], "valid result");
    assert_eq!(get["observed"]["result"]["kind"], "task");
    let stream = case(&report, "v0_3/message/stream/example-1");
    let kinds: Vec<&str> = stream["observed"]["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert_eq!(kinds.first(), Some(&"task"), "{stream}");
    assert_eq!(kinds.last(), Some(&"status-update"), "{stream}");
    assert_eq!(
        case(&report, "v0_3/tasks/cancel/task-not-found")["detail"],
        "error -32001 TASK_NOT_FOUND@a2a-protocol.org"
    );
    assert_eq!(
        case(&report, "v0_3/current-name/GetTask")["detail"],
        "error -32601 METHOD_NOT_FOUND@a2a-protocol.org"
    );
    // The ADR's aliases reach the same methods: a finished task refuses
    // re-subscription under both names.
    assert_eq!(
        case(&report, "v0_3/tasks/subscribe/example-1")["detail"],
        "declared error -32004 UNSUPPORTED_OPERATION@a2a-protocol.org"
    );
    assert_eq!(
        case(&report, "v0_3/scenarios/cross-version")["detail"],
        "a task made over 0.3 reads over 1.0 as GetTask and back; one made over 1.0 reads over 0.3"
    );
    assert_eq!(
        case(&report, "v0_3/scenarios/push-config-crud")["detail"],
        "set, get, list, delete (and pushNotificationConfig/create, pushNotificationConfig/get); a deleted config answers TASK_NOT_FOUND"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_reads_an_absent_version_as_1_0_fails_the_0_3_group() {
    let mut config = server_config();
    config.http.assume_version_when_absent = Some("1.0".into());
    let http = serve_http_with(config, app_dispatch()).await;
    let out = runner(args(&["--url", &http.url, "--groups", "v0_3"])).await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL  [http] v0_3/tasks/get/example-1 (MUST A2A 0.3 §7.3): tasks/get is not served in 0.3: -32601 METHOD_NOT_FOUND@a2a-protocol.org \"Method not found: `tasks/get`\"\n"),
        "{text}"
    );
    assert!(
        text.contains("FAIL  [http] v0_3/scenarios/stream-order (MUST A2A 0.3 §7.2): message/stream: expected a stream, got error -32601 METHOD_NOT_FOUND@a2a-protocol.org \"Method not found: `message/stream`\"\n"),
        "{text}"
    );
    // Asked without a version, the card is the 1.0 one too.
    assert!(
        text.contains("FAIL  [http] v0_3/agent-card (MUST A2A 0.3 §5.5): the card lacks `protocolVersion`, which a 0.3 card requires\n"),
        "{text}"
    );
    // Read as 1.0, the 1.0 name is found (and its 0.3 params are invalid).
    assert!(
        text.contains("WARN  [http] v0_3/current-name/GetTask (strict A2A 0.3 §8.1): expected error -32601 METHOD_NOT_FOUND@a2a-protocol.org, got -32602 INVALID_PARAMS@a2a-protocol.org"),
        "{text}"
    );
    assert!(
        text.contains("\nhttp: 91 cases: 1 passed, 76 failed, 14 warnings, 0 expected failures, 0 stale baseline entries — FAIL\n"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_without_a_0_3_interface_leaves_the_group_out_and_calls_nothing() {
    let recorder = Recorder::new(app_dispatch());
    let calls = recorder.methods.clone();
    let http = serve_http(Arc::new(recorder)).await;
    let mut card = our_card(&server_config());
    let interfaces = card["supportedInterfaces"]
        .as_array()
        .expect("interfaces")
        .clone();
    card["supportedInterfaces"] = json!(interfaces
        .into_iter()
        .filter(|i| i["protocolVersion"] != "0.3")
        .collect::<Vec<_>>());
    let served = serve_card(card).await;
    let out = runner(args(&[
        "--url",
        &http.url,
        "--card",
        &served.url,
        "--groups",
        "v0_3",
    ]))
    .await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("note  [http] group v0_3 was not run: the Agent Card lists no interface at A2A 0.3 (supportedInterfaces[].protocolVersion)"),
        "{text}"
    );
    assert!(text.contains("http: 0 cases: "), "{text}");
    assert_eq!(common::Recorder::calls(&calls), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_without_push_notifications_makes_the_0_3_push_cases_expect_the_unsupported_error() {
    let dir = scratch("v0_3-push-off");
    let json_path = dir.join("report.json");
    let mut config = server_config();
    config.agent.capabilities.push_notifications = false;
    let refusing = serve_http_with(config, app_dispatch()).await;
    let out = runner(args(&[
        "--url",
        &refusing.url,
        "--groups",
        "v0_3",
        "--profile",
        "strict",
        "--json",
        json_path.to_str().expect("utf-8 path"),
    ]))
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = read_json(&json_path);
    for id in [
        "v0_3/tasks/pushNotificationConfig/set/example-1",
        "v0_3/pushNotificationConfig/create/example-1",
    ] {
        let set = case(&report, id);
        assert_eq!(set["outcome"], "pass", "{set}");
        assert_eq!(
            set["detail"],
            "error -32003 PUSH_NOTIFICATION_NOT_SUPPORTED@a2a-protocol.org"
        );
        assert_eq!(
            set["capability"],
            json!({"name": "pushNotifications", "declared": false})
        );
    }
    assert_eq!(
        case(&report, "v0_3/scenarios/push-config-crud")["detail"],
        "push notifications are not declared: set, get, list and delete answer -32003 PUSH_NOTIFICATION_NOT_SUPPORTED"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_an_address_of_their_own_0_3_clients_read_their_card_there() {
    let dir = scratch("v0_3-two-origins");
    let json_path = dir.join("report.json");
    let mut config = server_config();
    config.http.v0_3_listen = Some("127.0.0.1:0".parse().expect("loopback address"));
    let http = serve_http_with(config, app_dispatch()).await;
    // Gated at the main address, whose card is the plain 1.0 one: the 0.3
    // card is read where the card's 0.3 interface is.
    let out = runner(args(&[
        "--url",
        &http.url,
        "--groups",
        "v0_3",
        "--profile",
        "strict",
        "--json",
        json_path.to_str().expect("utf-8 path"),
    ]))
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = read_json(&json_path);
    let card = case(&report, "v0_3/agent-card");
    assert_eq!(card["outcome"], "pass", "{card}");
    let url = card["observed"]["result"]["url"].as_str().expect("the 0.3 url");
    assert!(
        url.starts_with("http://127.0.0.1:") && url != http.url,
        "{url} / {}",
        http.url
    );
    let _ = std::fs::remove_dir_all(dir);
}
