//! What the compliance checks run against: real agents (the project's agent
//! binary on the conformance executor, one open, one with every
//! authentication scheme), a loopback OAuth 2.1 / OpenID Connect server,
//! a scripted A2A peer for what a well-behaved agent never does (an
//! `UNSPECIFIED` state, a dropped stream), card files, and the `agents`
//! binary run as a user would, each run in a home of its own.

#[path = "../../support/oauth_server.rs"]
mod oauth_server;

use crate::cli::{agents_command, Run};
use crate::drafts::agent_binary;
use oauth_server::{OAuthServer, ServerOptions, TestClient};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The bearer token the secured agent accepts.
pub const BEARER: &str = "compliance-bearer-7f3a";
/// The API key the secured agent accepts, in its `key` query parameter.
pub const API_KEY: &str = "compliance-key-91c2";
/// The OAuth client of the device flow (public).
pub const DEVICE_CLIENT: &str = "cli";
/// The OAuth client of the client credentials flow.
pub const CI_CLIENT: &str = "ci";
/// Its secret.
pub const CI_SECRET: &str = "ci-secret-55d1";

/// A real agent on a loopback port; killed on drop.
pub struct Agent {
    child: Child,
    /// Its origin, `http://127.0.0.1:PORT/`.
    pub url: String,
}

impl Agent {
    /// The agent binary with `args`, serving HTTP on an ephemeral port.
    pub fn launch(args: &[&str]) -> Agent {
        let mut child = Command::new(agent_binary())
            .args(["--memory", "--executor", "tck", "--listen", "127.0.0.1:0"])
            .args(args)
            .env_remove("CLEVERAGENTS_DRAFT_VERSIONS")
            .env_remove("CLEVERAGENTS_EXECUTOR")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("agent starts");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let mut said = Vec::new();
        let url = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|line| {
                let url = line
                    .strip_prefix("cleveragents-agent: listening on ")
                    .map(|u| u.trim().to_string());
                said.push(line);
                url
            })
            .unwrap_or_else(|| panic!("the agent {args:?} did not start: {}", said.join("\n")));
        std::thread::spawn(move || lines.for_each(drop));
        Agent { child, url }
    }

    /// `host:port`, as a person types it.
    pub fn host(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One run of `agents`, with what it was given.
pub struct Invocation<'a> {
    pub args: Vec<String>,
    pub env: Vec<(&'a str, String)>,
    pub stdin: Option<&'a str>,
    pub home: Option<&'a Path>,
    pub cwd: Option<&'a Path>,
}

impl<'a> Invocation<'a> {
    pub fn new(args: &[&str]) -> Self {
        Invocation {
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Vec::new(),
            stdin: None,
            home: None,
            cwd: None,
        }
    }

    pub fn env(mut self, name: &'a str, value: impl Into<String>) -> Self {
        self.env.push((name, value.into()));
        self
    }

    pub fn stdin(mut self, text: &'a str) -> Self {
        self.stdin = Some(text);
        self
    }

    pub fn home(mut self, home: &'a Path) -> Self {
        self.home = Some(home);
        self
    }

    pub fn cwd(mut self, cwd: &'a Path) -> Self {
        self.cwd = Some(cwd);
        self
    }

    /// Runs it.
    pub fn run(self) -> Run {
        let no_data = std::env::temp_dir().join(format!("agents-compliance-no-data-{}", std::process::id()));
        let mut command = agents_command();
        command
            .args(&self.args)
            .env(a2a::rpc::local::DATA_DIR_ENV, &no_data);
        if let Some(home) = self.home {
            command.env("HOME", home).current_dir(home);
        }
        if let Some(cwd) = self.cwd {
            command.current_dir(cwd);
        }
        for (name, value) in &self.env {
            command.env(name, value);
        }
        command.stdin(if self.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("agents runs");
        if let Some(text) = self.stdin {
            if let Some(mut input) = child.stdin.take() {
                let _ = input.write_all(text.as_bytes());
            }
        }
        let output = child.wait_with_output().expect("agents ends");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// `agents ARGS`.
pub fn cli(args: &[&str]) -> Run {
    Invocation::new(args).run()
}

/// Builds `bin` of `package` beside `agents` (as the agent binary is), so
/// the run uses this tree's.
pub fn build_companion(package: &str, bin: &str) {
    let agents = PathBuf::from(env!("CARGO_BIN_EXE_agents"));
    let release = agents
        .parent()
        .and_then(|d| d.file_name())
        .is_some_and(|n| n == "release");
    if let Some(cargo) = std::env::var_os("CARGO") {
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "-p", package, "--bin", bin]);
        if release {
            build.arg("--release");
        }
        let status = build
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building {bin} failed");
    }
}

/// A directory of its own under the test's temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agents-compliance-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A file of the workspace's test keys.
pub fn test_key(name: &str) -> PathBuf {
    crate::agent::test_key(name)
}

/// A scripted A2A peer over JSON-RPC: what it answers each method is its
/// script's business; it counts the calls of each method.
pub struct Peer {
    pub url: String,
    calls: Arc<Mutex<Vec<String>>>,
}

/// What the peer answers.
pub enum Answer {
    /// A JSON-RPC result.
    Result(Value),
    /// An SSE stream of these results, then the connection closed.
    Events(Vec<Value>),
    /// A plain HTTP status with no body.
    Status(u16),
    /// A document (a card, a catalog) at a GET path.
    Document(Value),
}

type Script = dyn Fn(&str, usize, &Value) -> Answer + Send + Sync;

impl Peer {
    /// Starts a peer answering by `script(method or GET path, how many calls
    /// of it came before, params)`.
    pub fn start(script: impl Fn(&str, usize, &Value) -> Answer + Send + Sync + 'static) -> Peer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/", listener.local_addr().expect("addr"));
        let calls = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let seen = calls.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let script = script.clone();
                let seen = seen.clone();
                std::thread::spawn(move || serve(stream, &*script, &seen));
            }
        });
        Peer { url, calls }
    }

    /// How many calls of `method` came.
    pub fn calls(&self, method: &str) -> usize {
        self.calls
            .lock()
            .map(|c| c.iter().filter(|m| *m == method).count())
            .unwrap_or(0)
    }
}

/// One HTTP/1.1 exchange (the client sends one request per connection or
/// keeps it alive; both are served).
fn serve(stream: std::net::TcpStream, script: &Script, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut out = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0usize;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0u8; length];
        if std::io::Read::read_exact(&mut reader, &mut body).is_err() {
            return;
        }
        let mut parts = request_line.split_whitespace();
        let (verb, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
        let (name, id, params) = if verb == "GET" {
            (path.to_string(), Value::Null, Value::Null)
        } else {
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            (
                request["method"].as_str().unwrap_or("").to_string(),
                request["id"].clone(),
                request["params"].clone(),
            )
        };
        let before = {
            let mut calls = seen.lock().expect("calls");
            let before = calls.iter().filter(|m| **m == name).count();
            calls.push(name.clone());
            before
        };
        let reply = |status: &str, kind: &str, body: &str| {
            format!(
                "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        let text = match script(&name, before, &params) {
            Answer::Result(result) => reply(
                "200 OK",
                "application/json",
                &json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
            ),
            Answer::Document(document) => reply("200 OK", "application/json", &document.to_string()),
            Answer::Status(code) => reply(&format!("{code} Scripted"), "text/plain", ""),
            Answer::Events(events) => {
                let mut body = String::new();
                for (seq, event) in events.iter().enumerate() {
                    let line = json!({"jsonrpc": "2.0", "id": id, "result": event});
                    body.push_str(&format!("id: {}\ndata: {line}\n\n", seq + 1));
                }
                // Closed with the body: the stream stops where the script ends it.
                let _ = out.write_all(
                    format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{body}")
                        .as_bytes(),
                );
                return;
            }
        };
        if out.write_all(text.as_bytes()).is_err() {
            return;
        }
    }
}

/// A card for the peer (or any agent at `url`), JSON-RPC only.
pub fn card_at(url: &str, streaming: bool) -> Value {
    json!({
        "name": "Scripted peer",
        "description": "Answers as its script says.",
        "version": "1.0.0",
        "supportedInterfaces": [{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": streaming, "pushNotifications": false},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": []
    })
}

/// A task in `state`.
pub fn task(id: &str, state: &str) -> Value {
    json!({"id": id, "contextId": format!("{id}-ctx"), "status": {"state": state}})
}

/// Everything the checks share.
pub struct Lab {
    /// The open agent (no authentication; signed card; push to loopback allowed).
    pub open: Agent,
    /// The agent with every scheme: API key in a query parameter, bearer,
    /// OAuth2 (client credentials), OpenID Connect (device flow and client
    /// credentials by discovery), JWTs; an extended card.
    pub secured: Agent,
    /// The OAuth server the secured agent trusts.
    pub oauth: OAuthServer,
    /// Its runtime (kept alive for the server's tasks).
    _runtime: tokio::runtime::Runtime,
    /// Files the checks write.
    pub dir: PathBuf,
    counter: AtomicUsize,
}

impl Lab {
    pub fn start() -> Lab {
        let dir = scratch("lab");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let oauth = runtime
            .block_on(OAuthServer::start(
                ServerOptions {
                    subject: Some("tester".into()),
                    ..ServerOptions::default()
                },
                vec![
                    TestClient::public(DEVICE_CLIENT),
                    TestClient::confidential(CI_CLIENT, CI_SECRET),
                ],
            ))
            .expect("OAuth server");
        let keys = [
            ("test-es256", "ES256", "es256.pem"),
            ("test-rs256", "RS256", "rs256.pem"),
        ];
        let signing: Vec<Value> = keys
            .iter()
            .map(|(kid, algorithm, file)| json!({"kid": kid, "algorithm": algorithm, "private_key_file": test_key(file)}))
            .collect();
        let open_config = dir.join("open.json");
        std::fs::write(
            &open_config,
            json!({
                "server": {"agent": {"card_signing_keys": signing}},
                "push": {"allow_list": ["127.0.0.1"]}
            })
            .to_string(),
        )
        .expect("config");
        let open = Agent::launch(&[
            "--insecure-no-auth",
            "--config",
            open_config.to_str().expect("path"),
        ]);
        let admin = json!({"*": "admin"});
        let secured_config = dir.join("secured.json");
        std::fs::write(
            &secured_config,
            json!({
                "server": {
                    "agent": {"capabilities": {"extended_agent_card": true}},
                    "auth": {
                        "api_key_location": "query",
                        "api_key_name": "key",
                        "api_keys": [{"secret": API_KEY, "subject": "tester"}],
                        "bearer_tokens": [{"secret": BEARER, "subject": "tester"}],
                        "jwt": oauth.agent_jwt_config(),
                        // The card declares one flow (a proto one-of); the device flow comes
                        // through OpenID Connect discovery.
                        "oauth2": {"flows": {"clientCredentials": {
                            "tokenUrl": oauth.token_url(),
                            "scopes": {}
                        }}},
                        "openid_connect": {"url": oauth.openid_configuration_url()},
                        "principals": [{"subject": "tester", "namespaces": admin}]
                    }
                }
            })
            .to_string(),
        )
        .expect("config");
        let secured = Agent::launch(&["--config", secured_config.to_str().expect("path")]);
        Lab {
            open,
            secured,
            oauth,
            _runtime: runtime,
            dir,
            counter: AtomicUsize::new(0),
        }
    }

    /// A file of the lab's holding `text`.
    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let path = self.dir.join(format!("{n}-{name}"));
        std::fs::write(&path, text).expect("file");
        path
    }

    /// The open agent's card, as served.
    pub fn open_card(&self) -> Value {
        let run = cli(&["-a", &self.open.url, "-o", "json", "card", "get"]);
        serde_json::from_str(&run.stdout).expect("card")
    }

    /// A card file: the open agent's card changed by `edit`.
    pub fn card_file(&self, edit: impl FnOnce(&mut Value)) -> String {
        let mut card = self.open_card();
        card.as_object_mut().map(|c| c.remove("signatures"));
        edit(&mut card);
        self.file("card.json", &card.to_string()).display().to_string()
    }
}
