//! What stops the wait other than the task: `--timeout` and Ctrl-C, watched
//! from the start so that whatever stops it, the configuration is deleted on
//! the way out.

use crate::cli::failure::{Failure, Local};
use std::future::Future;
use tokio::time::Instant;

/// What stops a wait other than the task: `--timeout` and Ctrl-C.
pub(super) struct Guard {
    pub(super) interrupt: Interrupt,
    pub(super) deadline: Option<Instant>,
    pub(super) task_id: String,
}

impl Guard {
    /// `work`, unless the deadline passes or Ctrl-C comes first.
    pub(super) async fn run<T>(&mut self, work: impl Future<Output = T>) -> Result<T, Failure> {
        let at = self.deadline;
        let deadline = async move {
            match at {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        let task_id = &self.task_id;
        tokio::select! {
            done = work => Ok(done),
            () = deadline => Err(Failure::local(
                Local::Timeout,
                format!("--timeout passed before task {task_id} ended or paused"),
            )
            .hint(format!("the task goes on: `agents task get {task_id} --wait`"))),
            () = self.interrupt.recv() => Err(Failure::local(
                Local::Internal,
                format!("interrupted (Ctrl-C) before task {task_id} ended or paused"),
            )
            .hint(format!("the task goes on: `agents task get {task_id} --wait`"))),
        }
    }
}

/// Ctrl-C (SIGINT), caught from the start so the configuration is deleted
/// rather than the process ended; where it cannot be caught, never.
pub(super) struct Interrupt {
    #[cfg(unix)]
    signal: Option<tokio::signal::unix::Signal>,
    #[cfg(windows)]
    signal: Option<tokio::signal::windows::CtrlC>,
}

impl Interrupt {
    pub(super) fn new() -> Interrupt {
        Interrupt {
            #[cfg(unix)]
            signal: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok(),
            #[cfg(windows)]
            signal: tokio::signal::windows::ctrl_c().ok(),
        }
    }

    pub(super) async fn recv(&mut self) {
        if let Some(signal) = self.signal.as_mut() {
            if signal.recv().await.is_some() {
                return;
            }
        }
        std::future::pending::<()>().await
    }
}
