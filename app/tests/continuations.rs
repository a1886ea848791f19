//! Continuing a task that waits on its client, through the generated router:
//! a continuation the executor settles at once takes those statuses and
//! starts no run; the contextId a continuation may carry; and the count of
//! runs under way that the local background agent asks before it leaves.
//!
//! The tests run in paused time, so a call that would wait for ever fails at
//! once on its bound instead of hanging the suite.

use a2a::rpc::CallContext;
use a2a::types::TaskState;
use a2a::Router;
use app::executor::{agent_message, text_part, ExecRequest, Executor, Start, TaskHandle};
use app::store::MemoryStore;
use app::{App, AppConfig};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Longer than anything here takes; in paused time, reached only by a call
/// that waits on something that never comes.
const BOUND: Duration = Duration::from_secs(600);

async fn call(router: &Router<App>, method: &str, params: Value) -> Result<Value, a2a::Error> {
    let answer = router.dispatch(CallContext::default(), method, Some(params));
    match tokio::time::timeout(BOUND, answer).await {
        Ok(outcome) => outcome.into_single(),
        Err(_) => panic!("{method} did not answer"),
    }
}

fn msg(id: &str, text: &str) -> Value {
    json!({ "messageId": id, "role": "ROLE_USER", "parts": [{ "text": text }] })
}

/// Asks a question of every new message and answers any reply at once, both
/// as statuses it settles: so its tasks wait on their client without being
/// a plan's, and no run is ever meant to start (runs are counted).
#[derive(Default)]
struct Asker {
    runs: AtomicUsize,
}

impl Executor for Asker {
    fn start(&self, request: &ExecRequest) -> Result<Start, a2a::Error> {
        let steps = match &request.task {
            None => vec![(
                TaskState::InputRequired,
                Some(agent_message(vec![text_part("Which one?")])),
            )],
            Some(_) => vec![
                (TaskState::Working, None),
                (
                    TaskState::Completed,
                    Some(agent_message(vec![text_part("Done.")])),
                ),
            ],
        };
        Ok(Start::Settled(steps))
    }

    fn run(&self, _request: ExecRequest, _task: TaskHandle) -> a2a::rpc::BoxFuture<'static, ()> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Box::pin(async {})
    }
}

fn asking() -> (Router<App>, Arc<Asker>) {
    let asker = Arc::new(Asker::default());
    let app = App::with_executor(Arc::new(MemoryStore::new()), AppConfig::default(), asker.clone());
    (Router::new(app), asker)
}

/// A task of the asker's, waiting for input: (task id, context id).
async fn a_question(router: &Router<App>) -> (Value, Value) {
    let asked = call(router, "SendMessage", json!({ "message": msg("m1", "start") }))
        .await
        .expect("a task");
    let task = &asked["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    (task["id"].clone(), task["contextId"].clone())
}

fn texts(history: &Value) -> Vec<String> {
    let messages = history.as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .map(|m| m["parts"][0]["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The reply to a waiting task that the executor settles at once moves the
/// task through those statuses, as a blocking send answers, and no run of
/// the executor starts for it.
#[tokio::test(start_paused = true)]
async fn a_continuation_the_executor_settles_takes_its_statuses_and_no_run() {
    let (router, asker) = asking();
    let (id, context) = a_question(&router).await;
    let mut reply = msg("m2", "the blue one");
    reply["taskId"] = id.clone();
    let answered = call(&router, "SendMessage", json!({ "message": reply }))
        .await
        .expect("the reply is taken");
    let task = &answered["task"];
    assert_eq!(task["id"], id);
    assert_eq!(task["contextId"], context);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["status"]["message"]["parts"][0]["text"], "Done.");
    let got = call(&router, "GetTask", json!({ "id": id }))
        .await
        .expect("the task");
    assert_eq!(got["status"]["state"], "TASK_STATE_COMPLETED");
    // The question joined the history when the reply came; the answer is
    // the status's message until a later status supersedes it.
    assert_eq!(texts(&got["history"]), ["start", "Which one?", "the blue one"]);
    assert_eq!(got["status"]["message"]["parts"][0]["text"], "Done.");
    assert_eq!(asker.runs.load(Ordering::SeqCst), 0, "no run starts");
}

/// A continuation may carry its task's contextId or an empty one (the task's
/// is adopted); another context is refused by name and changes nothing.
#[tokio::test(start_paused = true)]
async fn a_continuation_stays_in_its_tasks_context() {
    let (router, _) = asking();
    let (id, context) = a_question(&router).await;
    let mut elsewhere = msg("m2", "from elsewhere");
    elsewhere["taskId"] = id.clone();
    elsewhere["contextId"] = json!("another-context");
    let refused = call(&router, "SendMessage", json!({ "message": elsewhere }))
        .await
        .expect_err("another context is refused");
    assert_eq!(refused.code, -32602);
    assert_eq!(
        refused.field_violations(),
        [(
            "message.contextId".to_string(),
            "does not match the context of the referenced task".to_string()
        )]
    );
    let got = call(&router, "GetTask", json!({ "id": id }))
        .await
        .expect("the task");
    assert_eq!(got["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(texts(&got["history"]), ["start"]);

    for (n, given) in [context.clone(), json!("")].into_iter().enumerate() {
        let (id, context) = if n == 0 {
            (id.clone(), context.clone())
        } else {
            a_question(&router).await
        };
        let mut reply = msg(&format!("r{n}"), "this one");
        reply["taskId"] = id.clone();
        reply["contextId"] = given.clone();
        let answered = call(&router, "SendMessage", json!({ "message": reply }))
            .await
            .unwrap_or_else(|e| panic!("contextId {given} is taken: {e:?}"));
        assert_eq!(answered["task"]["status"]["state"], "TASK_STATE_COMPLETED");
        let got = call(&router, "GetTask", json!({ "id": id }))
            .await
            .expect("the task");
        let history = got["history"].as_array().cloned().unwrap_or_default();
        let replied = history.iter().find(|m| m["messageId"] == format!("r{n}"));
        assert_eq!(replied.map(|m| &m["contextId"]), Some(&context), "{given}");
    }
}

/// Waits for a permit before it completes its task.
struct Gated(Arc<Semaphore>);

impl Executor for Gated {
    fn start(&self, _request: &ExecRequest) -> Result<Start, a2a::Error> {
        Ok(Start::Task)
    }
    fn run(&self, _request: ExecRequest, task: TaskHandle) -> a2a::rpc::BoxFuture<'static, ()> {
        let gate = self.0.clone();
        Box::pin(async move {
            let _permit = gate.acquire().await;
            let _ = task.status(TaskState::Completed, Some("done")).await;
        })
    }
}

/// The runs under way are counted from the send that starts one until the
/// run has ended: none at first, one per task whose run waits, none again
/// once they are done.
#[tokio::test(start_paused = true)]
async fn runs_under_way_are_counted_until_they_end() {
    let gate = Arc::new(Semaphore::new(0));
    let app = App::with_executor(
        Arc::new(MemoryStore::new()),
        AppConfig::default(),
        Arc::new(Gated(gate.clone())),
    );
    let router = Router::new(app.clone());
    assert_eq!(app.work().await.task_runs, 0);
    let mut ids = vec![];
    for n in 1..=2 {
        let sent = call(
            &router,
            "SendMessage",
            json!({ "message": msg(&format!("m{n}"), "go"), "configuration": {"returnImmediately": true} }),
        )
        .await
        .expect("a task");
        assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
        ids.push(sent["task"]["id"].clone());
        assert_eq!(app.work().await.task_runs, n);
    }
    gate.add_permits(ids.len());
    // The count drops when each run's future is done, just after its last
    // write; in paused time each wait passes at once.
    let mut left = app.work().await.task_runs;
    for _ in 0..1000 {
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        left = app.work().await.task_runs;
    }
    assert_eq!(left, 0);
    for id in ids {
        let got = call(&router, "GetTask", json!({ "id": id }))
            .await
            .expect("the task");
        assert_eq!(got["status"]["state"], "TASK_STATE_COMPLETED");
    }
}
