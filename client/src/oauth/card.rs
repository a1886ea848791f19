//! The OAuth and OpenID Connect schemes an Agent Card declares, read from the
//! card as JSON so that a card this client's generated types would refuse in
//! part (an unknown scheme beside a good one, a 0.3 card) still yields what
//! it offers.
//!
//! A 1.0 card names each scheme in `securitySchemes` as a one-of object
//! (`{"oauth2SecurityScheme": {"flows": {"deviceCode": {…}}}}`); a 0.3 card
//! tags it with `type` (`{"type": "oauth2", "flows": {…}}`). Both are read,
//! and both ProtoJSON spellings of a member (`tokenUrl`, `token_url`).

use crate::oauth::error::{printable, OAuthError};
use crate::oauth::{Flow, Grant, OAuthClient};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One scheme of the card that a token from an authorization server satisfies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardScheme {
    /// The scheme's name: its key in `securitySchemes`.
    pub name: String,
    /// The card's description of it.
    pub description: Option<String>,
    /// What kind it is, with what the card says of it.
    pub kind: CardSchemeKind,
}

/// The two kinds of scheme that lead to an authorization server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardSchemeKind {
    /// `oauth2SecurityScheme`: the flows are in the card.
    OAuth2 {
        /// The declared flows this client can run.
        flows: Vec<Flow>,
        /// The declared flows it cannot, each with why.
        unsupported: Vec<UnsupportedFlow>,
        /// `oauth2MetadataUrl`: the server's RFC 8414 metadata.
        metadata_url: Option<String>,
    },
    /// `openIdConnectSecurityScheme`: the flows are in the provider's
    /// discovery document.
    OpenIdConnect {
        /// `openIdConnectUrl`.
        discovery_url: String,
    },
}

/// A declared flow this client does not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedFlow {
    /// The flow's name in the card (`authorizationCode`, `implicit`, …).
    pub flow: String,
    /// Why it is not run.
    pub reason: String,
}

/// A flow and the card scheme it belongs to (the name tokens are kept under).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemeFlow {
    /// The scheme's name in the card.
    pub scheme: String,
    /// The flow.
    pub flow: Flow,
}

/// The member `camel` of `object`, or its proto spelling `snake`.
fn member<'a>(object: &'a Map<String, Value>, camel: &str, snake: &str) -> Option<&'a Value> {
    object.get(camel).or_else(|| object.get(snake))
}

fn text(object: &Map<String, Value>, camel: &str, snake: &str) -> Option<String> {
    member(object, camel, snake)
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The OAuth2 and OpenID Connect schemes `card` declares, in card order.
/// Other schemes (API key, HTTP, mutual TLS) and malformed entries are left out.
pub fn oauth_schemes(card: &Value) -> Vec<CardScheme> {
    let Some(schemes) = card
        .as_object()
        .and_then(|c| member(c, "securitySchemes", "security_schemes"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    schemes
        .iter()
        .filter_map(|(name, scheme)| {
            let (description, kind) = scheme_kind(scheme.as_object()?)?;
            Some(CardScheme {
                name: name.clone(),
                description: description.map(|d| printable(&d, 500)),
                kind,
            })
        })
        .collect()
}

/// A scheme's description and kind, in either the 1.0 or the 0.3 form.
fn scheme_kind(scheme: &Map<String, Value>) -> Option<(Option<String>, CardSchemeKind)> {
    let description = |o: &Map<String, Value>| text(o, "description", "description");
    if let Some(oauth2) = member(scheme, "oauth2SecurityScheme", "oauth2_security_scheme") {
        let oauth2 = oauth2.as_object()?;
        return Some((description(oauth2), oauth2_kind(oauth2)));
    }
    if let Some(oidc) = member(
        scheme,
        "openIdConnectSecurityScheme",
        "open_id_connect_security_scheme",
    ) {
        let oidc = oidc.as_object()?;
        let discovery_url = text(oidc, "openIdConnectUrl", "open_id_connect_url")?;
        return Some((description(oidc), CardSchemeKind::OpenIdConnect { discovery_url }));
    }
    match scheme.get("type").and_then(Value::as_str)? {
        "oauth2" => Some((description(scheme), oauth2_kind(scheme))),
        "openIdConnect" => {
            let discovery_url = text(scheme, "openIdConnectUrl", "open_id_connect_url")?;
            Some((
                description(scheme),
                CardSchemeKind::OpenIdConnect { discovery_url },
            ))
        }
        _ => None,
    }
}

/// An OAuth2 scheme's flows. A 1.0 card gives exactly one; a 0.3 card may
/// give several, and each is read.
fn oauth2_kind(scheme: &Map<String, Value>) -> CardSchemeKind {
    let mut flows = Vec::new();
    let mut unsupported = Vec::new();
    let declared = scheme.get("flows").and_then(Value::as_object);
    for (name, body) in declared.into_iter().flatten() {
        match flow(name, body) {
            Ok(flow) => flows.push(flow),
            Err(reason) => unsupported.push(UnsupportedFlow {
                flow: name.clone(),
                reason,
            }),
        }
    }
    CardSchemeKind::OAuth2 {
        flows,
        unsupported,
        metadata_url: text(scheme, "oauth2MetadataUrl", "oauth2_metadata_url"),
    }
}

/// The flow `name` declares with `body`, or why it is not run.
fn flow(name: &str, body: &Value) -> Result<Flow, String> {
    let not_run = |why: &str| Err(why.to_string());
    let grant_needs_device = match name {
        "deviceCode" | "device_code" => true,
        "clientCredentials" | "client_credentials" => false,
        "authorizationCode" | "authorization_code" => {
            return not_run("needs a browser redirect to this machine, which this client does not run")
        }
        "implicit" | "password" => return not_run("removed in OAuth 2.1"),
        _ => return not_run("not an OAuth flow this client knows"),
    };
    let Some(body) = body.as_object() else {
        return not_run("malformed: not an object");
    };
    let token_url = text(body, "tokenUrl", "token_url").ok_or("malformed: no `tokenUrl`")?;
    let grant = if grant_needs_device {
        Grant::DeviceCode {
            device_authorization_url: text(body, "deviceAuthorizationUrl", "device_authorization_url")
                .ok_or("malformed: no `deviceAuthorizationUrl`")?,
        }
    } else {
        Grant::ClientCredentials
    };
    let scopes: BTreeMap<String, String> = member(body, "scopes", "scopes")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(scope, about)| (scope.clone(), about.as_str().unwrap_or_default().to_string()))
        .collect();
    Ok(Flow {
        grant,
        token_url,
        refresh_url: text(body, "refreshUrl", "refresh_url"),
        scopes,
        issuer: None,
        auth_methods: None,
    })
}

/// The (scheme, flow) pairs `card` declares that this client can run as
/// they stand, without fetching anything: the OAuth2 schemes' device and
/// client credentials flows. OpenID Connect schemes need
/// [`resolve_flows`].
pub fn usable_flows(card: &Value) -> Vec<SchemeFlow> {
    oauth_schemes(card)
        .into_iter()
        .flat_map(|scheme| match scheme.kind {
            CardSchemeKind::OAuth2 { flows, .. } => flows
                .into_iter()
                .map(|flow| SchemeFlow {
                    scheme: scheme.name.clone(),
                    flow,
                })
                .collect(),
            CardSchemeKind::OpenIdConnect { .. } => Vec::new(),
        })
        .collect()
}

/// Every usable flow of a card, with the schemes whose documents could not
/// be used.
#[derive(Debug, Default)]
pub struct ResolvedFlows {
    /// The flows, in card order.
    pub flows: Vec<SchemeFlow>,
    /// Each scheme (by name) whose metadata could not be fetched or believed.
    pub failures: Vec<(String, OAuthError)>,
}

/// Every flow of `card` this client can run, fetching what the card points
/// to: an OpenID Connect scheme's discovery document (its flows), and an
/// OAuth2 scheme's `oauth2MetadataUrl` (its issuer and client
/// authentication methods). A scheme whose document fails is reported in
/// `failures`; an OAuth2 scheme's own flows are kept even then, since the
/// card declared them.
pub async fn resolve_flows(oauth: &OAuthClient, card: &Value) -> ResolvedFlows {
    let mut resolved = ResolvedFlows::default();
    for scheme in oauth_schemes(card) {
        let flows = match scheme.kind {
            CardSchemeKind::OAuth2 {
                mut flows,
                metadata_url,
                ..
            } => {
                if let Some(url) = metadata_url.filter(|_| !flows.is_empty()) {
                    match oauth.fetch_metadata(&url).await {
                        Ok(metadata) => metadata.annotate(&mut flows),
                        Err(error) => resolved.failures.push((scheme.name.clone(), error)),
                    }
                }
                flows
            }
            CardSchemeKind::OpenIdConnect { discovery_url } => {
                match oauth.fetch_metadata(&discovery_url).await {
                    Ok(metadata) => metadata.flows(),
                    Err(error) => {
                        resolved.failures.push((scheme.name.clone(), error));
                        Vec::new()
                    }
                }
            }
        };
        resolved.flows.extend(flows.into_iter().map(|flow| SchemeFlow {
            scheme: scheme.name.clone(),
            flow,
        }));
    }
    resolved
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card() -> Value {
        json!({
            "name": "agent",
            "securitySchemes": {
                "apiKey": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}},
                "device": {"oauth2SecurityScheme": {
                    "description": "Log in\u{1b}[2J from a terminal",
                    "flows": {"deviceCode": {
                        "deviceAuthorizationUrl": "https://as.example/device",
                        "tokenUrl": "https://as.example/token",
                        "refreshUrl": "https://as.example/refresh",
                        "scopes": {"agent:read": "Read tasks", "agent:write": "Send messages"}
                    }},
                    "oauth2MetadataUrl": "https://as.example/.well-known/oauth-authorization-server"
                }},
                "ci": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {
                    "tokenUrl": "https://as.example/token", "scopes": {}
                }}}},
                "browser": {"oauth2SecurityScheme": {"flows": {"authorizationCode": {
                    "authorizationUrl": "https://as.example/authorize", "tokenUrl": "https://as.example/token",
                    "scopes": {}
                }}}},
                "oidc": {"openIdConnectSecurityScheme": {
                    "openIdConnectUrl": "https://op.example/.well-known/openid-configuration"
                }},
                "mtls": {"mtlsSecurityScheme": {}}
            }
        })
    }

    #[test]
    fn schemes_of_a_card() {
        let schemes = oauth_schemes(&card());
        let names: Vec<&str> = schemes.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["device", "ci", "browser", "oidc"]);
        assert_eq!(
            schemes[0].description.as_deref(),
            Some("Log in[2J from a terminal")
        );
        assert_eq!(
            schemes[0].kind,
            CardSchemeKind::OAuth2 {
                flows: vec![Flow {
                    grant: Grant::DeviceCode {
                        device_authorization_url: "https://as.example/device".into()
                    },
                    token_url: "https://as.example/token".into(),
                    refresh_url: Some("https://as.example/refresh".into()),
                    scopes: [
                        ("agent:read".to_string(), "Read tasks".to_string()),
                        ("agent:write".to_string(), "Send messages".to_string())
                    ]
                    .into(),
                    issuer: None,
                    auth_methods: None,
                }],
                unsupported: vec![],
                metadata_url: Some("https://as.example/.well-known/oauth-authorization-server".into()),
            }
        );
        assert_eq!(
            schemes[2].kind,
            CardSchemeKind::OAuth2 {
                flows: vec![],
                unsupported: vec![UnsupportedFlow {
                    flow: "authorizationCode".into(),
                    reason: "needs a browser redirect to this machine, which this client does not run".into()
                }],
                metadata_url: None,
            }
        );
        assert_eq!(
            schemes[3].kind,
            CardSchemeKind::OpenIdConnect {
                discovery_url: "https://op.example/.well-known/openid-configuration".into()
            }
        );
    }

    #[test]
    fn usable_pairs() {
        let pairs: Vec<(String, &'static str, String)> = usable_flows(&card())
            .into_iter()
            .map(|p| (p.scheme, p.flow.grant.card_name(), p.flow.token_url))
            .collect();
        assert_eq!(
            pairs,
            vec![
                (
                    "device".to_string(),
                    "deviceCode",
                    "https://as.example/token".to_string()
                ),
                (
                    "ci".to_string(),
                    "clientCredentials",
                    "https://as.example/token".to_string()
                ),
            ]
        );
    }

    #[test]
    fn old_form_and_proto_names() {
        let card = json!({"security_schemes": {
            "legacy": {"type": "oauth2", "flows": {
                "clientCredentials": {"tokenUrl": "https://as.example/token", "scopes": {"a": 1}},
                "implicit": {"authorizationUrl": "https://as.example/authorize", "scopes": {}},
                "password": {"tokenUrl": "https://as.example/token", "scopes": {}}
            }},
            "proto": {"oauth2_security_scheme": {"flows": {"device_code": {
                "device_authorization_url": "https://as.example/device", "token_url": "https://as.example/token"
            }}}},
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://op.example/.well-known/openid-configuration"}
        }});
        let schemes = oauth_schemes(&card);
        match &schemes[0].kind {
            CardSchemeKind::OAuth2 {
                flows, unsupported, ..
            } => {
                assert_eq!(flows.len(), 1);
                assert_eq!(flows[0].scopes.get("a").map(String::as_str), Some(""));
                let why: Vec<(&str, &str)> = unsupported
                    .iter()
                    .map(|u| (u.flow.as_str(), u.reason.as_str()))
                    .collect();
                assert_eq!(
                    why,
                    [
                        ("implicit", "removed in OAuth 2.1"),
                        ("password", "removed in OAuth 2.1")
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
        let pairs: Vec<(String, &str)> = usable_flows(&card)
            .into_iter()
            .map(|p| (p.scheme, p.flow.grant.card_name()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("legacy".to_string(), "clientCredentials"),
                ("proto".to_string(), "deviceCode")
            ]
        );
        assert!(matches!(schemes[2].kind, CardSchemeKind::OpenIdConnect { .. }));
    }

    #[test]
    fn malformed_cards_yield_nothing_or_reasons() {
        assert!(oauth_schemes(&json!(null)).is_empty());
        assert!(oauth_schemes(&json!({"securitySchemes": []})).is_empty());
        assert!(
            oauth_schemes(&json!({"securitySchemes": {"x": 5, "y": {"oauth2SecurityScheme": 1}}})).is_empty()
        );
        assert!(
            oauth_schemes(&json!({"securitySchemes": {"o": {"openIdConnectSecurityScheme": {}}}})).is_empty()
        );
        let card = json!({"securitySchemes": {"o": {"oauth2SecurityScheme": {"flows": {
            "deviceCode": {"tokenUrl": "https://as.example/token"},
            "clientCredentials": "x",
            "magic": {}
        }}}}});
        match &oauth_schemes(&card)[0].kind {
            CardSchemeKind::OAuth2 {
                flows, unsupported, ..
            } => {
                assert!(flows.is_empty());
                let why: Vec<&str> = unsupported.iter().map(|u| u.reason.as_str()).collect();
                assert_eq!(
                    why,
                    [
                        "malformed: no `deviceAuthorizationUrl`",
                        "malformed: not an object",
                        "not an OAuth flow this client knows"
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
