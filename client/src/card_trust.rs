//! Checking an Agent Card's signatures (spec §8.4) against public keys the
//! caller trusts, given as a JWK Set (RFC 7517). The bytes checked are the
//! card's canonical form as received ([`a2a::signing`]), so a card verifies in
//! whichever form it was served (the 1.0 card, or the one with 0.3 fields).
//!
//! A card passes when at least one signature is by a trusted key and every
//! signature by a trusted key verifies; signatures by other keys are ignored
//! (a card may be signed for several audiences).

use a2a::signing::{decode_protected_header, signing_input, SIGNATURES_FIELD};
use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;
use std::path::Path;

/// Public keys, by `kid`, that card signatures are checked with.
#[derive(Clone)]
pub struct TrustedKeys {
    keys: Vec<TrustedKey>,
}

#[derive(Clone)]
struct TrustedKey {
    kid: String,
    algorithm: Algorithm,
    key: DecodingKey,
}

impl std::fmt::Debug for TrustedKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.keys.iter().map(|k| &k.kid)).finish()
    }
}

/// Why a card is not trusted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardTrustError {
    /// The card has no `signatures` at all.
    #[error("the Agent Card carries no signature")]
    Unsigned,
    /// No signature is by a trusted key; the `kid`s it is signed by, listed.
    #[error("the Agent Card has no signature by a trusted key (signed by: {0})")]
    NoTrustedSignature(String),
    /// The signature by this trusted `kid` does not match the card: it was changed after signing.
    #[error("the Agent Card's signature by `{0}` does not verify: the card is not what was signed")]
    Invalid(String),
    /// The signature's protected header names another algorithm than the trusted key's.
    #[error("the Agent Card's signature by `{kid}` names algorithm {named}, but that key is for {expected}")]
    AlgorithmMismatch {
        /// The key the signature names.
        kid: String,
        /// The algorithm the signature's header names.
        named: String,
        /// The algorithm of the trusted key.
        expected: String,
    },
    /// A signature that is not a JWS the client can read; the text says what is wrong.
    #[error("the Agent Card has a malformed signature: {0}")]
    Malformed(String),
}

impl TrustedKeys {
    /// The signing keys of a JWK Set: each needs a `kid`, and an ES256 (P-256)
    /// or RS256 key (`alg` given, or read from the key type).
    pub fn from_jwks(text: &str) -> Result<TrustedKeys, String> {
        let set: JwkSet = serde_json::from_str(text).map_err(|e| format!("not a JWK Set: {e}"))?;
        let mut keys = Vec::with_capacity(set.keys.len());
        for (index, jwk) in set.keys.iter().enumerate() {
            let kid = jwk
                .common
                .key_id
                .clone()
                .ok_or_else(|| format!("key {index} has no `kid`"))?;
            let algorithm = match (&jwk.common.key_algorithm, &jwk.algorithm) {
                (Some(KeyAlgorithm::ES256), _) => Algorithm::ES256,
                (Some(KeyAlgorithm::RS256), _) => Algorithm::RS256,
                (Some(other), _) => {
                    return Err(format!("key `{kid}`: algorithm {other:?} is not ES256 or RS256"))
                }
                (None, AlgorithmParameters::EllipticCurve(_)) => Algorithm::ES256,
                (None, AlgorithmParameters::RSA(_)) => Algorithm::RS256,
                (None, _) => return Err(format!("key `{kid}` is neither an EC nor an RSA key")),
            };
            let key = DecodingKey::from_jwk(jwk).map_err(|e| format!("key `{kid}`: {e}"))?;
            keys.push(TrustedKey { kid, algorithm, key });
        }
        Ok(TrustedKeys { keys })
    }

    /// [`TrustedKeys::from_jwks`] of a file.
    pub fn load(path: &Path) -> Result<TrustedKeys, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        TrustedKeys::from_jwks(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Checks `card`; the `kid`s whose signatures verified.
    pub fn verify(&self, card: &Value) -> Result<Vec<String>, CardTrustError> {
        let signatures = card
            .get(SIGNATURES_FIELD)
            .and_then(Value::as_array)
            .filter(|s| !s.is_empty())
            .ok_or(CardTrustError::Unsigned)?;
        let mut verified = Vec::new();
        let mut signers = Vec::new();
        for signature in signatures {
            let protected = signature["protected"]
                .as_str()
                .ok_or_else(|| CardTrustError::Malformed("a signature without `protected`".into()))?;
            let value = signature["signature"]
                .as_str()
                .ok_or_else(|| CardTrustError::Malformed("a signature without `signature`".into()))?;
            let header = decode_protected_header(protected)
                .ok_or_else(|| CardTrustError::Malformed("`protected` is not base64url JSON".into()))?;
            let kid = header
                .get("kid")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let Some(key) = self.keys.iter().find(|k| k.kid == kid) else {
                signers.push(if kid.is_empty() {
                    "a key without kid".to_string()
                } else {
                    kid
                });
                continue;
            };
            let named = header.get("alg").and_then(Value::as_str).unwrap_or_default();
            let expected = format!("{:?}", key.algorithm);
            if named != expected {
                return Err(CardTrustError::AlgorithmMismatch {
                    kid,
                    named: named.to_string(),
                    expected,
                });
            }
            let message = signing_input(protected, card);
            match jsonwebtoken::crypto::verify(value, &message, &key.key, key.algorithm) {
                Ok(true) => verified.push(kid),
                // A signature value that does not decode is as untrustworthy as a wrong one.
                Ok(false) | Err(_) => return Err(CardTrustError::Invalid(kid)),
            }
        }
        if verified.is_empty() {
            return Err(CardTrustError::NoTrustedSignature(signers.join(", ")));
        }
        Ok(verified)
    }
}
