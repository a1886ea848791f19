//! Ctrl-C as an event the chat waits on, so that it ends a turn (or the chat
//! at the prompt) instead of the process.

/// Ctrl-C, caught while the chat runs so it stops a turn rather than the tool.
pub(super) struct Interrupts {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
    #[cfg(windows)]
    signal: tokio::signal::windows::CtrlC,
}

impl Interrupts {
    pub(super) fn new() -> std::io::Result<Interrupts> {
        #[cfg(unix)]
        let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
        #[cfg(windows)]
        let signal = tokio::signal::windows::ctrl_c()?;
        Ok(Interrupts { signal })
    }

    pub(super) async fn recv(&mut self) {
        if self.signal.recv().await.is_none() {
            // No more signals will come: wait forever rather than end.
            std::future::pending::<()>().await;
        }
    }
}
