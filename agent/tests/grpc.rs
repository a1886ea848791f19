//! The gRPC binding on the real agent, beside JSON-RPC on the same port:
//! our client's calls answer what JSON-RPC answers, errors carry the
//! registry's status with the ErrorInfo, a deadline cuts an open stream, and
//! bad input — an unknown rpc, a malformed or compressed or oversize message,
//! a body of two messages, an unsupported encoding, a 0.3 caller, a missing
//! credential — gets a clean status and leaves the agent serving; a client
//! that never reads holds no more than its own stream budget.

mod common;

use a2a::rpc::{CallError, Transport};
use a2a::ErrorKind;
use client::{GrpcTransport, HttpConfig, HttpTransport};
use common::ServerAgent;
use futures_util::StreamExt;
use grpc::{Code, Status};
use serde_json::{json, Value};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The answer to a raw gRPC request: its status (from the trailers, or the
/// headers of a trailers-only answer) and its messages.
struct Raw {
    status: Status,
    messages: Vec<Vec<u8>>,
}

/// Posts `body` to the rpc at `path` with `headers`, over HTTP/2.
async fn raw(agent: &ServerAgent, path: &str, body: Vec<u8>, headers: &[(&str, &str)]) -> Raw {
    let h2 = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .expect("client");
    let mut request = h2
        .post(format!("http://{}{path}", agent.addr()))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("an answer");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["content-type"], "application/grpc");
    let head = response.headers().clone();
    let body = http::Response::from(response).into_body();
    let answer = grpc::answer::collect(&head, body, 1 << 20)
        .await
        .expect("a gRPC answer");
    Raw {
        status: answer.status,
        messages: answer.messages.iter().map(|m| m.to_vec()).collect(),
    }
}

/// The protobuf of `json` as the request of the rpc of `method`.
fn request(method: &str, json: Value) -> Vec<u8> {
    let rpc = grpc::Service::contract()
        .expect("compiles")
        .rpc_of(method)
        .expect("an rpc");
    let message =
        grpc::transcode::from_json(&rpc.input, &json.to_string(), ErrorKind::InvalidParams).expect("fits");
    grpc::frame::encode(&message).to_vec()
}

/// The head of a gRPC call to `path` in A2A 1.0, for a raw HTTP/2 client.
fn grpc_head(agent: &ServerAgent, path: &str) -> http::Request<()> {
    http::Request::post(format!("http://{}{path}", agent.addr()))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header(V1.0, V1.1)
        .body(())
        .expect("request")
}

const GET_TASK: &str = "/lf.a2a.v1.A2AService/GetTask";
const V1: (&str, &str) = ("a2a-version", "1.0");

fn clients(agent: &ServerAgent) -> (GrpcTransport, HttpTransport) {
    let grpc = GrpcTransport::new(HttpConfig::new(&agent.endpoint)).expect("gRPC transport");
    let http = HttpTransport::new(HttpConfig::new(&agent.endpoint)).expect("HTTP transport");
    (grpc, http)
}

#[test]
fn calls_over_grpc_answer_what_json_rpc_answers() {
    let agent = ServerAgent::start_with(&["--memory", "--executor", "tck"]);
    let (grpc, http) = clients(&agent);
    runtime().block_on(async {
        let message = json!({"message": {"messageId": "grpc-1", "role": "ROLE_USER",
                                         "parts": [{"text": "hello"}], "metadata": {"n": 1.0}}});
        let sent = grpc
            .call("SendMessage", message)
            .await
            .expect("SendMessage over gRPC");
        let task_id = sent["task"]["id"].as_str().expect("a task").to_string();
        assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
        let params = json!({"id": task_id, "historyLength": 5});
        let over_grpc = grpc.call("GetTask", params.clone()).await.expect("GetTask");
        let over_http = http.call("GetTask", params).await.expect("GetTask");
        assert_eq!(over_grpc, over_http);
        assert_eq!(over_grpc, sent["task"]);
        // A list is the same, `nextPageToken: ""` included (the schema requires it).
        let listed = grpc.call("ListTasks", json!({})).await.expect("ListTasks");
        assert_eq!(listed["nextPageToken"], "");
        assert_eq!(
            listed,
            http.call("ListTasks", json!({})).await.expect("ListTasks")
        );

        // A stream: the task, then its updates, as JSON-RPC streams them (a
        // message naming no suite behaviour gets the default executor's echo).
        let stream =
            json!({"message": {"messageId": "grpc-2", "role": "ROLE_USER", "parts": [{"text": "s"}]}});
        let events: Vec<Value> = grpc
            .subscribe("SendStreamingMessage", stream)
            .await
            .expect("a stream")
            .map(|event| event.expect("an event").data)
            .collect()
            .await;
        assert_eq!(events.len(), 3, "{events:?}");
        assert_eq!(events[0]["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
        assert_eq!(events[1]["statusUpdate"]["status"]["state"], "TASK_STATE_WORKING");
        assert_eq!(
            events[2]["statusUpdate"]["status"]["state"],
            "TASK_STATE_COMPLETED"
        );
        assert_eq!(
            events[2]["statusUpdate"]["status"]["message"]["parts"][0]["text"],
            "Received: s"
        );
        assert_eq!(events[2]["statusUpdate"]["taskId"], events[0]["task"]["id"]);

        // Errors are the contract's, with the registry's code and ErrorInfo.
        let error = grpc
            .call("GetTask", json!({"id": "no-such-task"}))
            .await
            .expect_err("unknown task");
        let CallError::Rpc(error) = error else {
            panic!("{error:?}")
        };
        assert!(error.is(ErrorKind::TaskNotFound), "{error}");
        assert_eq!(error.message, "Task `no-such-task` not found");
        let error = grpc
            .call("CancelTask", json!({"id": task_id}))
            .await
            .expect_err("a finished task");
        let CallError::Rpc(error) = error else {
            panic!("{error:?}")
        };
        assert!(error.is(ErrorKind::TaskNotCancelable), "{error}");
    });
}

#[test]
fn statuses_on_the_wire_are_the_registrys() {
    let agent = ServerAgent::start_with(&["--memory", "--executor", "tck"]);
    runtime().block_on(async {
        let answer = raw(
            &agent,
            GET_TASK,
            request("GetTask", json!({"id": "missing"})),
            &[V1],
        )
        .await;
        assert_eq!(answer.status.code, Code::NotFound);
        assert_eq!(answer.status.message, "Task `missing` not found");
        let error = answer.status.error.expect("the contract error");
        assert_eq!(
            error.domain_reason(),
            Some(("a2a-protocol.org", "TASK_NOT_FOUND"))
        );
        assert_eq!(error.code, -32001);
        assert!(answer.messages.is_empty());

        // A 0.3 caller is refused: gRPC serves 1.0.
        let answer = raw(
            &agent,
            GET_TASK,
            request("GetTask", json!({"id": "x"})),
            &[("a2a-version", "0.3")],
        )
        .await;
        assert_eq!(answer.status.code, Code::FailedPrecondition);
        let error = answer.status.error.expect("the contract error");
        assert!(error.is(ErrorKind::VersionNotSupported), "{error}");
        assert_eq!(error.metadata("supportedVersions"), Some("1.0"));
    });
}

/// A refused request: what it is, its path, body and headers, the status it gets.
type Case<'a> = (&'a str, &'a str, Vec<u8>, Vec<(&'a str, &'a str)>, Code, &'a str);

#[test]
fn bad_input_gets_a_clean_status_and_changes_nothing() {
    let agent = ServerAgent::start_with(&["--memory", "--executor", "tck"]);
    runtime().block_on(async {
        let valid = request("GetTask", json!({"id": "missing"}));
        let cases: Vec<Case> = vec![
            ("unknown rpc", "/lf.a2a.v1.A2AService/Nothing", valid.clone(), vec![V1], Code::Unimplemented,
             "no rpc at `/lf.a2a.v1.A2AService/Nothing`"),
            ("unknown service", "/x.Y/GetTask", valid.clone(), vec![V1], Code::Unimplemented,
             "no rpc at `/x.Y/GetTask`"),
            ("no message", GET_TASK, Vec::new(), vec![V1], Code::Internal, "the request carries no message"),
            ("a cut prefix", GET_TASK, vec![0, 0, 0], vec![V1], Code::Internal,
             "the request ends inside a message: 2 bytes of a length-prefixed message are missing"),
            ("a cut message", GET_TASK, valid[..valid.len() - 1].to_vec(), vec![V1], Code::Internal,
             "the request ends inside a message: 1 bytes of a length-prefixed message are missing"),
            ("two messages", GET_TASK, [valid.clone(), valid.clone()].concat(), vec![V1], Code::Internal,
             "the request carries more than one message; the method takes one"),
            ("a compressed message", GET_TASK, [&[1u8][..], &valid[1..]].concat(), vec![V1], Code::Internal,
             "the message is compressed; this peer accepts uncompressed messages only (grpc-accept-encoding: identity)"),
            ("gzip", GET_TASK, valid.clone(), vec![V1, ("grpc-encoding", "gzip")], Code::Unimplemented,
             "messages are accepted uncompressed only (grpc-accept-encoding: identity)"),
            ("a bad deadline", GET_TASK, valid.clone(), vec![V1, ("grpc-timeout", "soon")], Code::Internal,
             "the grpc-timeout header is malformed"),
            ("a declared length over the limit", GET_TASK, vec![0, 0xff, 0xff, 0xff, 0xff], vec![V1],
             Code::ResourceExhausted, "the message of 4294967295 bytes exceeds the limit of 4194304 bytes"),
        ];
        for (what, path, body, headers, code, message) in cases {
            let answer = raw(&agent, path, body, &headers).await;
            assert_eq!((answer.status.code, answer.status.message.as_str()), (code, message), "{what}");
            assert!(answer.messages.is_empty(), "{what}");
        }
        // Not protobuf: field 1 says 5 bytes follow, 1 does.
        let answer = raw(&agent, GET_TASK, grpc::frame::encode(&[0x0a, 0x05, b'a']).to_vec(), &[V1]).await;
        assert_eq!(answer.status.code, Code::InvalidArgument);
        let error = answer.status.error.expect("the contract error");
        assert!(error.is(ErrorKind::ParseError), "{error}");
        assert!(error.message.starts_with("the message is not a valid lf.a2a.v1.GetTaskRequest"), "{error}");
        // Unknown fields are skipped (proto3): field 999 beside the id.
        let mut message = request("GetTask", json!({"id": "missing"}))[5..].to_vec();
        message.extend_from_slice(&[0xf8, 0x3e, 0x07]);
        let answer = raw(&agent, GET_TASK, grpc::frame::encode(&message).to_vec(), &[V1]).await;
        assert_eq!(answer.status.code, Code::NotFound);
        // A body over the limit, sent whole.
        let huge = json!({"message": {"messageId": "big", "role": "ROLE_USER",
                                      "parts": [{"text": "x".repeat(5 << 20)}]}});
        let answer = raw(&agent, "/lf.a2a.v1.A2AService/SendMessage", request("SendMessage", huge), &[V1]).await;
        assert_eq!(
            (answer.status.code, answer.status.message.as_str()),
            (Code::ResourceExhausted, "the request exceeds the limit of 4194304 bytes for a message")
        );
        // And the agent still answers, with nothing stored by the refusals.
        let (grpc, _) = clients(&agent);
        let listed = grpc.call("ListTasks", json!({})).await.expect("ListTasks");
        assert_eq!((&listed["totalSize"], &listed["tasks"]), (&json!(0), &json!([])), "{listed}");
    });
}

#[test]
fn a_deadline_cuts_an_open_stream_and_a_dropped_stream_frees_its_slot() {
    let agent = ServerAgent::start_with(&["--memory", "--executor", "tck"]);
    let (grpc, _) = clients(&agent);
    runtime().block_on(async {
        // The TCK executor leaves this task waiting for input.
        let open = json!({"message": {"messageId": "tck-input-required-grpc", "role": "ROLE_USER",
                                      "parts": [{"text": "wait"}]},
                          "configuration": {"returnImmediately": true}});
        let sent = grpc.call("SendMessage", open).await.expect("SendMessage");
        let task_id = sent["task"]["id"].as_str().expect("a task").to_string();
        let subscribe = request("SubscribeToTask", json!({"id": task_id}));
        let path = "/lf.a2a.v1.A2AService/SubscribeToTask";
        let answer = raw(&agent, path, subscribe, &[V1, ("grpc-timeout", "1S")]).await;
        assert_eq!(
            answer.status.code,
            Code::DeadlineExceeded,
            "{}",
            answer.status.message
        );
        assert_eq!(answer.status.message, "the call's deadline (grpc-timeout) passed");
        // The task as it is (unless the deadline came first), then nothing.
        assert!(answer.messages.len() <= 1, "{}", answer.messages.len());
        let rpc = grpc::Service::contract()
            .expect("compiles")
            .rpc_of("SubscribeToTask")
            .expect("rpc");
        for message in &answer.messages {
            let first = grpc::transcode::to_json(&rpc.output, message).expect("a StreamResponse");
            assert_eq!(first["task"]["id"], task_id.as_str());
        }
        // More streams opened and dropped than a caller may hold at once:
        // each drop gives its slot back. The agent learns of a drop when the
        // stream's reset reaches it, so an open refused for a full budget is
        // tried again, for a bounded while.
        for _ in 0..40 {
            let mut refusals = 0;
            let mut events = loop {
                match grpc.subscribe("SubscribeToTask", json!({"id": task_id})).await {
                    Ok(events) => break events,
                    Err(CallError::Rpc(error)) if error.metadata("limit") == Some("16") && refusals < 200 => {
                        refusals += 1;
                        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
                    }
                    Err(error) => panic!("a stream: {error}"),
                }
            };
            let first = events.next().await.expect("an event").expect("the task");
            assert_eq!(first.data["task"]["id"], task_id.as_str());
        }
    });
}

#[test]
fn credentials_travel_as_metadata() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("agent.json");
    let credential = json!({"secret": "grpc-key", "subject": "grpc-admin"});
    std::fs::write(
        &config,
        json!({"server": {"auth": {
            "api_keys": [credential],
            "principals": [{"subject": "grpc-admin", "namespaces": {"default": "admin"}}],
        }}})
        .to_string(),
    )
    .expect("config written");
    let agent = ServerAgent::start_with(&["--memory", "--config", config.to_str().expect("utf-8 path")]);
    runtime().block_on(async {
        // No credential: refused before the message is looked at.
        let answer = raw(&agent, GET_TASK, request("GetTask", json!({"id": "t"})), &[V1]).await;
        assert_eq!(
            answer.status.code,
            Code::Unauthenticated,
            "{}",
            answer.status.message
        );
        let error = answer.status.error.expect("the contract error");
        assert!(error.is(ErrorKind::ExtAuthRequired), "{error}");
        let answer = raw(
            &agent,
            GET_TASK,
            request("GetTask", json!({"id": "t"})),
            &[V1, ("x-api-key", "wrong")],
        )
        .await;
        assert_eq!(answer.status.code, Code::Unauthenticated);
        // The API key in metadata: the call runs (and finds no such task).
        let answer = raw(
            &agent,
            GET_TASK,
            request("GetTask", json!({"id": "t"})),
            &[V1, ("x-api-key", "grpc-key")],
        )
        .await;
        assert_eq!(answer.status.code, Code::NotFound, "{}", answer.status.message);
        // Our client sends it as the HTTP transport does.
        let mut config = HttpConfig::new(&agent.endpoint);
        config.credentials = client::Credentials::ApiKey {
            header: "X-API-Key".into(),
            key: "grpc-key".into(),
        };
        let grpc = GrpcTransport::new(config).expect("gRPC transport");
        let listed = grpc.call("ListTasks", json!({})).await.expect("ListTasks");
        assert_eq!(listed["totalSize"], 0);
    });
}

#[test]
fn a_client_that_never_reads_holds_only_its_own_streams() {
    let agent = ServerAgent::start_with(&["--memory", "--executor", "tck"]);
    let (grpc, _) = clients(&agent);
    runtime().block_on(async {
        let open = json!({"message": {"messageId": "tck-input-required-slow", "role": "ROLE_USER",
                                      "parts": [{"text": "wait"}]},
                          "configuration": {"returnImmediately": true}});
        let sent = grpc.call("SendMessage", open).await.expect("SendMessage");
        let task_id = sent["task"]["id"].as_str().expect("a task").to_string();
        // A connection whose window admits 16 bytes and that reads nothing:
        // its subscriptions are answered, then stall on flow control.
        let tcp = tokio::net::TcpStream::connect(agent.addr())
            .await
            .expect("connect");
        let (send, connection) = h2::client::Builder::new()
            .initial_window_size(16)
            .handshake::<_, bytes::Bytes>(tcp)
            .await
            .expect("handshake");
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let body = request("SubscribeToTask", json!({"id": task_id}));
        let mut held = Vec::new();
        for _ in 0..16 {
            let head = grpc_head(&agent, "/lf.a2a.v1.A2AService/SubscribeToTask");
            let mut send = send.clone().ready().await.expect("ready");
            let (answer, mut stream) = send.send_request(head, false).expect("send");
            stream.send_data(body.clone().into(), true).expect("body");
            let answer = answer.await.expect("headers");
            assert_eq!(answer.status().as_u16(), 200);
            assert!(
                !answer.headers().contains_key("grpc-status"),
                "answered, not refused"
            );
            held.push(answer);
        }
        // The caller's budget is spent: a 17th is refused with the limit…
        let error = match grpc.subscribe("SubscribeToTask", json!({"id": task_id})).await {
            Ok(_) => panic!("a 17th stream opened"),
            Err(CallError::Rpc(error)) => error,
            Err(other) => panic!("{other}"),
        };
        assert_eq!(error.metadata("limit"), Some("16"), "{error}");
        assert_eq!(error.metadata("grpcStatus"), None, "the contract error itself");
        // …and unary calls from others run as ever.
        let got = grpc
            .call("GetTask", json!({"id": task_id}))
            .await
            .expect("GetTask");
        assert_eq!(got["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
        drop(held);
    });
}

/// An agent whose API key `grpc-key` travels at `location` under `name`.
fn keyed_agent(dir: &std::path::Path, location: &str, name: &str) -> ServerAgent {
    let config = dir.join(format!("{location}.json"));
    std::fs::write(
        &config,
        json!({"server": {"auth": {
            "api_key_location": location,
            "api_key_name": name,
            "api_keys": [{"secret": "grpc-key", "subject": "grpc-admin"}],
            "principals": [{"subject": "grpc-admin", "namespaces": {"default": "admin"}}],
        }}})
        .to_string(),
    )
    .expect("config written");
    ServerAgent::start_with(&["--memory", "--config", config.to_str().expect("utf-8 path")])
}

#[test]
fn an_api_key_travels_as_the_metadata_the_card_names() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cookie = keyed_agent(dir.path(), "cookie", "a2a_key");
    let query = keyed_agent(dir.path(), "query", "api_key");
    runtime().block_on(async {
        let get_task = || request("GetTask", json!({"id": "t"}));
        // A cookie travels as `cookie` metadata: the call runs (and finds no such task).
        for jar in ["a2a_key=grpc-key", "theme=dark; a2a_key=\"grpc-key\""] {
            let answer = raw(&cookie, GET_TASK, get_task(), &[V1, ("cookie", jar)]).await;
            assert_eq!(answer.status.code, Code::NotFound, "{}", answer.status.message);
        }
        // The key under the cookie's name as metadata of its own is no credential.
        let answer = raw(&cookie, GET_TASK, get_task(), &[V1, ("a2a_key", "grpc-key")]).await;
        assert_eq!(answer.status.code, Code::Unauthenticated);
        assert_eq!(answer.status.message, "Authentication required");
        let answer = raw(&cookie, GET_TASK, get_task(), &[V1, ("cookie", "a2a_key=wrong")]).await;
        assert_eq!(answer.status.code, Code::Unauthenticated);
        assert_eq!(answer.status.message, "Invalid credentials: unknown API key");

        // A gRPC call has no query string: with the key declared there, no
        // metadata carries it, and the HTTP bindings of the same agent take it.
        for metadata in [
            ("api_key", "grpc-key"),
            ("x-api-key", "grpc-key"),
            ("cookie", "api_key=grpc-key"),
        ] {
            let answer = raw(&query, GET_TASK, get_task(), &[V1, metadata]).await;
            assert_eq!(answer.status.code, Code::Unauthenticated, "{metadata:?}");
            assert_eq!(answer.status.message, "Authentication required");
        }
    });
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t"}});
    let reply = common::http::post_to(&query.addr(), "/?api_key=grpc-key", &[], &call);
    assert_eq!(reply.error().expect("no such task")["code"], -32001);
}

/// A client's socket that counts the arrivals of the agent's bytes: a read
/// that brings bytes after the socket had none counts one arrival; reads
/// that follow it before the socket runs dry belong to the same one.
struct CountedArrivals {
    tcp: tokio::net::TcpStream,
    arrivals: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    dry: bool,
}

impl tokio::io::AsyncRead for CountedArrivals {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        let polled = std::pin::Pin::new(&mut this.tcp).poll_read(cx, buf);
        match &polled {
            std::task::Poll::Pending => this.dry = true,
            std::task::Poll::Ready(Ok(())) if buf.filled().len() > before && this.dry => {
                this.dry = false;
                this.arrivals.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            std::task::Poll::Ready(_) => {}
        }
        polled
    }
}

impl tokio::io::AsyncWrite for CountedArrivals {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.tcp).poll_write(cx, buf)
    }
    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.tcp).poll_flush(cx)
    }
    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

#[test]
fn a_unary_answer_leaves_the_agent_in_one_write() {
    let agent = ServerAgent::start_with(&["--memory", "--executor", "tck"]);
    let (grpc, _) = clients(&agent);
    runtime().block_on(async {
        // A task whose message is past the 256 bytes from which HTTP/2 would
        // write it by reference, apart from the trailers after it.
        let text = "a message long enough to make the task's answer a few hundred bytes ".repeat(4);
        let sent = grpc
            .call(
                "SendMessage",
                json!({"message": {"messageId": "one-write", "role": "ROLE_USER", "parts": [{"text": text}]}}),
            )
            .await
            .expect("SendMessage");
        let task_id = sent["task"]["id"].as_str().expect("a task").to_string();
        let arrivals = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let tcp = tokio::net::TcpStream::connect(agent.addr()).await.expect("connect");
        tcp.set_nodelay(true).expect("nodelay");
        let socket = CountedArrivals {
            tcp,
            arrivals: arrivals.clone(),
            dry: true,
        };
        let (send, connection) = h2::client::handshake(socket)
            .await
            .expect("handshake");
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let body = request("GetTask", json!({"id": task_id}));
        // The first call also meets the connection's settings; the others
        // are the steady state, one arrival each: headers, message and
        // trailers together.
        for call in 0..20 {
            let head = grpc_head(&agent, GET_TASK);
            let mut send = send.clone().ready().await.expect("ready");
            let (answer, mut stream) = send.send_request(head, false).expect("send");
            let before = arrivals.load(std::sync::atomic::Ordering::SeqCst);
            stream.send_data(body.clone().into(), true).expect("body");
            let mut answer = answer.await.expect("headers").into_body();
            let mut message = 0;
            while let Some(chunk) = answer.data().await {
                let chunk = chunk.expect("data");
                message += chunk.len();
                let _ = answer.flow_control().release_capacity(chunk.len());
            }
            let trailers = answer.trailers().await.expect("trailers").expect("some");
            assert_eq!(trailers["grpc-status"], "0");
            assert!(message > 256, "the message is {message} bytes");
            if call > 0 {
                let after = arrivals.load(std::sync::atomic::Ordering::SeqCst);
                assert_eq!(after - before, 1, "call {call}: the answer came in {} arrivals", after - before);
            }
        }
    });
}
