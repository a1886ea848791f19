//! `task push-config receive` (a2a-cli Tier 3, A2ACLI_PUSH_002): a local
//! webhook receiver for the push notifications of one task.
//!
//! The command reads the task first: one already at a terminal or
//! interrupted state is shown as it is and nothing is registered. Otherwise
//! it starts an HTTP receiver, registers a push configuration for the task
//! (CreateTaskPushNotificationConfig) with a fresh token and the receiver's
//! URL (or `--url`), and prints every notification it accepts as `send
//! --stream` prints events (A2A §4.3.3: each is a StreamResponse), until
//! the task ends or needs input, `--timeout` passes, or Ctrl-C. Whatever
//! ends it, the configuration it created is deleted on the way out.
//!
//! The receiver is listening before the configuration is registered, and
//! knows the token and the task already: a delivery that beats the
//! registration's answer is accepted and printed once that answer is in.
//! A task that settles between the first read and the registration would
//! never be notified, so the task is read again once registered; anything
//! that settles it after that read is delivered.
//!
//! The receiver itself (what it answers, and how it knows a repeat) is in
//! `receiver`; the registration, the wait and the deletion in `session`;
//! what stops the wait in `guard`; `--listen` and `--url` in `address`.

mod address;
mod guard;
mod receiver;
mod session;

use super::failure::{Failure, Local};
use super::settings::id;
use super::standard::Ctx;
use super::target::Target;
use super::text::Tracked;
use super::wait::class_of;
use crate::http::StateClass;
use a2a::methods::markers::{CreateTaskPushNotificationConfig, GetTask};
use a2a::rpc::{Method, Transport};
use address::{listen_address, reachable, webhook_url};
use clap::{Arg, ArgMatches, Command};
use guard::{Guard, Interrupt};
use receiver::{fresh_token, serve, Receiver};
use serde_json::{json, Value};
use session::{outcome, state_of, Session};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The command's name under `task push-config`.
pub const COMMAND: &str = "receive";

/// The `task push-config receive` command.
pub fn command() -> Command {
    Command::new(COMMAND)
        .about("Receive a task's push notifications on a local webhook until the task ends or needs input")
        .long_about(
            "Receive a task's push notifications on a local webhook until the task ends or needs input. \
             Starts an HTTP receiver, registers it for the task (CreateTaskPushNotificationConfig, with a \
             fresh token), and prints each notification as it arrives, as `send --stream` prints events \
             (-o json: one StreamResponse per line). Stops when the task ends or needs input, when \
             --timeout passes (exit 5), or on Ctrl-C; the configuration is deleted whichever way it stops. \
             A task that has already ended or waits for input is shown as it is.",
        )
        .arg(Arg::new("id").value_name("TASK_ID").help("The task"))
        .arg(
            Arg::new("listen")
                .long("listen")
                .value_name("ADDR")
                .help(
                    "Address the receiver listens on (port 0: any free port) [default: 127.0.0.1:0]; \
                     the agent is given http://ADDR/ (a loopback address for an unspecified one)",
                ),
        )
        .arg(Arg::new("url").long("url").value_name("URL").help(
            "URL the agent is to deliver to instead, when it reaches the receiver another way (a tunnel, a proxy)",
        ))
}

/// `task push-config receive`.
pub async fn run(ctx: &Ctx<'_>, target: &Target, matches: &ArgMatches) -> Result<(), Failure> {
    if !target.allows(CreateTaskPushNotificationConfig::NAME) {
        return Err(Failure::local(
            Local::Usage,
            "the agent's card does not declare the pushNotifications capability task push-config receive needs",
        ));
    }
    let task_id = matches
        .get_one::<String>("id")
        .map(String::as_str)
        .or_else(|| ctx.settings.get(id::TASK_ID))
        .map(str::to_string)
        .ok_or_else(|| Failure::usage("which task? give its id (TASK_ID)"))?;
    let listen =
        listen_address(matches.get_one::<String>("listen").map(String::as_str)).map_err(Failure::usage)?;
    let given_url = matches
        .get_one::<String>("url")
        .map(String::as_str)
        .map(webhook_url)
        .transpose()
        .map_err(Failure::usage)?;
    let deadline = ctx
        .settings
        .duration(id::TIMEOUT)
        .map_err(Failure::usage)?
        .map(|timeout| Instant::now() + timeout);
    let mut guard = Guard {
        interrupt: Interrupt::new(),
        deadline,
        task_id: task_id.clone(),
    };
    let mut get = json!({ "id": task_id });
    target.with_tenant(GetTask::NAME, &mut get);
    let read = |params: Value| async move {
        target
            .transport
            .call(GetTask::NAME, params)
            .await
            .map_err(|e| ctx.fail(target, &e, target.sends_credentials))
    };
    let task = guard.run(read(get.clone())).await??;
    let mut tracked = Tracked::default();
    if class_of(&task) != StateClass::Pending {
        super::standard::emit_event(ctx.output, &mut tracked, &json!({ "task": task }));
        eprintln!(
            "task {task_id} is already {}: no notification will come",
            state_of(&task)
        );
        outcome(ctx, &task_id, &state_of(&task));
        return Ok(());
    }
    tracked.observe(&json!({ "task": task }));
    let token = fresh_token();
    ctx.debug.secret(&token);
    let (notes, mut inbox) = mpsc::unbounded_channel();
    let receiver = Arc::new(Receiver::new(
        task_id.clone(),
        task["contextId"].as_str().map(str::to_string),
        token.clone(),
        notes,
    ));
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|e| Failure::local(Local::Internal, format!("cannot listen on {listen}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Failure::local(Local::Internal, format!("the receiver's address: {e}")))?;
    let url = given_url.unwrap_or_else(|| format!("http://{}/", reachable(bound)));
    let server = tokio::spawn(serve(listener, receiver));
    let mut session = Session {
        ctx,
        target,
        task_id: &task_id,
        // Chosen here, so the configuration can be deleted even when the
        // agent's answer to its creation never arrives (Ctrl-C, --timeout).
        config_id: uuid::Uuid::new_v4().to_string(),
    };
    let received = session
        .receive(
            &mut guard,
            &mut inbox,
            &mut tracked,
            &url,
            &token,
            bound,
            read(get),
        )
        .await;
    server.abort();
    received
}
