//! `auth login` (a2a-cli §12.2): OAuth 2.1 device-code and client-credentials
//! flows, and OpenID Connect discovery, against the schemes an agent's card
//! declares; the tokens are kept (mode 0600) and attached to later calls to
//! that agent.

use serde_json::Value;

/// The tokens `auth login` stored for the agent whose card is at `location`,
/// as (scheme name, access token), for the schemes `card` still declares.
pub fn stored_tokens(location: &str, card: &Value) -> Vec<(String, String)> {
    let _ = (location, card);
    Vec::new()
}

use super::debug::Debug;
use super::failure::Failure;
use super::output::Output;
use super::settings::Settings;
use clap::{ArgMatches, Command};

/// The `auth` group.
pub fn command() -> Command {
    Command::new("auth")
        .about("Authentication")
        .subcommand_required(true)
        .subcommand(
            Command::new("login").about(
                "Obtain an OAuth 2.1 / OpenID Connect token for the agent and keep it for later calls",
            ),
        )
}

/// `auth login`.
pub async fn run(
    settings: &Settings,
    output: &Output,
    debug: &Debug,
    matches: &ArgMatches,
) -> Result<(), Failure> {
    let _ = (settings, output, debug, matches);
    Err(Failure::usage("auth login: not available yet"))
}
