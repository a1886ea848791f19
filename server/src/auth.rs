//! Authentication (server mode): turns the credentials of an HTTP request — an
//! API key (in a header, a query parameter or a cookie, wherever the card
//! declares it), a static bearer token, a JWT (HS256 secret, RS256/ES256 from a
//! local JWKS file; OAuth2 and OpenID Connect tokens are such JWTs), or the
//! client certificate of its TLS connection — into a [`Principal`] with its
//! roles per namespace. Nothing here logs a credential.

use crate::config::{ApiKeyLocation, AuthConfig, CertificateName, JwtConfig, PrincipalConfig, Secret};
use crate::error::ServerError;
use a2a::rpc::{Access, Principal};
use http::HeaderMap;
use jsonwebtoken::errors::ErrorKind as JwtErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// A caller whose credentials checked out.
#[derive(Clone, Debug, PartialEq)]
pub struct Authenticated {
    /// Who the caller is and the roles they hold.
    pub principal: Principal,
    /// The principal's configured namespace for requests that name none; `None`
    /// means the contract's default.
    pub default_namespace: Option<String>,
    /// Which scheme admitted the caller (`apiKey`, `bearer`, `jwt`, `mtls`), for logs.
    pub scheme: &'static str,
}

/// Why a request is not authenticated. The text is safe to show the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthFailure {
    /// No credentials at all.
    Missing,
    /// Credentials that do not check out, with a short reason.
    Invalid(String),
}

impl AuthFailure {
    /// The message of the error a 401 answer carries.
    pub fn message(&self) -> String {
        match self {
            AuthFailure::Missing => "Authentication required".into(),
            AuthFailure::Invalid(reason) => format!("Invalid credentials: {reason}"),
        }
    }
}

/// The verified client certificate of a TLS connection, as `auth.mtls`
/// names its holder: the subject of every request on that connection that
/// carries no other credential.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCertificate {
    /// The name `auth.mtls.subject_from` picks, or why the certificate has none.
    subject: Result<std::sync::Arc<str>, String>,
}

impl ClientCertificate {
    /// The holder of the (verified) certificate `der`, by the name `names` picks.
    pub fn named(names: CertificateName, der: &[u8]) -> ClientCertificate {
        ClientCertificate {
            subject: certificate_name(names, der).map(std::sync::Arc::from),
        }
    }
}

/// The first name of kind `names` in certificate `der`.
fn certificate_name(names: CertificateName, der: &[u8]) -> Result<String, String> {
    use x509_parser::extensions::GeneralName;
    let (_, certificate) = x509_parser::parse_x509_certificate(der)
        .map_err(|e| format!("the client certificate does not parse: {e}"))?;
    let found = match names {
        CertificateName::CommonName => certificate
            .subject()
            .iter_common_name()
            .find_map(|name| name.as_str().ok().map(str::to_string)),
        CertificateName::DnsName | CertificateName::Uri | CertificateName::Email => certificate
            .subject_alternative_name()
            .ok()
            .flatten()
            .and_then(|san| {
                san.value
                    .general_names
                    .iter()
                    .find_map(|name| match (names, name) {
                        (CertificateName::DnsName, GeneralName::DNSName(n))
                        | (CertificateName::Uri, GeneralName::URI(n))
                        | (CertificateName::Email, GeneralName::RFC822Name(n)) => Some(n.to_string()),
                        _ => None,
                    })
            }),
    };
    found
        .filter(|name| !name.is_empty())
        .ok_or_else(|| format!("the client certificate has no {}", names.describe()))
}

/// What the listener learned of a request's credentials besides its
/// headers, kept in the request's extensions: the verified client
/// certificate of its connection, and the API key its query string carried
/// (see [`Authenticator::take_query_key`]).
#[derive(Clone, Debug, Default)]
pub struct RequestCredentials {
    certificate: Option<ClientCertificate>,
    query_key: Option<QueryKey>,
}

impl RequestCredentials {
    /// The credentials of a request on a connection whose client showed
    /// `certificate` (verified), if any.
    pub fn of_connection(certificate: Option<ClientCertificate>) -> RequestCredentials {
        RequestCredentials {
            certificate,
            query_key: None,
        }
    }
}

/// An API key taken out of a query string (decoded), or why it is not one.
/// Never printed.
#[derive(Clone)]
struct QueryKey(Result<Vec<u8>, &'static str>);

impl std::fmt::Debug for QueryKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("QueryKey(***)")
    }
}

/// Where requests carry their API key, by the name each place is looked up by.
#[derive(Debug)]
enum ApiKeyPlace {
    Header(http::HeaderName),
    Query(String),
    Cookie(String),
}

impl ApiKeyPlace {
    fn from_config(location: ApiKeyLocation, name: &str) -> Result<Self, ServerError> {
        let invalid = |what: &str| {
            ServerError::Config(format!(
                "auth.api_key_name `{name}` is not a valid {what} (auth.api_key_location is `{}`)",
                location.as_str()
            ))
        };
        match location {
            ApiKeyLocation::Header => http::HeaderName::from_bytes(name.as_bytes())
                .map(ApiKeyPlace::Header)
                .map_err(|_| invalid("header name")),
            // Unreserved characters only (RFC 3986): the name reads the same
            // encoded or not, so the card's `name` is what a client sends.
            ApiKeyLocation::Query if !name.is_empty() && name.bytes().all(is_unreserved) => {
                Ok(ApiKeyPlace::Query(name.to_string()))
            }
            ApiKeyLocation::Query => Err(invalid(
                "query parameter name: use letters, digits, `-`, `.`, `_` and `~`",
            )),
            // A cookie's name is an HTTP token (RFC 6265 §4.1.1).
            ApiKeyLocation::Cookie if !name.is_empty() && name.bytes().all(is_token_char) => {
                Ok(ApiKeyPlace::Cookie(name.to_string()))
            }
            ApiKeyLocation::Cookie => Err(invalid("cookie name")),
        }
    }
}

/// RFC 3986 §2.3 unreserved characters.
fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

/// RFC 9110 §5.6.2 token characters.
fn is_token_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric()
        || matches!(
            byte,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
        )
}

/// Decodes one `application/x-www-form-urlencoded` name or value: `+` is a
/// space, `%XX` a byte; `None` for a `%` not followed by two hex digits.
fn form_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let high = char::from(*bytes.get(i + 1)?).to_digit(16)?;
                let low = char::from(*bytes.get(i + 2)?).to_digit(16)?;
                out.push(u8::try_from(high * 16 + low).ok()?);
                i += 2;
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    Some(out)
}

/// The values of the cookie `name` in the request's `Cookie` header fields
/// (RFC 6265 §4.2.1: `name=value` pairs separated by `;` and a space; over
/// HTTP/2 the pairs may come in several fields). A value in double quotes is
/// given without them; nothing else is decoded.
fn cookie_values<'h>(headers: &'h HeaderMap, name: &'h str) -> impl Iterator<Item = &'h [u8]> + 'h {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .flat_map(|field| field.as_bytes().split(|byte| *byte == b';'))
        .filter_map(move |pair| {
            let pair = pair.trim_ascii();
            let equals = pair.iter().position(|byte| *byte == b'=')?;
            let value = pair[equals + 1..].trim_ascii();
            (pair[..equals].trim_ascii() == name.as_bytes()).then(|| {
                value
                    .strip_prefix(b"\"")
                    .and_then(|inner| inner.strip_suffix(b"\""))
                    .unwrap_or(value)
            })
        })
}

struct JwksKey {
    kid: Option<String>,
    algorithm: Algorithm,
    key: DecodingKey,
}

struct JwtVerifier {
    hs256: Option<DecodingKey>,
    jwks: Vec<JwksKey>,
    issuer: Option<String>,
    audience: Vec<String>,
    leeway: u64,
    namespaces_claim: String,
}

/// Checks credentials against the configuration. Built once at start.
pub struct Authenticator {
    api_key: ApiKeyPlace,
    api_keys: Vec<(Secret, String)>,
    bearer_tokens: Vec<(Secret, String)>,
    jwt: Option<JwtVerifier>,
    principals: HashMap<String, PrincipalConfig>,
    /// Client certificates name the caller (`auth.mtls`).
    mtls: bool,
    enabled: bool,
    challenge: String,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("enabled", &self.enabled)
            .field("api_key", &self.api_key)
            .field("api_keys", &self.api_keys.len())
            .field("bearer_tokens", &self.bearer_tokens.len())
            .field("jwt", &self.jwt.is_some())
            .finish()
    }
}

impl Authenticator {
    /// Builds the authenticator, reading the JWKS file if one is configured.
    pub fn from_config(config: &AuthConfig) -> Result<Self, ServerError> {
        let api_key = ApiKeyPlace::from_config(config.api_key_location, &config.api_key_name)?;
        if config.oauth2.is_some() && config.jwt.is_none() {
            return Err(ServerError::Config(
                "auth.oauth2 needs auth.jwt: OAuth2 access tokens are verified as JWTs".into(),
            ));
        }
        if let Some(oidc) = &config.openid_connect {
            if config.jwt.is_none() {
                return Err(ServerError::Config(
                    "auth.openid_connect needs auth.jwt: OpenID Connect tokens are verified as JWTs \
                     against its keys (hs256_secret or jwks_file), issuer and audience"
                        .into(),
                ));
            }
            check_discovery_url(&oidc.url)?;
        }
        let jwt = config.jwt.as_ref().map(JwtVerifier::from_config).transpose()?;
        let mut challenges = Vec::new();
        if !config.bearer_tokens.is_empty() || jwt.is_some() {
            challenges.push("Bearer realm=\"cleveragents\"".to_string());
        }
        if !config.api_keys.is_empty() {
            // The name as configured: the card declares it so.
            challenges.push(format!(
                "ApiKey realm=\"cleveragents\", {}=\"{}\"",
                config.api_key_location.as_str(),
                config.api_key_name
            ));
        }
        Ok(Authenticator {
            api_key,
            api_keys: config
                .api_keys
                .iter()
                .map(|c| (c.secret.clone(), c.subject.clone()))
                .collect(),
            bearer_tokens: config
                .bearer_tokens
                .iter()
                .map(|c| (c.secret.clone(), c.subject.clone()))
                .collect(),
            jwt,
            principals: config
                .principals
                .iter()
                .map(|p| (p.subject.clone(), p.clone()))
                .collect(),
            mtls: config.mtls.is_some(),
            enabled: config.is_enabled(),
            challenge: challenges.join(", "),
        })
    }

    /// True when requests must authenticate.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The `WWW-Authenticate` value of a 401.
    pub fn challenge(&self) -> &str {
        &self.challenge
    }

    /// Takes the API key out of the query string of `request` when the key
    /// is declared to travel there: the URL keeps every other parameter, and
    /// the key goes to the request's [`RequestCredentials`], where only
    /// [`Authenticator::authenticate`] reads it. Called before anything else
    /// looks at the request, so no log, trace or route sees the key.
    pub fn take_query_key<B>(&self, request: &mut http::Request<B>) {
        let ApiKeyPlace::Query(name) = &self.api_key else {
            return;
        };
        let Some(query) = request.uri().query() else {
            return;
        };
        let mut values = Vec::new();
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (pair_name, value) = pair.split_once('=').unwrap_or((pair, ""));
            if form_decode(pair_name).is_some_and(|decoded| decoded == name.as_bytes()) {
                values.push(value);
            } else {
                kept.push(pair);
            }
        }
        let key = match values.as_slice() {
            [] => return,
            [value] => form_decode(value).ok_or("malformed API key query parameter"),
            _ => Err("the API key query parameter is given more than once"),
        };
        let path = request.uri().path();
        let without_key = match kept.join("&") {
            rest if rest.is_empty() => path.to_string(),
            rest => format!("{path}?{rest}"),
        };
        let mut parts = std::mem::take(request.uri_mut()).into_parts();
        // Pieces of a valid URL make a valid one; were it not so, the root
        // would go on rather than the key.
        parts.path_and_query = Some(
            http::uri::PathAndQuery::try_from(without_key)
                .unwrap_or_else(|_| http::uri::PathAndQuery::from_static("/")),
        );
        *request.uri_mut() = http::Uri::from_parts(parts).unwrap_or_default();
        let key = QueryKey(key);
        match request.extensions_mut().get_mut::<RequestCredentials>() {
            Some(credentials) => credentials.query_key = Some(key),
            None => {
                request.extensions_mut().insert(RequestCredentials {
                    certificate: None,
                    query_key: Some(key),
                });
            }
        }
    }

    /// The API key of a request, from the one place it is declared to travel.
    fn presented_key<'r>(
        &'r self,
        headers: &'r HeaderMap,
        credentials: Option<&'r RequestCredentials>,
    ) -> Result<Option<&'r [u8]>, AuthFailure> {
        match &self.api_key {
            ApiKeyPlace::Header(name) => Ok(headers.get(name).map(http::HeaderValue::as_bytes)),
            ApiKeyPlace::Query(_) => match credentials.and_then(|c| c.query_key.as_ref()) {
                None => Ok(None),
                Some(QueryKey(Ok(key))) => Ok(Some(key.as_slice())),
                Some(QueryKey(Err(reason))) => Err(AuthFailure::Invalid((*reason).into())),
            },
            ApiKeyPlace::Cookie(name) => {
                let mut values = cookie_values(headers, name);
                match (values.next(), values.next()) {
                    (None, _) => Ok(None),
                    (Some(value), None) => Ok(Some(value)),
                    (Some(_), Some(_)) => Err(AuthFailure::Invalid(
                        "the API key cookie is given more than once".into(),
                    )),
                }
            }
        }
    }

    /// Authenticates a request from its credentials — the API key where the
    /// card declares it, or its `Authorization` header — else from the client
    /// certificate of its connection. `Ok(None)` when authentication is off
    /// (anonymous development setup).
    pub fn authenticate(
        &self,
        headers: &HeaderMap,
        credentials: Option<&RequestCredentials>,
    ) -> Result<Option<Authenticated>, AuthFailure> {
        if !self.enabled {
            return Ok(None);
        }
        let api_key = self.presented_key(headers, credentials)?;
        // A credential in the request speaks for the request; the
        // connection's certificate for requests that carry none.
        let carries_credential = api_key.is_some() || headers.contains_key(http::header::AUTHORIZATION);
        let certificate = credentials.and_then(|c| c.certificate.as_ref());
        if let (false, true, Some(certificate)) = (carries_credential, self.mtls, certificate) {
            return match &certificate.subject {
                Ok(subject) => Ok(Some(self.principal_for(subject, None, "mtls"))),
                Err(reason) => Err(AuthFailure::Invalid(reason.clone())),
            };
        }
        if let Some(presented) = api_key {
            if self.api_keys.is_empty() {
                return Err(AuthFailure::Invalid("API keys are not accepted".into()));
            }
            // Compare against every key so timing does not depend on which matched.
            let mut found = None;
            for (secret, subject) in &self.api_keys {
                if constant_time_eq(secret.expose().as_bytes(), presented) {
                    found = Some(subject);
                }
            }
            return match found {
                Some(subject) => Ok(Some(self.principal_for(subject, None, "apiKey"))),
                None => Err(AuthFailure::Invalid("unknown API key".into())),
            };
        }
        let Some(authorization) = headers.get(http::header::AUTHORIZATION) else {
            return Err(AuthFailure::Missing);
        };
        let text = authorization
            .to_str()
            .map_err(|_| AuthFailure::Invalid("malformed Authorization header".into()))?;
        let (scheme, token) = text.trim().split_once(' ').unwrap_or((text.trim(), ""));
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(AuthFailure::Invalid("only the Bearer scheme is accepted".into()));
        }
        let token = token.trim();
        if token.is_empty() {
            return Err(AuthFailure::Invalid("empty bearer token".into()));
        }
        let mut found = None;
        for (secret, subject) in &self.bearer_tokens {
            if constant_time_eq(secret.expose().as_bytes(), token.as_bytes()) {
                found = Some(subject);
            }
        }
        if let Some(subject) = found {
            return Ok(Some(self.principal_for(subject, None, "bearer")));
        }
        match &self.jwt {
            Some(jwt) if token.matches('.').count() == 2 => {
                let claims = jwt.verify(token)?;
                let subject = claims
                    .get("sub")
                    .and_then(Value::as_str)
                    .ok_or_else(|| AuthFailure::Invalid("token has no `sub` claim".into()))?
                    .to_string();
                let claimed = claims.get(&jwt.namespaces_claim).and_then(namespaces_from_claim);
                Ok(Some(self.principal_for(&subject, claimed, "jwt")))
            }
            _ => Err(AuthFailure::Invalid("unknown bearer token".into())),
        }
    }

    /// A configured principal wins over roles carried in a token.
    fn principal_for(
        &self,
        subject: &str,
        claimed: Option<BTreeMap<String, Access>>,
        scheme: &'static str,
    ) -> Authenticated {
        match self.principals.get(subject) {
            Some(config) => Authenticated {
                principal: Principal {
                    subject: subject.to_string(),
                    namespaces: config.namespaces.clone(),
                },
                default_namespace: config.default_namespace.clone(),
                scheme,
            },
            None => Authenticated {
                principal: Principal {
                    subject: subject.to_string(),
                    namespaces: claimed.unwrap_or_default(),
                },
                default_namespace: None,
                scheme,
            },
        }
    }
}

/// Refuses an OpenID Connect discovery URL clients could not fetch: it must
/// be an absolute `https` (or `http`) URL with a host.
fn check_discovery_url(url: &str) -> Result<(), ServerError> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    let host = rest.and_then(|rest| rest.split(['/', '?', '#']).next());
    let fine = host.is_some_and(|host| !host.is_empty())
        && !url.chars().any(|c| c.is_whitespace() || c.is_control());
    if fine {
        return Ok(());
    }
    Err(ServerError::Config(format!(
        "auth.openid_connect.url `{}` is not an absolute http(s) URL of the provider's discovery document",
        url.escape_debug()
    )))
}

fn namespaces_from_claim(value: &Value) -> Option<BTreeMap<String, Access>> {
    let object = value.as_object()?;
    Some(
        object
            .iter()
            .filter_map(|(ns, role)| {
                let access = match role.as_str()? {
                    "reader" => Access::Reader,
                    "writer" => Access::Writer,
                    "admin" => Access::Admin,
                    _ => return None,
                };
                Some((ns.clone(), access))
            })
            .collect(),
    )
}

impl JwtVerifier {
    fn from_config(config: &JwtConfig) -> Result<Self, ServerError> {
        let hs256 = config
            .hs256_secret
            .as_ref()
            .map(|s| DecodingKey::from_secret(s.expose().as_bytes()));
        let jwks = match &config.jwks_file {
            None => Vec::new(),
            Some(path) => load_jwks(path)?,
        };
        if hs256.is_none() && jwks.is_empty() {
            return Err(ServerError::Config(
                "auth.jwt needs an hs256_secret or a jwks_file with at least one RS256/ES256 key".into(),
            ));
        }
        Ok(JwtVerifier {
            hs256,
            jwks,
            issuer: config.issuer.clone(),
            audience: config.audience.clone(),
            leeway: config.leeway_secs,
            namespaces_claim: config.namespaces_claim.clone(),
        })
    }

    fn validation(&self, algorithm: Algorithm) -> Validation {
        let mut validation = Validation::new(algorithm);
        validation.leeway = self.leeway;
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "sub"]);
        if let Some(issuer) = &self.issuer {
            validation.set_issuer(&[issuer]);
        }
        if self.audience.is_empty() {
            validation.validate_aud = false;
        } else {
            validation.set_audience(&self.audience);
        }
        validation
    }

    fn verify(&self, token: &str) -> Result<Map<String, Value>, AuthFailure> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|_| AuthFailure::Invalid("malformed token".into()))?;
        let candidates: Vec<&DecodingKey> = match header.alg {
            Algorithm::HS256 => self.hs256.iter().collect(),
            Algorithm::RS256 | Algorithm::ES256 => self
                .jwks
                .iter()
                .filter(|k| k.algorithm == header.alg)
                .filter(|k| match (&header.kid, &k.kid) {
                    (Some(wanted), Some(have)) => wanted == have,
                    _ => true,
                })
                .map(|k| &k.key)
                .collect(),
            _ => Vec::new(),
        };
        if candidates.is_empty() {
            return Err(AuthFailure::Invalid(
                "token algorithm or key id not accepted".into(),
            ));
        }
        let validation = self.validation(header.alg);
        let mut last = AuthFailure::Invalid("bad signature".into());
        for key in candidates {
            match jsonwebtoken::decode::<Map<String, Value>>(token, key, &validation) {
                Ok(data) => return Ok(data.claims),
                Err(error) => {
                    last = AuthFailure::Invalid(
                        match error.kind() {
                            JwtErrorKind::ExpiredSignature => "token expired",
                            JwtErrorKind::ImmatureSignature => "token not yet valid",
                            JwtErrorKind::InvalidAudience => "wrong audience",
                            JwtErrorKind::InvalidIssuer => "wrong issuer",
                            JwtErrorKind::InvalidSignature => "bad signature",
                            JwtErrorKind::MissingRequiredClaim(_) => "missing required claim",
                            _ => "malformed token",
                        }
                        .into(),
                    );
                    // Only a bad signature is worth trying the next key for.
                    if !matches!(error.kind(), JwtErrorKind::InvalidSignature) {
                        break;
                    }
                }
            }
        }
        Err(last)
    }
}

fn load_jwks(path: &std::path::Path) -> Result<Vec<JwksKey>, ServerError> {
    let fail = |reason: String| ServerError::Jwks {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    let set: JwkSet = serde_json::from_str(&text).map_err(|e| fail(e.to_string()))?;
    let mut keys = Vec::new();
    for jwk in &set.keys {
        let algorithm = match (&jwk.common.key_algorithm, &jwk.algorithm) {
            (Some(KeyAlgorithm::RS256), _) => Algorithm::RS256,
            (Some(KeyAlgorithm::ES256), _) => Algorithm::ES256,
            (None, AlgorithmParameters::RSA(_)) => Algorithm::RS256,
            (None, AlgorithmParameters::EllipticCurve(ec)) if ec.curve == EllipticCurve::P256 => {
                Algorithm::ES256
            }
            // Other algorithms are not offered; skip rather than fail the whole set.
            _ => continue,
        };
        let key = DecodingKey::from_jwk(jwk).map_err(|e| fail(e.to_string()))?;
        keys.push(JwksKey {
            kid: jwk.common.key_id.clone(),
            algorithm,
            key,
        });
    }
    if keys.is_empty() {
        return Err(fail("no RS256 or ES256 key in the set".into()));
    }
    Ok(keys)
}

/// Equality whose time depends only on the lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
