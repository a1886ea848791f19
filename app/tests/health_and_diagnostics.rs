//! health/check and diagnostics/run through the generated router: every
//! component reported with exact wire values, component filters, a failing
//! store reported in the result rather than as an error, store integrity and
//! versions, redacted configuration, selected checks, and that diagnostics
//! need an admin of the namespace.

mod common;
#[path = "common/wrapped.rs"]
mod wrapped;

use a2a::rpc::Access;
use a2a::Router;
use app::store::{Doc, Integrity, MemoryStore, StoreError, StoreResult};
use app::{App, AppConfig};
use common::{as_principal, call, code, local, names};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use wrapped::{Around, Wrapped};

/// A memory store whose reads fail and whose integrity check finds a problem.
struct Broken(MemoryStore);

impl Around for Broken {
    fn inner(&self) -> &MemoryStore {
        &self.0
    }
    fn backend(&self) -> &'static str {
        "broken"
    }
    fn get_doc(&self, _coll: &str, _namespace: &str, _key: &str) -> StoreResult<Option<Doc>> {
        Err(StoreError::Backend("disk on fire".into()))
    }
    fn check_integrity(&self, deep: bool) -> StoreResult<Integrity> {
        Ok(Integrity {
            checked_objects: 7,
            problems: vec![format!("row 3 is torn (deep {deep})")],
        })
    }
}

#[tokio::test]
async fn health_check_reports_every_component_healthy() {
    let router = Router::new(App::in_memory());
    let report = call(&router, &local(), "_cleveragents/health/check", json!({}))
        .await
        .expect("health");
    assert_eq!(report["status"], "HEALTH_STATUS_HEALTHY");
    assert_eq!(report["serverVersion"], env!("CARGO_PKG_VERSION"));
    assert_eq!(report["checkedAt"].as_str().map(str::len), Some(24));
    assert_eq!(
        names(&report["components"], "name"),
        ["events", "executor", "push-delivery", "store"]
    );
    for c in report["components"].as_array().into_iter().flatten() {
        assert_eq!(c["status"], "HEALTH_STATUS_HEALTHY", "{c}");
        assert!(c.get("message").is_none(), "{c}");
        assert!(c["latencyMs"].as_i64().is_some_and(|l| l >= 0), "{c}");
    }
}

#[tokio::test]
async fn health_check_filters_components_and_rejects_unknown_ones() {
    let router = Router::new(App::in_memory());
    let report = call(
        &router,
        &local(),
        "_cleveragents/health/check",
        json!({ "components": ["store"] }),
    )
    .await
    .expect("health");
    assert_eq!(names(&report["components"], "name"), ["store"]);
    let err = call(
        &router,
        &local(),
        "_cleveragents/health/check",
        json!({ "components": ["store", "warp-drive"] }),
    )
    .await
    .expect_err("unknown component");
    assert_eq!(err.code, -32602);
    assert_eq!(
        err.field_violations().first().map(|(f, _)| f.as_str()),
        Some("components[1]")
    );
}

#[tokio::test]
async fn health_check_reports_a_failing_store_in_the_result() {
    let app = App::with_store(
        Arc::new(Wrapped(Broken(MemoryStore::new()))),
        AppConfig::default(),
    );
    let router = Router::new(app);
    let report = call(&router, &local(), "_cleveragents/health/check", json!({}))
        .await
        .expect("an unhealthy component is not an error");
    assert_eq!(report["status"], "HEALTH_STATUS_UNHEALTHY");
    let store = report["components"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "store"))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(store["status"], "HEALTH_STATUS_UNHEALTHY");
    assert_eq!(store["message"], "storage failure: disk on fire");
}

#[tokio::test]
async fn diagnostics_report_store_versions_and_configuration() {
    let config = AppConfig {
        reported_settings: vec![
            ("auth.apiKeys".into(), "k-123".into(), "file".into(), true),
            (
                "limits.maxBodyBytes".into(),
                "4194304".into(),
                "default".into(),
                false,
            ),
            (
                "store.path".into(),
                "/var/lib/x".into(),
                "environment".into(),
                false,
            ),
            (
                "oauth.clientToken".into(),
                "t-9".into(),
                "command_line".into(),
                false,
            ),
        ],
        sync_remotes: BTreeMap::from([("team".into(), "https://user:pw@team.example".into())]),
        ..AppConfig::default()
    };
    let router = Router::new(App::with_store(Arc::new(MemoryStore::new()), config));
    let report = call(&router, &local(), "_cleveragents/diagnostics/run", json!({}))
        .await
        .expect("diagnostics");
    assert_eq!(report["outcome"], "DIAGNOSTIC_OUTCOME_PASS");
    assert_eq!(report["findings"], json!([]));
    assert_eq!(
        report["storeIntegrity"],
        json!({
            "backend": "memory", "storeSchemaVersion": 1, "outcome": "DIAGNOSTIC_OUTCOME_PASS",
            "deep": false, "checkedObjects": 0, "problems": []
        })
    );
    assert_eq!(
        report["versions"],
        json!({
            "a2aProtocolVersion": "1.0",
            "extensionUri": "urn:cleveragents:extensions:v1",
            "extensionVersions": ["1.1", "1.2"],
            "stdioBindingUri": "urn:cleveragents:bindings:stdio:v1",
            "serverVersion": env!("CARGO_PKG_VERSION"),
        })
    );
    let config = report["configuration"].as_array().cloned().unwrap_or_default();
    let keys: Vec<&str> = config.iter().filter_map(|e| e["key"].as_str()).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted, "configuration is sorted by key");
    let get = |key: &str| {
        config
            .iter()
            .find(|e| e["key"] == key)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        get("auth.apiKeys"),
        json!({ "key": "auth.apiKeys", "value": "***", "source": "CONFIGURATION_SOURCE_FILE", "redacted": true })
    );
    assert_eq!(
        get("store.path"),
        json!({ "key": "store.path", "value": "/var/lib/x", "source": "CONFIGURATION_SOURCE_ENVIRONMENT", "redacted": false })
    );
    assert_eq!(get("oauth.clientToken")["value"], "***");
    assert_eq!(
        get("oauth.clientToken")["source"],
        "CONFIGURATION_SOURCE_COMMAND_LINE"
    );
    assert_eq!(get("store.backend")["value"], "memory");
    assert_eq!(get("executor")["value"], "default");
    assert_eq!(
        get("sync.remotes")["value"],
        "team",
        "remote URLs are not reported"
    );
    assert!(!report.to_string().contains("k-123"));
    assert!(!report.to_string().contains("pw@"));
}

#[tokio::test]
async fn diagnostics_run_selected_checks_and_warn_on_private_push_targets() {
    let mut config = AppConfig::default();
    config.push.allow_list = vec!["127.0.0.1".into()];
    let router = Router::new(App::with_store(Arc::new(MemoryStore::new()), config));
    let only_versions = call(
        &router,
        &local(),
        "_cleveragents/diagnostics/run",
        json!({ "checks": ["DIAGNOSTIC_CHECK_KIND_VERSIONS"] }),
    )
    .await
    .expect("diagnostics");
    assert_eq!(only_versions["outcome"], "DIAGNOSTIC_OUTCOME_PASS");
    assert!(only_versions.get("storeIntegrity").is_none());
    assert!(only_versions.get("configuration").is_none());
    assert_eq!(
        only_versions["versions"]["extensionVersions"],
        json!(["1.1", "1.2"])
    );

    let report = call(
        &router,
        &local(),
        "_cleveragents/diagnostics/run",
        json!({ "checks": ["DIAGNOSTIC_CHECK_KIND_CONFIGURATION"] }),
    )
    .await
    .expect("diagnostics");
    assert_eq!(report["outcome"], "DIAGNOSTIC_OUTCOME_WARN");
    assert_eq!(
        report["findings"],
        json!([{
            "check": "DIAGNOSTIC_CHECK_KIND_CONFIGURATION",
            "outcome": "DIAGNOSTIC_OUTCOME_WARN",
            "message": "push.allowList is not empty (127.0.0.1); webhooks may reach internal hosts."
        }])
    );
}

#[tokio::test]
async fn diagnostics_report_integrity_problems_as_fail() {
    let app = App::with_store(
        Arc::new(Wrapped(Broken(MemoryStore::new()))),
        AppConfig::default(),
    );
    let router = Router::new(app);
    let report = call(
        &router,
        &local(),
        "_cleveragents/diagnostics/run",
        json!({ "deep": true }),
    )
    .await
    .expect("problems are not errors");
    assert_eq!(report["outcome"], "DIAGNOSTIC_OUTCOME_FAIL");
    assert_eq!(
        report["storeIntegrity"],
        json!({
            "backend": "broken", "storeSchemaVersion": 1, "outcome": "DIAGNOSTIC_OUTCOME_FAIL",
            "deep": true, "checkedObjects": 7, "problems": ["row 3 is torn (deep true)"]
        })
    );
    assert_eq!(
        report["findings"],
        json!([{
            "check": "DIAGNOSTIC_CHECK_KIND_STORE_INTEGRITY",
            "outcome": "DIAGNOSTIC_OUTCOME_FAIL",
            "message": "The store reports 1 problem(s)."
        }])
    );
}

#[tokio::test]
async fn diagnostics_need_admin() {
    let router = Router::new(App::in_memory());
    let method = "_cleveragents/diagnostics/run";
    let writer = as_principal("bob", &[("acme", Access::Writer)]);
    assert_eq!(
        code(&router, &writer, method, json!({ "namespace": "acme" })).await,
        -32003
    );
    let stranger = as_principal("eve", &[("other", Access::Admin)]);
    assert_eq!(
        code(&router, &stranger, method, json!({ "namespace": "acme" })).await,
        -32001
    );
    let admin = as_principal("alice", &[("acme", Access::Admin)]);
    assert_eq!(
        code(&router, &admin, method, json!({ "namespace": "acme" })).await,
        0
    );
    let wildcard = as_principal("root", &[("*", Access::Admin)]);
    assert_eq!(code(&router, &wildcard, method, json!({})).await, 0);
    assert_eq!(
        code(&router, &local(), method, json!({ "namespace": "acme" })).await,
        0
    );
}
