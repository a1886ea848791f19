//! The application object: configuration, the store, the executor and the
//! live task machinery, shared by every service. The handler traits are
//! implemented on [`App`] in `handlers.rs`; each service lives in its module.

use crate::context::ContextService;
use crate::executor::{DefaultExecutor, Executor};
use crate::health::HealthService;
use crate::namespaces::NamespaceService;
use crate::push::{PushConfig, PushConfigs, PushDelivery};
use crate::registry::Registry;
use crate::store::DocWrite;
use crate::store::{MemoryStore, SqliteStore, Store, StoreHandle, StoreResult};
use crate::sync::SyncService;
use crate::tasks::Change;
use crate::tasks::{TaskEngine, TaskService};
use crate::util::Family;
use a2a::rpc::{Access, Error, Event};
use a2a::types::AgentCard;
use a2a::types::{StreamResponse, Task};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use tokio::sync::mpsc;

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

/// The reference application: the composition of its services.
pub struct App {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) db: StoreHandle,
    pub(crate) registry: Registry,
    pub(crate) sync: SyncService,
    pub(crate) tasks: TaskService,
    pub(crate) push_configs: PushConfigs,
    pub(crate) context: ContextService,
    pub(crate) namespaces: NamespaceService,
    pub(crate) health: HealthService,
    pub(crate) engine: TaskEngine,
    pub(crate) config: AppConfig,
    /// Per-plan locks serializing a plan's operations (see `plans/record.rs`).
    pub(crate) plan_locks: std::sync::Mutex<std::collections::HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Itself, so `&self` handlers can hand an owned reference to detached work.
    me: Weak<App>,
}

/// Which executor an application is built with.
enum ExecutorChoice {
    Kind(ExecutorKind),
    Custom(Arc<dyn Executor>),
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
        let kind = config.executor;
        Self::compose(store, config, ExecutorChoice::Kind(kind))
    }

    /// An application with a custom executor.
    pub fn with_executor(store: Arc<dyn Store>, config: AppConfig, executor: Arc<dyn Executor>) -> Arc<App> {
        Self::compose(store, config, ExecutorChoice::Custom(executor))
    }

    /// Builds every service on the store and wires them together.
    fn compose(store: Arc<dyn Store>, config: AppConfig, executor: ExecutorChoice) -> Arc<App> {
        let db = StoreHandle::new(store.clone());
        let push = Arc::new(PushDelivery::new(store.clone(), config.push.clone()));
        let registry = Registry::new(db.clone());
        let sync = SyncService::new(db.clone(), registry.clone(), config.sync_remotes.clone());
        let engine = TaskEngine::new(db.clone(), push.clone());
        let started_at = crate::util::now();
        Arc::new_cyclic(|me| {
            let executor: Arc<dyn Executor> = match executor {
                ExecutorChoice::Kind(ExecutorKind::Default) => Arc::new(DefaultExecutor::new(me.clone())),
                ExecutorChoice::Kind(ExecutorKind::Tck) => Arc::new(crate::tck::TckExecutor),
                ExecutorChoice::Custom(executor) => executor,
            };
            App {
                tasks: TaskService::new(db.clone(), engine.clone(), executor, push.clone()),
                push_configs: PushConfigs::new(db.clone(), engine.clone(), push.clone()),
                context: ContextService::new(db.clone(), registry.clone()),
                namespaces: NamespaceService::new(db.clone(), config.members.clone(), started_at),
                health: HealthService::new(db.clone(), engine.clone(), push.clone(), config.clone()),
                engine,
                registry,
                sync,
                db,
                store,
                config,
                plan_locks: Default::default(),
                me: me.clone(),
            }
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

/// The task machinery as plans use it, until plans own their dependencies.
impl App {
    pub(crate) async fn create_task(
        &self,
        namespace: &str,
        task: Task,
        docs: Vec<DocWrite>,
    ) -> Result<
        (
            Event<StreamResponse>,
            mpsc::UnboundedReceiver<Event<StreamResponse>>,
        ),
        Error,
    > {
        self.engine.create_task(namespace, task, docs).await
    }

    pub(crate) async fn mutate_with<F>(
        &self,
        namespace: &str,
        task_id: &str,
        docs: Vec<DocWrite>,
        f: F,
    ) -> Result<Task, Error>
    where
        F: FnOnce(&mut Task) -> Result<Change, Error>,
    {
        self.engine.mutate_with(namespace, task_id, docs, f).await
    }
}
