//! The ACTS runner: executes documents of the A2A Conformance Test
//! Specification (ACTS 0.1 draft, format `acts_version` 1.x) against an agent
//! over the JSON-RPC binding, and reports them in the format of its §13.
//!
//! - [`document`]: loading (a file or a folder, `include`s followed) and the
//!   grammar each test is validated against;
//! - [`draft`]: the rewrites `--acts-draft` applies to the draft files' dialect;
//! - [`vars`]: variables, captures and references;
//! - [`assertion`]: the assertion language, paths and `until` expressions;
//! - [`stream`]: streaming expectations and the ordering rule;
//! - [`operations`]: abstract operations and errors on the method table;
//! - [`wire`]: HTTP for steps over either binding (unary, event streams, raw
//!   requests, the card);
//! - [`webhook`]: the loopback webhook receiver for push tests;
//! - `applicable`: which tests apply, and each validated before it runs;
//! - `judge`: a step's answer against its expectations, and its captures;
//! - [`exec`]: the execution of tests and steps;
//! - [`report`]: results, the JSON report and the console summary.

mod applicable;
pub mod assertion;
pub mod document;
pub mod draft;
pub mod exec;
mod judge;
pub mod operations;
pub mod report;
pub mod stream;
pub mod vars;
pub mod webhook;
pub mod wire;

use report::{ActsReport, Subject, SuiteRecord};
use std::path::Path;
use std::time::{Duration, Instant};

/// How to run ACTS documents.
pub struct ActsOptions {
    /// The agent's JSON-RPC endpoint (its origin serves the Agent Card).
    pub url: String,
    /// The base URL of the agent's HTTP+JSON binding: operations travel over
    /// it instead of JSON-RPC.
    pub rest: Option<String>,
    pub token: Option<String>,
    /// Bound on each exchange and each stream without its own `timeout_ms`.
    pub timeout: Duration,
    /// Gate every level, not only MUST.
    pub strict: bool,
    /// Read the draft files' dialect ([`draft`]).
    pub draft: bool,
}

/// Loads `path` and runs every test in it, in document order.
pub async fn run(path: &Path, options: &ActsOptions) -> Result<ActsReport, String> {
    let started = Instant::now();
    let documents = document::load(path)?;
    let first = documents
        .first()
        .ok_or_else(|| format!("{} holds no ACTS document", path.display()))?;
    let (acts_version, spec_version) = (first.acts_version.clone(), first.spec_version.clone());
    let executor = exec::Executor::new(
        &options.url,
        options.rest.as_deref(),
        options.token.clone(),
        &spec_version,
        options.timeout,
        options.draft,
    )
    .await?;
    let text = |key: &str| {
        executor
            .card()
            .and_then(|c| c.get(key))
            .and_then(|v| v.as_str())
            .unwrap_or("unknown")
            .to_string()
    };
    let subject = Subject {
        name: text("name"),
        version: text("version"),
    };
    let mut suites = Vec::new();
    for doc in &documents {
        for suite in &doc.suites {
            let mut tests = Vec::new();
            for written in &suite.tests {
                tests.push(executor.run(doc, written).await);
            }
            suites.push(SuiteRecord {
                id: suite.id.clone(),
                name: suite.name.clone(),
                tests,
            });
        }
    }
    Ok(ActsReport {
        acts_version,
        spec_version,
        generated_at: report::now_iso8601(),
        subject,
        duration_ms: started.elapsed().as_millis() as u64,
        suites,
        strict: options.strict,
        transport: executor.binding(),
    })
}
