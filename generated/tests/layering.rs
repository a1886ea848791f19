//! The contract crate performs no I/O: none of its normal (non-dev)
//! dependencies, direct or transitive, is a runtime, network, process or
//! storage crate.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

const IO_CRATES: &[&str] = &[
    "tokio",
    "mio",
    "async-std",
    "smol",
    "hyper",
    "reqwest",
    "h2",
    "socket2",
    "rusqlite",
    "libsqlite3-sys",
    "sqlx",
    "postgres",
    "tokio-postgres",
    "rustls",
    "native-tls",
    "openssl",
    "ureq",
    "axum",
    "tower",
    "libc",
];

#[test]
fn contract_crate_depends_on_no_io_crate() {
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
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");

    let names: BTreeMap<&str, &str> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap_or_default(),
                p["name"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    let nodes: BTreeMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .expect("resolve graph")
        .iter()
        .map(|n| (n["id"].as_str().unwrap_or_default(), n))
        .collect();
    let root = names
        .iter()
        .find(|(_, name)| **name == "cleveragents-a2a")
        .map(|(id, _)| *id)
        .expect("contract crate in metadata");

    // Walk normal dependencies only (dev and build dependencies are not shipped).
    let mut seen = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().into_iter().flatten() {
            let normal = dep["dep_kinds"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|k| k["kind"].is_null());
            if normal {
                stack.push(dep["pkg"].as_str().unwrap_or_default());
            }
        }
    }
    let reached: BTreeSet<&str> = seen.iter().map(|id| names[id]).collect();
    assert!(
        reached.contains("serde_json"),
        "walk found the real dependencies: {reached:?}"
    );
    let io: Vec<&&str> = IO_CRATES.iter().filter(|c| reached.contains(**c)).collect();
    assert!(io.is_empty(), "the contract crate depends on I/O crates {io:?}");
}
