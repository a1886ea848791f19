//! The application object: configuration, the store, the executor and the
//! live task machinery, shared by every service. The handler traits are
//! implemented on [`App`] in `handlers.rs`; each service lives in its module.

use crate::executor::{DefaultExecutor, Executor};
use crate::push::{PushConfig, PushDelivery};
use crate::registry::Registry;
use crate::store::{MemoryStore, SqliteStore, Store, StoreHandle, StoreResult};
use crate::sync::SyncService;
use crate::tasks::Engine;
use crate::util::Family;
use a2a::rpc::{Access, Error};
use a2a::types::AgentCard;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Weak};

/// Where the data lives.
#[derive(Clone, Debug)]
pub enum StoreConfig {
    /// Nothing persists beyond the process (tests, throwaway runs).
    Memory,
    /// The SQLite database file `store.db` inside this directory (created if needed).
    Sqlite { data_dir: PathBuf },
}

/// Which built-in agent answers messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExecutorKind {
    /// The deterministic CleverAgents session executor (plans, echo).
    #[default]
    Default,
    /// Behaves as the a2a-tck scenarios expect (chosen by configuration only).
    Tck,
}

/// Everything the application is configured with.
#[derive(Clone, Debug, Default)]
pub struct AppConfig {
    pub executor: ExecutorKind,
    pub push: PushConfig,
    /// Returned by GetExtendedAgentCard; `None` answers ExtendedAgentCardNotConfigured.
    pub extended_agent_card: Option<AgentCard>,
    /// Known principals and their roles, for `namespace/members` (principal → namespace → role).
    pub members: BTreeMap<String, BTreeMap<String, Access>>,
    /// Configuration entries reported by `diagnostics/run` (key → (value, source name, secret)).
    pub reported_settings: Vec<(String, String, String, bool)>,
    /// Configured sync remotes (name → base URL).
    pub sync_remotes: BTreeMap<String, String>,
}

/// The reference application.
pub struct App {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) db: StoreHandle,
    pub(crate) registry: Registry,
    pub(crate) sync: SyncService,
    pub(crate) config: AppConfig,
    pub(crate) executor: Arc<dyn Executor>,
    pub(crate) engine: Engine,
    pub(crate) push: Arc<PushDelivery>,
    /// When the application started (also when configured memberships took effect).
    pub(crate) started_at: String,
    /// Per-plan locks serializing a plan's operations (see `execution.rs`).
    pub(crate) plan_locks: std::sync::Mutex<std::collections::HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Itself, so `&self` handlers can hand an owned reference to detached work.
    me: Weak<App>,
}

impl App {
    /// Opens the application on the configured store.
    pub fn open(store: StoreConfig, config: AppConfig) -> Result<Arc<App>, String> {
        let store: Arc<dyn Store> = match store {
            StoreConfig::Memory => Arc::new(MemoryStore::new()),
            StoreConfig::Sqlite { data_dir } => {
                std::fs::create_dir_all(&data_dir)
                    .map_err(|e| format!("cannot create data directory {}: {e}", data_dir.display()))?;
                let path = data_dir.join("store.db");
                Arc::new(
                    SqliteStore::open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?,
                )
            }
        };
        Ok(Self::with_store(store, config))
    }

    /// An application on a fresh in-memory store with the default configuration.
    pub fn in_memory() -> Arc<App> {
        Self::with_store(Arc::new(MemoryStore::new()), AppConfig::default())
    }

    /// An application on a given store (any backend).
    pub fn with_store(store: Arc<dyn Store>, config: AppConfig) -> Arc<App> {
        let executor: Arc<dyn Executor> = match config.executor {
            ExecutorKind::Default => Arc::new(DefaultExecutor),
            ExecutorKind::Tck => Arc::new(crate::tck::TckExecutor),
        };
        Self::with_executor(store, config, executor)
    }

    /// An application with a custom executor.
    pub fn with_executor(store: Arc<dyn Store>, config: AppConfig, executor: Arc<dyn Executor>) -> Arc<App> {
        let push = Arc::new(PushDelivery::new(store.clone(), config.push.clone()));
        let db = StoreHandle::new(store.clone());
        let registry = Registry::new(db.clone());
        let sync = SyncService::new(db.clone(), registry.clone(), config.sync_remotes.clone());
        Arc::new_cyclic(|me| App {
            engine: Engine::default(),
            registry,
            sync,
            db,
            store,
            config,
            executor,
            push,
            started_at: crate::util::now(),
            plan_locks: Default::default(),
            me: me.clone(),
        })
    }

    /// An owned reference to this application (always alive while `&self` is).
    pub(crate) fn arc(&self) -> Result<Arc<App>, Error> {
        self.me
            .upgrade()
            .ok_or_else(|| Family::A2a.internal("the application is shutting down"))
    }

    /// The store (for diagnostics and tests).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Runs a store call on the blocking pool (a durable commit fsyncs).
    pub(crate) async fn db<T, F>(&self, family: Family, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> StoreResult<T> + Send + 'static,
    {
        self.db.run(family, f).await
    }

    /// Like [`App::db`] but keeps the store error so callers can map conflicts.
    pub(crate) async fn db_raw<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> StoreResult<T> + Send + 'static,
    {
        self.db.call(f).await
    }

    /// The entity `name` of `kind` as its JSON (see [`Registry::get`]).
    pub(crate) async fn reg_get(
        &self,
        namespace: &str,
        kind: a2a::types::RegistryKind,
        name: &str,
    ) -> Result<Option<serde_json::Value>, Error> {
        self.registry.get(namespace, kind, name).await
    }

    /// The files of a project (see [`Registry::project_files`]).
    pub(crate) async fn project_files(
        &self,
        namespace: &str,
        project: &str,
        revision: Option<i64>,
    ) -> Result<(i64, Vec<serde_json::Value>), Error> {
        self.registry.project_files(namespace, project, revision).await
    }
}
