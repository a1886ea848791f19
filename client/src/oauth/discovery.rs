//! Authorization server metadata: the OpenID Connect Discovery 1.0 document
//! an `openIdConnectSecurityScheme` names, and the RFC 8414 document an
//! OAuth2 scheme's `oauth2MetadataUrl` names. The two share their member
//! names, so one reader serves both.
//!
//! A document is believed only if it names the issuer its URL was derived
//! from (Discovery §4.3, RFC 8414 §3.3): otherwise anyone able to serve a
//! document could point the client's credentials at their own endpoints.

use crate::oauth::error::OAuthError;
use crate::oauth::fetch::{self, checked_url, METADATA_LIMIT};
use crate::oauth::{Flow, Grant, OAuthClient, CLIENT_CREDENTIALS_GRANT, DEVICE_CODE_GRANT};
use reqwest::Url;
use serde_json::{Map, Value};

/// The well-known path of an OpenID Provider's configuration.
pub const OPENID_CONFIGURATION: &str = "/.well-known/openid-configuration";
/// The well-known path of an OAuth authorization server's metadata.
pub const OAUTH_AUTHORIZATION_SERVER: &str = "/.well-known/oauth-authorization-server";

/// What an authorization server says about itself; only the members these
/// flows use are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerMetadata {
    /// The issuer identifier, checked against the document's URL.
    pub issuer: String,
    /// The token endpoint.
    pub token_endpoint: Option<String>,
    /// The device authorization endpoint (RFC 8628 §4).
    pub device_authorization_endpoint: Option<String>,
    /// The authorization endpoint (for the browser flows this client does not run).
    pub authorization_endpoint: Option<String>,
    /// Where the server's signing keys are published.
    pub jwks_uri: Option<String>,
    /// The grant types the server supports; `None` when it does not say.
    pub grant_types_supported: Option<Vec<String>>,
    /// The scopes the server names.
    pub scopes_supported: Vec<String>,
    /// How clients may authenticate at the token endpoint; `None` when it
    /// does not say (then `client_secret_basic`).
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// The metadata in `document`, fetched from `url`, when it is well formed
    /// and names the issuer `url` implies.
    pub fn from_document(url: &str, document: &Map<String, Value>) -> Result<Self, OAuthError> {
        let parsed = checked_url(url)?;
        let malformed = |reason: &str| OAuthError::Malformed {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let issuer = document
            .get("issuer")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("no `issuer`"))?;
        check_issuer(&parsed, issuer)?;
        let text = |name: &str| document.get(name).and_then(Value::as_str).map(str::to_string);
        let list = |name: &str| {
            document.get(name).and_then(Value::as_array).map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
        };
        Ok(ServerMetadata {
            issuer: issuer.to_string(),
            token_endpoint: text("token_endpoint"),
            device_authorization_endpoint: text("device_authorization_endpoint"),
            authorization_endpoint: text("authorization_endpoint"),
            jwks_uri: text("jwks_uri"),
            grant_types_supported: list("grant_types_supported"),
            scopes_supported: list("scopes_supported").unwrap_or_default(),
            token_endpoint_auth_methods_supported: list("token_endpoint_auth_methods_supported"),
        })
    }

    /// True when the server says it supports `grant_type`; a server that
    /// lists no grant types is taken at its endpoints' word.
    fn supports(&self, grant_type: &str) -> bool {
        self.grant_types_supported
            .as_ref()
            .is_none_or(|grants| grants.iter().any(|g| g == grant_type))
    }

    /// The flows of this client the server offers: the device grant when it
    /// has a device authorization endpoint, and client credentials when it
    /// lists that grant (the defaults of both specifications leave it out).
    pub fn flows(&self) -> Vec<Flow> {
        let Some(token_url) = &self.token_endpoint else {
            return Vec::new();
        };
        let flow = |grant| Flow {
            grant,
            token_url: token_url.clone(),
            refresh_url: None,
            scopes: self
                .scopes_supported
                .iter()
                .map(|s| (s.clone(), String::new()))
                .collect(),
            issuer: Some(self.issuer.clone()),
            auth_methods: self.token_endpoint_auth_methods_supported.clone(),
        };
        let mut flows = Vec::new();
        if let Some(device) = &self.device_authorization_endpoint {
            if self.supports(DEVICE_CODE_GRANT) {
                flows.push(flow(Grant::DeviceCode {
                    device_authorization_url: device.clone(),
                }));
            }
        }
        let lists_client_credentials = self
            .grant_types_supported
            .as_ref()
            .is_some_and(|grants| grants.iter().any(|g| g == CLIENT_CREDENTIALS_GRANT));
        if lists_client_credentials {
            flows.push(flow(Grant::ClientCredentials));
        }
        flows
    }

    /// `flows` (declared elsewhere, by a card) for this server: they learn
    /// its issuer and how its token endpoint takes client credentials.
    pub fn annotate(&self, flows: &mut [Flow]) {
        for flow in flows {
            flow.issuer = Some(self.issuer.clone());
            flow.auth_methods = self.token_endpoint_auth_methods_supported.clone();
        }
    }
}

/// The issuer `url` was derived from, when it is a well-known metadata URL:
/// the issuer with the well-known path appended (OpenID Connect's form, also
/// used for OAuth metadata), or inserted between host and path (RFC 8414's).
fn issuer_of(url: &Url) -> Option<String> {
    let origin = url.origin().ascii_serialization();
    let path = url.path();
    for well_known in [OPENID_CONFIGURATION, OAUTH_AUTHORIZATION_SERVER] {
        if let Some(prefix) = path.strip_suffix(well_known) {
            return Some(format!("{origin}{prefix}"));
        }
        if let Some(rest) = path.strip_prefix(well_known).filter(|rest| rest.starts_with('/')) {
            return Some(format!("{origin}{rest}"));
        }
    }
    None
}

/// Refuses `issuer` unless it is the one `url` implies (a terminating `/`
/// aside, which Discovery removes before appending the well-known path), or,
/// for a URL of no well-known form, on the same origin. An issuer must also
/// itself be an https (or loopback) URL without query or fragment.
fn check_issuer(url: &Url, issuer: &str) -> Result<(), OAuthError> {
    let mismatch = |expected: String| OAuthError::IssuerMismatch {
        url: url.to_string(),
        expected,
        found: issuer.to_string(),
    };
    let issuer_url = checked_url(issuer)?;
    if issuer_url.query().is_some() || issuer_url.fragment().is_some() {
        return Err(OAuthError::InvalidUrl {
            url: issuer.to_string(),
            reason: "an issuer has no query or fragment".into(),
        });
    }
    match issuer_of(url) {
        Some(expected) => {
            let trimmed = issuer.strip_suffix('/').unwrap_or(issuer);
            if issuer == expected || trimmed == expected {
                Ok(())
            } else {
                Err(mismatch(expected))
            }
        }
        None => {
            let origin = url.origin().ascii_serialization();
            if issuer_url.origin().ascii_serialization() == origin {
                Ok(())
            } else {
                Err(mismatch(origin))
            }
        }
    }
}

impl OAuthClient {
    /// Fetches the metadata document at `url` (an OpenID Connect discovery
    /// URL or an RFC 8414 metadata URL) and checks its issuer.
    pub async fn fetch_metadata(&self, url: &str) -> Result<ServerMetadata, OAuthError> {
        let document = fetch::get_json(self.http(), url, METADATA_LIMIT).await?;
        ServerMetadata::from_document(url, &document)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn metadata(url: &str, document: Value) -> Result<ServerMetadata, OAuthError> {
        ServerMetadata::from_document(url, document.as_object().unwrap())
    }

    #[test]
    fn issuer_forms() {
        let of = |u: &str| issuer_of(&Url::parse(u).unwrap());
        assert_eq!(
            of("https://op.example/.well-known/openid-configuration").as_deref(),
            Some("https://op.example")
        );
        assert_eq!(
            of("https://op.example/tenant/.well-known/openid-configuration").as_deref(),
            Some("https://op.example/tenant")
        );
        assert_eq!(
            of("https://as.example/.well-known/oauth-authorization-server/tenant").as_deref(),
            Some("https://as.example/tenant")
        );
        assert_eq!(
            of("http://127.0.0.1:9/.well-known/oauth-authorization-server").as_deref(),
            Some("http://127.0.0.1:9")
        );
        assert_eq!(of("https://as.example/metadata.json"), None);
    }

    #[test]
    fn issuer_is_checked() {
        let url = "https://op.example/.well-known/openid-configuration";
        assert!(metadata(url, json!({"issuer": "https://op.example"})).is_ok());
        assert!(metadata(url, json!({"issuer": "https://op.example/"})).is_ok());
        match metadata(url, json!({"issuer": "https://evil.example"})) {
            Err(OAuthError::IssuerMismatch { expected, found, .. }) => {
                assert_eq!(
                    (expected.as_str(), found.as_str()),
                    ("https://op.example", "https://evil.example")
                )
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            metadata(url, json!({"issuer": "https://op.example/other"})),
            Err(OAuthError::IssuerMismatch { .. })
        ));
        assert!(matches!(
            metadata(url, json!({"issuer": "https://op.example?x=1"})),
            Err(OAuthError::InvalidUrl { .. })
        ));
        assert!(matches!(
            metadata(url, json!({"issuer": "http://op.example"})),
            Err(OAuthError::InsecureUrl(_))
        ));
        assert!(matches!(
            metadata(url, json!({"issuer": 5})),
            Err(OAuthError::Malformed { reason, .. }) if reason == "no `issuer`"
        ));
        // No well-known form: the issuer must be on the document's origin.
        assert!(metadata(
            "https://as.example/m.json",
            json!({"issuer": "https://as.example/x"})
        )
        .is_ok());
        assert!(matches!(
            metadata("https://as.example/m.json", json!({"issuer": "https://other.example"})),
            Err(OAuthError::IssuerMismatch { expected, .. }) if expected == "https://as.example"
        ));
    }

    #[test]
    fn flows_from_metadata() {
        let found = metadata(
            "https://op.example/.well-known/openid-configuration",
            json!({
                "issuer": "https://op.example",
                "token_endpoint": "https://op.example/token",
                "device_authorization_endpoint": "https://op.example/device",
                "grant_types_supported": ["authorization_code", DEVICE_CODE_GRANT, "client_credentials", 7],
                "scopes_supported": ["openid", "agent"],
                "token_endpoint_auth_methods_supported": ["client_secret_post"]
            }),
        )
        .unwrap();
        let flows = found.flows();
        let scopes: std::collections::BTreeMap<String, String> = [
            ("agent".to_string(), String::new()),
            ("openid".to_string(), String::new()),
        ]
        .into();
        assert_eq!(
            flows,
            vec![
                Flow {
                    grant: Grant::DeviceCode {
                        device_authorization_url: "https://op.example/device".into()
                    },
                    token_url: "https://op.example/token".into(),
                    refresh_url: None,
                    scopes: scopes.clone(),
                    issuer: Some("https://op.example".into()),
                    auth_methods: Some(vec!["client_secret_post".into()]),
                },
                Flow {
                    grant: Grant::ClientCredentials,
                    token_url: "https://op.example/token".into(),
                    refresh_url: None,
                    scopes,
                    issuer: Some("https://op.example".into()),
                    auth_methods: Some(vec!["client_secret_post".into()]),
                },
            ]
        );
    }

    #[test]
    fn grants_follow_the_list_and_defaults() {
        let url = "https://op.example/.well-known/openid-configuration";
        let base = json!({"issuer": "https://op.example", "token_endpoint": "https://op.example/token",
                          "device_authorization_endpoint": "https://op.example/device"});
        // No list: a device endpoint is taken at its word; client credentials is not a default.
        let grants = |doc: Value| -> Vec<&'static str> {
            metadata(url, doc)
                .unwrap()
                .flows()
                .iter()
                .map(|f| f.grant.card_name())
                .collect()
        };
        assert_eq!(grants(base.clone()), ["deviceCode"]);
        let mut listed = base.clone();
        listed["grant_types_supported"] = json!(["authorization_code"]);
        assert_eq!(grants(listed), Vec::<&str>::new());
        let mut no_token = base;
        no_token.as_object_mut().unwrap().remove("token_endpoint");
        assert_eq!(grants(no_token), Vec::<&str>::new());
    }
}
