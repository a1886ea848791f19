//! The tokens `auth login` keeps, found again for a later call: for the
//! OAuth2 and OpenID Connect schemes an agent's card declares, the current
//! token of each (refreshed where it has expired and can be), and the OAuth
//! client every such request goes through.

use super::debug::Debug;
use super::failure::{Failure, Local};
use super::settings::{id, Settings};
use crate::oauth::{self, AgentKey, OAuthClient, TokenStore};
use serde_json::Value;
use std::time::Duration;

/// The OAuth client of a command: its TLS settings, no redirects.
pub fn oauth_client(settings: &Settings) -> Result<OAuthClient, Failure> {
    let builder = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30))
        .redirect(reqwest::redirect::Policy::none());
    let http = crate::tls::configure(builder, &settings.tls_files())
        .map_err(|e| Failure::of_call(&e, false))?
        .build()
        .map_err(|e| Failure::local(Local::Internal, format!("HTTP client: {e}")))?;
    Ok(OAuthClient::new(http))
}

/// The tokens `auth login` kept for the agent whose card is at `location`,
/// as (scheme name, access token), for the OAuth2 and OpenID Connect schemes
/// `card` declares; an expired one is refreshed where it can be.
pub async fn stored_tokens(
    settings: &Settings,
    location: &str,
    card: &Value,
    debug: &Debug,
) -> Vec<(String, String)> {
    let Ok(store) = TokenStore::open_default() else {
        return Vec::new();
    };
    let Ok(oauth) = oauth_client(settings) else {
        return Vec::new();
    };
    let secret = settings.get(id::CLIENT_SECRET).map(oauth::Secret::new);
    let mut tokens = Vec::new();
    for scheme in oauth::oauth_schemes(card) {
        let Ok(key) = AgentKey::new(location, &scheme.name) else {
            continue;
        };
        match store.token_for(&key, &oauth, secret.as_ref()).await {
            Ok(Some(token)) => {
                debug.secret(&token);
                debug.log(&format!(
                    "a stored token for scheme {} (agent login)",
                    scheme.name
                ));
                tokens.push((scheme.name.clone(), token));
            }
            Ok(None) => {}
            Err(error) => {
                super::output::warn(&format!("the stored token for scheme {}: {error}", scheme.name))
            }
        }
    }
    tokens
}
