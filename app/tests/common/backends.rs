//! The same test on every store: a fresh application (router) on memory, on
//! SQLite in a temporary directory, and on
//! a fresh database of the throwaway PostgreSQL cluster. `every_backend!`
//! turns `async fn name(backend: Backend)` into one test per store.

use a2a::Router;
use app::store::{MemoryStore, Store};
use app::{App, AppConfig};
use std::sync::Arc;
use store_sqlite::SqliteStore;

/// Which store a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Memory,
    Sqlite,
    Postgres,
}

/// A router on a fresh store, and what the store needs to live.
pub struct Fresh {
    pub router: Router<App>,
    /// The store under the router, for tests that read it directly.
    #[allow(dead_code)]
    pub store: Arc<dyn Store>,
    _dir: Option<tempfile::TempDir>,
}

impl std::ops::Deref for Fresh {
    type Target = Router<App>;
    fn deref(&self) -> &Router<App> {
        &self.router
    }
}

/// A fresh store of `backend`, empty.
pub async fn store(backend: Backend) -> (Arc<dyn Store>, Option<tempfile::TempDir>) {
    match backend {
        Backend::Memory => (Arc::new(MemoryStore::new()), None),
        Backend::Sqlite => {
            let dir = tempfile::tempdir().expect("temp dir");
            let store = SqliteStore::open(&dir.path().join("store.db")).expect("sqlite opens");
            (Arc::new(store), Some(dir))
        }
        Backend::Postgres => {
            let url = store_postgres::cluster::TestCluster::fresh_database();
            let store = store_postgres::PgStore::open(&url).await.expect("postgres opens");
            (Arc::new(store), None)
        }
    }
}

/// A fresh application on a fresh store of `backend`.
pub async fn fresh(backend: Backend) -> Fresh {
    let (store, dir) = store(backend).await;
    Fresh {
        router: Router::new(App::with_store(store.clone(), AppConfig::default())),
        store,
        _dir: dir,
    }
}

/// One `#[tokio::test]` per store for each `async fn name(backend: Backend)`
/// (the file declares this module with `#[macro_use]`).
macro_rules! every_backend {
    ($($test:ident),* $(,)?) => {
        mod on_memory {
            $(#[tokio::test]
            async fn $test() {
                super::$test(super::backends::Backend::Memory).await
            })*
        }
        mod on_sqlite {
            $(#[tokio::test]
            async fn $test() {
                super::$test(super::backends::Backend::Sqlite).await
            })*
        }
                mod on_postgres {
            $(#[tokio::test]
            async fn $test() {
                super::$test(super::backends::Backend::Postgres).await
            })*
        }
    };
}
