//! The generated router: every method of the schemas' tables reaches its own
//! handler method; unknown, binding-level and too-new methods are not found;
//! bad params are invalid-params with the offending field.

mod common;

use a2a::handlers::*;
use a2a::rpc::{CallContext, Event, EventStream, Outcome, Reply, Version};
use a2a::types::{GetTaskRequest, SendMessageRequest, StreamResponse, Task};
use a2a::{Contract, ErrorKind, Router, METHODS};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The task the backend answers already encoded.
const STORED: &str = r#"{"status": {"state": "TASK_STATE_COMPLETED"}, "id": "stored"}"#;

/// Implements two methods; every other method keeps the generated default.
struct Backend;

impl MessagingHandler for Backend {
    async fn get_task(&self, _ctx: &CallContext, params: GetTaskRequest) -> Result<Reply<Task>, a2a::Error> {
        match params.id.as_str() {
            "missing" => Err(a2a::Error::new(ErrorKind::TaskNotFound, "no task `missing`")),
            // As a backend keeps it: spacing and member order of its own.
            "stored" => Ok(Reply::Encoded(
                serde_json::value::RawValue::from_string(STORED.to_string()).expect("fixture JSON"),
            )),
            id => Ok(Reply::Value(
                serde_json::from_value(json!({"id": id, "status": {"state": "TASK_STATE_WORKING"}}))
                    .expect("fixture task"),
            )),
        }
    }

    async fn send_streaming_message(
        &self,
        _ctx: &CallContext,
        params: SendMessageRequest,
    ) -> Result<EventStream<StreamResponse>, a2a::Error> {
        let task_id = params.message.task_id.clone().unwrap_or_else(|| "t1".into());
        let events = (1..=3u64).map(move |seq| {
            let event = json!({"statusUpdate": {"taskId": task_id, "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}});
            Ok(Event::with_seq(seq, serde_json::from_value(event).expect("fixture event")))
        });
        Ok(Box::pin(futures_util::stream::iter(events.collect::<Vec<_>>())))
    }
}
impl PushConfigHandler for Backend {}
impl AgentCardHandler for Backend {}
impl PlanHandler for Backend {}
impl RegistryHandler for Backend {}
impl ContextHandler for Backend {}
impl SyncHandler for Backend {}
impl NamespaceHandler for Backend {}
impl HealthHandler for Backend {}
impl SessionHandler for Backend {}
impl EventsHandler for Backend {}

fn router() -> Router<Backend> {
    Router::new(Arc::new(Backend))
}

async fn call(ctx: CallContext, method: &str, params: Value) -> Result<Value, a2a::Error> {
    router().dispatch(ctx, method, Some(params)).await.into_single()
}

#[tokio::test]
async fn every_dispatched_method_reaches_its_own_handler() {
    let entries = common::method_entries();
    let dispatched: Vec<_> = METHODS.iter().filter(|m| m.is_dispatched()).collect();
    let schema_dispatched = entries.iter().filter(|(_, e)| e.get("binding").is_none()).count();
    assert_eq!(
        dispatched.len(),
        schema_dispatched,
        "dispatched methods vs schema entries"
    );
    assert_eq!(METHODS.len(), entries.len(), "method table vs schema entries");
    let mut reached = 0;
    for (name, entry) in &entries {
        let descriptor = a2a::find_method(name).expect("in table");
        if !descriptor.is_dispatched() {
            continue;
        }
        let params = entry["examples"][0]["params"].clone();
        let outcome = router()
            .dispatch(CallContext::default(), name, Some(params))
            .await;
        let Outcome::Single(Err(error)) = outcome else {
            // Only the two implemented methods succeed.
            assert!(
                matches!(name.as_str(), "GetTask" | "SendStreamingMessage"),
                "{name} answered"
            );
            reached += 1;
            continue;
        };
        // The default of the handler method generated for exactly this method.
        assert_eq!(
            error.message,
            format!("`{name}` is not implemented by this agent"),
            "{name}"
        );
        assert_eq!(
            error.kind(),
            Some(descriptor.contract.method_not_found()),
            "{name}"
        );
        reached += 1;
    }
    assert_eq!(reached, schema_dispatched);
}

#[tokio::test]
async fn binding_methods_are_not_dispatched() {
    let binding: Vec<_> = METHODS
        .iter()
        .filter(|m| !m.is_dispatched())
        .map(|m| m.name)
        .collect();
    assert_eq!(
        binding,
        ["initialize", "stream/event", "stream/cancel", "stream/resume"]
    );
    for name in binding {
        let error = call(CallContext::default(), name, json!({})).await.unwrap_err();
        assert_eq!(error.code, -32601);
    }
}

#[tokio::test]
async fn unknown_method_is_method_not_found_in_its_contract() {
    let error = call(CallContext::default(), "tasks/get", json!({}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32601);
    assert_eq!(error.kind(), Some(ErrorKind::MethodNotFound));
    assert_eq!(
        error.domain_reason(),
        Some(("a2a-protocol.org", "METHOD_NOT_FOUND"))
    );
    assert_eq!(error.message, "Method not found: `tasks/get`");

    let error = call(CallContext::default(), "_cleveragents/plan/launch", json!({}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32601);
    assert_eq!(error.kind(), Some(ErrorKind::ExtMethodNotFound));
    assert_eq!(
        error.domain_reason(),
        Some(("urn:cleveragents:extensions:v1", "METHOD_NOT_FOUND"))
    );
}

#[tokio::test]
async fn methods_since_1_1_are_invisible_to_1_0_clients() {
    let newer: Vec<_> = METHODS.iter().filter(|m| m.since == Some("1.1")).collect();
    assert!(newer.iter().any(|m| m.name == "_cleveragents/plan/list"));
    let old = CallContext {
        extension_versions: BTreeMap::from([(
            Contract::Cleveragents.name(),
            Version::parse("1.0").expect("version"),
        )]),
        ..CallContext::default()
    };
    for method in newer {
        let error = call(old.clone(), method.name, json!({})).await.unwrap_err();
        assert_eq!(error.message, format!("Method not found: `{}`", method.name));
        // The same method at 1.1 reaches its handler.
        let error = call(CallContext::default(), method.name, json!({}))
            .await
            .unwrap_err();
        assert_ne!(error.message, format!("Method not found: `{}`", method.name));
    }
}

#[tokio::test]
async fn implemented_method_answers_its_result() {
    let result = call(CallContext::default(), "GetTask", json!({"id": "t9"}))
        .await
        .expect("result");
    assert_eq!(
        result,
        json!({"id": "t9", "status": {"state": "TASK_STATE_WORKING"}})
    );
}

#[tokio::test]
async fn an_encoded_result_is_sent_as_it_is() {
    let outcome = router()
        .dispatch(CallContext::default(), "GetTask", Some(json!({"id": "stored"})))
        .await;
    let Outcome::Single(Ok(raw)) = outcome else {
        panic!("expected a result, got {outcome:?}");
    };
    assert_eq!(raw.get(), STORED);
}

#[tokio::test]
async fn handler_errors_pass_through_unchanged() {
    let error = call(CallContext::default(), "GetTask", json!({"id": "missing"}))
        .await
        .unwrap_err();
    assert_eq!(
        serde_json::to_value(&error).expect("encodes"),
        json!({
            "code": -32001,
            "message": "no task `missing`",
            "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]
        })
    );
}

#[tokio::test]
async fn invalid_params_name_the_field() {
    let error = call(CallContext::default(), "GetTask", json!({"id": 5}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32602);
    assert_eq!(error.kind(), Some(ErrorKind::InvalidParams));
    assert_eq!(
        error.field_violations(),
        [(
            "id".to_string(),
            "invalid type: integer `5`, expected a string".to_string()
        )]
    );
    assert_eq!(
        serde_json::to_value(&error).expect("encodes")["data"][1],
        json!({"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [{"field": "id", "description": "invalid type: integer `5`, expected a string"}]})
    );

    let error = call(
        CallContext::default(),
        "_cleveragents/plan/status",
        json!({"planId": []}),
    )
    .await
    .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::ExtInvalidParams));
}

#[tokio::test]
async fn absent_params_read_as_an_empty_object() {
    let error = router()
        .dispatch(CallContext::default(), "GetTask", None)
        .await
        .into_single()
        .unwrap_err();
    assert_eq!(
        error.field_violations(),
        [(String::new(), "missing field `id`".to_string())]
    );
    let card = router()
        .dispatch(CallContext::default(), "GetExtendedAgentCard", None)
        .await
        .into_single();
    assert_eq!(
        card.unwrap_err().message,
        "`GetExtendedAgentCard` is not implemented by this agent"
    );
}

#[tokio::test]
async fn streaming_method_yields_encoded_events_in_order() {
    use futures_util::StreamExt;
    let params = json!({"message": {"messageId": "m", "taskId": "t5", "role": "ROLE_USER", "parts": [{"text": "go"}]}});
    let Outcome::Stream(stream) = router()
        .dispatch(CallContext::default(), "SendStreamingMessage", Some(params))
        .await
    else {
        panic!("expected a stream");
    };
    let events: Vec<_> = stream.map(|e| e.expect("event")).collect().await;
    let seqs: Vec<_> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [Some(1), Some(2), Some(3)]);
    let first: serde_json::Value = serde_json::from_str(events[0].data.get()).expect("JSON");
    assert_eq!(first["statusUpdate"]["taskId"], "t5");
}

#[test]
fn error_kinds_convert_losslessly_through_the_wire() {
    for kind in ErrorKind::ALL {
        let error = a2a::Error::new(*kind, "m")
            .with_metadata("taskId", "t1")
            .with_field_violation("x", "bad");
        let wire = serde_json::to_string(&error).expect("encodes");
        let back: a2a::Error = serde_json::from_str(&wire).expect("decodes");
        assert_eq!(back, error);
        assert_eq!(back.kind(), Some(*kind));
        assert_eq!(back.metadata("taskId"), Some("t1"));
        assert_eq!(back.http_status::<ErrorKind>(), kind.http_status());
    }
}

#[test]
fn foreign_errors_keep_their_data() {
    let wire = json!({"code": -32099, "message": "custom", "data": {"anything": [1, 2]}});
    let error: a2a::Error = serde_json::from_value(wire.clone()).expect("decodes");
    assert_eq!(error.kind::<ErrorKind>(), None);
    assert_eq!(serde_json::to_value(&error).expect("encodes"), wire);
}

#[test]
fn colliding_codes_are_told_apart_by_domain_and_reason() {
    assert_eq!(ErrorKind::TaskNotFound.code(), ErrorKind::ExtNotFound.code());
    assert_eq!(
        ErrorKind::from_reason("a2a-protocol.org", "TASK_NOT_FOUND"),
        Some(ErrorKind::TaskNotFound)
    );
    assert_eq!(
        ErrorKind::from_reason("urn:cleveragents:extensions:v1", "NOT_FOUND"),
        Some(ErrorKind::ExtNotFound)
    );
    assert_eq!(ErrorKind::ExtBudgetExceeded.http_status(), 429);
    assert_eq!(ErrorKind::VersionNotSupported.code(), -32009);
}

#[test]
fn every_dispatched_method_declares_the_role_it_needs() {
    use a2a::rpc::Access;
    let access = |name: &str| a2a::find_method(name).expect("method").access;
    assert_eq!(access("GetTask"), Some(Access::Reader));
    assert_eq!(access("SendMessage"), Some(Access::Writer));
    assert_eq!(access("_cleveragents/registry/actors/show"), Some(Access::Reader));
    assert_eq!(access("_cleveragents/plan/apply"), Some(Access::Writer));
    assert_eq!(access("_cleveragents/namespace/members"), Some(Access::Admin));
    assert_eq!(access("initialize"), None);
    assert!(METHODS
        .iter()
        .filter(|m| m.is_dispatched())
        .all(|m| m.access.is_some()));
    assert!(a2a::find_method("ListTasks").expect("method").is_read_only());
}

#[tokio::test]
async fn positional_params_are_invalid_params() {
    let error = call(CallContext::default(), "GetTask", json!(["t1"]))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::InvalidParams));
    assert_eq!(
        error.message,
        "Invalid params for `GetTask`: params must be a JSON object of named fields"
    );
    let error = call(CallContext::default(), "_cleveragents/plan/cancel", json!("p1"))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::ExtInvalidParams));
}

/// Params as their text, as JSON-RPC hands them over.
fn text(params: &str) -> a2a::rpc::Params {
    serde_json::value::RawValue::from_string(params.to_owned())
        .expect("fixture JSON")
        .into()
}

#[tokio::test]
async fn params_sent_as_text_are_answered_as_params_sent_as_a_value() {
    for (method, params) in [
        ("GetTask", r#"{"id":"t1"}"#),
        ("GetTask", r#"{"id":5}"#),
        ("GetTask", r#"{"id":"t1","historyLength":"x"}"#),
        ("GetTask", r#"{}"#),
        ("GetTask", r#"["t1"]"#),
        (
            "SendMessage",
            r#"{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":1}]}}"#,
        ),
        (
            "SendMessage",
            r#"{"message":{"messageId":"m","role":"ROLE_NOBODY","parts":[]}}"#,
        ),
        ("_cleveragents/plan/status", r#"{"planId":[]}"#),
    ] {
        let value: Value = serde_json::from_str(params).expect("fixture JSON");
        let as_value = router()
            .dispatch(CallContext::default(), method, Some(value))
            .await
            .into_single();
        let as_text = router()
            .dispatch(CallContext::default(), method, text(params))
            .await
            .into_single();
        match (&as_value, &as_text) {
            (Err(by_value), Err(by_text)) => {
                assert_eq!(by_text.code, by_value.code, "{method} {params}");
                assert_eq!(by_text.message, by_value.message, "{method} {params}");
                assert_eq!(
                    by_text.field_violations(),
                    by_value.field_violations(),
                    "{method} {params}"
                );
            }
            _ => assert_eq!(as_text, as_value, "{method} {params}"),
        }
    }
    // The field is named, and no position within the text is.
    let error = router()
        .dispatch(CallContext::default(), "GetTask", text(r#"{"id":5}"#))
        .await
        .into_single()
        .unwrap_err();
    assert_eq!(
        error.message,
        "Invalid params for `GetTask`: id: invalid type: integer `5`, expected a string"
    );
}

#[tokio::test]
async fn text_refused_where_a_value_is_taken_is_read_as_the_value() {
    // An enum given a boolean: serde_json words it apart when it reads
    // text; the answer is the value's.
    let error = router()
        .dispatch(
            CallContext::default(),
            "_cleveragents/plan/diff",
            text(r#"{"planId":"p","format":true}"#),
        )
        .await
        .into_single()
        .unwrap_err();
    assert_eq!(
        error.field_violations(),
        [(
            "format".to_string(),
            "invalid type: boolean `true`, expected string or map".to_string()
        )]
    );
    // A member given twice: its last value, as a value keeps it.
    let task = router()
        .dispatch(
            CallContext::default(),
            "GetTask",
            text(r#"{"id":"first","id":"t2"}"#),
        )
        .await
        .into_single()
        .expect("the task");
    assert_eq!(task["id"], "t2");
}
