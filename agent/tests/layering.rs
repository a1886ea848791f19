//! The workspace's layering, read from `cargo metadata` over what each crate
//! links (normal and build dependencies, direct or transitive; dev-dependencies
//! are for tests only):
//!
//! - the contract crates (the generated crate and the runtime under it) perform
//!   no I/O: no async runtime, network, process or storage crate; the runtime
//!   does not link the generated crate;
//! - the client (and the `agents` CLI) links neither the application, nor the
//!   server, nor any storage crate;
//! - the server knows nothing of the application, and the application nothing
//!   of the server;
//! - the store API (with its memory backend) links no database; each durable
//!   backend is a crate of its own that links its database alone; the
//!   application links the API only, so the composer chooses the backends,
//!   and the agent built without its default feature links no PostgreSQL;
//! - the agent binary is the one crate that composes the application and the
//!   server for users; the fuzz harness drives the same composition in process
//!   so inputs reach the application as on stdio, the downstream example
//!   composes it as a crate with an extension of its own would, and the
//!   interop kit's participant composes it with the kit's behaviours.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Crates that would give a contract crate I/O.
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

/// Storage crates a client must never pull in.
const STORAGE_CRATES: &[&str] = &[
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

const CONTRACT: &str = "cleveragents-a2a";
const RUNTIME: &str = "cleveragents-a2a-runtime";
const APP: &str = "cleveragents-app";
const SERVER: &str = "cleveragents-server";
const CLIENT: &str = "cleveragents-client";
const AGENT: &str = "cleveragents-agent";
const FUZZ: &str = "cleveragents-fuzz";
const DOWNSTREAM: &str = "cleveragents-example-downstream";
const ITK: &str = "cleveragents-itk";
const STORE: &str = "cleveragents-store";
const STORE_SQLITE: &str = "cleveragents-store-sqlite";
const STORE_POSTGRES: &str = "cleveragents-store-postgres";
const SQLITE_CRATES: &[&str] = &["rusqlite", "libsqlite3-sys"];
const POSTGRES_CRATES: &[&str] = &["tokio-postgres", "postgres-protocol"];

/// Package name → every package name it links.
struct Graph {
    linked: BTreeMap<String, BTreeSet<String>>,
    workspace: BTreeSet<String>,
}

impl Graph {
    fn load() -> Graph {
        Graph::load_with(&[])
    }

    /// The graph with `flags` given to `cargo metadata` (features, say).
    fn load_with(flags: &[&str]) -> Graph {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let output = Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml"))
            .args(flags)
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
            .filter_map(|p| Some((p["id"].as_str()?, p["name"].as_str()?)))
            .collect();
        let nodes: BTreeMap<&str, &Value> = metadata["resolve"]["nodes"]
            .as_array()
            .expect("resolve graph")
            .iter()
            .filter_map(|n| Some((n["id"].as_str()?, n)))
            .collect();
        let members: Vec<&str> = metadata["workspace_members"]
            .as_array()
            .expect("workspace members")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let mut linked = BTreeMap::new();
        for root in &members {
            let mut seen = BTreeSet::new();
            let mut stack = vec![*root];
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
                    let shipped = dep["dep_kinds"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|k| k["kind"].as_str() != Some("dev"));
                    if let (true, Some(pkg)) = (shipped, dep["pkg"].as_str()) {
                        stack.push(pkg);
                    }
                }
            }
            seen.remove(root);
            linked.insert(
                names[root].to_string(),
                seen.iter().map(|id| names[id].to_string()).collect(),
            );
        }
        let workspace = members.iter().map(|id| names[id].to_string()).collect();
        Graph { linked, workspace }
    }

    fn links(&self, package: &str) -> &BTreeSet<String> {
        self.linked
            .get(package)
            .unwrap_or_else(|| panic!("{package} is not a workspace member"))
    }

    fn offending<'a>(&self, package: &str, forbidden: &[&'a str]) -> Vec<&'a str> {
        let links = self.links(package);
        forbidden.iter().copied().filter(|f| links.contains(*f)).collect()
    }
}

#[test]
fn the_contract_crate_performs_no_io() {
    let graph = Graph::load();
    assert!(
        graph.links(CONTRACT).contains("serde_json"),
        "the walk found the real dependencies"
    );
    assert_eq!(graph.offending(CONTRACT, IO_CRATES), Vec::<&str>::new());
}

#[test]
fn the_contract_runtime_performs_no_io_and_knows_no_generated_code() {
    let graph = Graph::load();
    assert!(
        graph.links(RUNTIME).contains("serde_json"),
        "the walk found the real dependencies"
    );
    assert!(
        graph.links(CONTRACT).contains(RUNTIME),
        "the contract crate stands on the runtime"
    );
    assert_eq!(graph.offending(RUNTIME, IO_CRATES), Vec::<&str>::new());
    assert_eq!(graph.offending(RUNTIME, &[CONTRACT]), Vec::<&str>::new());
}

#[test]
fn the_client_links_neither_the_application_nor_the_server_nor_storage() {
    let graph = Graph::load();
    assert!(graph.links(CLIENT).contains(CONTRACT));
    assert_eq!(graph.offending(CLIENT, &[APP, SERVER]), Vec::<&str>::new());
    assert_eq!(graph.offending(CLIENT, STORAGE_CRATES), Vec::<&str>::new());
}

#[test]
fn the_server_and_the_application_do_not_know_each_other() {
    let graph = Graph::load();
    assert_eq!(graph.offending(SERVER, &[APP]), Vec::<&str>::new());
    assert_eq!(graph.offending(APP, &[SERVER]), Vec::<&str>::new());
    assert_eq!(graph.offending(SERVER, STORAGE_CRATES), Vec::<&str>::new());
}

#[test]
fn only_the_agent_the_harnesses_and_the_downstream_example_compose_the_application_and_the_server() {
    let graph = Graph::load();
    let composers: Vec<&String> = graph
        .workspace
        .iter()
        .filter(|p| {
            let links = graph.links(p);
            links.contains(APP) && links.contains(SERVER)
        })
        .collect();
    assert_eq!(composers, vec![AGENT, DOWNSTREAM, FUZZ, ITK]);
}

#[test]
fn each_store_backend_links_its_own_database_and_the_application_none() {
    let graph = Graph::load();
    assert!(
        graph.links(APP).contains(STORE),
        "the application stands on the store API"
    );
    assert_eq!(graph.offending(STORE, STORAGE_CRATES), Vec::<&str>::new());
    assert_eq!(
        graph.offending(STORE, &[STORE_SQLITE, STORE_POSTGRES, APP, SERVER]),
        Vec::<&str>::new()
    );
    assert!(graph.links(STORE_SQLITE).contains("rusqlite"));
    assert_eq!(graph.offending(STORE_SQLITE, POSTGRES_CRATES), Vec::<&str>::new());
    assert!(graph.links(STORE_POSTGRES).contains("tokio-postgres"));
    assert_eq!(graph.offending(STORE_POSTGRES, SQLITE_CRATES), Vec::<&str>::new());
    for backend in [STORE_SQLITE, STORE_POSTGRES] {
        assert_eq!(
            graph.offending(backend, &[APP, SERVER]),
            Vec::<&str>::new(),
            "{backend}"
        );
    }
    assert_eq!(
        graph.offending(APP, &[STORE_SQLITE, STORE_POSTGRES]),
        Vec::<&str>::new()
    );
    assert_eq!(graph.offending(APP, STORAGE_CRATES), Vec::<&str>::new());
    assert!(
        graph.links(AGENT).contains(STORE_POSTGRES),
        "PostgreSQL is on by default"
    );
    let without_postgres = Graph::load_with(&["--no-default-features"]);
    assert_eq!(
        without_postgres.offending(AGENT, &[STORE_POSTGRES]),
        Vec::<&str>::new()
    );
    assert_eq!(
        without_postgres.offending(AGENT, POSTGRES_CRATES),
        Vec::<&str>::new()
    );
    assert!(without_postgres.links(AGENT).contains(STORE_SQLITE));
}
