//! `itk-current-agent`: the CleverAgents participant of the A2A interop kit
//! (ITK). The kit starts it as it starts every SDK's participant:
//!
//! ```text
//! itk-current-agent --httpPort N --grpcPort M
//! ```
//!
//! It serves the agent (in memory) on `127.0.0.1:N` — the card, JSON-RPC at
//! `/`, HTTP+JSON under `/rest`, and gRPC — and gRPC on `127.0.0.1:M`, which
//! the card's GRPC interface names. Messages get the kit's behaviours: the
//! `tck-*` ones of the ACTS corpus (declared in `acts/sut-behaviors.yaml`),
//! `tck-client-parse` ([`client_parse`]) and traversal instructions
//! ([`traversal`]); every other message, the agent's own answer.
//!
//! The kit's deviation passes start it again with one variable set:
//! `ITK_ACTS_REDUCED_CAPABILITIES=1` turns streaming, push notifications and
//! the extended card off (the card says so and the methods answer
//! UnsupportedOperation); `ITK_ACTS_AUTH=1` requires a bearer token on every
//! call — `itk-valid-token` is served, `itk-insufficient-token` is known but
//! has no role (403), anything else or nothing is 401 — and serves the
//! extended card to the valid one.

mod client_parse;
mod executor;
mod instruction;
mod traversal;

use server::{AuthConfig, CredentialConfig, PrincipalConfig, Secret, ServerConfig};
use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::Arc;

/// The token of a caller with every right, in the auth pass.
const VALID_TOKEN: &str = "itk-valid-token";
/// The token of a known caller with no role, in the auth pass.
const INSUFFICIENT_TOKEN: &str = "itk-insufficient-token";
/// Set (to anything but `0` or empty) for the reduced-capabilities pass.
const REDUCED_CAPABILITIES_ENV: &str = "ITK_ACTS_REDUCED_CAPABILITIES";
/// Set for the auth pass.
const AUTH_ENV: &str = "ITK_ACTS_AUTH";

const USAGE: &str = "usage: itk-current-agent --httpPort N --grpcPort M";

/// The ports the kit gives, and the pass it runs.
struct Launch {
    http_port: u16,
    grpc_port: u16,
    reduced: bool,
    auth: bool,
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<Launch, String> {
    let (mut http_port, mut grpc_port) = (None, None);
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) => (name.to_string(), Some(value.to_string())),
            None => (arg, None),
        };
        let slot = match name.as_str() {
            "--httpPort" => &mut http_port,
            "--grpcPort" => &mut grpc_port,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        };
        let value = inline
            .or_else(|| args.next())
            .ok_or_else(|| format!("{name} needs a port\n{USAGE}"))?;
        *slot = Some(
            value
                .parse::<u16>()
                .map_err(|e| format!("{name} `{value}`: {e}\n{USAGE}"))?,
        );
    }
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0");
    Ok(Launch {
        http_port: http_port.ok_or_else(|| format!("--httpPort is required\n{USAGE}"))?,
        grpc_port: grpc_port.ok_or_else(|| format!("--grpcPort is required\n{USAGE}"))?,
        reduced: set(REDUCED_CAPABILITIES_ENV),
        auth: set(AUTH_ENV),
    })
}

fn loopback(port: u16) -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, port))
}

fn server_config(launch: &Launch) -> ServerConfig {
    let mut config = ServerConfig::default();
    config.http.listen = loopback(launch.http_port);
    config.http.grpc_listen = Some(loopback(launch.grpc_port));
    config.agent.name = "CleverAgents (ITK participant)".into();
    // Traversal instructions arrive as serialized protobuf.
    config
        .agent
        .default_input_modes
        .push(instruction::MEDIA_TYPE.into());
    // The application delivers push notifications.
    config.agent.capabilities.push_notifications = true;
    if launch.reduced {
        config.agent.capabilities.streaming = false;
        config.agent.capabilities.push_notifications = false;
        config.agent.capabilities.extended_agent_card = Some(false);
    }
    if launch.auth {
        config.auth = auth_config();
    }
    config
}

fn auth_config() -> AuthConfig {
    let credential = |secret: &str, subject: &str| CredentialConfig {
        secret: Secret::new(secret),
        subject: subject.into(),
    };
    AuthConfig {
        bearer_tokens: vec![
            credential(VALID_TOKEN, "itk-user"),
            credential(INSUFFICIENT_TOKEN, "itk-outsider"),
        ],
        principals: vec![PrincipalConfig {
            subject: "itk-user".into(),
            namespaces: [("*".to_string(), a2a::rpc::Access::Admin)].into(),
            default_namespace: None,
        }],
        ..AuthConfig::default()
    }
}

fn app_config(config: &ServerConfig) -> app::AppConfig {
    app::AppConfig {
        executor: app::ExecutorKind::Tck,
        // Traversal partners and the kit's webhook receiver are on loopback.
        push: app::push::PushConfig {
            allow_list: vec!["127.0.0.1".into(), "localhost".into(), "[::1]".into()],
            ..Default::default()
        },
        input_modes: app::tasks::InputModes::new(server::card::accepted_input_modes(&config.agent)),
        metrics: config.metrics.clone(),
        ..Default::default()
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let launch = match parse_args(std::env::args().skip(1)) {
        Ok(launch) => launch,
        Err(message) => {
            eprintln!("itk-current-agent: {message}");
            return ExitCode::from(2);
        }
    };
    let config = server_config(&launch);
    let app = app::App::with_executor_around(
        Arc::new(app::store::MemoryStore::new()),
        app_config(&config),
        executor::ItkExecutor::around,
    );
    let dispatch: Arc<dyn a2a::rpc::Dispatch> = Arc::new(a2a::Router::new(app));
    let server = match server::HttpServer::bind(config, dispatch).await {
        Ok(server) => server,
        Err(error) => {
            eprintln!("itk-current-agent: {error}");
            return ExitCode::FAILURE;
        }
    };
    match (server.local_addr(), server.grpc_local_addr()) {
        (Ok(http), Ok(Some(grpc))) => {
            eprintln!("itk-current-agent: listening on http://{http}/ (gRPC also on {grpc})")
        }
        (Err(error), _) | (_, Err(error)) => {
            eprintln!("itk-current-agent: {error}");
            return ExitCode::FAILURE;
        }
        (Ok(http), Ok(None)) => eprintln!("itk-current-agent: listening on http://{http}/"),
    }
    match server.serve(server::shutdown_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("itk-current-agent: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_args;

    fn args(list: &[&str]) -> impl Iterator<Item = String> {
        list.iter().map(|s| s.to_string()).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn the_kits_flags_are_read_in_either_form() {
        let launch = parse_args(args(&["--httpPort", "8000", "--grpcPort=9000"])).expect("valid");
        assert_eq!((launch.http_port, launch.grpc_port), (8000, 9000));
        assert_eq!(
            parse_args(args(&["--httpPort", "8000"])).err().as_deref(),
            Some("--grpcPort is required\nusage: itk-current-agent --httpPort N --grpcPort M")
        );
        assert_eq!(
            parse_args(args(&["--httpPort", "x", "--grpcPort", "1"])).err().as_deref(),
            Some("--httpPort `x`: invalid digit found in string\nusage: itk-current-agent --httpPort N --grpcPort M")
        );
        assert!(parse_args(args(&["--port", "1"])).is_err());
    }
}
