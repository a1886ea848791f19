//! Layering: from `cargo metadata`, neither the client library nor the `agents`
//! CLI (same package) depends, directly or transitively, on the application
//! crate or on any storage crate.

use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::process::Command;

/// Crates the client must never pull in.
const FORBIDDEN: &[&str] = &[
    "cleveragents-app",
    "rusqlite",
    "libsqlite3-sys",
    "sqlx",
    "postgres",
    "tokio-postgres",
    "diesel",
    "sled",
    "redb",
    "rocksdb",
    "heed",
];

#[test]
fn client_does_not_depend_on_app_or_storage() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata JSON");
    let names: HashMap<&str, &str> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .filter_map(|p| Some((p["id"].as_str()?, p["name"].as_str()?)))
        .collect();
    let nodes: HashMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .expect("resolve nodes")
        .iter()
        .filter_map(|n| Some((n["id"].as_str()?, n)))
        .collect();
    let root = names
        .iter()
        .find(|(_, name)| **name == "cleveragents-client")
        .map(|(id, _)| *id)
        .expect("client package");
    // Everything reachable through normal and build dependencies (what the
    // library and the binary link), not dev-dependencies (tests may use the
    // server crate).
    let mut seen = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in nodes
            .get(id)
            .and_then(|n| n["deps"].as_array())
            .into_iter()
            .flatten()
        {
            let linked = dep["dep_kinds"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|k| k["kind"].as_str() != Some("dev"));
            if let (true, Some(pkg)) = (linked, dep["pkg"].as_str()) {
                stack.push(pkg);
            }
        }
    }
    let reached: BTreeSet<&str> = seen.iter().filter_map(|id| names.get(id).copied()).collect();
    assert!(reached.contains("cleveragents-a2a"));
    let bad: Vec<&&str> = FORBIDDEN.iter().filter(|f| reached.contains(**f)).collect();
    assert!(bad.is_empty(), "client depends on {bad:?}");
    assert!(
        !reached.contains("cleveragents-server"),
        "client links the server crate"
    );
}
