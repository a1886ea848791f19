//! The participant as the interop kit runs it: the real binary on its two
//! ports, an instruction travelling from one participant to another over
//! every binding (plain, streamed, resubscribed), the client-parse
//! behaviour, and the two deviation passes.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

const BINARY: &str = env!("CARGO_BIN_EXE_itk-current-agent");

/// A participant on ephemeral loopback ports; killed on drop.
struct Participant {
    child: Child,
    origin: String,
}

impl Participant {
    fn start(envs: &[(&str, &str)]) -> Participant {
        let mut child = Command::new(BINARY)
            .args(["--httpPort", "0", "--grpcPort", "0"])
            .env_remove("ITK_ACTS_AUTH")
            .env_remove("ITK_ACTS_REDUCED_CAPABILITIES")
            .envs(envs.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the participant starts");
        let stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let line = stderr
            .lines()
            .take(20)
            .map(|l| l.expect("a log line"))
            .find(|l| l.starts_with("itk-current-agent: listening on "))
            .expect("the participant reports its address");
        let origin = line
            .trim_start_matches("itk-current-agent: listening on ")
            .split('/')
            .take(3)
            .collect::<Vec<_>>()
            .join("/");
        Participant { child, origin }
    }
}

impl Drop for Participant {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A raw JSON-RPC call: the HTTP status and the body.
async fn rpc(origin: &str, token: Option<&str>, method: &str, params: Value) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("{origin}/"))
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("an answer");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn card(origin: &str) -> Value {
    reqwest::Client::new()
        .get(format!("{origin}/.well-known/agent-card.json"))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .expect("the card")
        .json()
        .await
        .expect("JSON")
}

/// The protobuf of an instruction, encoded by hand as the kit's proto
/// defines it, so the test does not share the participant's codec.
mod wire {
    fn varint(mut n: u64, out: &mut Vec<u8>) {
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }
    fn field(tag: u32, bytes: &[u8], out: &mut Vec<u8>) {
        varint(u64::from(tag << 3 | 2), out);
        varint(bytes.len() as u64, out);
        out.extend_from_slice(bytes);
    }
    /// `Instruction { return_response: { response, hold_task } }`
    pub fn answer(text: &str, hold: bool) -> Vec<u8> {
        let mut inner = Vec::new();
        field(1, text.as_bytes(), &mut inner);
        if hold {
            inner.extend_from_slice(&[2 << 3, 1]);
        }
        let mut out = Vec::new();
        field(2, &inner, &mut out);
        out
    }
    /// `Instruction { call_agent: { transport, agent_card_uri, instruction,
    /// streaming, behavior } }` with behaviour field 5 (send) or 7 (resubscribe).
    pub fn call(transport: &str, uri: &str, nested: &[u8], streaming: bool, behavior: u32) -> Vec<u8> {
        let mut inner = Vec::new();
        field(1, transport.as_bytes(), &mut inner);
        field(2, uri.as_bytes(), &mut inner);
        field(3, nested, &mut inner);
        if streaming {
            inner.extend_from_slice(&[4 << 3, 1]);
        }
        field(behavior, &[], &mut inner);
        let mut out = Vec::new();
        field(1, &inner, &mut out);
        out
    }
    /// `Instruction { steps: { instructions, response_generator: CONCAT } }`
    pub fn series(steps: &[Vec<u8>]) -> Vec<u8> {
        let mut inner = Vec::new();
        for step in steps {
            field(1, step, &mut inner);
        }
        inner.extend_from_slice(&[2 << 3, 1]);
        let mut out = Vec::new();
        field(3, &inner, &mut out);
        out
    }
}

fn instruction_message(id: &str, bytes: &[u8]) -> Value {
    use base64::Engine as _;
    json!({"message": {"messageId": id, "role": "ROLE_USER", "parts": [{
        "raw": base64::engine::general_purpose::STANDARD.encode(bytes),
        "mediaType": "application/x-protobuf", "filename": "instruction.bin"}]}})
}

#[test]
fn an_instruction_travels_to_another_participant_over_every_binding() {
    let (a, b) = (Participant::start(&[]), Participant::start(&[]));
    runtime().block_on(async {
        // B's card names its own gRPC port, not its HTTP one.
        let b_card = card(&b.origin).await;
        let grpc = b_card["supportedInterfaces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["protocolBinding"] == "GRPC")
            .expect("a GRPC interface");
        assert_ne!(format!("http://{}", grpc["url"].as_str().unwrap()), b.origin);
        for transport in ["jsonrpc", "http_json", "grpc"] {
            for streaming in [false, true] {
                let reply = format!("from B over {transport}, streaming {streaming}");
                let steps = wire::series(&[
                    wire::answer("from A", false),
                    wire::call(transport, &b.origin, &wire::answer(&reply, false), streaming, 5),
                ]);
                let (status, body) =
                    rpc(&a.origin, None, "SendMessage", instruction_message("t-1", &steps)).await;
                assert_eq!(status, 200, "{body}");
                let task = &body["result"]["task"];
                assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{body}");
                assert_eq!(
                    task["status"]["message"]["parts"][0]["text"],
                    format!("from A\n{reply}"),
                    "{transport}"
                );
            }
        }
        // Resubscribed: B holds its task and says `task-finished`; A reads
        // until then and cancels it.
        let held = wire::call("grpc", &b.origin, &wire::answer("held", true), true, 7);
        let (_, body) = rpc(&a.origin, None, "SendMessage", instruction_message("t-2", &held)).await;
        assert_eq!(
            body["result"]["task"]["status"]["message"]["parts"][0]["text"], "held\n",
            "{body}"
        );
        let (_, listed) = rpc(&b.origin, None, "ListTasks", json!({})).await;
        let states: Vec<&str> = listed["result"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["status"]["state"].as_str().unwrap())
            .collect();
        assert_eq!(
            states.iter().filter(|s| **s == "TASK_STATE_CANCELED").count(),
            1,
            "{states:?}"
        );
        // A call to nowhere fails A's task with the reason.
        let nowhere = wire::call(
            "jsonrpc",
            "http://127.0.0.1:9",
            &wire::answer("x", false),
            false,
            5,
        );
        let (_, body) = rpc(
            &a.origin,
            None,
            "SendMessage",
            instruction_message("t-3", &nowhere),
        )
        .await;
        assert_eq!(
            body["result"]["task"]["status"]["state"], "TASK_STATE_FAILED",
            "{body}"
        );
    });
}

#[test]
fn a_canned_answer_is_parsed_with_our_client() {
    let a = Participant::start(&[]);
    runtime().block_on(async {
        let task = json!({"id": "task-xyz", "contextId": "ctx-1",
                          "status": {"state": "TASK_STATE_INPUT_REQUIRED", "timestamp": "2025-05-25T20:10:00Z"}});
        for (payload, parsed) in [
            (
                json!({"jsonrpc": "2.0", "id": "r-1", "result": {"task": task}}),
                json!({"task": task}),
            ),
            (
                json!({"jsonrpc": "2.0", "id": "r-2", "error": {"code": -32001, "message": "Task not found"}}),
                json!({"error": {"code": -32001, "message": "Task not found"}}),
            ),
        ] {
            let params = json!({"message": {"messageId": "p-1", "role": "ROLE_USER", "parts": [
                {"text": "tck-client-parse"},
                {"data": {"operation": "send_message", "wire_payload": payload}}]}});
            let (_, body) = rpc(&a.origin, None, "SendMessage", params).await;
            let result = &body["result"]["task"];
            assert_eq!(result["status"]["state"], "TASK_STATE_COMPLETED", "{body}");
            assert_eq!(result["artifacts"][0]["parts"][0]["data"], parsed);
        }
    });
}

#[test]
fn the_deviation_passes_reduce_capabilities_and_require_tokens() {
    let reduced = Participant::start(&[("ITK_ACTS_REDUCED_CAPABILITIES", "1")]);
    let auth = Participant::start(&[("ITK_ACTS_AUTH", "1")]);
    runtime().block_on(async {
        let capabilities = &card(&reduced.origin).await["capabilities"];
        assert_eq!(capabilities["streaming"], false);
        assert_eq!(capabilities["pushNotifications"], false);
        assert_eq!(capabilities["extendedAgentCard"], false);
        let message = json!({"message": {"messageId": "s-1", "role": "ROLE_USER",
                                          "parts": [{"text": "tck-stream-basic"}]}});
        let (_, body) = rpc(&reduced.origin, None, "SendStreamingMessage", message.clone()).await;
        assert_eq!(body["error"]["code"], -32004, "{body}");

        let card = card(&auth.origin).await;
        assert_eq!(card["capabilities"]["extendedAgentCard"], true);
        assert!(
            card["securitySchemes"].as_object().is_some_and(|s| !s.is_empty()),
            "{card}"
        );
        let send = |token| rpc(&auth.origin, token, "SendMessage", message.clone());
        assert_eq!(send(None).await.0, 401);
        assert_eq!(send(Some("not-a-token")).await.0, 401);
        // Known, but with no role: the namespace does not exist for it.
        let (status, body) = send(Some("itk-insufficient-token")).await;
        assert_eq!((status, &body["error"]["code"]), (200, &json!(-32001)), "{body}");
        let (status, body) = send(Some("itk-valid-token")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
        let extended = |token| rpc(&auth.origin, token, "GetExtendedAgentCard", json!({}));
        // The extended card is for members.
        let (status, body) = extended(Some("itk-insufficient-token")).await;
        assert_eq!((status, &body["error"]["code"]), (403, &json!(-32003)), "{body}");
        assert_eq!(extended(Some("itk-valid-token")).await.0, 200);
    });
}
