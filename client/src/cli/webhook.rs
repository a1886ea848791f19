//! `task push-config receive` (a2a-cli Tier 3): a local webhook receiver
//! for the push notifications of one task.

use super::failure::Failure;
use super::standard::Ctx;
use super::target::Target;
use clap::{ArgMatches, Command};

/// The command's name under `task push-config`.
pub const COMMAND: &str = "receive";

/// The `task push-config receive` command.
pub fn command() -> Command {
    Command::new(COMMAND)
        .about("Receive a task's push notifications on a local webhook until the task ends or needs input")
}

/// `task push-config receive`.
pub async fn run(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    let _ = (ctx, target, matches);
    Err(Failure::usage("task push-config receive: not available yet"))
}
