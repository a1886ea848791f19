//! The Agent Card in both versions: its interfaces, capabilities and skills,
//! security schemes, OAuth flows and security requirements, and the
//! extended-card request.

use super::{unconvertible, Unconvertible, CARD_PROTOCOL_VERSION};
use crate::types as v1;
use crate::v0_3::types as v03;
use std::collections::HashMap;

impl TryFrom<v03::NoParams> for v1::GetExtendedAgentCardRequest {
    type Error = Unconvertible;
    fn try_from(_: v03::NoParams) -> Result<Self, Unconvertible> {
        Ok(v1::GetExtendedAgentCardRequest { tenant: None })
    }
}

impl TryFrom<v1::GetExtendedAgentCardRequest> for v03::NoParams {
    type Error = Unconvertible;
    fn try_from(_: v1::GetExtendedAgentCardRequest) -> Result<Self, Unconvertible> {
        Ok(v03::NoParams {})
    }
}

fn upgrade_security(requirements: Vec<HashMap<String, Vec<String>>>) -> Vec<v1::SecurityRequirement> {
    requirements
        .into_iter()
        .map(|r| v1::SecurityRequirement {
            schemes: Some(
                r.into_iter()
                    .map(|(name, list)| (name, v1::StringList { list }))
                    .collect(),
            ),
        })
        .collect()
}

fn downgrade_security(requirements: Vec<v1::SecurityRequirement>) -> Vec<HashMap<String, Vec<String>>> {
    requirements
        .into_iter()
        .map(|r| {
            r.schemes
                .unwrap_or_default()
                .into_iter()
                .map(|(name, scopes)| (name, scopes.list))
                .collect()
        })
        .collect()
}

impl TryFrom<v03::SecurityScheme> for v1::SecurityScheme {
    type Error = Unconvertible;
    fn try_from(s: v03::SecurityScheme) -> Result<Self, Unconvertible> {
        Ok(match s {
            v03::SecurityScheme::ApiKeySecurityScheme(k) => {
                v1::SecurityScheme::ApiKeySecurityScheme(v1::ApiKeySecurityScheme {
                    description: k.description,
                    location: k.in_.to_string(),
                    name: k.name,
                })
            }
            v03::SecurityScheme::HttpAuthSecurityScheme(h) => {
                v1::SecurityScheme::HttpAuthSecurityScheme(v1::HttpAuthSecurityScheme {
                    bearer_format: h.bearer_format,
                    description: h.description,
                    scheme: h.scheme,
                })
            }
            v03::SecurityScheme::OAuth2SecurityScheme(o) => {
                let flows = o.flows;
                // 1.0 names one flow per scheme: the first the 0.3 scheme lists.
                let flow = if let Some(a) = flows.authorization_code {
                    v1::OAuthFlows::AuthorizationCode(v1::AuthorizationCodeOAuthFlow {
                        authorization_url: a.authorization_url,
                        pkce_required: None,
                        refresh_url: a.refresh_url,
                        scopes: a.scopes,
                        token_url: a.token_url,
                    })
                } else if let Some(c) = flows.client_credentials {
                    v1::OAuthFlows::ClientCredentials(v1::ClientCredentialsOAuthFlow {
                        refresh_url: c.refresh_url,
                        scopes: c.scopes,
                        token_url: c.token_url,
                    })
                } else if let Some(i) = flows.implicit {
                    v1::OAuthFlows::Implicit(v1::ImplicitOAuthFlow {
                        authorization_url: Some(i.authorization_url),
                        refresh_url: i.refresh_url,
                        scopes: Some(i.scopes),
                    })
                } else if let Some(p) = flows.password {
                    v1::OAuthFlows::Password(v1::PasswordOAuthFlow {
                        refresh_url: p.refresh_url,
                        scopes: Some(p.scopes),
                        token_url: Some(p.token_url),
                    })
                } else {
                    return Err(unconvertible("an OAuth 2.0 scheme without flows"));
                };
                v1::SecurityScheme::Oauth2SecurityScheme(v1::OAuth2SecurityScheme {
                    description: o.description,
                    flows: flow,
                    oauth2_metadata_url: o.oauth2_metadata_url,
                })
            }
            v03::SecurityScheme::OpenIdConnectSecurityScheme(o) => {
                v1::SecurityScheme::OpenIdConnectSecurityScheme(v1::OpenIdConnectSecurityScheme {
                    description: o.description,
                    open_id_connect_url: o.open_id_connect_url,
                })
            }
            v03::SecurityScheme::MutualTlsSecurityScheme(m) => {
                v1::SecurityScheme::MtlsSecurityScheme(v1::MutualTlsSecurityScheme {
                    description: m.description,
                })
            }
        })
    }
}

impl TryFrom<v1::SecurityScheme> for v03::SecurityScheme {
    type Error = Unconvertible;
    fn try_from(s: v1::SecurityScheme) -> Result<Self, Unconvertible> {
        Ok(match s {
            v1::SecurityScheme::ApiKeySecurityScheme(k) => {
                let in_ = k
                    .location
                    .parse::<v03::ApiKeySecuritySchemeIn>()
                    .map_err(|_| unconvertible(format!("an API key in `{}`", k.location)))?;
                v03::SecurityScheme::ApiKeySecurityScheme(v03::ApiKeySecurityScheme {
                    description: k.description,
                    in_,
                    name: k.name,
                    type_: v03::ApiKeySecuritySchemeType::ApiKey,
                })
            }
            v1::SecurityScheme::HttpAuthSecurityScheme(h) => {
                v03::SecurityScheme::HttpAuthSecurityScheme(v03::HttpAuthSecurityScheme {
                    bearer_format: h.bearer_format,
                    description: h.description,
                    scheme: h.scheme,
                    type_: v03::HttpAuthSecuritySchemeType::Http,
                })
            }
            v1::SecurityScheme::Oauth2SecurityScheme(o) => {
                v03::SecurityScheme::OAuth2SecurityScheme(v03::OAuth2SecurityScheme {
                    description: o.description,
                    flows: o.flows.try_into()?,
                    oauth2_metadata_url: o.oauth2_metadata_url,
                    type_: v03::OAuth2SecuritySchemeType::Oauth2,
                })
            }
            v1::SecurityScheme::OpenIdConnectSecurityScheme(o) => {
                v03::SecurityScheme::OpenIdConnectSecurityScheme(v03::OpenIdConnectSecurityScheme {
                    description: o.description,
                    open_id_connect_url: o.open_id_connect_url,
                    type_: v03::OpenIdConnectSecuritySchemeType::OpenIdConnect,
                })
            }
            v1::SecurityScheme::MtlsSecurityScheme(m) => {
                v03::SecurityScheme::MutualTlsSecurityScheme(v03::MutualTlsSecurityScheme {
                    description: m.description,
                    type_: v03::MutualTlsSecuritySchemeType::MutualTls,
                })
            }
        })
    }
}

impl TryFrom<v1::OAuthFlows> for v03::OAuthFlows {
    type Error = Unconvertible;
    fn try_from(f: v1::OAuthFlows) -> Result<Self, Unconvertible> {
        let mut flows = v03::OAuthFlows {
            authorization_code: None,
            client_credentials: None,
            implicit: None,
            password: None,
        };
        match f {
            v1::OAuthFlows::AuthorizationCode(a) => {
                flows.authorization_code = Some(v03::AuthorizationCodeOAuthFlow {
                    authorization_url: a.authorization_url,
                    refresh_url: a.refresh_url,
                    scopes: a.scopes,
                    token_url: a.token_url,
                })
            }
            v1::OAuthFlows::ClientCredentials(c) => {
                flows.client_credentials = Some(v03::ClientCredentialsOAuthFlow {
                    refresh_url: c.refresh_url,
                    scopes: c.scopes,
                    token_url: c.token_url,
                })
            }
            v1::OAuthFlows::Implicit(i) => {
                flows.implicit = Some(v03::ImplicitOAuthFlow {
                    authorization_url: i
                        .authorization_url
                        .ok_or_else(|| unconvertible("an implicit flow without its authorization URL"))?,
                    refresh_url: i.refresh_url,
                    scopes: i.scopes.unwrap_or_default(),
                })
            }
            v1::OAuthFlows::Password(p) => {
                flows.password = Some(v03::PasswordOAuthFlow {
                    refresh_url: p.refresh_url,
                    scopes: p.scopes.unwrap_or_default(),
                    token_url: p
                        .token_url
                        .ok_or_else(|| unconvertible("a password flow without its token URL"))?,
                })
            }
            v1::OAuthFlows::DeviceCode(_) => {
                return Err(unconvertible("the device-code flow has no 0.3 form"))
            }
        }
        Ok(flows)
    }
}

/// The 1.0 form of a 0.3 card: `url` with `preferredTransport` first, then
/// every further interface, all at version 0.3 (what a 0.3 card describes).
impl TryFrom<v03::AgentCard> for v1::AgentCard {
    type Error = Unconvertible;
    fn try_from(card: v03::AgentCard) -> Result<Self, Unconvertible> {
        let interface = |url: String, binding: String| v1::AgentInterface {
            protocol_binding: binding,
            protocol_version: crate::v0_3::PROTOCOL_VERSION.to_string(),
            tenant: None,
            url,
        };
        let preferred_binding = card
            .preferred_transport
            .clone()
            .unwrap_or_else(|| v03::TransportProtocol::Jsonrpc.to_string());
        let mut supported_interfaces = vec![interface(card.url.clone(), preferred_binding.clone())];
        for extra in card.additional_interfaces {
            if extra.url != card.url || extra.transport != preferred_binding {
                supported_interfaces.push(interface(extra.url, extra.transport));
            }
        }
        let security_schemes = match card.security_schemes {
            None => None,
            Some(schemes) => Some(
                schemes
                    .into_iter()
                    .map(|(name, scheme)| Ok((name, scheme.try_into()?)))
                    .collect::<Result<HashMap<_, _>, Unconvertible>>()?,
            ),
        };
        Ok(v1::AgentCard {
            capabilities: v1::AgentCapabilities {
                extended_agent_card: card.supports_authenticated_extended_card,
                extensions: card
                    .capabilities
                    .extensions
                    .into_iter()
                    .map(|e| v1::AgentExtension {
                        description: e.description,
                        params: e.params,
                        required: e.required,
                        uri: Some(e.uri),
                    })
                    .collect(),
                push_notifications: card.capabilities.push_notifications,
                streaming: card.capabilities.streaming,
            },
            default_input_modes: card.default_input_modes,
            default_output_modes: card.default_output_modes,
            description: card.description,
            documentation_url: card.documentation_url,
            icon_url: card.icon_url,
            name: card.name,
            provider: card.provider.map(|p| v1::AgentProvider {
                organization: p.organization,
                url: p.url,
            }),
            security_requirements: upgrade_security(card.security),
            security_schemes,
            // A signature covers the form it was made over (spec §8.4); this
            // form is another, so the signatures stay behind.
            signatures: Vec::new(),
            skills: card
                .skills
                .into_iter()
                .map(|s| v1::AgentSkill {
                    description: s.description,
                    examples: s.examples,
                    id: s.id,
                    input_modes: s.input_modes,
                    name: s.name,
                    output_modes: s.output_modes,
                    security_requirements: upgrade_security(s.security),
                    tags: s.tags,
                })
                .collect(),
            supported_interfaces,
            version: card.version,
        })
    }
}

/// The 0.3 form of a 1.0 card. The preferred interface (`url`,
/// `preferredTransport`) is the first one serving 0.3, else the first one; every
/// interface serving 0.3 is listed in `additionalInterfaces`.
impl TryFrom<v1::AgentCard> for v03::AgentCard {
    type Error = Unconvertible;
    fn try_from(card: v1::AgentCard) -> Result<Self, Unconvertible> {
        let serves_v03 = |i: &&v1::AgentInterface| i.protocol_version == crate::v0_3::PROTOCOL_VERSION;
        let preferred = card
            .supported_interfaces
            .iter()
            .find(serves_v03)
            .or_else(|| card.supported_interfaces.first())
            .ok_or_else(|| unconvertible("a card without interfaces"))?;
        let additional_interfaces = card
            .supported_interfaces
            .iter()
            .filter(serves_v03)
            .map(|i| v03::AgentInterface {
                transport: i.protocol_binding.clone(),
                url: i.url.clone(),
            })
            .collect();
        let security_schemes = match card.security_schemes {
            None => None,
            Some(schemes) => Some(
                schemes
                    .into_iter()
                    .map(|(name, scheme)| Ok((name, scheme.try_into()?)))
                    .collect::<Result<HashMap<_, _>, Unconvertible>>()?,
            ),
        };
        let skills = card
            .skills
            .into_iter()
            .map(|s| v03::AgentSkill {
                description: s.description,
                examples: s.examples,
                id: s.id,
                input_modes: s.input_modes,
                name: s.name,
                output_modes: s.output_modes,
                security: downgrade_security(s.security_requirements),
                tags: s.tags,
            })
            .collect();
        let extensions = card
            .capabilities
            .extensions
            .into_iter()
            .filter_map(|e| {
                Some(v03::AgentExtension {
                    description: e.description,
                    params: e.params,
                    required: e.required,
                    uri: e.uri?,
                })
            })
            .collect();
        Ok(v03::AgentCard {
            additional_interfaces,
            capabilities: v03::AgentCapabilities {
                extensions,
                push_notifications: card.capabilities.push_notifications,
                state_transition_history: None,
                streaming: card.capabilities.streaming,
            },
            default_input_modes: card.default_input_modes,
            default_output_modes: card.default_output_modes,
            description: card.description,
            documentation_url: card.documentation_url,
            icon_url: card.icon_url,
            name: card.name,
            preferred_transport: Some(preferred.protocol_binding.clone()),
            protocol_version: CARD_PROTOCOL_VERSION.to_string(),
            provider: card.provider.map(|p| v03::AgentProvider {
                organization: p.organization,
                url: p.url,
            }),
            security: downgrade_security(card.security_requirements),
            security_schemes,
            // A signature covers the form it was made over (spec §8.4); this
            // form is another, so the signatures stay behind.
            signatures: Vec::new(),
            skills,
            supports_authenticated_extended_card: card.capabilities.extended_agent_card,
            url: preferred.url.clone(),
            version: card.version,
        })
    }
}
