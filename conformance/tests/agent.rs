//! The suite against our own agent (the reference application behind the
//! server's transports, in process, in memory): the gate passes under the
//! `strict` profile — every level — over both transports with the committed
//! baseline; started from the same (fresh)
//! backend state, both transports answer every case identically (and the
//! HTTP+JSON binding every case it can express as JSON-RPC does); and state
//! written over one transport reads the same over the other.

mod common;

use common::{app_dispatch, http_connector, serve_http, InProcessStdio, BASELINE};
use conformance::card::Applicability;
use conformance::report::Outcome;
use conformance::runner::Session;
use conformance::transport::{Activation, Answer, Connector};
use conformance::{run, Baseline, Profile, RunOptions};
use serde_json::{json, Value};

/// What of a case's answer must be identical across transports. A task list is
/// ordered by each task's last update, and tasks the examples start with
/// `returnImmediately` finish in the background, so the order (and the state
/// each listed task has reached) depends on timing, not on the transport: of a
/// list, the page's shape is compared (how many tasks, the total, the page
/// size, whether a next page exists).
///
/// The namespace event stream read as stored now interleaves those background
/// completions with later tasks by timing alone: of it, each task's opening
/// event (committed with the task, in the order the cases create tasks) is
/// compared without its cursor; what a background run appended by then is not.
fn comparable(case: &conformance::report::CaseResult) -> Value {
    let method = case.method.as_deref();
    let listed = method == Some(<a2a::methods::markers::ListTasks as a2a::rpc::Method>::NAME);
    let namespace_events = method == Some(<a2a::methods::markers::EventsSubscribe as a2a::rpc::Method>::NAME);
    match (case.observed.get("result"), case.observed.get("events")) {
        (Some(page), _) if listed => json!({
            "tasks": page["tasks"].as_array().map(Vec::len),
            "totalSize": page["totalSize"],
            "pageSize": page["pageSize"],
            "nextPage": page["nextPageToken"].as_str().is_some_and(|t| !t.is_empty()),
        }),
        (_, Some(Value::Array(events))) if namespace_events => {
            let openings: Vec<Value> = events
                .iter()
                .filter(|e| e["taskSeq"] == 1)
                .map(|e| {
                    let mut e = e.clone();
                    if let Some(event) = e.as_object_mut() {
                        event.remove("cursor");
                    }
                    e
                })
                .collect();
            json!({"openings": openings, "error": case.observed["error"]})
        }
        _ => case.observed.clone(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_agent_passes_the_gate_over_both_transports_with_identical_answers() {
    let baseline = Baseline::parse(BASELINE);
    let options = RunOptions::with_profile(Profile::Strict);
    // Two backends in the same (fresh) state, one per transport: the examples
    // share ids (a context, registry names), so answers depend on what ran before.
    let shared = app_dispatch();
    let http = serve_http(shared.clone()).await;
    let mut over_http = run(&http_connector(&http.url), &options).await;
    over_http.apply_baseline(&baseline);
    assert!(over_http.passed(), "{}", over_http.to_text());
    assert_eq!(
        over_http.applicability.contract, "cleveragents",
        "our card declares the extension"
    );
    assert_eq!(
        over_http.levels_line(),
        "MUST: 0 failed · SHOULD: 0 failed · strict: 0 failed"
    );

    let mut over_stdio = run(
        &InProcessStdio {
            dispatch: app_dispatch(),
        },
        &options,
    )
    .await;
    over_stdio.apply_baseline(&baseline);
    assert!(over_stdio.passed(), "{}", over_stdio.to_text());

    assert_eq!(over_http.summary, over_stdio.summary);
    assert!(
        over_http.unmatched_baseline.is_empty(),
        "{:?}",
        over_http.unmatched_baseline
    );
    assert_eq!(over_http.cases.len(), over_stdio.cases.len());
    for (h, s) in over_http.cases.iter().zip(&over_stdio.cases) {
        assert_eq!(h.id, s.id);
        assert_eq!(h.outcome, s.outcome, "{}: {} / {}", h.id, h.detail, s.detail);
        // Stream resumption exists on HTTP only (the stdio binding has none, §8 of
        // its spec): those scenarios (1.0 and 0.3) pass on both, with
        // transport-specific notes. The Agent Card (both forms) lists the
        // interface it is served over first.
        let transport_specific = [
            "scenarios/subscribe-resume",
            "scenarios/events-resume",
            "v0_3/scenarios/resubscribe-resume",
            conformance::runner::CARD_CASE_ID,
            "v0_3/agent-card",
        ];
        if !transport_specific.contains(&h.id.as_str()) {
            assert_eq!(
                comparable(h),
                comparable(s),
                "{}: the transports answered differently",
                h.id
            );
        }
    }
    // Every dispatched method was exercised, and nothing but the baseline failed.
    let expected = over_http
        .cases
        .iter()
        .filter(|c| c.outcome == Outcome::ExpectedFail)
        .count();
    assert_eq!(expected, baseline.ids().count());

    // And stdio against the backend the HTTP run left behind: the gate still holds.
    let mut again = run(&InProcessStdio { dispatch: shared }, &options).await;
    again.apply_baseline(&baseline);
    assert!(again.passed(), "{}", again.to_text());
    assert_eq!(again.summary, over_http.summary);
}

/// The agent the official suites test (`--executor tck`) is the agent users
/// get: where a message names no suite behaviour it runs the default
/// executor, so every scenario of our own suite — plans started from
/// messages among them — passes against it too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_suite_behaviours_agent_passes_every_scenario_too() {
    let app = app::App::with_store(
        std::sync::Arc::new(app::store::MemoryStore::new()),
        app::AppConfig {
            executor: app::ExecutorKind::Tck,
            ..Default::default()
        },
    );
    let options = RunOptions {
        groups: vec!["scenarios".to_string()],
        ..RunOptions::with_profile(Profile::Strict)
    };
    let report = run(
        &InProcessStdio {
            dispatch: std::sync::Arc::new(a2a::Router::new(app)),
        },
        &options,
    )
    .await;
    assert!(report.passed(), "{}", report.to_text());
    assert!(
        report
            .cases
            .iter()
            .any(|c| c.id == "scenarios/events-plan-lifecycle" && c.outcome == Outcome::Pass),
        "{}",
        report.to_text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_written_over_http_reads_the_same_over_stdio() {
    let dispatch = app_dispatch();
    let http = serve_http(dispatch.clone()).await;
    let over_http = Session::new(
        http_connector(&http.url)
            .connect(Activation::Extension(None))
            .await
            .expect("http"),
    );
    let over_stdio = Session::new(
        InProcessStdio { dispatch }
            .connect(Activation::Extension(None))
            .await
            .expect("stdio"),
    );
    let sent = over_http
        .call(
            "SendMessage",
            json!({"message": {"messageId": "parity-1", "role": "ROLE_USER", "parts": [{"text": "parity"}]}}),
        )
        .await;
    let Answer::Result(sent) = sent else {
        panic!("SendMessage failed: {}", sent.summary());
    };
    let id = sent["task"]["id"].as_str().expect("a task id").to_string();
    let a = over_http.call("GetTask", json!({"id": id})).await;
    let b = over_stdio.call("GetTask", json!({"id": id})).await;
    assert!(matches!(a, Answer::Result(_)), "{}", a.summary());
    assert_eq!(a, b, "unmasked: byte-for-byte the same task");
    let missing = json!({"id": "no-such-task"});
    assert_eq!(
        over_http.call("GetTask", missing.clone()).await,
        over_stdio.call("GetTask", missing).await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pure_a2a_run_over_stdio_asks_for_no_extension_and_calls_none() {
    let recorder = common::Recorder::new(app_dispatch());
    let calls = recorder.methods.clone();
    let options = RunOptions {
        contract: conformance::ContractChoice::A2a,
        ..RunOptions::with_profile(Profile::Strict)
    };
    let report = run(
        &InProcessStdio {
            dispatch: std::sync::Arc::new(recorder),
        },
        &options,
    )
    .await;
    assert!(report.passed(), "{}", report.to_text());
    assert_eq!(report.applicability.contract, "a2a");
    let prefix = a2a::Contract::Cleveragents
        .method_prefix()
        .expect("the extension has a prefix");
    let seen = common::Recorder::calls(&calls);
    assert!(seen.iter().any(|m| m == "GetTask"), "{seen:?}");
    let extension: Vec<&String> = seen.iter().filter(|m| m.starts_with(prefix)).collect();
    assert_eq!(extension, Vec::<&String>::new());
}

/// Runs the strict suite over `connector` and over JSON-RPC on agents of
/// their own, and checks that every case the binding has a form for passes and
/// answers as over JSON-RPC, that A2A 0.3 is left to JSON-RPC, and that the
/// cases without a form are those `no_equivalent_possible` allows. Returns the
/// cases without a form, and how many ran.
async fn answers_as_over_json_rpc(
    connector: &dyn conformance::transport::Connector,
    http: &common::Http,
    no_equivalent_possible: impl Fn(&str) -> bool,
) -> (Vec<String>, usize) {
    let kind = connector.kind();
    let options = RunOptions::with_profile(Profile::Strict);
    let baseline = Baseline::parse(BASELINE);
    let mut over_http = run(&http_connector(&http.url), &options).await;
    over_http.apply_baseline(&baseline);
    let mut over_binding = run(connector, &options).await;
    over_binding.apply_baseline(&baseline);
    // The cases the binding has a form for pass the strict gate; the others
    // are not run there, and said so. A2A 0.3 is gated over JSON-RPC only:
    // its whole group is not run.
    assert!(over_binding.passed(), "{}", over_binding.to_text());
    // The draft versions' cases are not applicable to an agent that serves
    // no draft (tests/draft.rs runs them), over every binding alike.
    let drafts: Vec<String> = conformance::draft::Draft::all()
        .iter()
        .map(|d| format!("{}/", d.group()))
        .collect();
    // So are the derived cases on members a draft adds (`x-since`).
    let on_draft_members: Vec<String> =
        conformance::cases::derive(&conformance::cases::all_groups(), &Applicability::everything())
            .into_iter()
            .filter(|c| c.method.is_some_and(|d| d.contract == a2a::Contract::A2a))
            .filter(|c| c.since.as_deref() == Some("1.1"))
            .map(|c| c.id)
            .collect();
    assert!(!on_draft_members.is_empty());
    let (v0_3, without_equivalent): (Vec<String>, Vec<String>) = over_binding
        .not_applicable
        .iter()
        .filter(|id| !drafts.iter().any(|g| id.starts_with(g.as_str())))
        .filter(|id| !on_draft_members.contains(id))
        .cloned()
        .partition(|id| id.starts_with("v0_3/"));
    assert!(
        over_binding.notes.iter().any(|n| n.starts_with(&format!(
            "{} cases have no form in the {kind} binding",
            without_equivalent.len()
        ))),
        "{:?}",
        over_binding.notes
    );
    let v0_3_over_http: Vec<&String> = over_http
        .cases
        .iter()
        .map(|c| &c.id)
        .filter(|id| id.starts_with("v0_3/"))
        .collect();
    assert_eq!(v0_3.iter().collect::<Vec<_>>(), v0_3_over_http);
    assert!(
        over_binding.notes.contains(&format!(
            "{} cases of group v0_3 were not run: A2A 0.3 is gated over JSON-RPC (HTTP and stdio), not over the {kind} binding",
            v0_3.len()
        )),
        "{:?}",
        over_binding.notes
    );
    let mut binding_cases = over_binding.cases.iter();
    for h in &over_http.cases {
        if without_equivalent.contains(&h.id) || v0_3.contains(&h.id) {
            continue;
        }
        let r = binding_cases
            .next()
            .expect("every case with a form ran over the binding");
        assert_eq!(h.id, r.id);
        assert_eq!(h.outcome, r.outcome, "{}: {} / {}", h.id, h.detail, r.detail);
        if h.id != conformance::runner::CARD_CASE_ID {
            assert_eq!(
                comparable(h),
                comparable(r),
                "{}: JSON-RPC and {kind} answered differently",
                h.id
            );
        }
    }
    assert!(
        binding_cases.next().is_none(),
        "{kind} ran no case JSON-RPC did not"
    );
    assert!(
        without_equivalent.iter().all(|id| no_equivalent_possible(id)),
        "{without_equivalent:?}"
    );
    (without_equivalent, over_binding.cases.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_rest_every_case_with_a_rest_equivalent_answers_as_over_json_rpc() {
    let http = serve_http(app_dispatch()).await;
    let rest = serve_http(app_dispatch()).await;
    let connector = conformance::rest::RestConnector {
        base: format!("{}rest", rest.url),
        card: http_connector(&rest.url),
    };
    // Only envelopes, params that are no object, and fields a path or query
    // cannot carry (missing, or of another JSON type) lack an equivalent; every
    // method's examples and the other derived cases ran and answered alike.
    let (without_equivalent, compared) = answers_as_over_json_rpc(&connector, &http, |id| {
        id.starts_with("envelope/")
            || id.ends_with("/params-not-object")
            || id.contains("/missing/")
            || id.contains("/wrong-type/")
            || id.ends_with("/generated-minimal")
    })
    .await;
    assert!(!without_equivalent.iter().any(|id| id.contains("/example-")));
    assert!(
        compared > without_equivalent.len(),
        "{compared} compared, {without_equivalent:?} without"
    );
}
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_grpc_every_case_with_a_grpc_equivalent_answers_as_over_json_rpc() {
    let http = serve_http(app_dispatch()).await;
    let grpc = serve_http(app_dispatch()).await;
    let connector = conformance::grpc::GrpcConnector {
        origin: grpc.url.clone(),
        card: http_connector(&grpc.url),
    };
    // What JSON-RPC's envelope and loose params can say and protobuf cannot:
    // a missing field (protobuf sends its default), a value of another type
    // or outside its enum, a field the message lacks, a method with no rpc
    // (gRPC's own UNIMPLEMENTED, tested with the binding).
    let (without_equivalent, _) = answers_as_over_json_rpc(&connector, &http, |id| {
        id.starts_with("envelope/")
            || id.ends_with("/params-not-object")
            || id.contains("/missing/")
            || id.contains("/wrong-type/")
            || id.contains("/bad-enum/")
            || id.contains("/unknown-field")
            || id.ends_with("/generated-minimal")
            || id.starts_with("versioning/unknown-method/")
    })
    .await;
    // Every method's examples ran over gRPC, the extension's among them.
    assert!(
        !without_equivalent.iter().any(|id| id.contains("/example-")),
        "{without_equivalent:?}"
    );
}
