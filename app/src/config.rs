//! What the application is configured with: where the data lives, which
//! built-in agent answers messages, and the settings its services report.

use crate::limits::DomainLimits;
use crate::push::PushConfig;
use a2a::rpc::Access;
use a2a::types::AgentCard;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where the data lives.
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
    /// Bounds on what one caller can make the application hold.
    pub limits: DomainLimits,
    /// Returned by GetExtendedAgentCard; `None` answers ExtendedAgentCardNotConfigured.
    pub extended_agent_card: Option<AgentCard>,
    /// Known principals and their roles, for `namespace/members` (principal → namespace → role).
    pub members: BTreeMap<String, BTreeMap<String, Access>>,
    /// Configuration entries reported by `diagnostics/run` (key → (value, source name, secret)).
    pub reported_settings: Vec<(String, String, String, bool)>,
    /// Configured sync remotes (name → base URL).
    pub sync_remotes: BTreeMap<String, String>,
    /// How long a plan's run stays an agent's without a renewal: when the
    /// agent dies, another agent on the shared store takes the run over
    /// this long after its last renewal (`None`: 30 s).
    pub plan_lease: Option<std::time::Duration>,
    /// The registry store commits and push deliveries are recorded into; the
    /// agent shares it with the server, which serves it at `GET /metrics`.
    pub metrics: std::sync::Arc<a2a::metrics::Metrics>,
}
