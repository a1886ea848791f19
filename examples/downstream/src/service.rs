//! The extension's backend and its composition with the reference application:
//! the `_notes/` methods answered by [`Notes`], every standard A2A (and
//! CleverAgents) method by the application, both behind one dispatcher that
//! the contract's server serves.

use crate::errors::ErrorKind;
use crate::handlers::NotesHandler;
use crate::rpc::{CallContext, Dispatch, Error};
use crate::types::{EchoParams, EchoResult, Role};
use std::sync::Arc;

/// The backend of the `notes` service: stateless, it answers from the params.
#[derive(Clone, Copy, Debug, Default)]
pub struct Notes;

impl NotesHandler for Notes {
    async fn echo(&self, _ctx: &CallContext, params: EchoParams) -> Result<EchoResult, Error> {
        if params.text.trim().is_empty() {
            return Err(Error::new(
                ErrorKind::NotesBlankText,
                "the note's text is blank: there is nothing to echo",
            ));
        }
        // The schema bounds `times` to 1..=5 and the generated type to
        // non-zero; the upper bound is the schema's, which serde does not check.
        let times = params.times.map_or(1, |t| t.get());
        if times > 5 {
            return Err(Error::new(ErrorKind::NotesInvalidParams, "`times` is at most 5")
                .with_field_violation("times", "must be between 1 and 5"));
        }
        Ok(EchoResult {
            echoes: vec![params.text.clone(); times as usize],
            length: params.text.chars().count() as u64,
            author: params.author.unwrap_or(Role::User),
        })
    }
}

/// The one dispatcher of the agent: the extension's methods to [`Notes`],
/// everything else to the reference application on an in-memory store.
pub fn dispatch() -> Result<Arc<dyn Dispatch>, String> {
    let app = app::App::with_store(
        Arc::new(app::store::MemoryStore::new()),
        app::AppConfig::default(),
    );
    Ok(Arc::new(crate::extension::router(
        Arc::new(Notes),
        a2a::Router::new(app),
    )))
}

/// The server configuration: the default one, listening on `listen`, with
/// the extension declared in the Agent Card beside the contract's.
pub fn server_config(listen: std::net::SocketAddr) -> server::ServerConfig {
    let mut config = server::ServerConfig::default();
    config.http.listen = listen;
    config.agent.name = "Notes example".into();
    // The reference application delivers push notifications.
    config.agent.capabilities.push_notifications = true;
    config.agent.extensions.push(crate::extension::agent_extension());
    config
}
