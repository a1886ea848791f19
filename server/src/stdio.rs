//! The stdio binding (`urn:cleveragents:bindings:stdio:v1`): newline-delimited
//! JSON-RPC over a reader and a writer (the process's stdin and stdout). The
//! session opens with `initialize`; requests then run concurrently and their
//! responses are matched by id; a streaming method's events are `stream/event`
//! notifications followed by the response to its id; `stream/cancel` stops a
//! stream; EOF on the input ends the session after every request already read
//! has been answered. The writer carries protocol only: logs go through
//! `tracing`, which the binary points at stderr.
//!
//! The full specification is `docs/stdio-binding.md`.

use crate::card::{self, Binding};
use crate::config::ServerConfig;
use crate::dialect;
use crate::error::ServerError;
use crate::jsonrpc::{self, Request};
use crate::negotiate::{self, Dialect, Negotiated};
use crate::pipeline::Pipeline;
use crate::signing::CardSigner;
use a2a::methods::markers;
use a2a::metrics::StreamTransport;
use a2a::rpc::{decode_params, CallContext, Dispatch, Error, EventStream, Method, Outcome, Params, RawJson};
use a2a::types::{
    AgentCard, StdioActivatedExtension, StdioImplementationInfo, StdioInitializeParams,
    StdioInitializeResult, StdioStreamCancelParams, StdioStreamCancelResult, StdioStreamResumeParams,
};
use a2a::{find_method, Contract, ErrorKind};
use serde_json::Value;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::future::{poll_fn, Future};
use std::task::Poll;

use std::sync::{Arc, Mutex, OnceLock};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

mod framing;
pub mod pipes;
use framing::{read_line, write_lines, LineStatus};

/// Method names of the binding itself.
// The binding's own methods, by their names in the method table.
const INITIALIZE: &str = <markers::Initialize as Method>::NAME;
const STREAM_EVENT: &str = <markers::StreamEvent as Method>::NAME;
const STREAM_CANCEL: &str = <markers::StreamCancel as Method>::NAME;
const STREAM_RESUME: &str = <markers::StreamResume as Method>::NAME;
/// The member of the `initialize` result that carries the Agent Card
/// (`StdioInitializeResult.agentCard`).
const INITIALIZE_CARD_FIELD: &str = "agentCard";
/// The member of a request's params that carries its W3C trace context on
/// this binding, which has no headers (`docs/stdio-binding.md`, §5).
const TRACE_META: &str = "_meta";

struct Session {
    pipeline: Pipeline,
    card: AgentCard,
    /// The card as a 0.3 session reads it: as HTTP serves it to a 0.3 client
    /// (the 0.3 fields beside the 1.0 ones), signed over that form.
    card_v0_3: Value,
    server_info: StdioImplementationInfo,
    negotiated: OnceLock<Negotiated>,
    /// The draft versions of A2A the deployment serves.
    drafts: Vec<String>,
    /// Open streams by the JSON text of their request id.
    streams: Mutex<HashMap<String, CancellationToken>>,
    out: mpsc::Sender<Vec<u8>>,
}

impl Session {
    fn new(
        config: &ServerConfig,
        dispatch: Arc<dyn Dispatch>,
        out: mpsc::Sender<Vec<u8>>,
    ) -> Result<Session, ServerError> {
        let signer = CardSigner::from_config(&config.agent.card_signing_keys)?;
        let mut card = card::agent_card(config, Binding::Stdio);
        signer.sign(&mut card)?;
        let mut card_v0_3 = card::agent_card_for_v0_3_clients(&card)
            .map_err(|e| ServerError::Config(format!("agent card for A2A 0.3 clients: {e}")))?;
        signer.sign_json(&mut card_v0_3)?;
        Ok(Session {
            pipeline: Pipeline::new(config, dispatch, Binding::Stdio, &signer)?,
            card,
            card_v0_3,
            server_info: StdioImplementationInfo {
                name: config.agent.implementation_name.clone(),
                version: config.agent.version.clone(),
            },
            negotiated: OnceLock::new(),
            drafts: config.a2a.draft_versions.clone(),
            streams: Mutex::new(HashMap::new()),
            out,
        })
    }

    async fn send(&self, encoded: Vec<u8>) {
        let mut line = encoded;
        line.push(b'\n');
        // A send error means the writer is gone (stdout closed); nothing to do.
        let _ = self.out.send(line).await;
    }

    fn streams(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.streams.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Serves one stdio session over `input`/`output` until EOF on `input`.
///
/// Calls that need no waiting are answered in the session's own task, and
/// the writer is a task beside it: run the session as a task of the runtime
/// (`runtime.spawn`), not in `block_on`, or every message handed from one to
/// the other wakes a second thread.
pub async fn serve_stdio<R, W>(
    config: &ServerConfig,
    dispatch: Arc<dyn Dispatch>,
    input: R,
    output: W,
) -> Result<(), ServerError>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, rx) = mpsc::channel::<Vec<u8>>(1024);
    let session = Arc::new(Session::new(config, dispatch, out)?);
    // Buffered: lines queued together leave in one write.
    let writer = tokio::spawn(write_lines(tokio::io::BufWriter::new(output), rx));
    let limits = &config.limits;
    let permits = Arc::new(Semaphore::new(limits.max_stdio_in_flight.max(1)));
    let mut tasks = JoinSet::new();
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();

    loop {
        line.clear();
        match read_line(&mut reader, &mut line, limits.max_body_bytes).await {
            Ok(LineStatus::Eof) => break,
            Ok(LineStatus::TooLong) => {
                let error = Error::new(
                    Contract::A2a.invalid_request(),
                    format!("Message exceeds the limit of {} bytes", limits.max_body_bytes),
                )
                .with_metadata("limit", limits.max_body_bytes.to_string());
                session.send(jsonrpc::failure(&Value::Null, &error)).await;
                continue;
            }
            Ok(LineStatus::Line) => {}
            Err(error) => {
                tracing::warn!(%error, "stdio input failed; ending the session");
                break;
            }
        }
        let Some(mut admitted) = admit(&session, &line, limits.max_json_depth).await else {
            continue;
        };
        let Ok(permit) = permits.clone().acquire_owned().await else {
            break;
        };
        // The call's future is boxed whole, so it is kept to one level:
        // every level of `async` around it would hold the request again.
        let span = request_span(&mut admitted);
        let mut call = Box::pin(run_admitted(session.clone(), admitted, permit).instrument(span));
        // A call that needs no waiting (a read of the store, say) is
        // answered right here, in the reader's task: its answer joins the
        // ones queued before the reader next waits for input, and the writer
        // sends them in one write. Only a call that must wait becomes a task
        // of its own, polled from where it stopped.
        if poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx)))
            .await
            .is_pending()
        {
            tasks.spawn(call);
        }
        // Reap finished tasks so the set does not grow with the session.
        while tasks.try_join_next().is_some() {}
    }

    // EOF: open streams end (answered with their final response); every other
    // request already read runs to completion and is answered.
    for token in session.streams().values() {
        token.cancel();
    }
    while tasks.join_next().await.is_some() {}
    drop(session);
    let _ = writer.await;
    Ok(())
}

/// A request that passed the session's checks and runs concurrently.
struct Admitted {
    negotiated: Negotiated,
    request: Request,
    /// Set for a streaming request: registered under its id, for `stream/cancel`.
    cancel: Option<CancellationToken>,
    resume_after: Option<u64>,
}

/// Answers a message that does not run concurrently (blank, malformed, a
/// binding method, or refused) and returns `None`; otherwise the request to run.
async fn admit(session: &Session, message: &[u8], max_json_depth: usize) -> Option<Admitted> {
    if message.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let request = match jsonrpc::parse(message, max_json_depth) {
        Ok(request) => request,
        Err(rejected) => {
            session
                .send(jsonrpc::failure(&rejected.id, &rejected.error))
                .await;
            return None;
        }
    };
    let request = answer_binding_method(session, request).await?;
    let Some(negotiated) = session.negotiated.get().cloned() else {
        if let Some(id) = &request.id {
            let error = Error::new(
                a2a::rpc::contract_of_name(&request.method).invalid_request(),
                "The session is not initialized: send `initialize` first",
            );
            session.send(jsonrpc::failure(id, &error)).await;
        }
        return None;
    };
    // `stream/resume` is the stdio form of SSE `Last-Event-ID`: it becomes the
    // named streaming call, run with `resume_after`.
    let (request, resume_after) = if request.method == STREAM_RESUME {
        match resume_request(negotiated.dialect, request) {
            Ok(resumed) => resumed,
            Err(rejected) => {
                let (id, error) = *rejected;
                if let Some(id) = id {
                    session.send(jsonrpc::failure(&id, &error)).await;
                }
                return None;
            }
        }
    } else {
        (request, None)
    };
    let cancel = match register_stream(session, negotiated.dialect, &request) {
        Ok(cancel) => cancel,
        Err(error) => {
            if let Some(id) = &request.id {
                session.send(jsonrpc::failure(id, &error)).await;
            }
            return None;
        }
    };
    Some(Admitted {
        negotiated,
        request,
        cancel,
        resume_after,
    })
}

/// Answers `initialize`, `stream/cancel` and `stream/event` and returns `None`;
/// any other request is returned untouched.
async fn answer_binding_method(session: &Session, request: Request) -> Option<Request> {
    // Binding methods run in order, inline, so that everything read after
    // `initialize` sees the session as initialized.
    let answer = match request.method.as_str() {
        INITIALIZE => initialize(session, request.params),
        STREAM_CANCEL => cancel_stream(session, request.params),
        // Server-to-client only; a client sending it is answered as unknown.
        STREAM_EVENT => Err(a2a::rpc::method_not_found(STREAM_EVENT)),
        _ => return Some(request),
    };
    if let Some(id) = &request.id {
        session.send(jsonrpc::response(id, answer)).await;
    }
    None
}

/// Registers a streaming request's cancel token under its id. It happens before
/// the request runs, so a `stream/cancel` read right after it always finds it.
fn register_stream(
    session: &Session,
    dialect: Dialect,
    request: &Request,
) -> Result<Option<CancellationToken>, Error> {
    let Some(id) = &request.id else {
        return Ok(None);
    };
    if !dialect.streams(&request.method) {
        return Ok(None);
    }
    let token = CancellationToken::new();
    match session.streams().entry(id_key(id)) {
        Entry::Occupied(_) => Err(Error::new(
            a2a::rpc::contract_of_name(&request.method).invalid_request(),
            "The id is already used by an open stream",
        )),
        Entry::Vacant(slot) => {
            slot.insert(token.clone());
            Ok(Some(token))
        }
    }
}

fn id_key(id: &Value) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

fn initialize(session: &Session, params: Params) -> Result<Value, Error> {
    let descriptor = find_method(INITIALIZE).ok_or_else(|| a2a::rpc::method_not_found(INITIALIZE))?;
    let params: StdioInitializeParams = decode_params(descriptor, params)?;
    if session.negotiated.get().is_some() {
        return Err(Error::new(
            ErrorKind::ExtInvalidState,
            "The session is already initialized",
        ));
    }
    // The session speaks the version it asks for, once: 1.0, or 0.3 (served
    // through the conversion layer). The stdio binding has no absent version.
    let requested = a2a::rpc::Version::parse(&params.protocol_version);
    let served: Vec<Dialect> = negotiate::served(&session.drafts).collect();
    let Some(dialect) = served
        .iter()
        .copied()
        .find(|d| requested.is_some() && requested == a2a::rpc::Version::parse(d.version()))
    else {
        return Err(Error::new(
            ErrorKind::ExtVersionMismatch,
            format!(
                "A2A protocol version `{}` is not supported; supported: {}",
                params.protocol_version.chars().take(32).collect::<String>(),
                served.iter().map(|d| d.version()).collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    let mut negotiated = Negotiated {
        dialect,
        ..Negotiated::default()
    };
    let mut activated = Vec::new();
    for request in &params.extensions {
        let Some((contract, uri)) = negotiate::extension_contracts().find(|(_, uri)| *uri == request.uri)
        else {
            continue;
        };
        let version = negotiate::negotiate_minor(contract, request.version.as_deref())?;
        if negotiated.versions.insert(contract.name(), version).is_none() {
            negotiated.activated.push(uri.to_string());
            activated.push(StdioActivatedExtension {
                uri: uri.to_string(),
                version: version.to_string(),
            });
        }
    }
    let result = StdioInitializeResult {
        protocol_version: dialect.version().into(),
        extensions: activated,
        agent_card: session.card.clone(),
        server_info: session.server_info.clone(),
    };
    let mut value = serde_json::to_value(result)
        .map_err(|e| Error::new(ErrorKind::ExtInternalError, format!("initialize result: {e}")))?;
    if dialect == Dialect::V0_3 {
        // A 0.3 session reads the card as HTTP serves it to a 0.3 client: the
        // 0.3 fields it looks for (`url`, `preferredTransport`,
        // `protocolVersion`, `additionalInterfaces`) beside the 1.0 ones, so
        // the result is still the binding's `StdioInitializeResult`.
        if let Some(result) = value.as_object_mut() {
            result.insert(INITIALIZE_CARD_FIELD.into(), session.card_v0_3.clone());
        }
    }
    // Two `initialize` requests are read in order, so a lost race is impossible;
    // still, never overwrite.
    if session.negotiated.set(negotiated).is_err() {
        return Err(Error::new(
            ErrorKind::ExtInvalidState,
            "The session is already initialized",
        ));
    }
    tracing::info!(client = %params.client_info.name, "stdio session initialized");
    Ok(value)
}

/// A refused request: the id to answer under (none for a notification) and why.
type Refused = (Option<Value>, Error);

/// Unwraps a `stream/resume` into the streaming request it names and the
/// sequence to resume after; only streaming, dispatched methods qualify.
fn resume_request(dialect: Dialect, request: Request) -> Result<(Request, Option<u64>), Box<Refused>> {
    let Request {
        id,
        request_id,
        params,
        ..
    } = request;
    let descriptor = match find_method(STREAM_RESUME) {
        Some(descriptor) => descriptor,
        None => return Err(Box::new((id, a2a::rpc::method_not_found(STREAM_RESUME)))),
    };
    let resume: StdioStreamResumeParams = match decode_params(descriptor, params) {
        Ok(resume) => resume,
        Err(error) => return Err(Box::new((id, error))),
    };
    if !dialect.streams(&resume.method) {
        let description = format!("`{}` is not a streaming method", resume.method);
        let error = Error::new(
            ErrorKind::ExtInvalidParams,
            format!("Invalid params for `{STREAM_RESUME}`: {description}"),
        )
        .with_field_violation("method", description);
        return Err(Box::new((id, error)));
    }
    let after = u64::try_from(resume.last_event_id).unwrap_or(0);
    let request = Request {
        id,
        request_id,
        method: resume.method,
        params: Params::Value(Value::Object(resume.params)),
    };
    Ok((request, Some(after)))
}

fn cancel_stream(session: &Session, params: Params) -> Result<Value, Error> {
    let descriptor = find_method(STREAM_CANCEL).ok_or_else(|| a2a::rpc::method_not_found(STREAM_CANCEL))?;
    let params: StdioStreamCancelParams = decode_params(descriptor, params)?;
    let id = serde_json::to_value(&params.request_id).unwrap_or(Value::Null);
    let token = session.streams().remove(&id_key(&id));
    let cancelled = match token {
        Some(token) => {
            token.cancel();
            true
        }
        None => false,
    };
    serde_json::to_value(StdioStreamCancelResult { cancelled })
        .map_err(|e| Error::new(ErrorKind::ExtInternalError, format!("stream/cancel result: {e}")))
}

/// The transport span of a request, continuing the caller's trace when the
/// request carries one (`params._meta.traceparent`, the binding's header).
fn request_span(admitted: &mut Admitted) -> tracing::Span {
    let span = tracing::info_span!("stdio.request", otel.kind = "server");
    if let Some(parent) = take_trace_context(&mut admitted.request.params) {
        telemetry::set_parent(&span, &parent);
    }
    span
}

/// The W3C trace context a request carries in `params._meta` (`traceparent`,
/// `tracestate`), taken out so the method's params are as its schema says.
/// `_meta` goes when nothing else is left in it.
fn take_trace_context(params: &mut Params) -> Option<telemetry::TraceContext> {
    // Most params carry no trace context: their text is not decoded into a
    // value only to look.
    if !params.may_have_member(TRACE_META) {
        return None;
    }
    let object = params.json_mut().ok()??.as_object_mut()?;
    let meta = object.get_mut(TRACE_META)?.as_object_mut()?;
    let context = telemetry::TraceContext::from_carrier(|name| meta.get(name)?.as_str());
    meta.remove(telemetry::TRACEPARENT);
    meta.remove(telemetry::TRACESTATE);
    if meta.is_empty() {
        object.remove(TRACE_META);
    }
    context
}

/// Runs an admitted request and answers it, holding its in-flight `permit`
/// until then.
async fn run_admitted(session: Arc<Session>, admitted: Admitted, _permit: OwnedSemaphorePermit) {
    let session = &*session;
    let Admitted {
        negotiated,
        request,
        cancel,
        resume_after,
    } = admitted;
    let Request {
        id,
        request_id,
        method,
        params,
    } = request;
    let dialect = negotiated.dialect;
    let mut ctx = CallContext {
        request_id,
        principal: None,
        default_namespace: None,
        namespace: None,
        extension_versions: negotiated.versions,
        activated_extensions: negotiated.activated,
        resume_after,
        wait_limit: None,
    };
    dialect.fit(&mut ctx);
    // Boxed: the call's state held inline would be moved with the request.
    let outcome = Box::pin(dialect::call_in(
        &session.pipeline,
        dialect,
        ctx,
        None,
        &method,
        params,
    ))
    .await;
    let Some(id) = id else {
        // A notification: run it, answer nothing.
        return;
    };
    match outcome {
        Outcome::Single(result) => {
            if cancel.is_some() {
                session.streams().remove(&id_key(&id));
            }
            session.send(jsonrpc::response(&id, result)).await;
        }
        Outcome::Stream(events) => {
            let _open = session.pipeline.metrics().stream_opened(StreamTransport::Stdio);
            // Boxed: a stream's state is large, and held inline it would
            // be moved with every request, streaming or not.
            let final_result =
                Box::pin(forward_stream(session, &id, events, cancel.unwrap_or_default())).await;
            session.streams().remove(&id_key(&id));
            session.send(jsonrpc::response(&id, final_result)).await;
        }
    }
}

/// The params of a `stream/event` notification, encoded with the event as
/// it already is.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct StreamEvent<'a> {
    request_id: &'a Value,
    seq: i64,
    event: &'a RawJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_seq: Option<u64>,
}

/// Sends each event as a `stream/event` notification until the stream ends,
/// fails or is cancelled; returns the result of the final response. Taking
/// `events` by value drops the producer before that response is sent: the
/// stream is over.
async fn forward_stream(
    session: &Session,
    id: &Value,
    mut events: EventStream<RawJson>,
    cancel: CancellationToken,
) -> Result<Value, Error> {
    let mut seq: i64 = 0;
    loop {
        let next = tokio::select! {
            biased;
            () = cancel.cancelled() => return Ok(Value::Null),
            next = poll_fn(|cx| events.as_mut().poll_next(cx)) => next,
        };
        match next {
            Some(Ok(event)) => {
                seq += 1;
                let params = StreamEvent {
                    request_id: id,
                    seq,
                    event: &event.data,
                    task_seq: event.seq,
                };
                session.send(jsonrpc::notification(STREAM_EVENT, params)).await;
            }
            Some(Err(error)) => return Err(error),
            None => return Ok(Value::Null),
        }
    }
}
