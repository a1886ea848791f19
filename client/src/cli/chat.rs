//! `chat` (a2a-cli Tier 3): an interactive multi-turn session on a terminal.

use super::failure::Failure;
use super::standard::Ctx;
use super::target::Target;
use clap::{ArgMatches, Command};

/// The `chat` command.
pub fn command() -> Command {
    Command::new("chat").about("Talk with the agent turn by turn (interactive on a terminal)")
}

/// `chat`.
pub async fn run(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    let _ = (ctx, target, matches);
    Err(Failure::usage("chat: not available yet"))
}
