//! The token endpoint (RFC 6749 §3.2): how the client authenticates to it,
//! what it answers, and the two grants that are one request each — client
//! credentials (§4.4) and refresh (§6). The device grant's polling is in
//! [`crate::oauth::device`] and uses the same request.

use crate::oauth::error::{printable, ErrorCode, OAuthError};
use crate::oauth::fetch::{self, Answer};
use crate::oauth::{Flow, Grant, OAuthClient, CLIENT_CREDENTIALS_GRANT, REFRESH_TOKEN_GRANT};
use serde_json::Value;
use std::fmt;

/// A client secret or any other credential: never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A secret with this value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value; call only where it is sent.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// How a client proves itself at the token endpoint; the names are those of
/// `token_endpoint_auth_methods_supported` (RFC 8414 §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientAuthMethod {
    /// `client_secret_basic`: id and secret in an HTTP Basic header, the
    /// method every server must support (RFC 6749 §2.3.1).
    SecretBasic,
    /// `client_secret_post`: id and secret as form fields, for servers that
    /// say they take only that.
    SecretPost,
    /// `none`: a public client, named by `client_id` in the form.
    None,
}

impl ClientAuthMethod {
    /// The method's registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            ClientAuthMethod::SecretBasic => "client_secret_basic",
            ClientAuthMethod::SecretPost => "client_secret_post",
            ClientAuthMethod::None => "none",
        }
    }

    /// The method of this registered name, when it is one of these.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(ClientAuthMethod::SecretBasic),
            "client_secret_post" => Some(ClientAuthMethod::SecretPost),
            "none" => Some(ClientAuthMethod::None),
            _ => None,
        }
    }
}

/// Who the client is to the authorization server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientAuth {
    /// The client identifier the server registered.
    pub client_id: String,
    /// The secret of a confidential client; `None` for a public one.
    pub client_secret: Option<Secret>,
    /// A method to use whatever the server's metadata says; normally `None`,
    /// which lets [`ClientAuth::method_for`] choose.
    pub method: Option<ClientAuthMethod>,
}

impl ClientAuth {
    /// A public client: no secret, identified by its id alone (the usual
    /// case of the device grant).
    pub fn public(client_id: impl Into<String>) -> Self {
        ClientAuth {
            client_id: client_id.into(),
            client_secret: None,
            method: None,
        }
    }

    /// A confidential client with its secret.
    pub fn confidential(client_id: impl Into<String>, secret: Secret) -> Self {
        ClientAuth {
            client_id: client_id.into(),
            client_secret: Some(secret),
            method: None,
        }
    }

    /// The method to authenticate with to a server that supports `supported`
    /// (its metadata's list, when known): HTTP Basic, which every server must
    /// take, unless the server lists the form method and not Basic.
    pub fn method_for(&self, supported: Option<&[String]>) -> ClientAuthMethod {
        if self.client_secret.is_none() {
            return ClientAuthMethod::None;
        }
        if let Some(forced) = self.method {
            return forced;
        }
        let lists = |name: &str| supported.is_some_and(|s| s.iter().any(|m| m == name));
        if !lists("client_secret_basic") && lists("client_secret_post") {
            ClientAuthMethod::SecretPost
        } else {
            ClientAuthMethod::SecretBasic
        }
    }

    /// The form fields and Basic credentials that authenticate the client by
    /// `method`. Basic credentials are form-encoded first (RFC 6749 §2.3.1),
    /// so an id or secret with `:` or non-ASCII characters survives.
    fn credentials(&self, method: ClientAuthMethod) -> (Form, Option<BasicCredentials>) {
        let secret = self
            .client_secret
            .as_ref()
            .map(Secret::expose)
            .unwrap_or_default();
        match method {
            ClientAuthMethod::SecretBasic => (
                Vec::new(),
                Some((form_encode(&self.client_id), form_encode(secret))),
            ),
            ClientAuthMethod::SecretPost => (
                vec![
                    ("client_id", self.client_id.clone()),
                    ("client_secret", secret.to_string()),
                ],
                None,
            ),
            ClientAuthMethod::None => (vec![("client_id", self.client_id.clone())], None),
        }
    }
}

/// Form fields of a request to the token endpoint.
pub(crate) type Form = Vec<(&'static str, String)>;
/// The user and password of an HTTP Basic header, already form-encoded.
type BasicCredentials = (String, String);

fn form_encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A successful token answer (RFC 6749 §5.1). Unknown members are ignored.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenResponse {
    /// The access token to present as `Authorization: Bearer`.
    pub access_token: String,
    /// The token type: `Bearer` (any other is refused on receipt).
    pub token_type: String,
    /// Seconds the access token lives from issue, when the server says.
    pub expires_in: Option<u64>,
    /// A refresh token, when the server issued one.
    pub refresh_token: Option<String>,
    /// The scopes granted, when they differ from those asked for or the
    /// server says anyway (space-separated).
    pub scope: Option<String>,
}

impl fmt::Debug for TokenResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenResponse")
            .field("access_token", &"***")
            .field("token_type", &self.token_type)
            .field("expires_in", &self.expires_in)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "***"))
            .field("scope", &self.scope)
            .finish()
    }
}

/// Longest `error_description` kept; the rest is not worth a terminal line.
const DESCRIPTION_LIMIT: usize = 300;

/// The OAuth error `body` carries, if any (RFC 6749 §5.2).
pub(crate) fn oauth_error(status: u16, body: Option<&serde_json::Map<String, Value>>) -> Option<OAuthError> {
    let body = body?;
    let code = body.get("error")?.as_str()?;
    Some(OAuthError::Server {
        code: ErrorCode::parse(&printable(code, 64)),
        description: body
            .get("error_description")
            .and_then(Value::as_str)
            .map(|d| printable(d, DESCRIPTION_LIMIT)),
        status,
    })
}

/// A number of seconds, as a JSON number or, as some servers send it, a string.
pub(crate) fn seconds(value: Option<&Value>) -> Option<u64> {
    match value? {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The token in `answer` from `url`, or the error it carries.
fn token_outcome(url: &str, answer: Answer) -> Result<TokenResponse, OAuthError> {
    let malformed = |reason: &str| OAuthError::Malformed {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let has_token = answer
        .body
        .as_ref()
        .is_some_and(|b| b.contains_key("access_token"));
    // Some servers answer 200 with an error object (during device polling,
    // notably), so an `error` without a token is an error whatever the status.
    if !(200..300).contains(&answer.status) || !has_token {
        if let Some(error) = oauth_error(answer.status, answer.body.as_ref()) {
            return Err(error);
        }
    }
    if !(200..300).contains(&answer.status) {
        return Err(OAuthError::Status {
            url: url.to_string(),
            status: answer.status,
        });
    }
    let body = answer.body.ok_or_else(|| malformed("not a JSON object"))?;
    let access_token = match body.get("access_token").and_then(Value::as_str) {
        Some(token) if !token.is_empty() => token.to_string(),
        _ => return Err(malformed("no `access_token`")),
    };
    let token_type = body
        .get("token_type")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("no `token_type`"))?;
    if !token_type.eq_ignore_ascii_case("bearer") {
        return Err(OAuthError::UnsupportedTokenType(printable(token_type, 32)));
    }
    Ok(TokenResponse {
        access_token,
        token_type: "Bearer".into(),
        expires_in: seconds(body.get("expires_in")),
        refresh_token: body
            .get("refresh_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_string),
        scope: body.get("scope").and_then(Value::as_str).map(str::to_string),
    })
}

/// `scopes` as the one space-separated `scope` parameter.
pub(crate) fn scope_param(scopes: &[String]) -> Option<String> {
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

impl OAuthClient {
    /// A request to a token (or device authorization) endpoint: `params`
    /// plus the client's authentication by `method`.
    pub(crate) async fn client_post(
        &self,
        url: &str,
        client: &ClientAuth,
        method: ClientAuthMethod,
        params: Form,
    ) -> Result<Answer, OAuthError> {
        let (mut form, basic) = client.credentials(method);
        form.extend(params);
        let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let basic = basic.as_ref().map(|(u, p)| (u.as_str(), p.as_str()));
        fetch::post_form(self.http(), url, &pairs, basic).await
    }

    /// A token request to `url`: the grant's `params` with the client's
    /// authentication; the token, or the server's refusal.
    pub(crate) async fn token_request(
        &self,
        url: &str,
        client: &ClientAuth,
        method: ClientAuthMethod,
        params: Form,
    ) -> Result<TokenResponse, OAuthError> {
        let answer = self.client_post(url, client, method, params).await?;
        token_outcome(url, answer)
    }

    /// The client credentials grant (RFC 6749 §4.4) on `flow`, asking for
    /// `scopes` (none: the server's default). OAuth 2.1 keeps it for clients
    /// acting on their own behalf, such as CI jobs.
    pub async fn client_credentials(
        &self,
        flow: &Flow,
        client: &ClientAuth,
        scopes: &[String],
    ) -> Result<TokenResponse, OAuthError> {
        if flow.grant != Grant::ClientCredentials {
            return Err(OAuthError::WrongGrant {
                expected: "clientCredentials",
            });
        }
        let mut params = vec![("grant_type", CLIENT_CREDENTIALS_GRANT.to_string())];
        params.extend(scope_param(scopes).map(|s| ("scope", s)));
        let method = client.method_for(flow.auth_methods.as_deref());
        self.token_request(&flow.token_url, client, method, params).await
    }

    /// Redeems `refresh_token` at `url` (RFC 6749 §6) for a new access token
    /// with the same scopes. The answer may carry a new refresh token that
    /// replaces this one (OAuth 2.1 rotates them for public clients).
    pub async fn refresh(
        &self,
        url: &str,
        client: &ClientAuth,
        refresh_token: &str,
    ) -> Result<TokenResponse, OAuthError> {
        let params = vec![
            ("grant_type", REFRESH_TOKEN_GRANT.to_string()),
            ("refresh_token", refresh_token.to_string()),
        ];
        self.token_request(url, client, client.method_for(None), params)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(status: u16, body: Value) -> Answer {
        Answer {
            status,
            body: body.as_object().cloned(),
        }
    }

    #[test]
    fn method_follows_the_server_and_the_secret() {
        let public = ClientAuth::public("cli");
        assert_eq!(public.method_for(None), ClientAuthMethod::None);
        let confidential = ClientAuth::confidential("ci", Secret::new("s"));
        assert_eq!(confidential.method_for(None), ClientAuthMethod::SecretBasic);
        let post_only = vec!["client_secret_post".to_string()];
        assert_eq!(
            confidential.method_for(Some(&post_only)),
            ClientAuthMethod::SecretPost
        );
        let both = vec![
            "client_secret_post".to_string(),
            "client_secret_basic".to_string(),
        ];
        assert_eq!(
            confidential.method_for(Some(&both)),
            ClientAuthMethod::SecretBasic
        );
        let neither = vec!["private_key_jwt".to_string()];
        assert_eq!(
            confidential.method_for(Some(&neither)),
            ClientAuthMethod::SecretBasic
        );
        let forced = ClientAuth {
            method: Some(ClientAuthMethod::SecretPost),
            ..confidential
        };
        assert_eq!(forced.method_for(None), ClientAuthMethod::SecretPost);
        for method in [
            ClientAuthMethod::SecretBasic,
            ClientAuthMethod::SecretPost,
            ClientAuthMethod::None,
        ] {
            assert_eq!(ClientAuthMethod::parse(method.as_str()), Some(method));
        }
    }

    #[test]
    fn basic_credentials_are_form_encoded() {
        let client = ClientAuth::confidential("a:b c", Secret::new("p@ss:wörd"));
        let (form, basic) = client.credentials(ClientAuthMethod::SecretBasic);
        assert!(form.is_empty());
        assert_eq!(
            basic,
            Some(("a%3Ab+c".to_string(), "p%40ss%3Aw%C3%B6rd".to_string()))
        );
        let (form, basic) = client.credentials(ClientAuthMethod::SecretPost);
        assert_eq!(
            form,
            vec![
                ("client_id", "a:b c".to_string()),
                ("client_secret", "p@ss:wörd".to_string())
            ]
        );
        assert_eq!(basic, None);
        let (form, _) = ClientAuth::public("cli").credentials(ClientAuthMethod::None);
        assert_eq!(form, vec![("client_id", "cli".to_string())]);
    }

    #[test]
    fn token_answers() {
        let ok = token_outcome(
            "u",
            answer(
                200,
                json!({"access_token": "at", "token_type": "bearer", "expires_in": 60,
                       "refresh_token": "rt", "scope": "a b", "extra": true}),
            ),
        )
        .unwrap();
        assert_eq!(
            ok,
            TokenResponse {
                access_token: "at".into(),
                token_type: "Bearer".into(),
                expires_in: Some(60),
                refresh_token: Some("rt".into()),
                scope: Some("a b".into()),
            }
        );
        assert_eq!(
            format!("{ok:?}"),
            "TokenResponse { access_token: \"***\", token_type: \"Bearer\", expires_in: Some(60), \
             refresh_token: Some(\"***\"), scope: Some(\"a b\") }"
        );
        let string_expiry = token_outcome(
            "u",
            answer(
                200,
                json!({"access_token": "at", "token_type": "Bearer", "expires_in": "30"}),
            ),
        )
        .unwrap();
        assert_eq!(string_expiry.expires_in, Some(30));
        assert_eq!(string_expiry.refresh_token, None);
    }

    #[test]
    fn token_refusals() {
        let denied = token_outcome(
            "u",
            answer(
                400,
                json!({"error": "access_denied", "error_description": "no\u{7}"}),
            ),
        );
        assert!(matches!(
            denied,
            Err(OAuthError::Server { code: ErrorCode::AccessDenied, description: Some(d), status: 400 }) if d == "no"
        ));
        // An error object with status 200 is still an error.
        let pending = token_outcome("u", answer(200, json!({"error": "authorization_pending"})));
        assert!(matches!(
            pending,
            Err(OAuthError::Server {
                code: ErrorCode::AuthorizationPending,
                description: None,
                status: 200
            })
        ));
        let bare = token_outcome(
            "u",
            Answer {
                status: 502,
                body: None,
            },
        );
        assert!(matches!(bare, Err(OAuthError::Status { status: 502, .. })));
        let no_token = token_outcome("u", answer(200, json!({"token_type": "Bearer"})));
        assert!(
            matches!(no_token, Err(OAuthError::Malformed { reason, .. }) if reason == "no `access_token`")
        );
        let empty = token_outcome(
            "u",
            answer(200, json!({"access_token": "", "token_type": "Bearer"})),
        );
        assert!(matches!(empty, Err(OAuthError::Malformed { .. })));
        let no_type = token_outcome("u", answer(200, json!({"access_token": "x"})));
        assert!(matches!(no_type, Err(OAuthError::Malformed { reason, .. }) if reason == "no `token_type`"));
        let dpop = token_outcome(
            "u",
            answer(200, json!({"access_token": "x", "token_type": "DPoP"})),
        );
        assert!(matches!(dpop, Err(OAuthError::UnsupportedTokenType(t)) if t == "DPoP"));
        let not_object = token_outcome(
            "u",
            Answer {
                status: 200,
                body: None,
            },
        );
        assert!(matches!(not_object, Err(OAuthError::Malformed { .. })));
    }

    #[test]
    fn seconds_are_read_leniently() {
        assert_eq!(seconds(Some(&json!(5))), Some(5));
        assert_eq!(seconds(Some(&json!(5.7))), Some(5));
        assert_eq!(seconds(Some(&json!(" 7 "))), Some(7));
        assert_eq!(seconds(Some(&json!(-1))), None);
        assert_eq!(seconds(Some(&json!("x"))), None);
        assert_eq!(seconds(Some(&json!(null))), None);
        assert_eq!(seconds(None), None);
    }
}
