//! The store the agent opens: its configuration, and the backend crate that
//! serves it. PostgreSQL is compiled in with feature `postgres` (on by
//! default); without it, a `postgres://` URL is refused with a message
//! saying so.

use app::store::{MemoryStore, Store};
use std::path::PathBuf;
use std::sync::Arc;

/// Where the data lives: which backend the agent opens.
#[derive(Clone)]
pub enum StoreConfig {
    /// Nothing persists beyond the process (tests, throwaway runs).
    Memory,
    /// The SQLite database file `store.db` inside this directory (created if needed).
    Sqlite { data_dir: PathBuf },
    /// A PostgreSQL database (`postgres://…`), which several agents may share.
    Postgres { url: String },
}

/// Shown in logs: a database URL's password never is.
impl std::fmt::Debug for StoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreConfig::Memory => f.write_str("Memory"),
            StoreConfig::Sqlite { data_dir } => f.debug_struct("Sqlite").field("data_dir", data_dir).finish(),
            StoreConfig::Postgres { url } => {
                let shown = match url::Url::parse(url) {
                    Ok(mut parsed) if parsed.password().is_some() => {
                        let _ = parsed.set_password(Some("***"));
                        parsed.to_string()
                    }
                    Ok(parsed) => parsed.to_string(),
                    Err(_) => "(unparsable URL)".to_string(),
                };
                f.debug_struct("Postgres").field("url", &shown).finish()
            }
        }
    }
}

/// Opens the configured store on the current runtime.
pub async fn open(store: StoreConfig) -> Result<Arc<dyn Store>, String> {
    match store {
        StoreConfig::Memory => Ok(Arc::new(MemoryStore::new())),
        StoreConfig::Sqlite { data_dir } => {
            std::fs::create_dir_all(&data_dir)
                .map_err(|e| format!("cannot create data directory {}: {e}", data_dir.display()))?;
            let path = data_dir.join("store.db");
            let store = store_sqlite::SqliteStore::open(&path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            Ok(Arc::new(store))
        }
        StoreConfig::Postgres { url } => open_postgres(&url).await,
    }
}

#[cfg(feature = "postgres")]
async fn open_postgres(url: &str) -> Result<Arc<dyn Store>, String> {
    let store = store_postgres::PgStore::open(url)
        .await
        .map_err(|e| format!("cannot open the PostgreSQL store: {e}"))?;
    Ok(Arc::new(store))
}

#[cfg(not(feature = "postgres"))]
async fn open_postgres(_url: &str) -> Result<Arc<dyn Store>, String> {
    Err("this agent was built without PostgreSQL (cargo feature `postgres`)".into())
}
