//! Agent Card signatures (spec §8.4): each configured key signs the card's
//! canonical form ([`a2a::signing`]) as a JWS with its `kid` (and `jku`, when
//! given). Every form of the card the server hands out is signed over its own
//! content: the 1.0 card, the card with the 0.3 fields, the extended card and
//! the stdio `initialize` card, so each verifies as received.

use crate::config::CardSigningKey;
use crate::error::ServerError;
use a2a::signing::{protected_header, signing_input, SIGNATURES_FIELD};
use a2a::types::{AgentCard, AgentCardSignature};
use jsonwebtoken::{Algorithm, EncodingKey};
use serde_json::Value;

/// The keys the cards are signed with, loaded once at start.
#[derive(Default)]
pub struct CardSigner {
    keys: Vec<LoadedKey>,
}

struct LoadedKey {
    kid: String,
    jku: Option<String>,
    algorithm: Algorithm,
    algorithm_name: &'static str,
    key: EncodingKey,
}

impl CardSigner {
    /// Loads every configured key; a key that cannot be read or is not of its
    /// algorithm stops the server from starting.
    pub fn from_config(keys: &[CardSigningKey]) -> Result<CardSigner, ServerError> {
        let mut loaded = Vec::with_capacity(keys.len());
        for config in keys {
            let refuse =
                |reason: String| ServerError::Config(format!("card signing key `{}`: {reason}", config.kid));
            if config.kid.is_empty() {
                return Err(ServerError::Config(
                    "card signing key: `kid` must not be empty".into(),
                ));
            }
            let pem = std::fs::read(&config.private_key_file)
                .map_err(|e| refuse(format!("cannot read {}: {e}", config.private_key_file.display())))?;
            let (algorithm, algorithm_name, key) = match config.algorithm.as_str() {
                "ES256" => (Algorithm::ES256, "ES256", EncodingKey::from_ec_pem(&pem)),
                "RS256" => (Algorithm::RS256, "RS256", EncodingKey::from_rsa_pem(&pem)),
                other => return Err(refuse(format!("algorithm `{other}` is not ES256 or RS256"))),
            };
            let key = key.map_err(|e| refuse(format!("not a {algorithm_name} private key in PEM: {e}")))?;
            loaded.push(LoadedKey {
                kid: config.kid.clone(),
                jku: config.jku.clone(),
                algorithm,
                algorithm_name,
                key,
            });
        }
        let signer = CardSigner { keys: loaded };
        // Sign once now, so a key the library cannot use fails at start.
        signer.signatures(&Value::Object(Default::default()))?;
        Ok(signer)
    }

    /// The signatures of every key over `card` (its own `signatures` aside).
    fn signatures(&self, card: &Value) -> Result<Vec<AgentCardSignature>, ServerError> {
        self.keys
            .iter()
            .map(|key| {
                let protected = protected_header(key.algorithm_name, &key.kid, key.jku.as_deref());
                let signature =
                    jsonwebtoken::crypto::sign(&signing_input(&protected, card), &key.key, key.algorithm)
                        .map_err(|e| ServerError::Config(format!("card signing key `{}`: {e}", key.kid)))?;
                Ok(AgentCardSignature {
                    protected,
                    signature,
                    header: None,
                })
            })
            .collect()
    }

    /// Replaces the signatures of a card given as JSON with this signer's.
    pub fn sign_json(&self, card: &mut Value) -> Result<(), ServerError> {
        if self.keys.is_empty() {
            return Ok(());
        }
        let signatures = self.signatures(card)?;
        let encoded = serde_json::to_value(signatures)
            .map_err(|e| ServerError::Config(format!("card signature: {e}")))?;
        if let Some(object) = card.as_object_mut() {
            object.insert(SIGNATURES_FIELD.into(), encoded);
        }
        Ok(())
    }

    /// Replaces the signatures of `card` with this signer's.
    pub fn sign(&self, card: &mut AgentCard) -> Result<(), ServerError> {
        if self.keys.is_empty() {
            return Ok(());
        }
        card.signatures.clear();
        let json =
            serde_json::to_value(&*card).map_err(|e| ServerError::Config(format!("agent card: {e}")))?;
        card.signatures = self.signatures(&json)?;
        Ok(())
    }
}
