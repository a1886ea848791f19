//! The agent's log subscriber and, when an OTLP endpoint is configured, its
//! OpenTelemetry traces.
//!
//! Logs always go to stderr (stdout is protocol in stdio mode), filtered by
//! `CLEVERAGENTS_LOG` (default `warn`). Traces are off unless an endpoint is
//! given: `OTEL_EXPORTER_OTLP_ENDPOINT` (the standard variable, the base URL
//! of an OTLP/HTTP collector; it wins over the file) or `telemetry.otlp_endpoint`
//! in the config file. Then every span the server and the application open
//! at `info` (transport request, dispatch, handler, store commit, push
//! delivery) is exported over OTLP/HTTP with protobuf to `<endpoint>/v1/traces`,
//! in batches from a thread of the exporter's own; [`Tracing::shutdown`]
//! exports what is left before the process exits. Without an endpoint no
//! OpenTelemetry layer exists, so the spans stay as cheap as the log filter
//! makes them.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use serde::Deserialize;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// The standard variable naming the OTLP endpoint (base URL).
pub const OTLP_ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
/// The standard variable naming the service in the exported resource.
const SERVICE_NAME_ENV: &str = "OTEL_SERVICE_NAME";
/// The service name when `OTEL_SERVICE_NAME` gives none.
const SERVICE_NAME: &str = "cleveragents-agent";
/// The path OTLP/HTTP takes traces at, under the endpoint.
const TRACES_PATH: &str = "/v1/traces";

/// The config file's `telemetry` section.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelemetryFile {
    /// Base URL of an OTLP/HTTP collector (e.g. `http://127.0.0.1:4318`);
    /// traces are off without it (and without `OTEL_EXPORTER_OTLP_ENDPOINT`).
    pub otlp_endpoint: Option<String>,
}

impl TelemetryFile {
    /// The endpoint in force: the environment's, else the file's.
    pub fn endpoint(&self) -> Option<String> {
        std::env::var(OTLP_ENDPOINT_ENV)
            .ok()
            .or_else(|| self.otlp_endpoint.clone())
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty())
    }
}

/// The installed tracing; holds the exporter while the agent runs.
pub struct Tracing {
    provider: Option<SdkTracerProvider>,
}

impl Tracing {
    /// Exports the spans not yet sent and stops the exporter (a no-op
    /// without traces).
    pub fn shutdown(self) {
        if let Some(provider) = self.provider {
            if let Err(error) = provider.shutdown() {
                eprintln!("cleveragents-agent: the last traces could not be exported: {error}");
            }
        }
    }
}

/// The log filter of `CLEVERAGENTS_LOG`, `warn` by default.
fn log_filter() -> EnvFilter {
    EnvFilter::try_from_env("CLEVERAGENTS_LOG").unwrap_or_else(|_| EnvFilter::new("warn"))
}

fn log_layer<S>() -> impl Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(log_filter())
}

/// Installs the logs and, with an endpoint, the trace exporter.
pub fn init(endpoint: Option<String>) -> Result<Tracing, String> {
    let Some(endpoint) = endpoint else {
        let _ = tracing_subscriber::registry().with(log_layer()).try_init();
        return Ok(Tracing { provider: None });
    };
    let url = format!("{}{TRACES_PATH}", endpoint.trim_end_matches('/'));
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(url.clone())
        .build()
        .map_err(|e| format!("cannot export traces to {url}: {e}"))?;
    let service = std::env::var(SERVICE_NAME_ENV)
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| SERVICE_NAME.to_string());
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(Resource::builder().with_service_name(service).build())
        .build();
    let tracer = provider.tracer(SERVICE_NAME);
    let traces = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_filter(LevelFilter::INFO);
    tracing_subscriber::registry()
        .with(log_layer())
        .with(traces)
        .try_init()
        .map_err(|e| format!("cannot install the trace exporter: {e}"))?;
    Ok(Tracing {
        provider: Some(provider),
    })
}
