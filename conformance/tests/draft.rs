//! The A2A 1.1 cases (group `v1_1`) against our agent as `--draft-version
//! 1.1 --executor tck` starts it (in process, in memory): every case passes
//! under the strict profile over every transport the parity suite covers
//! (JSON-RPC over HTTP, HTTP+JSON, gRPC, stdio). Against the same agent
//! without the draft, the cases are reported not applicable, with the
//! reason, and none fails. The same holds for the cases derived from the
//! schema on a member the draft adds (`GetTask/wrong-type/currentGeneration`):
//! sent at 1.1 to an agent offering it, left out for one that does not.

mod common;

use common::{draft_config, http_connector, serve_http_with, server_config, tck_dispatch, ConfiguredStdio};
use conformance::draft::{self, Draft};
use conformance::report::Outcome;
use conformance::transport::Connector;
use conformance::{run, Profile, Report, RunOptions};
use std::time::Duration;

/// The agent's own long-poll limit: what ends a wait over stdio, whose
/// requests carry no caller's limit; far above what a message takes to commit.
const LONG_POLL_MAX: Duration = Duration::from_secs(5);

fn the_draft() -> Draft {
    Draft::all()
        .into_iter()
        .find(|d| d.version == "1.1")
        .expect("the schema declares the 1.1 draft")
}

async fn gate(connector: &dyn Connector, groups: &[String]) -> Report {
    let options = RunOptions {
        groups: groups.to_vec(),
        ..RunOptions::with_profile(Profile::Strict)
    };
    run(connector, &options).await
}

/// The four transports to an agent served with `config`: JSON-RPC, HTTP+JSON,
/// gRPC (one HTTP server each) and stdio; the draft's group gated on each.
async fn over_every_transport(config: server::ServerConfig, check: impl Fn(&str, &Report)) {
    over_every_transport_gating(config, &[the_draft().group()], check).await
}

/// [`over_every_transport`], gating `groups`.
async fn over_every_transport_gating(
    config: server::ServerConfig,
    groups: &[String],
    check: impl Fn(&str, &Report),
) {
    let jsonrpc = serve_http_with(config.clone(), tck_dispatch(LONG_POLL_MAX)).await;
    check("http", &gate(&http_connector(&jsonrpc.url), groups).await);
    let rest = serve_http_with(config.clone(), tck_dispatch(LONG_POLL_MAX)).await;
    let connector = conformance::rest::RestConnector {
        base: format!("{}rest", rest.url),
        card: http_connector(&rest.url),
    };
    check("rest", &gate(&connector, groups).await);
    let grpc = serve_http_with(config.clone(), tck_dispatch(LONG_POLL_MAX)).await;
    let connector = conformance::grpc::GrpcConnector {
        origin: grpc.url.clone(),
        card: http_connector(&grpc.url),
    };
    check("grpc", &gate(&connector, groups).await);
    let stdio = ConfiguredStdio {
        dispatch: tck_dispatch(LONG_POLL_MAX),
        config,
    };
    check("stdio", &gate(&stdio, groups).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_the_draft_every_1_1_case_passes_over_every_transport() {
    let draft = the_draft();
    let listed: Vec<String> = draft::listing(&draft).into_iter().map(|(id, _)| id).collect();
    assert_eq!(listed.len(), 9, "{listed:?}");
    over_every_transport(draft_config(&[draft.version]), |kind, report| {
        assert!(report.passed(), "{kind}: {}", report.to_text());
        for c in &report.cases {
            eprintln!("DBG {kind} {} {:?} {}ms {}", c.id, c.outcome, c.millis, c.detail);
        }
        let ran: Vec<&str> = report.cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ran, listed, "{kind}: every case ran");
        assert!(
            report.cases.iter().all(|c| c.outcome == Outcome::Pass),
            "{kind}: {}",
            report.to_text()
        );
        assert!(
            report.not_applicable.is_empty(),
            "{kind}: {:?}",
            report.not_applicable
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_the_draft_the_1_1_cases_are_not_applicable_and_none_fails() {
    let draft = the_draft();
    let listed: Vec<String> = draft::listing(&draft).into_iter().map(|(id, _)| id).collect();
    over_every_transport(server_config(), |kind, report| {
        assert!(report.passed(), "{kind}: {}", report.to_text());
        assert!(report.cases.is_empty(), "{kind}: {}", report.to_text());
        assert_eq!(report.not_applicable, listed, "{kind}");
        let reason = format!(
            "{} cases of group {} were not run: the Agent Card lists no interface at A2A {}",
            listed.len(),
            draft.group(),
            draft.version
        );
        assert!(
            report.notes.iter().any(|n| n.starts_with(&reason)),
            "{kind}: {:?}",
            report.notes
        );
    })
    .await;
}

/// The derived case on the draft's long-poll member, in the group that has it.
const DRAFT_MEMBER_CASE: &str = "GetTask/wrong-type/currentGeneration";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_derived_case_on_a_draft_member_runs_at_the_draft_only_where_it_is_offered() {
    let draft = the_draft();
    let messaging = ["messaging".to_string()];
    // Offered: sent at 1.1, where the member exists, and answered -32602
    // (HTTP+JSON and gRPC have no form for it: a query parameter is text, a
    // proto field has one type).
    over_every_transport_gating(draft_config(&[draft.version]), &messaging, |kind, report| {
        assert!(report.passed(), "{kind}: {}", report.to_text());
        assert!(
            !report.notes.iter().any(|n| n.contains(DRAFT_MEMBER_CASE)),
            "{kind}"
        );
        let case = report.cases.iter().find(|c| c.id == DRAFT_MEMBER_CASE);
        if kind == "rest" || kind == "grpc" {
            assert!(case.is_none(), "{kind}");
            assert!(
                report.not_applicable.iter().any(|id| id == DRAFT_MEMBER_CASE),
                "{kind}"
            );
            return;
        }
        let case = case.unwrap_or_else(|| panic!("{kind}: {DRAFT_MEMBER_CASE} ran: {}", report.to_text()));
        assert_eq!(case.outcome, Outcome::Pass, "{kind}: {}", case.detail);
        assert!(
            !report.not_applicable.iter().any(|id| id == DRAFT_MEMBER_CASE),
            "{kind}"
        );
    })
    .await;
    // A 1.0 agent: the member is not its to check, whatever it does with it.
    over_every_transport_gating(server_config(), &messaging, |kind, report| {
        assert!(report.passed(), "{kind}: {}", report.to_text());
        assert!(!report.cases.iter().any(|c| c.id == DRAFT_MEMBER_CASE), "{kind}");
        let released = report.cases.iter().any(|c| c.id == "GetTask/example-1");
        assert!(released, "{kind}: the 1.0 members' cases run");
        assert!(
            report.not_applicable.iter().any(|id| id == DRAFT_MEMBER_CASE),
            "{kind}"
        );
        let note = "cases on members or methods of versions the agent does not declare were not run: \
                    1 case relies on A2A 1.1, and the Agent Card's interfaces speak 1.0";
        assert!(
            report
                .notes
                .iter()
                .any(|n| n.starts_with(note) && n.ends_with(DRAFT_MEMBER_CASE)),
            "{kind}: {:?}",
            report.notes
        );
    })
    .await;
}
