//! The in-test agent: answers every method with its schema example, over stdio
//! (this executable re-run with `CLIENT_E2E_AGENT` set) and over HTTP.

use a2a::rpc::{BoxFuture, CallContext, Dispatch, Error, Event, Outcome, Params};
use a2a::{Contract, ErrorKind};
use client::StdioConfig;
use serde_json::{json, Value};
use server::{CredentialConfig, PrincipalConfig, Secret, ServerConfig};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

/// Set in the environment of a child that must act as the stdio agent.
pub const AGENT_ENV: &str = "CLIENT_E2E_AGENT";

pub const TOKEN: &str = "e2e-secret";

/// An API key of the same principal, as a local agent keeps it in its data directory.
pub const ADMIN_KEY: &str = "e2e-local-admin-key";

pub struct Example {
    pub params: Value,
    pub result: Option<Value>,
    pub events: Option<Vec<Value>>,
}

pub fn examples() -> &'static HashMap<String, Example> {
    static EXAMPLES: OnceLock<HashMap<String, Example>> = OnceLock::new();
    EXAMPLES.get_or_init(|| {
        let mut out = HashMap::new();
        for text in [
            include_str!("../../../schema/a2a.json"),
            include_str!("../../../schema/cleveragents-ext.json"),
        ] {
            let schema: Value = serde_json::from_str(text).expect("schema JSON");
            for (name, method) in schema["x-methods"].as_object().expect("x-methods") {
                let example = &method["examples"][0];
                out.insert(
                    name.clone(),
                    Example {
                        params: example["params"].clone(),
                        result: example.get("result").cloned(),
                        events: example.get("events").and_then(Value::as_array).cloned(),
                    },
                );
            }
        }
        out
    })
}

/// Validates like the router, then answers each method with its schema
/// example. Ids `missing` are not found; plan `done` is in a terminal state.
struct ExampleAgent;

impl Dispatch for ExampleAgent {
    fn dispatch_params<'a>(
        &'a self,
        ctx: CallContext,
        method: &'a str,
        params: Params,
    ) -> BoxFuture<'a, Outcome> {
        // The params as a value, as this dispatcher reads them.
        let params = params.into_json().ok().flatten();
        Box::pin(async move {
            let descriptor = match a2a::rpc::resolve(method, &ctx) {
                Ok(d) => d,
                Err(e) => return Outcome::Single(Err(e)),
            };
            let params = params.unwrap_or_else(|| json!({}));
            if let Err(reason) = (descriptor.roundtrip_params)(params.clone()) {
                return Outcome::Single(Err(Error::new(descriptor.contract.invalid_params(), reason)));
            }
            let id = params
                .get("id")
                .or_else(|| params.get("planId"))
                .and_then(Value::as_str);
            if id == Some("missing") {
                let kind = match descriptor.contract {
                    Contract::A2a => ErrorKind::TaskNotFound,
                    _ => ErrorKind::ExtNotFound,
                };
                return Outcome::Single(Err(Error::new(kind, "No such thing as `missing`\nhere")));
            }
            if id == Some("done") {
                return Outcome::Single(Err(Error::new(
                    ErrorKind::ExtInvalidState,
                    "Plan `done` already ended",
                )));
            }
            let example = &examples()[method];
            match &example.events {
                Some(events) if descriptor.streaming => {
                    let items: Vec<Result<Event<Value>, Error>> = events
                        .iter()
                        .enumerate()
                        .map(|(i, e)| Ok(Event::with_seq(i as u64 + 1, e.clone())))
                        .collect();
                    Outcome::from_values(Box::pin(futures_util::stream::iter(items)))
                }
                _ => Outcome::from_value(Ok(example.result.clone().unwrap_or(Value::Null))),
            }
        })
    }
}

fn agent_config() -> ServerConfig {
    let mut config = ServerConfig::default();
    config.http.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    config.agent.capabilities.push_notifications = true;
    config.agent.capabilities.extended_agent_card = Some(true);
    // The cards are signed; `card_keys` holds the public keys.
    config.agent.card_signing_keys = [
        ("test-es256", "ES256", "es256.pem"),
        ("test-rs256", "RS256", "rs256.pem"),
    ]
    .into_iter()
    .map(|(kid, algorithm, file)| server::CardSigningKey {
        kid: kid.into(),
        algorithm: algorithm.into(),
        private_key_file: test_key(file),
        jku: None,
    })
    .collect();
    config.auth.bearer_tokens = vec![CredentialConfig {
        secret: Secret::new(TOKEN),
        subject: "tester".into(),
    }];
    config.auth.api_keys = vec![CredentialConfig {
        secret: Secret::new(ADMIN_KEY),
        subject: "tester".into(),
    }];
    config.auth.principals = vec![PrincipalConfig {
        subject: "tester".into(),
        namespaces: BTreeMap::from([("*".to_string(), a2a::rpc::Access::Admin)]),
        default_namespace: None,
    }];
    config
}

/// A file of the workspace's test keys (`server/tests/keys`).
pub fn test_key(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../server/tests/keys")
        .join(name)
}

pub fn run_stdio_agent() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let result = runtime.block_on(server::serve_stdio(
        &agent_config(),
        Arc::new(ExampleAgent),
        tokio::io::stdin(),
        tokio::io::stdout(),
    ));
    std::process::exit(i32::from(result.is_err()));
}

/// The HTTP agent, started once and shared by the tests.
pub fn http_agent() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let server = server::HttpServer::bind(agent_config(), Arc::new(ExampleAgent))
                    .await
                    .expect("bind");
                tx.send(server.local_addr().expect("addr")).expect("send addr");
                let _ = server.serve(std::future::pending()).await;
            });
        });
        rx.recv().expect("server address")
    })
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

pub fn stdio_config() -> StdioConfig {
    let mut config = StdioConfig::new(std::env::current_exe().expect("test executable"));
    config.args = vec!["--stdio".into()];
    config
}

pub fn typed<T: serde::de::DeserializeOwned>(value: &Value) -> T {
    serde_json::from_value(value.clone()).expect("example decodes")
}
