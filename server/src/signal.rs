//! The process signals that start a graceful shutdown of a server: what a
//! binary serving HTTP passes to [`crate::HttpServer::serve`].

/// Resolves on Ctrl-C or SIGTERM, which start a graceful shutdown (in-flight
/// requests drain, open streams end).
pub async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
