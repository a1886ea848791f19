//! The call path both transports share once a request is parsed and the caller
//! known: capability gating, the methods the server answers
//! itself (`GetExtendedAgentCard`, OpenRPC's `rpc.discover`), dispatch to the generated router, and the
//! tracing span of the call, and the call's metrics (count by method and
//! outcome, latency). Authorization is the router's (it runs for every
//! dispatched method, from the principal the transport put in the call
//! context). Keeping it in one place is what makes the two
//! transports answer identically.

use crate::auth::Authenticated;
use crate::card::{self, Binding};
use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::signing::CardSigner;
use a2a::metrics::Metrics;
use a2a::rpc::{decode_params, to_raw, BoxFuture, CallContext, Dispatch, Error, Outcome, Params, RawJson};
use a2a::types::GetExtendedAgentCardRequest;
use a2a::{capabilities, find_method, ErrorKind};
use serde_json::Value;
use std::sync::{Arc, OnceLock};
use std::time::Instant;
use tracing::Instrument;

pub(crate) struct Pipeline {
    dispatch: Arc<dyn Dispatch>,
    /// Encoded once: it is built from the configuration.
    extended_card: Option<RawJson>,
    /// The card's `extendedAgentCard` flag.
    extended_card_declared: bool,
    streaming: bool,
    push_notifications: bool,
    transport: &'static str,
    metrics: Arc<Metrics>,
}

impl Pipeline {
    pub(crate) fn new(
        config: &ServerConfig,
        dispatch: Arc<dyn Dispatch>,
        binding: Binding,
        signer: &CardSigner,
    ) -> Result<Self, ServerError> {
        let extended_card_declared = card::extended_card_enabled(config);
        let extended_card = if extended_card_declared {
            let mut extended = card::extended_agent_card(config, binding);
            signer.sign(&mut extended)?;
            to_raw(&extended).ok()
        } else {
            None
        };
        Ok(Pipeline {
            dispatch,
            extended_card,
            extended_card_declared,
            streaming: config.agent.capabilities.streaming,
            push_notifications: config.agent.capabilities.push_notifications,
            metrics: config.metrics.clone(),
            transport: match binding {
                Binding::Http => "http",
                Binding::Stdio => "stdio",
            },
        })
    }

    /// Runs one call. `caller` is `None` when no authentication applies (stdio, or
    /// HTTP with no scheme configured).
    pub(crate) async fn call(
        &self,
        ctx: CallContext,
        caller: Option<&Authenticated>,
        method: &str,
        params: Params,
    ) -> Outcome {
        let principal = caller.map(|c| c.principal.subject.as_str()).unwrap_or("");
        // The fields are evaluated only when the span is recorded: the id's
        // JSON text is not built for a span nothing listens to.
        let span = tracing::info_span!(
            "dispatch",
            transport = self.transport,
            request_id = %ctx
                .request_id
                .as_ref()
                .map(|id| serde_json::to_string(id).unwrap_or_default())
                .unwrap_or_default(),
            method = %method,
            principal = %principal,
        );
        let started = Instant::now();
        // What runs before the handler (gates, resolution, decoding) runs
        // here, inside the span; what is awaited is the handler's own boxed
        // future, so this future stays small whatever the method.
        let call = span.in_scope(|| self.run(ctx, method, params));
        let outcome = call.instrument(span.clone()).await;
        let _entered = span.enter();
        let elapsed = started.elapsed();
        let latency_us = elapsed.as_micros() as u64;
        let error_code = match &outcome {
            Outcome::Single(Err(e)) => Some(e.code),
            _ => None,
        };
        self.metrics.record_request(method, error_code, elapsed);
        match &outcome {
            Outcome::Single(Ok(_)) => tracing::info!(latency_us, outcome = "ok", "call answered"),
            Outcome::Single(Err(e)) => {
                tracing::info!(latency_us, outcome = "error", code = e.code, "call answered")
            }
            Outcome::Stream(_) => tracing::info!(latency_us, outcome = "stream", "stream opened"),
        }
        outcome
    }

    /// The registry calls are recorded into.
    pub(crate) fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// True when the Agent Card declares `capability` (the flags the card is built from).
    fn offers(&self, capability: &str) -> bool {
        match capability {
            capabilities::STREAMING => self.streaming,
            capabilities::PUSH_NOTIFICATIONS => self.push_notifications,
            capabilities::EXTENDED_AGENT_CARD => self.extended_card_declared,
            _ => false,
        }
    }

    /// The call's checks, then the dispatcher's future for it (or its
    /// answer, when a check or the server itself answers).
    fn run<'a>(&'a self, ctx: CallContext, method: &'a str, params: Params) -> BoxFuture<'a, Outcome> {
        if method == a2a::openrpc::DISCOVER_METHOD {
            return Outcome::ready(openrpc_document());
        }
        // Unknown, binding-owned and not-yet-visible methods go straight to the
        // router, which answers method-not-found exactly as the contract says.
        let descriptor = match find_method(method) {
            Some(d) if d.is_dispatched() && ctx.can_see(d) => d,
            _ => return self.dispatch.dispatch_params(ctx, method, params),
        };
        // A capability the card does not declare answers the schema's "not
        // supported" error for it (spec §3.3.4), before anything else runs.
        if let Some(capability) = descriptor.capability.filter(|c| !self.offers(c)) {
            let kind = capabilities::find(capability)
                .map_or(ErrorKind::UnsupportedOperation, |c| c.unsupported_error);
            return Outcome::ready(Err(Error::new(
                kind,
                format!("`{method}` needs the `{capability}` capability, which this agent does not offer"),
            )));
        }
        // The extended card is the server's to give (it is built from the
        // configuration), so the method needing that capability is answered here.
        if descriptor.capability == Some(capabilities::EXTENDED_AGENT_CARD) {
            if let Err(error) = decode_params::<GetExtendedAgentCardRequest>(descriptor, params) {
                return Outcome::ready(Err(error));
            }
            // The extended card is for the agent's members: a credential the
            // agent knows but that holds no role in any namespace is refused
            // (403), as a lesser role is refused a method that needs more.
            if ctx.principal.as_ref().is_some_and(|p| p.namespaces.is_empty()) {
                return Outcome::ready(Err(Error::new(
                    ErrorKind::ExtAuthForbidden,
                    "the extended Agent Card is for members: this caller holds no role in any namespace",
                )));
            }
            return Outcome::ready(
                self.extended_card
                    .clone()
                    .ok_or_else(|| Error::from_kind(ErrorKind::ExtendedAgentCardNotConfigured)),
            );
        }
        self.dispatch.dispatch_params(ctx, method, params)
    }
}

/// The contract's OpenRPC document as a result, encoded once (compact).
fn openrpc_document() -> Result<RawJson, Error> {
    static DOCUMENT: OnceLock<Result<RawJson, Error>> = OnceLock::new();
    DOCUMENT
        .get_or_init(|| {
            serde_json::from_str::<Value>(a2a::openrpc::DOCUMENT)
                .and_then(|document| to_raw(&document))
                .map_err(|e| {
                    Error::new(
                        ErrorKind::InternalError,
                        format!("the OpenRPC document is unreadable: {e}"),
                    )
                })
        })
        .clone()
}
