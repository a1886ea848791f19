//! The ACTS runner (`a2a-conformance --acts`) against our agent with its test
//! executor, served over loopback HTTP: the project's own documents pass over
//! the JSON-RPC and the HTTP+JSON binding (with the exact counts and skip
//! reasons), and a document of deliberate mistakes is reported test by test
//! with the right result and message.

mod common;

use common::*;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

fn documents(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/acts")
        .join(name)
}

/// Our agent with the executor the conformance suites drive, delivering push
/// notifications to loopback (where the runner's webhook listens).
async fn tck_agent() -> Http {
    let config = app::AppConfig {
        executor: app::ExecutorKind::Tck,
        push: app::push::PushConfig {
            allow_list: vec!["127.0.0.1".into()],
            ..app::push::PushConfig::default()
        },
        ..app::AppConfig::default()
    };
    let app = app::App::with_store(std::sync::Arc::new(app::store::MemoryStore::new()), config);
    serve_http(Arc::new(a2a::Router::new(app))).await
}

/// The test of the §13 report with this id.
fn test<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["tests"].as_array().into_iter().flatten())
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("no test {id} in the report"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_agent_passes_the_projects_acts_documents() {
    let agent = tck_agent().await;
    let dir = scratch("acts-pass");
    let json = dir.join("acts.json");
    let folder = documents("agent");
    let out = runner(args(&[
        "--acts",
        folder.to_str().unwrap(),
        "--url",
        &agent.url,
        "--profile",
        "strict",
        "--json",
        json.to_str().unwrap(),
    ]))
    .await;
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = read_json(&json);
    assert_eq!(report["acts_version"], "1.0");
    assert_eq!(report["spec_version"], "1.0");
    assert_eq!(report["transport"], "jsonrpc");
    let summary = &report["summary"];
    assert_eq!(summary["total"], 18, "{text}");
    assert_eq!(summary["passed"], 16, "{text}");
    assert_eq!(summary["skipped"], 2, "{text}");
    assert_eq!(summary["failed"], 0, "{text}");
    assert_eq!(summary["errors"], 0, "{text}");
    assert_eq!(summary["by_level"]["must"]["passed"], 10, "{text}");
    assert_eq!(summary["by_level"]["must"]["skipped"], 1, "{text}");
    assert_eq!(summary["by_level"]["should"]["passed"], 5, "{text}");
    assert_eq!(summary["by_level"]["may"]["passed"], 1, "{text}");
    assert_eq!(summary["by_level"]["may"]["skipped"], 1, "{text}");
    // The includes of suite.acts.yaml give the suites in order.
    let suites: Vec<&str> = report["suites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(suites, ["tasks", "streams", "wire"]);
    let rest = test(&report, "OWN-REST-001");
    assert_eq!(rest["result"], "skip");
    assert!(
        rest["skip_reason"]
            .as_str()
            .unwrap()
            .starts_with("the test is for the rest binding; this run executes jsonrpc"),
        "{rest}"
    );
    let unmet = test(&report, "OWN-SKIP-001");
    assert_eq!(
        unmet["skip_reason"],
        "precondition not met: the Agent Card declares capabilities.authentication = (absent), the test needs true"
    );
    let steps: Vec<&str> = test(&report, "OWN-TASK-004")["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["result"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["pass"; 4]);
    assert!(
        text.contains("MUST:   10/11 passed (0 failed, 0 errors, 1 skipped)\n"),
        "{text}"
    );
    assert!(
        text.contains("SHOULD: 5/5 passed (0 failed, 0 errors, 0 skipped)\n"),
        "{text}"
    );
    assert!(
        text.contains("MAY:    1/2 passed (0 failed, 0 errors, 1 skipped)\n"),
        "{text}"
    );
    assert!(
        text.ends_with("ACTS 18 tests: 16 passed, 0 failed, 0 errors, 2 skipped — PASS\n"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_agent_passes_the_projects_acts_documents_over_http_json() {
    let agent = tck_agent().await;
    let dir = scratch("acts-rest");
    let json = dir.join("acts.json");
    let folder = documents("agent");
    let rest = format!("{}rest", agent.url);
    let out = runner(args(&[
        "--acts",
        folder.to_str().unwrap(),
        "--url",
        &agent.url,
        "--rest",
        &rest,
        "--profile",
        "strict",
        "--json",
        json.to_str().unwrap(),
    ]))
    .await;
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = read_json(&json);
    assert_eq!(report["transport"], "rest");
    let summary = &report["summary"];
    assert_eq!(summary["total"], 18, "{text}");
    assert_eq!(summary["passed"], 16, "{text}");
    assert_eq!(summary["skipped"], 2, "{text}");
    // The raw JSON-RPC test is the one that does not apply; the raw REST
    // test runs: a missing task is HTTP 404 with a Status body whose
    // ErrorInfo names TaskNotFound.
    let raw = test(&report, "OWN-RAW-001");
    assert_eq!(raw["result"], "skip");
    assert_eq!(
        raw["skip_reason"],
        "the test is for the jsonrpc binding; this run executes rest"
    );
    let steps: Vec<&str> = test(&report, "OWN-REST-001")["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["result"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["pass", "pass"]);
    // Operations, streams, subscriptions, push configs and the webhook all
    // travelled over the HTTP+JSON routes.
    for id in ["OWN-TASK-003", "OWN-STREAM-001", "OWN-STREAM-004", "OWN-PUSH-001"] {
        assert_eq!(test(&report, id)["result"], "pass", "{id}: {text}");
    }
    assert!(text.contains("transport: rest\n"), "{text}");
    assert!(
        text.contains("MUST:   10/11 passed (0 failed, 0 errors, 1 skipped)\n"),
        "{text}"
    );
    assert!(
        text.ends_with("ACTS 18 tests: 16 passed, 0 failed, 0 errors, 2 skipped — PASS\n"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_mistake_is_reported_with_its_result_and_message() {
    let agent = tck_agent().await;
    let dir = scratch("acts-fail");
    let json = dir.join("acts.json");
    let file = documents("failing.acts.yaml");
    let out = runner(args(&[
        "--acts",
        file.to_str().unwrap(),
        "--url",
        &agent.url,
        "--json",
        json.to_str().unwrap(),
    ]))
    .await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let report = read_json(&json);

    let state = test(&report, "BAD-STATE-001");
    assert_eq!(state["result"], "fail");
    let failure = &state["failure"];
    assert_eq!(failure["step_id"], "send");
    assert_eq!(failure["assertion_path"], "task.status.state");
    assert_eq!(failure["expected"], "TASK_STATE_WORKING");
    assert_eq!(failure["actual"], "TASK_STATE_COMPLETED");
    assert_eq!(failure["message"], "task.status.state: value differs");
    let steps: Vec<&str> = state["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["result"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["fail", "skip"]);

    let error = &test(&report, "BAD-ERROR-001")["failure"];
    assert_eq!(
        error["message"],
        "expected error -32001 TASK_NOT_FOUND, got a result"
    );

    let grammar = test(&report, "BAD-GRAMMAR-001");
    assert_eq!(grammar["result"], "error");
    let message = grammar["failure"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("invalid test: step `get` is not a valid server-step (§4): unknown field `code`, expected one of `error_type`"),
        "{message}"
    );
    let mixed = test(&report, "BAD-GRAMMAR-002");
    assert_eq!(mixed["result"], "error");
    assert_eq!(mixed["level"], "should");
    assert!(
        mixed["failure"]["message"].as_str().unwrap().contains(
            "`step `card`.expect.body.skills` mixes assertion operators (type) with field names (items)"
        ),
        "{mixed}"
    );

    let var = &test(&report, "BAD-VAR-001")["failure"];
    assert!(
        var["message"]
            .as_str()
            .unwrap()
            .starts_with("variable `earlier.taskId` cannot be resolved"),
        "{var}"
    );
    let stream = &test(&report, "BAD-STREAM-001")["failure"];
    assert_eq!(stream["message"], "the stream has fewer than 10 event(s)");
    assert_eq!(stream["actual"], "4 event(s)");
    let until = &test(&report, "BAD-UNTIL-001")["failure"];
    assert!(
        until["message"]
            .as_str()
            .unwrap()
            .starts_with("`until: status.state == TASK_STATE_WORKING` did not hold after 2 attempt(s) (§9)"),
        "{until}"
    );
    let none = &test(&report, "BAD-COLLECTION-001")["failure"];
    assert!(
        none["message"].as_str().unwrap().starts_with(
            "assertion {{send.response}}: none of `task.artifacts[*].parts[*]` (1 element(s)) fails to match"
        ),
        "{none}"
    );
    assert!(
        text.contains("MUST:   0/5 passed (4 failed, 1 errors, 0 skipped)\n"),
        "{text}"
    );
    assert!(
        text.contains("SHOULD: 0/2 passed (1 failed, 1 errors, 0 skipped)\n"),
        "{text}"
    );
    assert!(
        text.contains("MAY:    0/1 passed (1 failed, 0 errors, 0 skipped)\n"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_draft_dialect_is_read_only_when_asked() {
    let agent = tck_agent().await;
    let dir = scratch("acts-draft");
    let json = dir.join("acts.json");
    let file = documents("failing.acts.yaml");
    let out = runner(args(&[
        "--acts",
        file.to_str().unwrap(),
        "--url",
        &agent.url,
        "--acts-draft",
        "--json",
        json.to_str().unwrap(),
    ]))
    .await;
    let text = stdout(&out);
    let report = read_json(&json);
    // `expect_error.code` read as `error_type`: the agent's TaskNotFound passes.
    assert_eq!(test(&report, "BAD-GRAMMAR-001")["result"], "pass", "{text}");
    // `items: {…}` read as an assertion on every skill of the card.
    assert_eq!(test(&report, "BAD-GRAMMAR-002")["result"], "pass", "{text}");
    assert_eq!(test(&report, "BAD-STATE-001")["result"], "fail", "{text}");
    assert!(
        text.contains("draft dialect: 2 test(s) rewritten into the grammar's form\n"),
        "{text}"
    );
    assert!(
        text.contains("MUST:   1/5 passed (4 failed, 0 errors, 0 skipped)\n"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_document_or_a_missing_url_is_a_usage_error() {
    let dir = scratch("acts-usage");
    let bad = dir.join("bad.acts.yaml");
    std::fs::write(&bad, "acts_version: \"2.0\"\nspec_version: \"1.0\"\nsuites: []\n").unwrap();
    let out = runner(args(&[
        "--acts",
        bad.to_str().unwrap(),
        "--url",
        "http://127.0.0.1:9/",
    ]))
    .await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("acts_version 2.0 is not supported (this runner executes 1.x, §17)"),
        "{err}"
    );
    let out = runner(args(&["--acts", bad.to_str().unwrap()])).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--acts runs over the JSON-RPC binding of an HTTP agent: give --url"));
}
