//! `auth login` (a2a-cli §12.2, §12.3): an OAuth 2.1 token for the agent's
//! card, by the device authorization grant (a person approves on another
//! device) or the client credentials grant (the client acts as itself),
//! from the flows an OAuth2 scheme declares or an OpenID Connect scheme's
//! discovery document lists. The token is kept per agent and scheme in a
//! private file (0600, under `~/.config/a2a-cli/`) and sent with later calls
//! to that agent whose card still declares the scheme; an expired one is
//! refreshed when the grant gave a refresh token.

use super::debug::Debug;
use super::failure::{Failure, Local};
use super::output::Output;
use super::settings::{id, Settings};
use crate::oauth::{self, AgentKey, ClientAuth, Grant, OAuthError, StoredToken, TokenStore};
use clap::{Arg, ArgMatches, Command};
use serde_json::json;
use std::time::Duration;

/// How long a device login waits for the person, unless `--timeout` says.
const DEVICE_WAIT: Duration = Duration::from_secs(600);

/// The `auth` group.
pub fn command() -> Command {
    Command::new("auth")
        .about("Authentication")
        .subcommand_required(true)
        .subcommand(
            Command::new("login")
                .about("Obtain an OAuth 2.1 / OpenID Connect token for the agent (-a) and keep it for later calls")
                .long_about(
                    "Obtain a token from the authorization server the agent's card names (an OAuth2 scheme's \
                     flows, or an OpenID Connect scheme's discovery document) and keep it, private to you, for \
                     later calls to that agent. The device flow shows a code to approve on another device; the \
                     client-credentials flow needs --client-secret (prefer A2ACLI_CLIENT_SECRET).",
                )
                .arg(
                    Arg::new("scheme")
                        .long("scheme")
                        .value_name("NAME")
                        .help("The card's security scheme to log in to [default: the first OAuth2 or OpenID Connect scheme]"),
                )
                .arg(
                    Arg::new("flow")
                        .long("flow")
                        .value_name("FLOW")
                        .value_parser(["device", "client-credentials"])
                        .help("The grant [default: client-credentials with a client secret, else device]"),
                ),
        )
}

fn oauth_failure(error: &OAuthError) -> Failure {
    let failure = Failure::local(Local::AuthFailed, format!("login failed: {error}"));
    match error {
        OAuthError::Transport { .. } => Failure::local(Local::Unreachable, format!("login failed: {error}")),
        _ => failure,
    }
}

/// `auth login`.
pub async fn run(
    settings: &Settings,
    output: &Output,
    debug: &Debug,
    matches: &ArgMatches,
) -> Result<(), Failure> {
    if settings.get(id::AGENT_CARD).is_none() {
        return Err(Failure::usage("auth login needs the agent: -a/--agent-card REF")
            .hint("a local agent (no --agent-card) runs as you and needs no login"));
    }
    let client_id = settings.get(id::CLIENT_ID).ok_or_else(|| {
        Failure::usage("auth login needs --client-id (or A2ACLI_CLIENT_ID): the client registered with the authorization server")
    })?;
    let secret = settings.get(id::CLIENT_SECRET).map(oauth::Secret::new);
    if let Some(secret) = &secret {
        debug.secret(secret.expose());
    }
    let target = super::target::connect(settings, debug, Vec::new()).await?;
    let location = target.card_location.clone().unwrap_or_default();
    let _ = target.transport.shutdown().await;
    let oauth = super::tokens::oauth_client(settings)?;
    let resolved = oauth::resolve_flows(&oauth, &target.card).await;
    for (scheme, error) in &resolved.failures {
        super::output::warn(&format!("scheme {scheme}: {error}"));
    }
    let wanted_scheme = matches.get_one::<String>("scheme");
    let wanted_flow = matches
        .get_one::<String>("flow")
        .map(String::as_str)
        .unwrap_or(if secret.is_some() {
            "client-credentials"
        } else {
            "device"
        });
    // A scheme that declares its flows before one that discovers them, then
    // by name: the same choice on every run, whatever order the card's map
    // and the discovery answers came in.
    let mut schemes = oauth::oauth_schemes(&target.card);
    schemes.sort_by_key(|s| {
        (
            !matches!(s.kind, oauth::CardSchemeKind::OAuth2 { .. }),
            s.name.clone(),
        )
    });
    let order: Vec<String> = schemes.into_iter().map(|s| s.name).collect();
    let mut candidates: Vec<&oauth::SchemeFlow> = resolved
        .flows
        .iter()
        .filter(|f| {
            wanted_scheme.is_none_or(|s| *s == f.scheme)
                && match f.flow.grant {
                    Grant::DeviceCode { .. } => wanted_flow == "device",
                    Grant::ClientCredentials => wanted_flow == "client-credentials",
                }
        })
        .collect();
    candidates.sort_by_key(|f| {
        order
            .iter()
            .position(|name| *name == f.scheme)
            .unwrap_or(usize::MAX)
    });
    let chosen = candidates.first().copied();
    let Some(chosen) = chosen else {
        let offered: Vec<String> = resolved
            .flows
            .iter()
            .map(|f| format!("{} ({})", f.scheme, f.flow.grant.card_name()))
            .collect();
        return Err(Failure::usage(format!(
            "the agent's card offers no {wanted_flow} flow{}",
            wanted_scheme
                .map(|s| format!(" for scheme {s}"))
                .unwrap_or_default()
        ))
        .hint(if offered.is_empty() {
            "its card declares no OAuth2 or OpenID Connect scheme: use --bearer or --api-key".to_string()
        } else {
            format!("it offers: {}", offered.join(", "))
        }));
    };
    let scopes: Vec<String> = settings.list(id::SCOPE).to_vec();
    let client = match &secret {
        Some(secret) => ClientAuth::confidential(client_id, secret.clone()),
        None => ClientAuth::public(client_id),
    };
    debug.log(&format!(
        "login: scheme {}, {} flow at {}",
        chosen.scheme,
        chosen.flow.grant.card_name(),
        chosen.flow.token_url
    ));
    let response = match chosen.flow.grant {
        Grant::ClientCredentials => {
            if secret.is_none() {
                return Err(Failure::usage(
                    "the client-credentials flow needs --client-secret (or A2ACLI_CLIENT_SECRET)",
                ));
            }
            oauth.client_credentials(&chosen.flow, &client, &scopes).await
        }
        Grant::DeviceCode { .. } => {
            let wait = settings
                .duration(id::TIMEOUT)
                .map_err(Failure::usage)?
                .unwrap_or(DEVICE_WAIT);
            oauth
                .device_login(&chosen.flow, &client, &scopes, wait, |authorization| {
                    // Shown on stderr: the payload (stdout) is the login's result.
                    let link = authorization
                        .verification_uri_complete
                        .as_deref()
                        .unwrap_or(&authorization.verification_uri);
                    eprintln!(
                        "To sign in, open {} and enter the code {}\n(or open {link}); waiting for approval…",
                        authorization.verification_uri, authorization.user_code
                    );
                })
                .await
        }
    }
    .map_err(|e| oauth_failure(&e))?;
    debug.secret(&response.access_token);
    let key = AgentKey::new(&location, &chosen.scheme)
        .map_err(|e| Failure::usage(format!("cannot keep a token for {location}: {e}")))?;
    let stored = StoredToken::new(&key, &response, &chosen.flow, &client, oauth.clock().now());
    let store = TokenStore::open_default().map_err(|e| Failure::local(Local::Internal, e.to_string()))?;
    store
        .save(&stored)
        .map_err(|e| Failure::local(Local::Internal, e.to_string()))?;
    let path = store.path_of(&key).display().to_string();
    let document = json!({
        "agent": key.origin(),
        "scheme": key.scheme(),
        "flow": chosen.flow.grant.card_name(),
        "expiresAt": stored.expires_at,
        "scope": stored.scope,
        "stored": path,
    });
    output.document(&document, |out, value, _| {
        out.field("Agent", value["agent"].as_str().unwrap_or(""));
        out.field("Scheme", value["scheme"].as_str().unwrap_or(""));
        out.field("Flow", value["flow"].as_str().unwrap_or(""));
        out.field_opt("Scope", value["scope"].as_str());
        if let Some(at) = value["expiresAt"].as_u64() {
            out.field("Expires At", &format!("{at} (unix seconds)"));
        }
        out.field("Stored", value["stored"].as_str().unwrap_or(""));
    });
    Ok(())
}
