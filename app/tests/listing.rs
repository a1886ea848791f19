//! What ListTasks and GetTask put in each task they answer with: a task's
//! artifacts are listed only when the caller asks for them, and GetTask
//! always answers with them.

use a2a::rpc::CallContext;
use a2a::types::{Artifact, TaskState};
use a2a::Router;
use app::executor::{text_part, ExecRequest, Executor, Start, TaskHandle};
use app::store::MemoryStore;
use app::{App, AppConfig};
use serde_json::{json, Value};
use std::sync::Arc;

async fn call(router: &Router<App>, method: &str, params: Value) -> Value {
    let answer = router.dispatch(CallContext::default(), method, Some(params));
    answer
        .await
        .into_single()
        .unwrap_or_else(|e| panic!("{method}: {e:?}"))
}

/// Publishes one artifact, then completes its task.
struct Publisher;

impl Executor for Publisher {
    fn start(&self, _request: &ExecRequest) -> Result<Start, a2a::Error> {
        Ok(Start::Task)
    }
    fn run(&self, _request: ExecRequest, task: TaskHandle) -> a2a::rpc::BoxFuture<'static, ()> {
        Box::pin(async move {
            let artifact = Artifact {
                artifact_id: "report".into(),
                name: Some("report".into()),
                description: None,
                parts: vec![text_part("all good")],
                metadata: None,
                extensions: vec![],
            };
            let _ = task.artifact(artifact, false, Some(true), None).await;
            let _ = task.status(TaskState::Completed, Some("done")).await;
        })
    }
}

#[tokio::test]
async fn artifacts_are_listed_only_when_asked_for() {
    let app = App::with_executor(
        Arc::new(MemoryStore::new()),
        AppConfig::default(),
        Arc::new(Publisher),
    );
    let router = Router::new(app);
    let message = json!({ "messageId": "m1", "role": "ROLE_USER", "parts": [{ "text": "go" }] });
    let sent = call(&router, "SendMessage", json!({ "message": message })).await;
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let id = sent["task"]["id"].clone();
    let artifact_ids = |task: &Value| -> Vec<String> {
        let artifacts = task["artifacts"].as_array().cloned().unwrap_or_default();
        artifacts
            .iter()
            .map(|a| a["artifactId"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(
        artifact_ids(&call(&router, "GetTask", json!({ "id": id })).await),
        ["report"]
    );
    for (params, listed) in [
        (json!({}), vec![]),
        (json!({ "includeArtifacts": false }), vec![]),
        (json!({ "includeArtifacts": true }), vec!["report"]),
    ] {
        let page = call(&router, "ListTasks", params.clone()).await;
        assert_eq!(page["tasks"][0]["id"], id, "{params}");
        assert_eq!(artifact_ids(&page["tasks"][0]), listed, "{params}");
    }
}
