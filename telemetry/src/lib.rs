//! W3C trace context between the carriers a request arrives or leaves with
//! (HTTP headers, the stdio binding's `params._meta`, a push delivery's or a
//! sync call's headers) and the `tracing` spans it runs in.
//!
//! The spans become OpenTelemetry spans only when the agent installs the
//! OpenTelemetry layer (an OTLP endpoint is configured); without it every
//! function here is a no-op that costs a field lookup: a span without an
//! OpenTelemetry context yields no trace context, and a parent set on it is
//! ignored. The propagation format is fixed to W3C Trace Context
//! (`traceparent`, `tracestate`), read and written directly rather than
//! through the process-wide propagator, so no lock is taken per request.

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The W3C `traceparent` field (header name, or `_meta` member on stdio).
pub const TRACEPARENT: &str = "traceparent";
/// The W3C `tracestate` field.
pub const TRACESTATE: &str = "tracestate";

/// A trace context as W3C Trace Context spells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceContext {
    /// `version-traceid-parentid-flags`, e.g. `00-4bf9…-00f0…-01`.
    pub traceparent: String,
    /// Vendor entries, when the trace carries any.
    pub tracestate: Option<String>,
}

impl TraceContext {
    /// The context carried by `get` (a carrier read by field name), if it
    /// carries a `traceparent`.
    pub fn from_carrier<'a>(get: impl Fn(&str) -> Option<&'a str>) -> Option<TraceContext> {
        let traceparent = get(TRACEPARENT)?.trim();
        if traceparent.is_empty() {
            return None;
        }
        Some(TraceContext {
            traceparent: traceparent.to_string(),
            tracestate: get(TRACESTATE).map(str::to_string),
        })
    }

    /// The fields to write into an outgoing carrier, `traceparent` first.
    pub fn fields(&self) -> impl Iterator<Item = (&'static str, &str)> {
        std::iter::once((TRACEPARENT, self.traceparent.as_str()))
            .chain(self.tracestate.as_deref().map(|state| (TRACESTATE, state)))
    }

    /// The trace id (32 hex digits) of the `traceparent`.
    pub fn trace_id(&self) -> Option<&str> {
        self.traceparent.split('-').nth(1)
    }
}

/// The carrier of one [`TraceContext`] for the propagator.
struct Fields<'a>(&'a TraceContext);

impl Extractor for Fields<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            TRACEPARENT => Some(self.0.traceparent.as_str()),
            TRACESTATE => self.0.tracestate.as_deref(),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec![TRACEPARENT, TRACESTATE]
    }
}

/// What the propagator writes when injecting.
#[derive(Default)]
struct Written {
    traceparent: Option<String>,
    tracestate: Option<String>,
}

impl Injector for Written {
    fn set(&mut self, key: &str, value: String) {
        match key {
            TRACEPARENT => self.traceparent = Some(value),
            TRACESTATE if !value.is_empty() => self.tracestate = Some(value),
            _ => {}
        }
    }
}

/// Makes `parent` the remote parent of `span`, so the span joins the
/// caller's trace. A malformed `traceparent` is ignored (the span starts a
/// trace of its own), as W3C Trace Context requires.
pub fn set_parent(span: &tracing::Span, parent: &TraceContext) {
    if span.is_disabled() {
        return;
    }
    let context = TraceContextPropagator::new().extract(&Fields(parent));
    if context.span().span_context().is_valid() {
        let _ = span.set_parent(context);
    }
}

/// The trace context of `span`, to pass on to a call it makes; `None` when
/// the span is not traced (no OpenTelemetry layer, or the span is disabled).
pub fn context_of(span: &tracing::Span) -> Option<TraceContext> {
    if span.is_disabled() {
        return None;
    }
    let context = span.context();
    if !context.span().span_context().is_valid() {
        return None;
    }
    let mut written = Written::default();
    TraceContextPropagator::new().inject_context(&context, &mut written);
    Some(TraceContext {
        traceparent: written.traceparent?,
        tracestate: written.tracestate,
    })
}

/// The trace context of the current span ([`context_of`]).
pub fn current() -> Option<TraceContext> {
    context_of(&tracing::Span::current())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_carrier_without_traceparent_carries_nothing() {
        assert_eq!(TraceContext::from_carrier(|_| None), None);
        assert_eq!(
            TraceContext::from_carrier(|k| (k == TRACEPARENT).then_some(" ")),
            None
        );
    }

    #[test]
    fn the_fields_and_the_trace_id_of_a_context() {
        let context = TraceContext::from_carrier(|k| match k {
            TRACEPARENT => Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            TRACESTATE => Some("vendor=1"),
            _ => None,
        })
        .expect("a context");
        assert_eq!(context.trace_id(), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
        assert_eq!(
            context.fields().collect::<Vec<_>>(),
            vec![
                (
                    TRACEPARENT,
                    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                ),
                (TRACESTATE, "vendor=1"),
            ]
        );
    }

    #[test]
    fn without_an_opentelemetry_layer_spans_have_no_context() {
        let span = tracing::info_span!("untraced");
        let parent = TraceContext {
            traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
            tracestate: None,
        };
        set_parent(&span, &parent);
        assert_eq!(context_of(&span), None);
    }
}
