//! The composition root: every service built on one
//! store and wired to the others it needs (a service owns its dependencies;
//! none reaches back to the application). `handlers.rs` maps each method of
//! the generated handler traits to its service.

pub use crate::activity::Work;
pub use crate::config::{AppConfig, ExecutorKind};
use crate::context::ContextService;
use crate::events::EventService;
use crate::executor::{DefaultExecutor, Executor};
use crate::health::HealthService;
use crate::namespaces::NamespaceService;
use crate::plans::PlanService;
use crate::push::{PushConfigs, PushDelivery};
use crate::registry::Registry;
use crate::sessions::SessionService;
use crate::store::{MemoryStore, Store, StoreHandle};
use crate::sync::SyncService;
use crate::tasks::{TaskEngine, TaskService};
use a2a::rpc::Error;
use std::sync::Arc;

/// What [`App::resume_work`] picked up at start-up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resumed {
    /// Plans whose runners started again.
    pub plans: usize,
    /// Tasks left submitted or working by the previous process, now failed.
    pub failed_tasks: usize,
}

/// The reference application: the composition of its services.
pub struct App {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) registry: Registry,
    pub(crate) sync: SyncService,
    pub(crate) tasks: TaskService,
    pub(crate) plans: PlanService,
    pub(crate) push_configs: PushConfigs,
    pub(crate) push: Arc<PushDelivery>,
    pub(crate) context: ContextService,
    pub(crate) namespaces: NamespaceService,
    pub(crate) health: HealthService,
    pub(crate) sessions: SessionService,
    pub(crate) events: EventService,
    pub(crate) config: AppConfig,
}

/// Wraps the built-in executor an application is configured with.
type Wrap = Box<dyn FnOnce(Arc<dyn Executor>) -> Arc<dyn Executor>>;

/// Which executor an application is built with.
enum ExecutorChoice {
    Kind(ExecutorKind),
    Custom(Arc<dyn Executor>),
    Around(ExecutorKind, Wrap),
}

impl App {
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

    /// An application whose executor is `wrap` around the built-in one the
    /// configuration names (which needs the application's own services, so
    /// cannot be built outside it): a harness adds behaviours of its own and
    /// hands every other message to it.
    pub fn with_executor_around(
        store: Arc<dyn Store>,
        config: AppConfig,
        wrap: impl FnOnce(Arc<dyn Executor>) -> Arc<dyn Executor> + 'static,
    ) -> Arc<App> {
        let kind = config.executor;
        Self::compose(store, config, ExecutorChoice::Around(kind, Box::new(wrap)))
    }

    /// Builds every service on the store and wires them together.
    fn compose(store: Arc<dyn Store>, config: AppConfig, executor: ExecutorChoice) -> Arc<App> {
        let db = StoreHandle::new(store.clone(), config.metrics.clone());
        let push = Arc::new(PushDelivery::new(
            store.clone(),
            config.push.clone(),
            config.metrics.clone(),
        ));
        let registry = Registry::new(db.clone(), config.limits.clone());
        let sync = SyncService::new(db.clone(), registry.clone(), config.sync_remotes.clone());
        let engine = TaskEngine::new(db.clone(), push.clone());
        let started_at = crate::util::now();
        let plans = PlanService::new(
            db.clone(),
            registry.clone(),
            engine.clone(),
            config.plan_lease.unwrap_or(crate::plans::lease::DEFAULT_LEASE),
        );
        let built_in = |kind| -> Arc<dyn Executor> {
            match kind {
                ExecutorKind::Default => Arc::new(DefaultExecutor::new(plans.clone())),
                ExecutorKind::Tck => {
                    Arc::new(crate::tck::TckExecutor::new(DefaultExecutor::new(plans.clone())))
                }
            }
        };
        let executor: Arc<dyn Executor> = match executor {
            ExecutorChoice::Kind(kind) => built_in(kind),
            ExecutorChoice::Custom(executor) => executor,
            ExecutorChoice::Around(kind, wrap) => wrap(built_in(kind)),
        };
        let tasks = TaskService::new(
            db.clone(),
            engine.clone(),
            executor,
            push.clone(),
            config.limits.clone(),
            config.input_modes.clone(),
            config.plan_lease.unwrap_or(crate::plans::lease::DEFAULT_LEASE),
        );
        let tasks = match config.long_poll_max {
            Some(max) => tasks.with_long_poll_max(max),
            None => tasks,
        };
        Arc::new(App {
            sessions: SessionService::new(db.clone(), tasks.clone()),
            events: EventService::new(db.clone()),
            tasks,
            push_configs: PushConfigs::new(db.clone(), engine.clone(), push.clone(), config.limits.clone()),
            context: ContextService::new(db.clone(), registry.clone()),
            namespaces: NamespaceService::new(db.clone(), config.members.clone(), started_at),
            health: HealthService::new(db.clone(), engine.clone(), push.clone(), config.clone()),
            push,
            registry,
            sync,
            store,
            config,
            plans,
        })
    }

    /// The store (for diagnostics and tests).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Picks up the work a previous process left under way; the agent calls
    /// it once at start-up. Plans left RUNNING resume (see
    /// [`PlanService::resume_plans`]). On a store only this process opens,
    /// every other task left submitted or working is failed, with a status
    /// message saying so: its run ended with that process, and no task may
    /// stay working for ever. (On a shared store another agent may still be
    /// running it.)
    pub async fn resume_work(&self) -> Result<Resumed, Error> {
        let resumed = self.plans.resume_plans().await?;
        self.tasks.sweep_abandoned_runs();
        let plans = resumed.len();
        let failed_tasks = if self.store.appended().is_some() {
            0
        } else {
            self.tasks.fail_abandoned(&resumed.into_iter().collect()).await?
        };
        Ok(Resumed { plans, failed_tasks })
    }

    /// What the application is doing by itself now (see [`Work`]).
    pub async fn work(&self) -> Work {
        let owed = self.store.has_deliveries().await.unwrap_or(true);
        Work {
            task_runs: self.tasks.runs(),
            plan_runs: self.plans.runs(),
            deliveries: self.push.in_flight() + usize::from(owed),
        }
    }
}
