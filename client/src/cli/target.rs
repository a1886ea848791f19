//! The agent a command talks to and how (a2a-cli §13, §12.1): in server
//! mode, the interface of its card to use (the first one this tool supports,
//! or the first of `--transport`'s bindings the card offers), the version to
//! speak on it, its tenant, and only the credentials a scheme the card
//! declares accepts, placed where that scheme says; in local mode, the agent
//! executable spawned over stdio.

use super::failure::{Failure, Local};
use super::settings::{id, Settings};
use crate::any::AnyTransport;
use crate::http::{HttpBinding, HttpConfig, HttpTransport};
use crate::stdio::{StdioConfig, StdioTransport};
use crate::wire::{Credentials, KeyLocation};
use a2a::rpc::Version;
use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;

/// The bindings this tool speaks: every one the specification defines.
pub fn bindings() -> Vec<&'static str> {
    a2a::Binding::ALL.iter().map(|b| b.as_str()).collect()
}

/// The card's name of a binding given in any case (`jsonrpc`, `http+json`, `grpc`).
pub fn binding_name(given: &str) -> Option<&'static str> {
    a2a::Binding::from_name(given.trim()).map(a2a::Binding::as_str)
}

/// The interface chosen from a card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// Its binding (`JSONRPC`, `HTTP+JSON`, `GRPC`).
    pub binding: &'static str,
    /// Its URL.
    pub url: String,
    /// The version spoken on it.
    pub version: String,
    /// Its tenant, sent in every request.
    pub tenant: Option<String>,
}

/// The A2A versions this tool speaks, newest first, none below 1.0.
fn known_versions() -> Vec<(Version, &'static str)> {
    let floor = Version::parse(crate::wire::PROTOCOL_VERSION);
    let mut known: Vec<(Version, &'static str)> = a2a::Contract::A2a
        .versions()
        .iter()
        .copied()
        .filter_map(|v| Some((Version::parse(v)?, v)))
        .filter(|(v, _)| floor.is_none_or(|floor| *v >= floor))
        .collect();
    known.sort_by_key(|(version, _)| std::cmp::Reverse(*version));
    known
}

/// Chooses the interface: bindings in `preferred` order (else the card's),
/// each interface speaking a version this tool knows (exactly `version`
/// when given, which may then be one the card does not list: the agent is
/// asked, and refuses it if it must).
pub fn choose(card: &Value, preferred: &[&'static str], version: Option<&str>) -> Result<Interface, Failure> {
    let interfaces: Vec<&Value> = card
        .get("supportedInterfaces")
        .and_then(Value::as_array)
        .map(|list| list.iter().collect())
        .unwrap_or_default();
    let known = known_versions();
    let version_of = |i: &Value| {
        i["protocolVersion"]
            .as_str()
            .unwrap_or(crate::wire::PROTOCOL_VERSION)
            .to_string()
    };
    let speaks = |i: &Value| -> Option<String> {
        let offered = version_of(i);
        match version {
            Some(wanted) => (Version::parse(&offered) == Version::parse(wanted)).then(|| wanted.to_string()),
            None => {
                let parsed = Version::parse(&offered)?;
                known
                    .iter()
                    .find(|(v, _)| *v == parsed)
                    .map(|(_, name)| (*name).to_string())
            }
        }
    };
    let supported = |i: &Value| i["protocolBinding"].as_str().and_then(binding_name);
    let order: Vec<&'static str> = if preferred.is_empty() {
        let mut order = Vec::new();
        for binding in interfaces.iter().filter_map(|i| supported(i)) {
            if !order.contains(&binding) {
                order.push(binding);
            }
        }
        order
    } else {
        preferred.to_vec()
    };
    for binding in &order {
        let of_binding: Vec<&Value> = interfaces
            .iter()
            .copied()
            .filter(|i| supported(i) == Some(binding))
            .collect();
        // The newest version this tool and the interface share.
        let mut best: Option<(Version, &Value, String)> = None;
        for interface in &of_binding {
            if let Some(spoken) = speaks(interface) {
                let parsed = Version::parse(&spoken);
                if let Some(parsed) = parsed {
                    if best.as_ref().is_none_or(|(v, _, _)| parsed > *v) {
                        best = Some((parsed, interface, spoken));
                    }
                }
            }
        }
        let chosen = match (best, version) {
            (Some((_, interface, spoken)), _) => Some((interface, spoken)),
            // An explicit version the card does not list: asked anyway.
            (None, Some(wanted)) => of_binding.first().map(|i| (*i, wanted.to_string())),
            (None, None) => None,
        };
        if let Some((interface, spoken)) = chosen {
            let url = interface["url"].as_str().unwrap_or("").to_string();
            if url.is_empty() {
                return Err(Failure::local(
                    Local::CardInvalid,
                    format!("the card's {binding} interface has no url"),
                ));
            }
            return Ok(Interface {
                binding,
                url,
                version: spoken,
                tenant: interface["tenant"]
                    .as_str()
                    .filter(|t| !t.is_empty())
                    .map(str::to_string),
            });
        }
    }
    let offered: Vec<String> = interfaces
        .iter()
        .map(|i| {
            format!(
                "{} {}",
                i["protocolBinding"].as_str().unwrap_or("?"),
                version_of(i)
            )
        })
        .collect();
    let mut failure = Failure::local(
        Local::Unreachable,
        format!(
            "the agent's card offers no interface this tool can use (it offers: {}; this tool speaks {} at A2A {})",
            if offered.is_empty() { "none".to_string() } else { offered.join(", ") },
            bindings().join(", "),
            known.iter().map(|(_, v)| *v).collect::<Vec<_>>().join(", ")
        ),
    );
    if !preferred.is_empty() {
        failure = failure.hint("drop --transport to let the card choose");
    }
    Err(failure)
}

/// One scheme a card declares, as this tool sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// An API key, at this place under this name.
    ApiKey(KeyLocation, String),
    /// An HTTP Bearer token.
    Bearer,
    /// OAuth 2 (access tokens sent as bearer tokens).
    OAuth2,
    /// OpenID Connect (ID/access tokens sent as bearer tokens).
    OpenIdConnect,
    /// Mutual TLS.
    MutualTls,
    /// A scheme this tool cannot use (HTTP Basic, an unknown kind).
    Other(String),
}

impl Scheme {
    /// What a person must give for it.
    pub fn describe(&self) -> String {
        match self {
            Scheme::ApiKey(KeyLocation::Header, name) => {
                format!("an API key in the {name} header (--api-key or A2ACLI_API_KEY)")
            }
            Scheme::ApiKey(KeyLocation::Query, name) => {
                format!("an API key in the {name} query parameter (--api-key or A2ACLI_API_KEY)")
            }
            Scheme::ApiKey(KeyLocation::Cookie, name) => {
                format!("an API key in the {name} cookie (--api-key or A2ACLI_API_KEY)")
            }
            Scheme::Bearer => "a bearer token (--bearer or A2ACLI_BEARER)".into(),
            Scheme::OAuth2 => "an OAuth 2 access token (`agents auth login`, or --bearer)".into(),
            Scheme::OpenIdConnect => "an OpenID Connect token (`agents auth login`, or --bearer)".into(),
            Scheme::MutualTls => "a client certificate (--client-cert and --client-key)".into(),
            Scheme::Other(kind) => format!("{kind}, which this tool does not support"),
        }
    }
}

/// The schemes a card declares, by name.
pub fn schemes(card: &Value) -> Vec<(String, Scheme)> {
    let Some(map) = card.get("securitySchemes").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Scheme)> = map
        .iter()
        .map(|(name, scheme)| {
            let kind = if let Some(key) = scheme.get("apiKeySecurityScheme") {
                match KeyLocation::parse(key["location"].as_str().unwrap_or("")) {
                    Some(location) => {
                        Scheme::ApiKey(location, key["name"].as_str().unwrap_or("").to_string())
                    }
                    None => Scheme::Other(format!(
                        "an API key in `{}`",
                        key["location"].as_str().unwrap_or("?")
                    )),
                }
            } else if let Some(http) = scheme.get("httpAuthSecurityScheme") {
                let name = http["scheme"].as_str().unwrap_or("");
                if name.eq_ignore_ascii_case("bearer") {
                    Scheme::Bearer
                } else {
                    Scheme::Other(format!("HTTP {name} authentication"))
                }
            } else if scheme.get("oauth2SecurityScheme").is_some() {
                Scheme::OAuth2
            } else if scheme.get("openIdConnectSecurityScheme").is_some() {
                Scheme::OpenIdConnect
            } else if scheme.get("mtlsSecurityScheme").is_some() {
                Scheme::MutualTls
            } else {
                Scheme::Other("an unknown scheme".into())
            };
            (name.clone(), kind)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The alternatives a card's security requirements allow, each a list of
/// scheme names all needed together; every declared scheme alone when the
/// card lists no requirement.
pub fn requirements(card: &Value) -> Vec<Vec<String>> {
    let listed: Vec<Vec<String>> = card
        .get("securityRequirements")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| {
            r.get("schemes")
                .and_then(Value::as_object)
                .map(|s| s.keys().cloned().collect())
                .unwrap_or_default()
        })
        .filter(|names: &Vec<String>| !names.is_empty())
        .collect();
    if !listed.is_empty() {
        return listed;
    }
    schemes(card).into_iter().map(|(name, _)| vec![name]).collect()
}

/// What the caller can authenticate with.
#[derive(Clone, Debug, Default)]
pub struct Given {
    /// `--bearer`.
    pub bearer: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// A token `auth login` stored for a scheme of this agent, by scheme name.
    pub stored: Vec<(String, String)>,
    /// A client certificate is configured.
    pub client_cert: bool,
}

/// The credentials to send and what was left out, for the warnings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen {
    /// What goes on the wire.
    pub credentials: Credentials,
    /// The scheme names they satisfy.
    pub schemes: Vec<String>,
    /// Credentials given that no declared scheme takes (never sent).
    pub unsent: Vec<&'static str>,
}

/// Picks, among the card's alternatives, the first one the caller can
/// satisfy, and sends only that. A requirement needing two credentials sent
/// at once (other than a client certificate) is beyond this tool's one
/// credential per request, and skipped.
pub fn credentials(card: &Value, given: &Given) -> Chosen {
    let declared = schemes(card);
    let scheme_of = |name: &str| declared.iter().find(|(n, _)| n == name).map(|(_, s)| s.clone());
    let bearer_for = |name: &str| -> Option<String> {
        given
            .stored
            .iter()
            .find(|(scheme, _)| scheme == name)
            .map(|(_, token)| token.clone())
            .or_else(|| given.bearer.clone())
    };
    let mut chosen = None;
    for requirement in requirements(card) {
        let mut credential = None;
        let mut ok = true;
        for name in &requirement {
            let one = match scheme_of(name) {
                Some(Scheme::ApiKey(location, key_name)) => {
                    given.api_key.clone().map(|key| Credentials::ApiKeyAt {
                        location,
                        name: key_name,
                        key,
                    })
                }
                Some(Scheme::Bearer) => given.bearer.clone().map(Credentials::Bearer),
                Some(Scheme::OAuth2 | Scheme::OpenIdConnect) => bearer_for(name).map(Credentials::Bearer),
                Some(Scheme::MutualTls) if given.client_cert => Some(Credentials::None),
                _ => None,
            };
            match (one, &credential) {
                (None, _) => ok = false,
                (Some(Credentials::None), _) => {}
                (Some(c), None) => credential = Some(c),
                (Some(_), Some(_)) => ok = false,
            }
        }
        if ok {
            chosen = Some((credential.unwrap_or_default(), requirement));
            break;
        }
    }
    let (credentials, schemes) = chosen.unwrap_or_default();
    let mut unsent = Vec::new();
    let uses_bearer = matches!(credentials, Credentials::Bearer(_));
    let uses_key = matches!(credentials, Credentials::ApiKeyAt { .. });
    if given.bearer.is_some() && !uses_bearer {
        unsent.push("--bearer");
    }
    if given.api_key.is_some() && !uses_key {
        unsent.push("--api-key");
    }
    Chosen {
        credentials,
        schemes,
        unsent,
    }
}

/// The reached agent.
pub struct Target {
    /// The transport to it.
    pub transport: AnyTransport,
    /// Its card (the public one; local mode: the one `initialize` returned).
    pub card: Value,
    /// Where the card was read (`None` in local mode).
    pub card_location: Option<String>,
    /// The interface chosen (`None` in local mode).
    pub interface: Option<Interface>,
    /// Whether any credential is sent.
    pub sends_credentials: bool,
}

impl Target {
    /// Whether the card declares a capability (`streaming`, `pushNotifications`,
    /// `extendedAgentCard`).
    pub fn capable(&self, capability: &str) -> bool {
        self.card
            .pointer(&format!("/capabilities/{capability}"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// Whether the card declares the capability `method` needs (§13.3); a
    /// method that needs none is always allowed.
    pub fn allows(&self, method: &str) -> bool {
        a2a::find_method(method)
            .and_then(|m| m.capability)
            .is_none_or(|capability| self.capable(capability))
    }

    /// Puts the chosen interface's tenant in `params` (§13.1), where the
    /// method's params have that member and the caller gave none.
    pub fn with_tenant(&self, method: &str, params: &mut Value) {
        let Some(tenant) = self.interface.as_ref().and_then(|i| i.tenant.as_deref()) else {
            return;
        };
        let field = crate::wire::A2A_NAMESPACE_FIELD;
        let has_member = a2a::find_method(method)
            .and_then(|m| crate::schema::definition(m.params_type))
            .and_then(|d| d.get("properties"))
            .is_some_and(|p| p.get(field).is_some());
        if let Some(members) = params.as_object_mut().filter(|_| has_member) {
            members
                .entry(field)
                .or_insert_with(|| Value::String(tenant.to_string()));
        }
    }

    /// A hint naming what the agent's schemes want, for an authentication failure.
    pub fn auth_hint(&self) -> Option<String> {
        let schemes = schemes(&self.card);
        if schemes.is_empty() {
            return None;
        }
        let wants: Vec<String> = schemes.iter().map(|(_, s)| s.describe()).collect();
        Some(format!("this agent takes {}", wants.join("; or ")))
    }
}

/// The HTTP config every server-mode transport starts from.
pub fn http_config(settings: &Settings, endpoint: &str) -> Result<HttpConfig, Failure> {
    let mut config = HttpConfig::new(endpoint.to_string());
    if let Some(timeout) = settings.duration(id::CALL_TIMEOUT).map_err(Failure::usage)? {
        config.timeout = timeout;
    }
    config.retries = match settings.get(id::RETRIES) {
        Some(n) => n
            .parse()
            .map_err(|_| Failure::usage(format!("--retries: `{n}` is not a count")))?,
        None => 2,
    };
    config.extension_version = settings.get(id::EXTENSION_VERSION).map(str::to_string);
    config.tls = settings.tls_files();
    for param in settings.list(id::SVC_PARAM) {
        let (key, value) = param
            .split_once(':')
            .filter(|(k, _)| !k.trim().is_empty())
            .ok_or_else(|| {
                Failure::usage(format!(
                    "--svc-param `{}` is not KEY:VALUE",
                    super::debug::redact_param(param)
                ))
            })?;
        config
            .headers
            .push((key.trim().to_string(), value.trim().to_string()));
    }
    Ok(config)
}

/// Checks that this tool supports every extension the card marks required
/// (A2A §4.6): those it supports it declares on every request
/// (`A2A-Extensions`); one it does not is a failure before any call.
fn required_extensions(card: &Value) -> Result<(), Failure> {
    let supported = crate::wire::extension_uris();
    let missing: Vec<&str> = card
        .pointer("/capabilities/extensions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|e| e["required"].as_bool() == Some(true))
        .filter_map(|e| e["uri"].as_str())
        .filter(|uri| !supported.contains(uri))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Failure {
        code: super::failure::Code::Protocol(
            a2a::ErrorKind::ExtensionSupportRequired.spec_name().to_string(),
        ),
        ..Failure::local(
            Local::Internal,
            format!(
                "the agent requires extension(s) this tool does not support: {}",
                missing.join(", ")
            ),
        )
    }
    .hint(format!("this tool supports {}", supported.join(", "))))
}

/// Spawns the agent executable over stdio (local mode).
pub async fn local(
    settings: &Settings,
    agent_args: Vec<OsString>,
    debug: &super::debug::Debug,
) -> Result<Target, Failure> {
    let program = settings
        .get(id::AGENT)
        .map(PathBuf::from)
        .unwrap_or_else(super::default_agent);
    let mut config = StdioConfig::new(program.clone());
    config.args = agent_args;
    if let Some(timeout) = settings.duration(id::CALL_TIMEOUT).map_err(Failure::usage)? {
        config.timeout = timeout;
    }
    config.extension_version = settings.get(id::EXTENSION_VERSION).map(str::to_string);
    config.protocol_version = settings.get(id::A2A_VERSION).map(str::to_string);
    config.client_name = "agents".into();
    config.wire_log = debug.wire_log();
    let transport = StdioTransport::spawn(config).await.map_err(|e| {
        Failure::local(Local::Unreachable, format!("cannot start the local agent {}: {}", program.display(), super::failure::one_line(&e.to_string())))
            .hint("install cleveragents-agent beside this program or on PATH, pass --agent PATH, or name a remote agent with --agent-card")
    })?;
    let card = transport.agent_card().clone();
    Ok(Target {
        transport: AnyTransport::Stdio(Box::new(transport)),
        card,
        card_location: None,
        interface: None,
        sends_credentials: false,
    })
}

/// Opens the transport of `interface`.
pub fn open(
    mut config: HttpConfig,
    interface: &Interface,
    card_location: &str,
) -> Result<AnyTransport, Failure> {
    config.protocol_version = Some(interface.version.clone());
    let failed = |e: a2a::rpc::CallError| Failure::of_call(&e, false);
    Ok(match interface.binding {
        b if b == a2a::bindings::GRPC => {
            // A gRPC interface is `host:port` (or a URL): reached with the
            // card's scheme, TLS when the card came over https.
            let scheme = if card_location.starts_with("https://") {
                "https"
            } else {
                "http"
            };
            let mut grpc = config.clone();
            grpc.endpoint = if interface.url.contains("://") {
                interface.url.clone()
            } else {
                format!("{scheme}://{}", interface.url)
            };
            let origin = reqwest::Url::parse(&grpc.endpoint)
                .map(|u| u.origin().ascii_serialization())
                .unwrap_or_else(|_| grpc.endpoint.clone());
            config.endpoint = format!("{origin}/");
            AnyTransport::Grpc(
                crate::GrpcTransport::new(grpc).map_err(failed)?,
                HttpTransport::new(config).map_err(failed)?,
            )
        }
        b => {
            config.endpoint = interface.url.clone();
            config.binding = if b == a2a::bindings::HTTP_JSON {
                HttpBinding::Rest
            } else {
                HttpBinding::JsonRpc
            };
            AnyTransport::Http(HttpTransport::new(config).map_err(failed)?)
        }
    })
}

/// For an agent on this machine whose card takes an API key, when none was
/// given: the admin key a local agent keeps in its data directory.
fn local_admin_key(card_location: &str) -> Option<String> {
    let url = reqwest::Url::parse(card_location).ok()?;
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

/// Reaches the agent the settings name: its card, then the chosen interface
/// with the credentials its schemes take; without `--agent-card`, the local
/// agent over stdio.
pub async fn connect(
    settings: &Settings,
    debug: &super::debug::Debug,
    agent_args: Vec<OsString>,
) -> Result<Target, Failure> {
    for secret in [id::BEARER, id::API_KEY] {
        if let Some(value) = settings.get(secret) {
            debug.secret(value);
        }
    }
    for param in settings.list(id::SVC_PARAM) {
        if let Some((_, value)) = param.split_once(':') {
            debug.secret(value.trim());
        }
    }
    let version = settings.get(id::A2A_VERSION);
    if let Some(version) = version {
        let known = known_versions();
        if !Version::parse(version).is_some_and(|v| known.iter().any(|(k, _)| *k == v)) {
            return Err(Failure::usage(format!(
                "--a2a-version {version}: this tool speaks A2A {}",
                known.iter().map(|(_, v)| *v).collect::<Vec<_>>().join(" and ")
            )));
        }
    }
    let mut preferred = Vec::new();
    for given in settings.list(id::TRANSPORT) {
        let binding = binding_name(given)
            .ok_or_else(|| Failure::usage(format!("--transport {given}: use {}", bindings().join(", "))))?;
        preferred.push(binding);
    }
    let insecure = settings.switch(id::INSECURE).map_err(Failure::usage)?;
    if insecure {
        super::output::warn("TLS certificate verification is OFF (--insecure): anyone on the path can read and alter this exchange. Development only.");
    }
    let Some(reference) = settings.get(id::AGENT_CARD) else {
        if !preferred.is_empty() {
            super::output::warn("--transport does not apply in local mode (the agent is spawned over stdio)");
        }
        if settings.get(id::BEARER).is_some() || settings.get(id::API_KEY).is_some() {
            super::output::warn("credentials are not sent in local mode: the local agent runs as you");
        }
        debug.log("local mode: spawning the agent over stdio (no --agent-card)");
        return local(settings, agent_args, debug).await;
    };
    let http = crate::tls::configure(
        reqwest::Client::builder().connect_timeout(std::time::Duration::from_secs(10)),
        &settings.tls_files(),
    )
    .map_err(|e| Failure::of_call(&e, false))?
    .timeout(
        settings
            .duration(id::CALL_TIMEOUT)
            .map_err(Failure::usage)?
            .unwrap_or(std::time::Duration::from_secs(60)),
    )
    .build()
    .map_err(|e| Failure::local(Local::Internal, format!("HTTP client: {e}")))?;
    let log = |line: &str| debug.log(line);
    let resolved = super::card_ref::Reader {
        http: &http,
        debug: &log,
    }
    .resolve(reference)
    .await?;
    if let Some(entry) = &resolved.catalog_entry {
        debug.log(&format!(
            "catalog entry {entry}: its card is at {}",
            resolved.location
        ));
    }
    required_extensions(&resolved.card)?;
    let interface = choose(&resolved.card, &preferred, version)?;
    debug.log(&format!(
        "card {}: using {} {} (A2A {}){}",
        resolved.location,
        interface.binding,
        interface.url,
        interface.version,
        interface
            .tenant
            .as_ref()
            .map(|t| format!(", tenant {t}"))
            .unwrap_or_default()
    ));
    let mut given = Given {
        bearer: settings.get(id::BEARER).map(str::to_string),
        api_key: settings.get(id::API_KEY).map(str::to_string),
        stored: super::tokens::stored_tokens(settings, &resolved.location, &resolved.card, debug).await,
        client_cert: settings.get(id::CLIENT_CERT).is_some(),
    };
    let declares_key = schemes(&resolved.card)
        .iter()
        .any(|(_, s)| matches!(s, Scheme::ApiKey(..)));
    if given.api_key.is_none() && declares_key && given.bearer.is_none() {
        if let Some(key) = local_admin_key(&resolved.location) {
            debug.secret(&key);
            debug.log("using the local agent's admin key (its data directory) for an agent on this machine");
            given.api_key = Some(key);
        }
    }
    let chosen = credentials(&resolved.card, &given);
    for flag in &chosen.unsent {
        super::output::warn(&format!(
            "{flag} not sent: the agent's card declares no security scheme that takes it"
        ));
    }
    if !chosen.schemes.is_empty() {
        debug.log(&format!("credentials for scheme {}", chosen.schemes.join(" + ")));
    }
    if matches!(
        chosen.credentials,
        Credentials::ApiKeyAt {
            location: KeyLocation::Query,
            ..
        }
    ) && interface.binding == a2a::bindings::GRPC
    {
        return Err(Failure::local(
            Local::CredentialsMissing,
            "the card puts its API key in a query parameter, which gRPC has not",
        )
        .hint("choose an HTTP binding: --transport JSONRPC or --transport HTTP+JSON"));
    }
    let sends_credentials = chosen.credentials != Credentials::None;
    if sends_credentials && insecure {
        super::output::warn(
            "credentials are being sent over a connection whose certificate is NOT verified (--insecure)",
        );
    }
    let mut config = http_config(settings, &interface.url)?;
    config.credentials = chosen.credentials;
    config.wire_log = debug.wire_log();
    let transport = open(config, &interface, &resolved.location)?;
    Ok(Target {
        transport,
        card: resolved.card,
        card_location: Some(resolved.location),
        interface: Some(interface),
        sends_credentials,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card() -> Value {
        json!({
            "supportedInterfaces": [
                {"url": "http://a/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "http://a/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
                {"url": "http://a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": "acme"},
                {"url": "a:50051", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
            ],
            "securitySchemes": {
                "apiKey": {"apiKeySecurityScheme": {"location": "query", "name": "key"}},
                "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}
            },
            "securityRequirements": [{"schemes": {"apiKey": {"list": []}}}, {"schemes": {"bearer": {"list": []}}}]
        })
    }

    #[test]
    fn interfaces() {
        let first = choose(&card(), &[], None).expect("first");
        assert_eq!(
            (first.binding, first.url.as_str(), first.version.as_str()),
            ("JSONRPC", "http://a/", "1.0")
        );
        let rest = choose(&card(), &["GRPC", "HTTP+JSON"], None).expect("grpc");
        assert_eq!(rest.binding, "GRPC");
        let rest = choose(&card(), &["HTTP+JSON"], None).expect("rest");
        assert_eq!(rest.tenant.as_deref(), Some("acme"));
        // Only 0.3: never spoken without asking for it.
        let legacy = json!({"supportedInterfaces": [{"url": "http://a/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]});
        assert!(choose(&legacy, &[], None).is_err());
        assert_eq!(binding_name("http+json"), Some("HTTP+JSON"));
        assert_eq!(binding_name("soap"), None);
    }

    #[test]
    fn only_declared_credentials() {
        let both = Given {
            bearer: Some("t".into()),
            api_key: Some("k".into()),
            ..Given::default()
        };
        let chosen = credentials(&card(), &both);
        assert_eq!(
            chosen.credentials,
            Credentials::ApiKeyAt {
                location: KeyLocation::Query,
                name: "key".into(),
                key: "k".into()
            }
        );
        assert_eq!(chosen.unsent, ["--bearer"]);
        let none = credentials(&json!({}), &both);
        assert_eq!(
            (none.credentials, none.unsent),
            (Credentials::None, vec!["--bearer", "--api-key"])
        );
        let bearer_only = Given {
            bearer: Some("t".into()),
            ..Given::default()
        };
        assert_eq!(
            credentials(&card(), &bearer_only).credentials,
            Credentials::Bearer("t".into())
        );
    }
}
