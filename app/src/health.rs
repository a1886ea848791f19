//! Health and diagnostics (`_cleveragents/health/check`,
//! `_cleveragents/diagnostics/run`).
//!
//! The health check probes each component cheaply (one store read, the task
//! engine's and the push queue's locks) and reports problems in the result,
//! never as errors. Diagnostics (admin only) run the store's integrity check,
//! report the contract versions this build implements and the effective
//! configuration with secrets redacted.

use crate::config::{AppConfig, ExecutorKind};
use crate::push::PushDelivery;
use crate::store::StoreHandle;
use crate::store::STORE_SCHEMA_VERSION;
use crate::tasks::TaskEngine;
use crate::util::{self, Family};
use a2a::rpc::{CallContext, Error};
use a2a::types::{
    ComponentHealth, ConfigurationEntry, ConfigurationSource, ContractVersions, DiagnosticCheckKind,
    DiagnosticFinding, DiagnosticOutcome, DiagnosticsReport, DiagnosticsRunParams, HealthCheckParams,
    HealthReport, HealthStatus, StoreIntegrityReport,
};
use a2a::Contract;
use std::sync::Arc;
use std::time::Instant;

const FAMILY: Family = Family::Ext;

/// Version of this server software.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The components `health/check` knows, in report order (by name).
pub const COMPONENTS: [&str; 4] = ["events", "executor", "push-delivery", "store"];

/// Configuration keys whose values are always redacted.
fn looks_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    [
        "secret",
        "token",
        "password",
        "apikey",
        "api_key",
        "credential",
        "private",
    ]
    .iter()
    .any(|s| key.contains(s))
}

fn severity(status: HealthStatus) -> u8 {
    match status {
        HealthStatus::Healthy => 0,
        HealthStatus::Degraded => 1,
        HealthStatus::Unhealthy => 2,
    }
}

fn outcome_rank(outcome: DiagnosticOutcome) -> u8 {
    match outcome {
        DiagnosticOutcome::Pass => 0,
        DiagnosticOutcome::Warn => 1,
        DiagnosticOutcome::Fail => 2,
    }
}

fn elapsed_ms(start: Instant) -> Option<i64> {
    Some(i64::try_from(start.elapsed().as_millis()).unwrap_or(i64::MAX))
}

fn component(name: &str, result: Result<(), String>, latency_ms: Option<i64>) -> ComponentHealth {
    match result {
        Ok(()) => ComponentHealth {
            name: name.to_string(),
            status: HealthStatus::Healthy,
            message: None,
            latency_ms,
        },
        Err(message) => ComponentHealth {
            name: name.to_string(),
            status: HealthStatus::Unhealthy,
            message: Some(message),
            latency_ms,
        },
    }
}

/// Parses a configuration source name as reported in [`crate::AppConfig::reported_settings`].
fn source_of(name: &str) -> ConfigurationSource {
    let name = name.trim().to_ascii_lowercase();
    let name = name.strip_prefix("configuration_source_").unwrap_or(&name);
    match name {
        "file" => ConfigurationSource::File,
        "env" | "environment" => ConfigurationSource::Environment,
        "cli" | "command_line" | "command-line" | "commandline" | "flag" | "argument" => {
            ConfigurationSource::CommandLine
        }
        _ => ConfigurationSource::Default,
    }
}

fn entry(key: &str, value: String, source: ConfigurationSource, secret: bool) -> ConfigurationEntry {
    let redacted = secret || looks_secret(key);
    ConfigurationEntry {
        key: key.to_string(),
        value: if redacted { "***".to_string() } else { value },
        source,
        redacted,
    }
}

/// The versions of the contract this build implements.
pub fn contract_versions() -> ContractVersions {
    ContractVersions {
        a2a_protocol_version: Contract::A2a
            .released_protocol_version()
            .unwrap_or_default()
            .to_string(),
        extension_uri: Contract::Cleveragents
            .extension_uri()
            .unwrap_or(util::EXTENSION_URI)
            .to_string(),
        extension_versions: Contract::Cleveragents
            .versions()
            .iter()
            .map(|v| v.to_string())
            .collect(),
        stdio_binding_uri: a2a::STDIO_BINDING_URI.to_string(),
        server_version: SERVER_VERSION.to_string(),
        schema_sha256: None,
    }
}

/// The health and diagnostics service.
#[derive(Clone)]
pub struct HealthService {
    db: StoreHandle,
    engine: TaskEngine,
    push: Arc<PushDelivery>,
    /// What the application runs with, as diagnostics report it.
    config: AppConfig,
}

impl HealthService {
    pub fn new(db: StoreHandle, engine: TaskEngine, push: Arc<PushDelivery>, config: AppConfig) -> Self {
        HealthService {
            db,
            engine,
            push,
            config,
        }
    }

    pub async fn check(&self, _ctx: &CallContext, params: HealthCheckParams) -> Result<HealthReport, Error> {
        for (i, name) in params.components.iter().enumerate() {
            if !COMPONENTS.contains(&name.as_str()) {
                return Err(FAMILY.invalid_params(
                    &format!("components[{i}]"),
                    &format!("unknown component `{name}`; known: {}", COMPONENTS.join(", ")),
                ));
            }
        }
        let wanted = |name: &str| params.components.is_empty() || params.components.iter().any(|c| c == name);
        let mut components = vec![];
        if wanted("events") {
            let start = Instant::now();
            let result = self.engine.probe().map(|_| ());
            components.push(component("events", result, elapsed_ms(start)));
        }
        if wanted("executor") {
            components.push(component("executor", Ok(()), Some(0)));
        }
        if wanted("push-delivery") {
            let start = Instant::now();
            let result = self.push.probe().map(|_| ());
            components.push(component("push-delivery", result, elapsed_ms(start)));
        }
        if wanted("store") {
            let start = Instant::now();
            // The cheapest read there is: a document that never exists.
            let result = self
                .db
                .store()
                .get_doc("health", "", "probe")
                .await
                .map(|_| ())
                .map_err(|e| e.to_string());
            components.push(component("store", result, elapsed_ms(start)));
        }
        let status = components
            .iter()
            .map(|c| c.status)
            .max_by_key(|s| severity(*s))
            .unwrap_or(HealthStatus::Healthy);
        Ok(HealthReport {
            status,
            checked_at: util::now(),
            server_version: SERVER_VERSION.to_string(),
            components,
        })
    }

    /// The effective configuration, sorted by key, secrets redacted.
    fn configuration(&self) -> Vec<ConfigurationEntry> {
        use ConfigurationSource::Default;
        let c = &self.config;
        let executor = match c.executor {
            ExecutorKind::Default => "default",
            ExecutorKind::Tck => "tck",
        };
        let mut entries = vec![
            entry("executor", executor.into(), Default, false),
            entry("store.backend", self.db.store().backend().into(), Default, false),
            entry("push.allowList", c.push.allow_list.join(","), Default, false),
            entry(
                "push.maxAttempts",
                c.push.max_attempts.to_string(),
                Default,
                false,
            ),
            entry(
                "push.initialBackoffMs",
                c.push.initial_backoff.as_millis().to_string(),
                Default,
                false,
            ),
            entry(
                "push.timeoutMs",
                c.push.timeout.as_millis().to_string(),
                Default,
                false,
            ),
            entry(
                "push.leaseMs",
                c.push.lease.as_millis().to_string(),
                Default,
                false,
            ),
            entry(
                "agentCard.extended",
                c.extended_agent_card.is_some().to_string(),
                Default,
                false,
            ),
            entry("members.principals", c.members.len().to_string(), Default, false),
            // Remote URLs may carry credentials: only their names are reported.
            entry(
                "sync.remotes",
                c.sync_remotes.keys().cloned().collect::<Vec<_>>().join(","),
                Default,
                false,
            ),
        ];
        for (key, value, source, secret) in &c.reported_settings {
            entries.retain(|e| &e.key != key);
            entries.push(entry(key, value.clone(), source_of(source), *secret));
        }
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        entries
    }

    pub async fn diagnostics(&self, params: DiagnosticsRunParams) -> Result<DiagnosticsReport, Error> {
        let started_at = util::now();
        let run = |kind: DiagnosticCheckKind| params.checks.is_empty() || params.checks.contains(&kind);
        let mut findings = vec![];
        let mut outcome = DiagnosticOutcome::Pass;
        let mut store_integrity = None;
        if run(DiagnosticCheckKind::StoreIntegrity) {
            let deep = params.deep.unwrap_or(false);
            let report = match self.db.store().check_integrity(deep).await {
                Ok(integrity) => {
                    let pass = integrity.problems.is_empty();
                    StoreIntegrityReport {
                        backend: self.db.store().backend().to_string(),
                        store_schema_version: i32::try_from(STORE_SCHEMA_VERSION).unwrap_or(i32::MAX),
                        outcome: if pass {
                            DiagnosticOutcome::Pass
                        } else {
                            DiagnosticOutcome::Fail
                        },
                        deep,
                        checked_objects: i64::try_from(integrity.checked_objects).unwrap_or(i64::MAX),
                        problems: integrity.problems,
                    }
                }
                Err(e) => StoreIntegrityReport {
                    backend: self.db.store().backend().to_string(),
                    store_schema_version: i32::try_from(STORE_SCHEMA_VERSION).unwrap_or(i32::MAX),
                    outcome: DiagnosticOutcome::Fail,
                    deep,
                    checked_objects: 0,
                    problems: vec![format!("the integrity check could not run: {e}")],
                },
            };
            if report.outcome != DiagnosticOutcome::Pass {
                findings.push(DiagnosticFinding {
                    check: DiagnosticCheckKind::StoreIntegrity,
                    outcome: report.outcome,
                    message: format!("The store reports {} problem(s).", report.problems.len()),
                });
            }
            store_integrity = Some(report);
        }
        let versions = run(DiagnosticCheckKind::Versions).then(contract_versions);
        let mut configuration = vec![];
        if run(DiagnosticCheckKind::Configuration) {
            configuration = self.configuration();
            if !self.config.push.allow_list.is_empty() {
                findings.push(DiagnosticFinding {
                    check: DiagnosticCheckKind::Configuration,
                    outcome: DiagnosticOutcome::Warn,
                    message: format!(
                        "push.allowList is not empty ({}); webhooks may reach internal hosts.",
                        self.config.push.allow_list.join(", ")
                    ),
                });
            }
        }
        for finding in &findings {
            if outcome_rank(finding.outcome) > outcome_rank(outcome) {
                outcome = finding.outcome;
            }
        }
        Ok(DiagnosticsReport {
            outcome,
            started_at,
            finished_at: util::now(),
            store_integrity,
            versions,
            configuration,
            findings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_by_flag_or_name() {
        let e = entry("auth.apiKeys", "k1".into(), source_of("file"), false);
        assert_eq!((e.value.as_str(), e.redacted), ("***", true));
        assert_eq!(e.source, ConfigurationSource::File);
        let e = entry("limits.maxBodyBytes", "42".into(), source_of("env"), false);
        assert_eq!((e.value.as_str(), e.redacted), ("42", false));
        assert_eq!(e.source, ConfigurationSource::Environment);
        let e = entry("db.url", "postgres://u:p@h".into(), source_of("?"), true);
        assert_eq!((e.value.as_str(), e.redacted), ("***", true));
        assert_eq!(e.source, ConfigurationSource::Default);
    }
}
