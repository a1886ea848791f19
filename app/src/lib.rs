//! Reference application layer: the services behind the contract.
//!
//! [`App`] implements every handler trait of the generated contract on any
//! [`store::Store`] its composer opens (the agent binary opens one of the
//! backend crates and hands the application to the server's transports):
//!
//! ```
//! let store = std::sync::Arc::new(app::store::MemoryStore::new());
//! let app = app::App::with_store(store, app::AppConfig::default());
//! let router = a2a::Router::new(app);
//! # let _ = router;
//! ```

pub mod activity;
mod app;
pub mod config;
pub mod context;
pub mod events;
pub mod executor;
pub mod glob;
mod handlers;
pub mod health;
pub mod limits;
pub mod namespaces;
pub mod plans;
pub mod push;
pub mod registry;
pub mod sessions;
pub mod store;
pub mod sync;
pub mod tasks;
pub mod tck;
pub mod util;

pub use crate::store::lifecycle;
pub use app::{App, AppConfig, ExecutorKind};
