//! The typed client against the real agent binary, in both modes: local (the
//! agent spawned over the stdio binding) and server (HTTP JSON-RPC + SSE). The
//! same calls give the same shapes of answer, streams arrive in order, and
//! errors arrive as typed registry errors.

mod common;

use a2a::types::{ListTasksRequest, SendMessageRequest, StreamResponse};
use a2a::ErrorKind;
use client::{Client, HttpConfig, HttpTransport, StdioConfig, StdioTransport};
use common::{ServerAgent, AGENT};
use futures_util::StreamExt;
use serde_json::{json, Value};

fn message(id: &str, text: &str) -> SendMessageRequest {
    serde_json::from_value(
        json!({"message": {"messageId": id, "role": "ROLE_USER", "parts": [{"text": text}]}}),
    )
    .expect("request")
}

/// One scripted session; returns what it observed, with generated ids removed.
async fn session<T: a2a::rpc::Transport>(client: &Client<T>) -> Value {
    let sent = client
        .send_message(message("m-1", "hello"))
        .await
        .expect("SendMessage");
    let sent = serde_json::to_value(sent).expect("encodes");
    let task_id = sent["task"]["id"].as_str().expect("a task").to_string();
    let got = client
        .get_task(serde_json::from_value(json!({"id": task_id, "historyLength": 1})).expect("params"))
        .await
        .expect("GetTask");
    let got = serde_json::to_value(got).expect("encodes");
    assert_eq!(got["id"], sent["task"]["id"]);
    assert_eq!(got["history"].as_array().map(Vec::len), Some(1));

    let mut stream = client
        .send_streaming_message(message("m-2", "stream please"))
        .await
        .expect("SendStreamingMessage");
    let mut kinds = Vec::new();
    let mut seqs = Vec::new();
    while let Some(event) = stream.next().await {
        let event = event.expect("event");
        seqs.push(event.seq);
        kinds.push(match event.data {
            StreamResponse::Task(task) => format!("task:{}", task.status.state),
            StreamResponse::StatusUpdate(update) => format!("status:{}", update.status.state),
            StreamResponse::ArtifactUpdate(_) => "artifact".into(),
            StreamResponse::Message(_) => "message".into(),
        });
    }
    let numbered: Vec<u64> = seqs.iter().flatten().copied().collect();
    assert!(
        numbered.windows(2).all(|w| w[0] < w[1]),
        "sequence numbers increase: {seqs:?}"
    );

    let listed = client
        .list_tasks(ListTasksRequest {
            page_size: Some(10),
            ..Default::default()
        })
        .await
        .expect("ListTasks");
    let tools = client
        .registry_tools_list(Default::default())
        .await
        .expect("tools list");
    let tool_names: Vec<String> = tools.items.iter().map(|t| t.name.clone()).collect();

    let missing = client
        .get_task(serde_json::from_value(json!({"id": "no-such-task"})).expect("params"))
        .await
        .expect_err("unknown task");
    let missing = match missing {
        a2a::rpc::CallError::Rpc(error) => error.kind::<a2a::ErrorKind>(),
        other => panic!("expected an RPC error, got {other}"),
    };

    json!({
        "sentState": sent["task"]["status"]["state"],
        "streamKinds": kinds,
        "listed": listed.total_size,
        "tools": tool_names,
        "missing": format!("{missing:?}"),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_and_server_modes_answer_alike() {
    let mut stdio = StdioConfig::new(AGENT);
    stdio.args = vec!["--stdio".into(), "--memory".into()];
    let local = Client::new(StdioTransport::spawn(stdio).await.expect("stdio agent"));
    let local_view = session(&local).await;
    local.transport().shutdown().await.expect("clean shutdown");

    let agent = ServerAgent::start();
    let remote =
        Client::new(HttpTransport::new(HttpConfig::new(agent.endpoint.clone())).expect("http client"));
    let remote_view = session(&remote).await;

    assert_eq!(local_view, remote_view);
    assert_eq!(local_view["sentState"], "TASK_STATE_COMPLETED");
    assert_eq!(local_view["listed"], 2);
    assert_eq!(
        local_view["missing"],
        format!("{:?}", Some(ErrorKind::TaskNotFound))
    );
    assert_eq!(
        local_view["streamKinds"],
        json!([
            "task:TASK_STATE_SUBMITTED",
            "status:TASK_STATE_WORKING",
            "status:TASK_STATE_COMPLETED"
        ])
    );
}
