//! Authentication (server mode): turns the credentials of an HTTP request — an
//! API key header, a static bearer token, a JWT (HS256 secret, RS256/ES256
//! from a local JWKS file), or the client certificate of its TLS connection —
//! into a [`Principal`] with its roles per namespace. Nothing here logs a
//! credential.

use crate::config::{AuthConfig, CertificateName, JwtConfig, PrincipalConfig, Secret};
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
    api_key_header: http::HeaderName,
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
            .field("api_keys", &self.api_keys.len())
            .field("bearer_tokens", &self.bearer_tokens.len())
            .field("jwt", &self.jwt.is_some())
            .finish()
    }
}

impl Authenticator {
    /// Builds the authenticator, reading the JWKS file if one is configured.
    pub fn from_config(config: &AuthConfig) -> Result<Self, ServerError> {
        let api_key_header =
            http::HeaderName::from_bytes(config.api_key_header.as_bytes()).map_err(|_| {
                ServerError::Config(format!("`{}` is not a valid header name", config.api_key_header))
            })?;
        if config.oauth2.is_some() && config.jwt.is_none() {
            return Err(ServerError::Config(
                "auth.oauth2 needs auth.jwt: OAuth2 access tokens are verified as JWTs".into(),
            ));
        }
        let jwt = config.jwt.as_ref().map(JwtVerifier::from_config).transpose()?;
        let mut challenges = Vec::new();
        if !config.bearer_tokens.is_empty() || jwt.is_some() {
            challenges.push("Bearer realm=\"cleveragents\"".to_string());
        }
        if !config.api_keys.is_empty() {
            challenges.push(format!(
                "ApiKey realm=\"cleveragents\", header=\"{}\"",
                config.api_key_header
            ));
        }
        Ok(Authenticator {
            api_key_header,
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

    /// Authenticates a request from its headers, else from the client
    /// certificate of its connection. `Ok(None)` when authentication is off
    /// (anonymous development setup).
    pub fn authenticate(
        &self,
        headers: &HeaderMap,
        certificate: Option<&ClientCertificate>,
    ) -> Result<Option<Authenticated>, AuthFailure> {
        if !self.enabled {
            return Ok(None);
        }
        // A credential in the request speaks for the request; the
        // connection's certificate for requests that carry none.
        let carries_credential =
            headers.contains_key(&self.api_key_header) || headers.contains_key(http::header::AUTHORIZATION);
        if let (false, true, Some(certificate)) = (carries_credential, self.mtls, certificate) {
            return match &certificate.subject {
                Ok(subject) => Ok(Some(self.principal_for(subject, None, "mtls"))),
                Err(reason) => Err(AuthFailure::Invalid(reason.clone())),
            };
        }
        if let Some(value) = headers.get(&self.api_key_header) {
            if self.api_keys.is_empty() {
                return Err(AuthFailure::Invalid("API keys are not accepted".into()));
            }
            let presented = value.as_bytes();
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
