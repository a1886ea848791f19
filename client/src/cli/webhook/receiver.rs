//! The HTTP receiver of the deliveries: which it takes, which it refuses,
//! and which it has taken already, each told to the command as a [`Note`].
//!
//! What the receiver answers:
//! - 401 to a delivery without the configuration's token (compared in
//!   constant time), before its body is read;
//! - 400 to a body that is not a StreamResponse about this task (and this
//!   context, once known), 413 past [`MAX_BODY`], 405 to anything but POST;
//! - 200 to a delivery it takes, 204 to a repeat of one it already took.
//!
//! Deliveries are at least once (A2A §4.3.3), so a repeat is dropped. A2A
//! gives a StreamResponse no identity of its own, so a delivery is known by
//! the per-task event sequence number the agent sends along in
//! [`SEQUENCE_HEADER`] (a redelivery repeats it), and, from an agent that
//! sends none, by its whole payload: a redelivery repeats the payload
//! byte for byte, and two events identical in every field tell nothing one
//! of them does not.

use bytes::Bytes;
use http::{HeaderMap, Method as HttpMethod, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use serde_json::Value;
use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// The header a delivery carries the configuration's token in: the one the
/// CleverAgents agent sets from `TaskPushNotificationConfig.token` on every
/// POST (its push delivery, `app/src/push/delivery.rs`); the header the
/// A2A SDKs name for the token too.
const TOKEN_HEADER: &str = "X-A2A-Notification-Token";

/// The header the CleverAgents agent numbers each delivered event with: the
/// event's per-task sequence number, repeated by a redelivery.
const SEQUENCE_HEADER: &str = "X-CleverAgents-Event-Sequence";

/// The largest delivery body taken (a task event with inline file parts).
const MAX_BODY: usize = 8 * 1024 * 1024;

/// Connections served at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 64;

/// How long a connection may take to send a request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest one connection is served.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(120);

/// How many refusals are told to the command (for `--debug`); past that,
/// a flood of forged deliveries is refused without a word.
const REFUSALS_TOLD: usize = 100;

/// A token of 244 random bits (two UUIDv4s, from the system's CSPRNG), for
/// this configuration only (A2A §13.2: unique, single-purpose tokens).
pub(super) fn fresh_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Equal secrets, compared in a time that does not depend on where they differ.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    given
        .iter()
        .zip(expected)
        .fold(0u8, |diff, (a, b)| diff | (a ^ b))
        == 0
}

/// What the receiver tells the command.
#[derive(Debug)]
pub(super) enum Note {
    /// A delivery taken: its StreamResponse, as sent.
    Event(Value),
    /// A delivery refused, and why (for `--debug`).
    Refused(StatusCode, String),
}

/// What a delivery came to.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// Taken (200).
    Taken,
    /// A repeat of one taken (204).
    Repeat,
    /// Refused with this status, for this reason.
    Refused(StatusCode, String),
}

/// The receiver's state: what it expects, what it has taken.
pub(super) struct Receiver {
    task_id: String,
    context_id: Option<String>,
    token: String,
    /// The identities of the deliveries taken (see the module's doc), and
    /// where each is sent, under one lock so the order of taking is the
    /// order of printing.
    taken: Mutex<(HashSet<String>, mpsc::UnboundedSender<Note>)>,
    /// Refusals so far.
    refusals: AtomicUsize,
}

impl Receiver {
    pub(super) fn new(
        task_id: String,
        context_id: Option<String>,
        token: String,
        notes: mpsc::UnboundedSender<Note>,
    ) -> Self {
        Receiver {
            task_id,
            context_id,
            token,
            taken: Mutex::new((HashSet::new(), notes)),
            refusals: AtomicUsize::new(0),
        }
    }

    /// Whether the request carries the configuration's token.
    fn authentic(&self, headers: &HeaderMap) -> bool {
        headers
            .get(TOKEN_HEADER)
            .is_some_and(|given| same_secret(given.as_bytes(), self.token.as_bytes()))
    }

    /// Judges an authentic delivery's body, and takes it when it is new.
    fn judge(&self, headers: &HeaderMap, body: &[u8]) -> Verdict {
        let bad = |why: String| Verdict::Refused(StatusCode::BAD_REQUEST, why);
        let event: Value = match serde_json::from_slice(body) {
            Ok(event) => event,
            Err(e) => return bad(format!("the body is not JSON: {e}")),
        };
        if let Err(e) = serde_json::from_value::<a2a::types::StreamResponse>(event.clone()) {
            return bad(format!("the body is not a StreamResponse: {e}"));
        }
        let (task_id, context_id) = about(&event);
        if task_id != Some(self.task_id.as_str()) {
            return bad(format!(
                "the notification is about task {}, not {}",
                task_id.unwrap_or("(none)"),
                self.task_id
            ));
        }
        if let (Some(expected), Some(given)) = (&self.context_id, context_id) {
            if given != expected {
                return bad(format!("the notification is in context {given}, not {expected}"));
            }
        }
        let identity = match headers
            .get(SEQUENCE_HEADER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            Some(seq) => format!("seq {seq}"),
            None => format!("payload {event}"),
        };
        let mut taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
        if !taken.0.insert(identity) {
            return Verdict::Repeat;
        }
        // The command gone, the receiver is being stopped: nothing to print.
        let _ = taken.1.send(Note::Event(event));
        Verdict::Taken
    }

    fn refused(&self, status: StatusCode, why: String) -> Verdict {
        if self.refusals.fetch_add(1, Ordering::Relaxed) < REFUSALS_TOLD {
            let taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
            let _ = taken.1.send(Note::Refused(status, why.clone()));
        }
        Verdict::Refused(status, why)
    }

    /// Answers one request.
    async fn answer<B>(&self, request: http::Request<B>) -> Verdict
    where
        B: hyper::body::Body,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        if request.method() != HttpMethod::POST {
            return self.refused(StatusCode::METHOD_NOT_ALLOWED, "deliveries are POSTs".into());
        }
        if !self.authentic(request.headers()) {
            return self.refused(
                StatusCode::UNAUTHORIZED,
                format!("no {TOKEN_HEADER}, or not this configuration's"),
            );
        }
        let declared = request
            .headers()
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_BODY as u64) {
            return self.refused(StatusCode::PAYLOAD_TOO_LARGE, format!("over {MAX_BODY} bytes"));
        }
        let (parts, body) = request.into_parts();
        let body = match Limited::new(body, MAX_BODY).collect().await {
            Ok(body) => body.to_bytes(),
            Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
                return self.refused(StatusCode::PAYLOAD_TOO_LARGE, format!("over {MAX_BODY} bytes"));
            }
            Err(e) => return self.refused(StatusCode::BAD_REQUEST, format!("reading the body: {e}")),
        };
        match self.judge(&parts.headers, &body) {
            Verdict::Refused(status, why) => self.refused(status, why),
            verdict => verdict,
        }
    }
}

/// The task and context a StreamResponse is about.
fn about(event: &Value) -> (Option<&str>, Option<&str>) {
    let str_at = |pointer: &str| event.pointer(pointer).and_then(Value::as_str);
    if event.get("task").is_some() {
        (str_at("/task/id"), str_at("/task/contextId"))
    } else if event.get("statusUpdate").is_some() {
        (str_at("/statusUpdate/taskId"), str_at("/statusUpdate/contextId"))
    } else if event.get("artifactUpdate").is_some() {
        (
            str_at("/artifactUpdate/taskId"),
            str_at("/artifactUpdate/contextId"),
        )
    } else {
        (str_at("/message/taskId"), str_at("/message/contextId"))
    }
}

/// The HTTP answer of a verdict.
fn response(verdict: &Verdict) -> http::Response<Full<Bytes>> {
    let (status, body) = match verdict {
        Verdict::Taken => (StatusCode::OK, String::new()),
        Verdict::Repeat => (StatusCode::NO_CONTENT, String::new()),
        Verdict::Refused(status, why) => (*status, format!("{why}\n")),
    };
    let mut response = http::Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if !matches!(verdict, Verdict::Repeat) {
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    response
}

/// Serves `listener` until the task running it is aborted (which ends
/// every connection with it).
pub(super) async fn serve(listener: TcpListener, receiver: Arc<Receiver>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors, say: a moment, then accept again.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            // Reap the connections that ended.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        let receiver = receiver.clone();
        connections.spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let receiver = receiver.clone();
                async move { Ok::<_, Infallible>(response(&receiver.answer(request).await)) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            let _ = tokio::time::timeout(CONNECTION_TIMEOUT, connection).await;
            drop(slot);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TASK: &str = "task-1";
    const TOKEN: &str = "the-token";

    fn receiver() -> (Arc<Receiver>, mpsc::UnboundedReceiver<Note>) {
        let (notes, inbox) = mpsc::unbounded_channel();
        (
            Arc::new(Receiver::new(
                TASK.into(),
                Some("ctx-1".into()),
                TOKEN.into(),
                notes,
            )),
            inbox,
        )
    }

    fn status(state: &str) -> Value {
        json!({"statusUpdate": {"taskId": TASK, "contextId": "ctx-1", "status": {"state": state}}})
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().expect("header value"));
        }
        map
    }

    fn events(inbox: &mut mpsc::UnboundedReceiver<Note>) -> Vec<Value> {
        let mut out = Vec::new();
        while let Ok(note) = inbox.try_recv() {
            if let Note::Event(event) = note {
                out.push(event);
            }
        }
        out
    }

    #[test]
    fn the_token_is_the_configurations() {
        let (receiver, _) = receiver();
        assert!(receiver.authentic(&headers(&[(TOKEN_HEADER, TOKEN)])));
        assert!(receiver.authentic(&headers(&[("x-a2a-notification-token", TOKEN)])));
        assert!(!receiver.authentic(&headers(&[(TOKEN_HEADER, "the-tokeN")])));
        assert!(!receiver.authentic(&headers(&[(TOKEN_HEADER, "the-token-")])));
        assert!(!receiver.authentic(&headers(&[("authorization", "Bearer the-token")])));
        assert!(!receiver.authentic(&HeaderMap::new()));
        let (a, b) = (fresh_token(), fresh_token());
        assert_eq!((a.len(), a == b), (64, false));
    }

    #[test]
    fn only_stream_responses_about_the_task_are_taken() {
        let (receiver, mut inbox) = receiver();
        let none = HeaderMap::new();
        let refused = |v: Verdict| matches!(v, Verdict::Refused(StatusCode::BAD_REQUEST, _));
        assert!(refused(receiver.judge(&none, b"not json")));
        assert!(refused(receiver.judge(&none, b"{\"event\": 1}")));
        assert!(refused(receiver.judge(&none, b"[]")));
        let other = json!({"statusUpdate": {"taskId": "task-2", "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"}}});
        assert!(refused(receiver.judge(&none, other.to_string().as_bytes())));
        let elsewhere = json!({"statusUpdate": {"taskId": TASK, "contextId": "ctx-2", "status": {"state": "TASK_STATE_WORKING"}}});
        assert!(refused(receiver.judge(&none, elsewhere.to_string().as_bytes())));
        let lone_message =
            json!({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}});
        assert!(refused(
            receiver.judge(&none, lone_message.to_string().as_bytes())
        ));
        assert_eq!(events(&mut inbox), Vec::<Value>::new());
        let working = status("TASK_STATE_WORKING");
        assert_eq!(
            receiver.judge(&none, working.to_string().as_bytes()),
            Verdict::Taken
        );
        let task =
            json!({"task": {"id": TASK, "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"}}});
        assert_eq!(receiver.judge(&none, task.to_string().as_bytes()), Verdict::Taken);
        assert_eq!(events(&mut inbox), vec![working, task]);
    }

    #[test]
    fn repeats_are_known_by_sequence_else_by_payload() {
        let (receiver, mut inbox) = receiver();
        let working = status("TASK_STATE_WORKING").to_string();
        let done = status("TASK_STATE_COMPLETED").to_string();
        let seq = |n: &str| headers(&[(SEQUENCE_HEADER, n)]);
        assert_eq!(receiver.judge(&seq("3"), working.as_bytes()), Verdict::Taken);
        assert_eq!(receiver.judge(&seq("3"), working.as_bytes()), Verdict::Repeat);
        // Another event with the same content is another event.
        assert_eq!(receiver.judge(&seq("4"), working.as_bytes()), Verdict::Taken);
        assert_eq!(receiver.judge(&seq("5"), done.as_bytes()), Verdict::Taken);
        assert_eq!(events(&mut inbox).len(), 3);
        // Without a sequence, the payload is the identity.
        let none = HeaderMap::new();
        let chunk = json!({"artifactUpdate": {"taskId": TASK, "contextId": "ctx-1", "artifact": {"artifactId": "a", "parts": [{"text": "x"}]}}}).to_string();
        assert_eq!(receiver.judge(&none, chunk.as_bytes()), Verdict::Taken);
        assert_eq!(receiver.judge(&none, chunk.as_bytes()), Verdict::Repeat);
        assert_eq!(events(&mut inbox).len(), 1);
    }
    /// The receiver over HTTP: the status of each answer, and what it takes.
    #[tokio::test]
    async fn answers_over_http() {
        let (receiver, mut inbox) = receiver();
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/", listener.local_addr().expect("addr"));
        let server = tokio::spawn(serve(listener, receiver));
        let http = reqwest::Client::new();
        let post = |body: Vec<u8>, token: Option<&str>, seq: Option<&str>| {
            let mut request = http.post(&url).body(body);
            if let Some(token) = token {
                request = request.header(TOKEN_HEADER, token);
            }
            if let Some(seq) = seq {
                request = request.header(SEQUENCE_HEADER, seq);
            }
            async move { request.send().await.expect("answer").status().as_u16() }
        };
        let done = status("TASK_STATE_COMPLETED").to_string().into_bytes();
        assert_eq!(post(done.clone(), None, Some("1")).await, 401);
        assert_eq!(post(done.clone(), Some("wrong"), Some("1")).await, 401);
        assert_eq!(post(b"{}".to_vec(), Some(TOKEN), None).await, 400);
        assert_eq!(post(vec![b' '; MAX_BODY + 1], Some(TOKEN), None).await, 413);
        let get = http.get(&url).send().await.expect("answer").status().as_u16();
        assert_eq!(get, 405);
        assert_eq!(post(done.clone(), Some(TOKEN), Some("1")).await, 200);
        assert_eq!(post(done, Some(TOKEN), Some("1")).await, 204);
        server.abort();
        let mut refused = Vec::new();
        let mut taken = Vec::new();
        while let Ok(note) = inbox.try_recv() {
            match note {
                Note::Event(event) => taken.push(event),
                Note::Refused(status, _) => refused.push(status.as_u16()),
            }
        }
        assert_eq!(refused, [401, 401, 400, 413, 405]);
        assert_eq!(taken, [status("TASK_STATE_COMPLETED")]);
    }
}
