//! The Agent Card, built from the configuration and the generated method table:
//! identity, interfaces (JSON-RPC, HTTP+JSON and gRPC over HTTP, and the stdio binding),
//! capabilities with the CleverAgents extension, skills and security schemes.

use crate::config::{AgentInfo, ApiKeyLocation, AuthConfig, ServerConfig};
use crate::negotiate::{self, Dialect, EXTENSION_VERSION_HEADER, PROTOCOL_VERSION, STDIO_BINDING_URI};
use a2a::types::{
    AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill, ApiKeySecurityScheme,
    HttpAuthSecurityScheme, MutualTlsSecurityScheme, OAuth2SecurityScheme, OpenIdConnectSecurityScheme,
    SecurityRequirement, SecurityScheme, StringList,
};
use a2a::{bindings, Contract, METHODS};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Which transport the card is served over: its interface is listed first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// Served over HTTP: only the HTTP interfaces, and the configured security
    /// schemes apply.
    Http,
    /// Served over stdio: the stdio interface comes first and no security
    /// scheme applies (local mode runs as the user).
    Stdio,
}

/// One default skill per extension service: (service, id, name, description, tags).
const SERVICE_SKILLS: &[(&str, &str, &str, &str, &[&str])] = &[
    ("plan", "plan-lifecycle", "Plan lifecycle",
     "Instantiates registry actions as plans on a project, executes them as A2A tasks, and explains, corrects, diffs, applies, cancels and rolls them back.",
     &["plans", "tasks", "projects"]),
    ("registry", "registries", "Registries",
     "Lists, shows, adds, updates and removes actors, tools, skills, resources, resource types, projects, validations, actions, automation profiles and invariants.",
     &["registry", "configuration"]),
    ("context", "context", "Context",
     "Shows, inspects, simulates and sets which project files and resources a plan sees, with token estimates and budgets.",
     &["context", "budget"]),
    ("sync", "sync", "Sync",
     "Pulls and pushes registry entities between this instance and a remote CleverAgents server.",
     &["sync", "remote"]),
    ("namespace", "namespaces", "Namespaces",
     "Lists namespaces, shows one and lists its members and their roles.",
     &["namespaces", "access"]),
    ("session", "sessions", "Sessions",
     "Creates, lists, shows, resumes, tells, deletes, exports and imports sessions: A2A contexts with their tasks and plans.",
     &["sessions", "tasks"]),
    ("events", "domain-events", "Domain events",
     "Streams the namespace's plan, tool, validation and session events, filtered by plan, session and type, resumable from a cursor.",
     &["events", "streaming"]),
    ("health", "diagnostics", "Health and diagnostics",
     "Reports component health and runs diagnostics: store integrity, contract versions and configuration.",
     &["health", "diagnostics"]),
];

/// Names of the dispatched methods of `contract` (the extension's method list).
fn method_names(contract: Contract) -> Vec<Value> {
    METHODS
        .iter()
        .filter(|d| d.contract == contract && d.is_dispatched())
        .map(|d| Value::String(d.name.to_string()))
        .collect()
}

fn default_skills() -> Vec<AgentSkill> {
    SERVICE_SKILLS
        .iter()
        .filter(|(service, ..)| METHODS.iter().any(|d| d.service == *service && d.is_dispatched()))
        .map(|(_, id, name, description, tags)| AgentSkill {
            id: (*id).into(),
            name: (*name).into(),
            description: (*description).into(),
            tags: tags.iter().map(|t| (*t).into()).collect(),
            examples: Vec::new(),
            input_modes: Vec::new(),
            output_modes: Vec::new(),
            security_requirements: Vec::new(),
        })
        .collect()
}

/// Every media type the cards say the agent takes in messages: the default
/// input modes and those of each skill, public or extended (a skill may take
/// more than the default). A sent part naming another is refused.
pub fn accepted_input_modes(agent: &AgentInfo) -> Vec<String> {
    let skills = agent.skills.iter().flatten().chain(&agent.extended_skills);
    agent
        .default_input_modes
        .iter()
        .chain(skills.flat_map(|skill| &skill.input_modes))
        .cloned()
        .collect()
}

/// True when `GetExtendedAgentCard` is served.
pub fn extended_card_enabled(config: &ServerConfig) -> bool {
    config
        .agent
        .capabilities
        .extended_agent_card
        .unwrap_or_else(|| config.auth.is_enabled())
}

fn interfaces(config: &ServerConfig, binding: Binding) -> Vec<AgentInterface> {
    let http_url = config.agent.public_url.clone().unwrap_or_else(|| {
        let path = if config.http.path.starts_with('/') {
            config.http.path.clone()
        } else {
            format!("/{}", config.http.path)
        };
        format!("{}://{}{}", config.http.scheme(), config.http.listen, path)
    });
    // The REST binding lives beside the JSON-RPC endpoint: on the same base
    // URL, which is the JSON-RPC URL without its path (or its origin).
    let rest = config.http.rest_prefix().map(|prefix| AgentInterface {
        url: format!("{}{prefix}", base_url(&http_url, &config.http.path)),
        protocol_binding: bindings::HTTP_JSON.into(),
        protocol_version: PROTOCOL_VERSION.into(),
        tenant: None,
    });
    let http = AgentInterface {
        url: http_url.clone(),
        protocol_binding: bindings::JSONRPC.into(),
        protocol_version: PROTOCOL_VERSION.into(),
        tenant: None,
    };
    // The same endpoint serves A2A 0.3 (spec §3.6.2: several interfaces of one
    // transport may differ in version, at the same URL or another); after the
    // 1.0 one, so a client taking the first interface of a binding gets 1.0.
    // With an address of its own for 0.3 clients, the 0.3 interface names it.
    let http_v0_3 = AgentInterface {
        url: config
            .agent
            .v0_3_public_url
            .clone()
            .unwrap_or_else(|| http_url.clone()),
        protocol_binding: bindings::JSONRPC.into(),
        protocol_version: a2a::v0_3::PROTOCOL_VERSION.into(),
        tenant: None,
    };
    let stdio = AgentInterface {
        url: "stdio:".into(),
        protocol_binding: STDIO_BINDING_URI.into(),
        protocol_version: PROTOCOL_VERSION.into(),
        tenant: None,
    };
    // gRPC shares the listener (or has an address of its own); its URL is
    // the listener's authority (the `host:port` a gRPC channel targets), as
    // the official SDKs give it.
    let grpc = config.http.grpc.then(|| AgentInterface {
        url: match config.http.grpc_listen {
            Some(addr) => addr.to_string(),
            None => authority(&http_url).to_string(),
        },
        protocol_binding: bindings::GRPC.into(),
        protocol_version: PROTOCOL_VERSION.into(),
        tenant: None,
    });
    // An HTTP client cannot reach the stdio binding: only the card a local
    // client reads over stdio (`initialize`) names it.
    let mut interfaces = match binding {
        Binding::Http => vec![http.clone(), http_v0_3],
        Binding::Stdio => vec![stdio.clone(), http.clone(), http_v0_3],
    };
    interfaces.extend(rest.clone());
    interfaces.extend(grpc.clone());
    // A draft turned on is offered beside the released version, by the same
    // endpoints, after them: a client that takes the first interface of a
    // binding keeps the released version, one that knows the draft finds it.
    let drafts = negotiate::served(&config.a2a.draft_versions).filter_map(|dialect| match dialect {
        Dialect::V1(version) if version != PROTOCOL_VERSION => Some(version),
        _ => None,
    });
    for version in drafts {
        let stdio = (binding == Binding::Stdio).then(|| stdio.clone());
        for interface in stdio
            .into_iter()
            .chain([http.clone()])
            .chain(rest.clone())
            .chain(grpc.clone())
        {
            interfaces.push(AgentInterface {
                protocol_version: version.into(),
                ..interface
            });
        }
    }
    interfaces
}

/// The `host:port` of a URL (all of it, when it has no scheme).
fn authority(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(url, |i| &url[i + 3..]);
    after_scheme.split(['/', '?', '#']).next().unwrap_or(after_scheme)
}

/// The URL the HTTP bindings' paths hang off: `url` without the JSON-RPC
/// `path` it ends with, else its origin; never with a trailing `/`.
fn base_url(url: &str, path: &str) -> String {
    let base = url.strip_suffix(path).unwrap_or_else(|| {
        let after_scheme = url.find("://").map_or(0, |i| i + 3);
        url[after_scheme..]
            .find('/')
            .map_or(url, |slash| &url[..after_scheme + slash])
    });
    base.trim_end_matches('/').to_string()
}

/// The contract's extensions, then those the configuration adds.
fn extensions(agent: &AgentInfo) -> Vec<AgentExtension> {
    let contract = Contract::ALL
        .iter()
        .filter_map(|contract| {
            let uri = contract.extension_uri()?;
            let mut params = Map::new();
            params.insert("versions".into(), json!(contract.versions()));
            params.insert("versionHeader".into(), json!(EXTENSION_VERSION_HEADER));
            params.insert("methods".into(), Value::Array(method_names(*contract)));
            Some(AgentExtension {
                uri: Some(uri.into()),
                description: Some(
                    "CleverAgents plans, registries, context, sync, namespaces, sessions, domain events, health and diagnostics."
                        .into(),
                ),
                required: Some(false),
                params: Some(params),
            })
        });
    contract.chain(agent.extensions.iter().cloned()).collect()
}

/// The security schemes of the configured auth, keyed by scheme name.
fn security(auth: &AuthConfig) -> (Option<HashMap<String, SecurityScheme>>, Vec<SecurityRequirement>) {
    let mut schemes = HashMap::new();
    if !auth.api_keys.is_empty() {
        schemes.insert(
            "apiKey".to_string(),
            SecurityScheme::ApiKeySecurityScheme(ApiKeySecurityScheme {
                description: Some(
                    match auth.api_key_location {
                        ApiKeyLocation::Header => "API key in a request header.",
                        ApiKeyLocation::Query => "API key in a query parameter of the request URL.",
                        ApiKeyLocation::Cookie => "API key in a request cookie.",
                    }
                    .into(),
                ),
                location: auth.api_key_location.as_str().into(),
                name: auth.api_key_name.clone(),
            }),
        );
    }
    if !auth.bearer_tokens.is_empty() {
        schemes.insert(
            "bearer".to_string(),
            SecurityScheme::HttpAuthSecurityScheme(HttpAuthSecurityScheme {
                description: Some("Opaque bearer token issued by the operator.".into()),
                scheme: "Bearer".into(),
                bearer_format: None,
            }),
        );
    }
    if auth.jwt.is_some() {
        schemes.insert(
            "jwt".to_string(),
            SecurityScheme::HttpAuthSecurityScheme(HttpAuthSecurityScheme {
                description: Some("JWT bearer token (HS256, RS256 or ES256).".into()),
                scheme: "Bearer".into(),
                bearer_format: Some("JWT".into()),
            }),
        );
    }
    if let Some(oauth2) = &auth.oauth2 {
        schemes.insert(
            "oauth2".to_string(),
            SecurityScheme::Oauth2SecurityScheme(OAuth2SecurityScheme {
                description: oauth2.description.clone(),
                flows: oauth2.flows.clone(),
                oauth2_metadata_url: oauth2.metadata_url.clone(),
            }),
        );
    }
    if let Some(oidc) = &auth.openid_connect {
        schemes.insert(
            "openIdConnect".to_string(),
            SecurityScheme::OpenIdConnectSecurityScheme(OpenIdConnectSecurityScheme {
                description: oidc.description.clone(),
                open_id_connect_url: oidc.url.clone(),
            }),
        );
    }
    if let Some(mtls) = &auth.mtls {
        schemes.insert(
            "mtls".to_string(),
            SecurityScheme::MtlsSecurityScheme(MutualTlsSecurityScheme {
                description: Some(mtls.description.clone().unwrap_or_else(|| {
                    format!(
                        "Client certificate issued by the operator's CA; its {} names the caller.",
                        mtls.subject_from.describe()
                    )
                })),
            }),
        );
    }
    let mut names: Vec<&String> = schemes.keys().collect();
    names.sort();
    // Any one scheme suffices: one requirement per scheme.
    let requirements = names
        .into_iter()
        .map(|name| SecurityRequirement {
            schemes: Some(HashMap::from([(name.clone(), StringList { list: Vec::new() })])),
        })
        .collect();
    ((!schemes.is_empty()).then_some(schemes), requirements)
}

/// The public Agent Card.
pub fn agent_card(config: &ServerConfig, binding: Binding) -> AgentCard {
    let agent = &config.agent;
    let (security_schemes, security_requirements) = match binding {
        // Local mode runs as the user: no scheme applies.
        Binding::Stdio => (None, Vec::new()),
        Binding::Http => security(&config.auth),
    };
    AgentCard {
        name: agent.name.clone(),
        description: agent.description.clone(),
        version: agent.version.clone(),
        provider: agent.provider.clone(),
        documentation_url: agent.documentation_url.clone(),
        icon_url: agent.icon_url.clone(),
        supported_interfaces: interfaces(config, binding),
        capabilities: AgentCapabilities {
            streaming: Some(agent.capabilities.streaming),
            push_notifications: Some(agent.capabilities.push_notifications),
            extended_agent_card: Some(extended_card_enabled(config)),
            extensions: extensions(agent),
        },
        default_input_modes: agent.default_input_modes.clone(),
        default_output_modes: agent.default_output_modes.clone(),
        skills: agent.skills.clone().unwrap_or_else(default_skills),
        security_schemes,
        security_requirements,
        signatures: Vec::new(),
    }
}

/// The public card as served to a client that did not ask for A2A 1.0: the
/// 1.0 card with the fields of its A2A 0.3 form that 1.0 does not define
/// (`protocolVersion`, `url`, `preferredTransport`, `additionalInterfaces`,
/// `supportsAuthenticatedExtendedCard`, `security`) added beside them. A 0.3
/// client finds its endpoint there and a 1.0 client ignores the fields it does
/// not know (spec §5: unrecognized fields SHOULD be ignored); where both
/// versions name a field (`capabilities`, `skills`, `securitySchemes`) the 1.0
/// form stays. The whole 0.3 form is `agent/getAuthenticatedExtendedCard`'s.
pub fn agent_card_for_v0_3_clients(card: &AgentCard) -> Result<serde_json::Value, String> {
    let mut merged = serde_json::to_value(card).map_err(|e| e.to_string())?;
    let legacy = a2a::v0_3::types::AgentCard::try_from(card.clone()).map_err(|e| e.to_string())?;
    let legacy = serde_json::to_value(legacy).map_err(|e| e.to_string())?;
    if let (Some(merged), Some(legacy)) = (merged.as_object_mut(), legacy.as_object()) {
        for (field, value) in legacy {
            if !merged.contains_key(field) {
                merged.insert(field.clone(), value.clone());
            }
        }
    }
    Ok(merged)
}

/// The card for authenticated callers: the public card plus the extended skills.
pub fn extended_agent_card(config: &ServerConfig, binding: Binding) -> AgentCard {
    let mut card = agent_card(config, binding);
    card.skills.extend(config.agent.extended_skills.iter().cloned());
    card
}
