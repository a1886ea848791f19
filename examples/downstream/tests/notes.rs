//! The example extension served by the contract's server over loopback HTTP,
//! beside the standard methods, and called with the contract's client: the
//! typed stub, the exact wire values of its result and errors, a standard
//! method on the same endpoint, and the Agent Card declaring both extensions;
//! then the conformance runner over the whole, given the extension's schema,
//! over HTTP and over the stdio binding.

use a2a::rpc::{CallError, Transport};
use a2a::types::{
    GetTaskRequest, Message, Part, PartContent, SendMessageRequest, SendMessageResponse, TaskState,
};
use client::{Client, HttpConfig, HttpTransport};
use notes::client::NotesClient;
use notes::types::{EchoParams, EchoResult, Role};
use serde_json::{json, Value};
use std::num::NonZeroU64;
use tokio::sync::oneshot;

/// A running loopback server of the example; stops when dropped.
struct Agent {
    url: String,
    _stop: oneshot::Sender<()>,
}

async fn start() -> Agent {
    start_with(notes::server_config(
        "127.0.0.1:0".parse().expect("loopback address"),
    ))
    .await
}

async fn start_with(config: server::ServerConfig) -> Agent {
    let dispatch = notes::dispatch().expect("the application opens in memory");
    let server = server::HttpServer::bind(config, dispatch)
        .await
        .expect("bind loopback");
    let addr = server.local_addr().expect("bound address");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(server.serve(async {
        let _ = stopped.await;
    }));
    Agent {
        url: format!("http://{addr}/"),
        _stop: stop,
    }
}

/// The conformance runner's connector to `agent`.
fn connector(agent: &Agent) -> conformance::transport::HttpConnector {
    conformance::transport::HttpConnector {
        url: agent.url.clone(),
        token: None,
        timeout: std::time::Duration::from_secs(30),
        card_url: None,
    }
}

/// The strict profile with the extension's schema, on `groups` (empty: the
/// profile's own).
fn strict_with_notes(groups: &[&str]) -> conformance::RunOptions {
    let extension = conformance::extension::Extension::parse(notes::extension::SCHEMA_JSON)
        .expect("the schema the crate was built from");
    let mut options = conformance::RunOptions {
        extensions: vec![std::sync::Arc::new(extension)],
        ..conformance::RunOptions::with_profile(conformance::Profile::Strict)
    };
    if !groups.is_empty() {
        options.groups = groups.iter().map(|g| g.to_string()).collect();
    }
    options
}

/// Runs the strict profile with the extension's schema over `connector`;
/// no case may fail.
async fn passes_strictly(connector: &dyn conformance::transport::Connector) -> conformance::Report {
    let report = conformance::run(connector, &strict_with_notes(&[])).await;
    let failures: Vec<String> = report
        .cases
        .iter()
        .filter(|c| c.outcome.is_failure())
        .map(|c| format!("{}: {}", c.id, c.detail))
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
    report
}

fn transport(agent: &Agent) -> HttpTransport {
    HttpTransport::new(HttpConfig::new(agent.url.clone())).expect("a loopback URL")
}

/// The JSON-RPC error of a call that must fail.
fn rpc_error(result: Result<Value, CallError>) -> a2a::rpc::Error {
    match result {
        Err(CallError::Rpc(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// The ErrorInfo `(reason, domain)` of an error's `data`.
fn error_info(error: &a2a::rpc::Error) -> (String, String) {
    let info = error
        .data
        .as_ref()
        .and_then(Value::as_array)
        .and_then(|d| d.iter().find(|e| e["@type"] == a2a::rpc::ERROR_INFO_TYPE))
        .unwrap_or_else(|| panic!("no ErrorInfo in {error:?}"));
    (
        info["reason"].as_str().unwrap_or_default().to_string(),
        info["domain"].as_str().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn the_typed_stub_calls_the_extension_method_on_the_contracts_client() {
    let agent = start().await;
    let client = Client::new(transport(&agent));
    let result = client
        .echo(EchoParams {
            text: "héllo".into(),
            times: NonZeroU64::new(3),
            author: Some(Role::Agent),
        })
        .await
        .expect("the extension answers");
    assert_eq!(
        result,
        EchoResult {
            echoes: vec!["héllo".into(), "héllo".into(), "héllo".into()],
            length: 5,
            author: Role::Agent,
        }
    );
}

#[tokio::test]
async fn the_extension_method_answers_exact_wire_values() {
    let agent = start().await;
    let transport = transport(&agent);
    let result = transport
        .call(
            "_notes/echo",
            json!({"text": "hello", "times": 2, "author": "ROLE_USER"}),
        )
        .await
        .expect("the example of the schema is answered");
    assert_eq!(
        result,
        json!({"echoes": ["hello", "hello"], "length": 5, "author": "ROLE_USER"})
    );
    // Absent `times` and `author` take their documented defaults; ProtoJSON's
    // snake_case and integer enum values are accepted on input.
    let result = transport
        .call("_notes/echo", json!({"text": "hi", "author": 2}))
        .await
        .expect("the defaults apply");
    assert_eq!(
        result,
        json!({"echoes": ["hi"], "length": 2, "author": "ROLE_AGENT"})
    );
}

#[tokio::test]
async fn the_extensions_errors_are_its_own_registry() {
    let agent = start().await;
    let transport = transport(&agent);
    let domain = notes::extension::ERROR_DOMAIN.to_string();

    let blank = rpc_error(transport.call("_notes/echo", json!({"text": "  "})).await);
    assert_eq!(blank.code, -32050);
    assert_eq!(
        blank.message,
        "the note's text is blank: there is nothing to echo"
    );
    assert_eq!(error_info(&blank), ("BLANK_TEXT".to_string(), domain.clone()));

    let missing = rpc_error(transport.call("_notes/echo", json!({"times": 1})).await);
    assert_eq!(missing.code, -32602);
    assert_eq!(
        error_info(&missing),
        ("INVALID_PARAMS".to_string(), domain.clone())
    );

    let too_many = rpc_error(
        transport
            .call("_notes/echo", json!({"text": "x", "times": 6}))
            .await,
    );
    assert_eq!(too_many.code, -32602);
    assert_eq!(too_many.message, "`times` is at most 5");

    let unknown = rpc_error(transport.call("_notes/nothing", json!({})).await);
    assert_eq!(unknown.code, -32601);
    assert_eq!(error_info(&unknown), ("METHOD_NOT_FOUND".to_string(), domain));

    // A name outside the prefix is the contract's to answer, in its domain.
    let standard = rpc_error(transport.call("NoSuchMethod", json!({})).await);
    assert_eq!(standard.code, -32601);
    assert_eq!(
        error_info(&standard),
        ("METHOD_NOT_FOUND".to_string(), "a2a-protocol.org".to_string())
    );
}

#[tokio::test]
async fn a_standard_method_is_served_on_the_same_endpoint() {
    let agent = start().await;
    let client = Client::new(transport(&agent));
    let sent = client
        .send_message(SendMessageRequest {
            message: Message {
                message_id: "notes-example-1".into(),
                role: Role::User,
                parts: vec![Part {
                    content: PartContent::Text("hello".into()),
                    filename: None,
                    media_type: None,
                    metadata: None,
                }],
                context_id: None,
                task_id: None,
                extensions: Vec::new(),
                metadata: None,
                reference_task_ids: Vec::new(),
            },
            configuration: None,
            metadata: None,
            tenant: None,
        })
        .await
        .expect("SendMessage is answered by the application");
    let SendMessageResponse::Task(task) = sent else {
        panic!("the application answers a task: {sent:?}");
    };
    assert_eq!(task.status.state, TaskState::Completed);
    let read = client
        .get_task(GetTaskRequest {
            id: task.id.clone(),
            history_length: None,
            current_generation: None,
            tenant: None,
        })
        .await
        .expect("GetTask finds the task");
    assert_eq!(read.id, task.id);
    assert_eq!(read.status.state, TaskState::Completed);
}

#[tokio::test]
async fn the_agent_card_declares_the_extension_beside_the_contracts() {
    let agent = start().await;
    let card = transport(&agent).agent_card().await.expect("the card is served");
    let extensions = card["capabilities"]["extensions"].as_array().expect("extensions");
    let uris: Vec<&str> = extensions.iter().filter_map(|e| e["uri"].as_str()).collect();
    assert_eq!(uris, ["urn:cleveragents:extensions:v1", "urn:example:notes:v1"]);
    assert_eq!(
        extensions[1],
        json!({
            "uri": "urn:example:notes:v1",
            "description": "Echoing a note back, with the A2A role of its author.",
            "required": false,
            "params": {"versions": ["1.0"], "methods": ["_notes/echo"]}
        })
    );
}

/// The conformance runner, given the extension's schema, gates the agent
/// under the strict profile: the contract's whole suite and the extension's
/// own cases pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformance_runner_passes_the_agent_with_the_extensions_schema() {
    use conformance::Outcome;
    let agent = start().await;
    let report = passes_strictly(&connector(&agent)).await;
    assert!(report.passed());
    assert!(
        report.notes.iter().all(|n| !n.contains("urn:example:notes:v1")),
        "{:?}",
        report.notes
    );
    let extension: Vec<(&str, &str, &str)> = report
        .cases
        .iter()
        .filter(|c| c.section == "urn:example:notes:v1")
        .map(|c| (c.id.as_str(), c.group.as_str(), c.detail.as_str()))
        .collect();
    assert_eq!(
        extension,
        [
            ("_notes/echo/example-1", "notes", "a valid `EchoResult`"),
            (
                "_notes/echo/missing/text",
                "notes",
                "error -32602 INVALID_PARAMS@urn:example:notes:v1"
            ),
            (
                "_notes/echo/wrong-type/text",
                "notes",
                "error -32602 INVALID_PARAMS@urn:example:notes:v1"
            ),
            (
                "_notes/echo/wrong-type/times",
                "notes",
                "error -32602 INVALID_PARAMS@urn:example:notes:v1"
            ),
            (
                "_notes/echo/wrong-type/author",
                "notes",
                "error -32602 INVALID_PARAMS@urn:example:notes:v1"
            ),
            (
                "_notes/echo/bad-enum/author",
                "notes",
                "error -32602 INVALID_PARAMS@urn:example:notes:v1"
            ),
            (
                "_notes/echo/params-not-object",
                "notes",
                "error -32602 INVALID_PARAMS@urn:example:notes:v1"
            ),
            (
                "versioning/unknown-method/notes",
                "versioning",
                "error -32601 METHOD_NOT_FOUND@urn:example:notes:v1"
            ),
        ]
    );
    assert!(report.cases.iter().all(|c| c.outcome == Outcome::Pass));
    // The contract's suite at its current schemas (847 cases: every method of
    // both files, the scenarios, the 0.3 group; a method added there moves
    // it, and a case on a 1.1 draft member applies only where the card
    // declares the draft, which this card does not) and the extension's 8
    // cases, all passed.
    let summary = &report.summary;
    assert_eq!(
        (summary.total, summary.passed, summary.failed, summary.warnings),
        (855, 855, 0, 0)
    );
}

/// An agent whose card does not declare the extension is not held to it: the
/// runner says so and calls none of its methods.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_the_card_does_not_declare_is_not_gated() {
    let mut config = notes::server_config("127.0.0.1:0".parse().expect("loopback address"));
    config.agent.extensions.clear();
    let agent = start_with(config).await;
    let (connector, options) = (connector(&agent), strict_with_notes(&["agent_card"]));
    let report = conformance::run(&connector, &options).await;
    assert!(report.passed());
    assert_eq!(
        report.notes,
        ["extension notes (urn:example:notes:v1) is not declared by the Agent Card: its 8 cases were not run"]
    );
    assert!(report.cases.iter().all(|c| c.section != "urn:example:notes:v1"));
}

/// Stdio sessions on in-memory pipes to the contract's stdio server, every
/// session over the one dispatcher of the example.
struct Stdio {
    dispatch: std::sync::Arc<dyn a2a::rpc::Dispatch>,
}

impl conformance::transport::Connector for Stdio {
    fn connect<'a>(
        &'a self,
        activation: conformance::transport::Activation<'a>,
    ) -> conformance::transport::BoxFuture<'a, Result<Box<dyn conformance::transport::Transport>, String>>
    {
        Box::pin(async move {
            let (client, agent) = tokio::io::duplex(1 << 20);
            let (agent_in, agent_out) = tokio::io::split(agent);
            let dispatch = self.dispatch.clone();
            let config = notes::server_config("127.0.0.1:0".parse().expect("loopback address"));
            tokio::spawn(async move {
                let _ = server::serve_stdio(&config, dispatch, agent_in, agent_out).await;
            });
            let (client_in, client_out) = tokio::io::split(client);
            let transport = conformance::transport::StdioTransport::start(
                Box::new(client_in),
                Box::new(client_out),
                activation,
                std::time::Duration::from_secs(30),
                None,
            )
            .await?;
            Ok(Box::new(transport) as Box<dyn conformance::transport::Transport>)
        })
    }

    fn kind(&self) -> &'static str {
        "stdio"
    }
}

/// The same gate over the stdio binding: the card of `initialize` declares
/// the extension, and its cases pass there too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformance_runner_passes_the_agent_over_stdio() {
    let connector = Stdio {
        dispatch: notes::dispatch().expect("the application opens in memory"),
    };
    let report = passes_strictly(&connector).await;
    let extension = report
        .cases
        .iter()
        .filter(|c| c.section == "urn:example:notes:v1")
        .count();
    assert_eq!(extension, 8);
    // The same 847 + 8 cases as over HTTP.
    let summary = &report.summary;
    assert_eq!(
        (summary.total, summary.passed, summary.failed, summary.warnings),
        (855, 855, 0, 0)
    );
}
