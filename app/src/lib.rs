//! Reference application layer: services and storage behind the contract.
//!
//! [`App`] implements every handler trait of the generated contract on a
//! [`store::Store`]; the agent binary hands it to the server's transports:
//!
//! ```no_run
//! # async fn demo() -> Result<(), String> {
//! let app = app::App::open(
//!     app::StoreConfig::Sqlite { data_dir: "agent-data".into() },
//!     app::AppConfig::default(),
//! )
//! .await?;
//! let router = a2a::Router::new(app);
//! # let _ = router; Ok(()) }
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
pub mod lifecycle;
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

pub use app::{App, AppConfig, ExecutorKind, StoreConfig};
