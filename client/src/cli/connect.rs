//! Reaching the agent the global flags name: over HTTP (JSON-RPC, HTTP+JSON
//! or gRPC) in server mode, with its credentials, TLS files and the protocol
//! version its Agent Card offers; else a spawned agent over stdio.

use super::{DEFAULT_AGENT, DEFAULT_AGENT_ARGS};
use crate::any::AnyTransport;
use crate::http::{HttpConfig, HttpTransport};
use crate::stdio::{StdioConfig, StdioTransport};
use crate::wire::{Credentials, DEFAULT_API_KEY_HEADER};
use a2a::rpc::CallError;
use clap::ArgMatches;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// For a server on this machine and no credentials given: the admin API key
/// a local agent keeps in its data directory (`--admin-key`), if there is one.
fn local_admin_key(url: &str) -> Option<String> {
    let url = reqwest::Url::parse(url).ok()?;
    let host = url.host_str()?.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        return None;
    }
    let path = a2a::rpc::local::admin_key_path(&a2a::rpc::local::data_dir());
    let key = std::fs::read_to_string(path).ok()?.trim().to_string();
    (!key.is_empty()).then_some(key)
}

/// Opens the transport the global flags describe.
pub(super) async fn connect(
    matches: &ArgMatches,
    trusted: Option<crate::TrustedKeys>,
) -> Result<AnyTransport, CallError> {
    let timeout = Duration::from_secs(matches.get_one::<u64>("timeout").copied().unwrap_or(30));
    let extension_version = matches.get_one::<String>("extension-version").cloned();
    if let Some(url) = matches.get_one::<String>("server") {
        let mut config = HttpConfig::new(url.clone());
        config.timeout = timeout;
        config.retries = matches.get_one::<u32>("retries").copied().unwrap_or(2);
        config.extension_version = extension_version;
        config.trusted_card_keys = trusted;
        let file = |name: &str| matches.get_one::<String>(name).map(PathBuf::from);
        config.tls = crate::TlsFiles {
            ca_file: file("ca-file"),
            client_cert: file("client-cert"),
            client_key: file("client-key"),
        };
        let api_key = |key: String| Credentials::ApiKey {
            header: matches
                .get_one::<String>("api-key-header")
                .cloned()
                .unwrap_or_else(|| DEFAULT_API_KEY_HEADER.into()),
            key,
        };
        config.credentials = if let Some(token) = matches.get_one::<String>("token") {
            Credentials::Bearer(token.clone())
        } else if let Some(key) = matches.get_one::<String>("api-key") {
            api_key(key.clone())
        } else {
            local_admin_key(url).map_or(Credentials::None, api_key)
        };
        let transport = match matches.get_one::<String>("binding").map(String::as_str) {
            Some("rest") => AnyTransport::Http(HttpTransport::rest(config).await?),
            Some("grpc") => AnyTransport::Grpc(
                crate::GrpcTransport::from_card(config.clone()).await?,
                HttpTransport::new(config)?,
            ),
            // JSON-RPC at the endpoint as given, in the version the card offers;
            // without a readable card, in the released version.
            _ => match HttpTransport::negotiated(config.clone()).await {
                Ok(transport) => AnyTransport::Http(transport),
                Err(_) => AnyTransport::Http(HttpTransport::new(config)?),
            },
        };
        return Ok(transport);
    }
    let program = matches
        .get_one::<String>("agent")
        .map(PathBuf::from)
        .unwrap_or_else(default_agent);
    let mut config = StdioConfig::new(program);
    config.args = match matches.get_many::<String>("agent-arg") {
        Some(args) => args.map(OsString::from).collect(),
        None => DEFAULT_AGENT_ARGS.iter().map(OsString::from).collect(),
    };
    config.timeout = timeout;
    config.extension_version = extension_version;
    config.client_name = "agents".into();
    Ok(AnyTransport::Stdio(Box::new(
        StdioTransport::spawn(config).await?,
    )))
}

/// `cleveragents-agent` next to this executable if it is there, else the bare
/// name (found on `PATH`).
pub fn default_agent() -> PathBuf {
    let name = format!("{DEFAULT_AGENT}{}", std::env::consts::EXE_SUFFIX);
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&name)))
        .filter(|candidate| candidate.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}
