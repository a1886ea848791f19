//! What the application is configured with: which built-in agent answers
//! messages, and the settings its services report.

use crate::limits::DomainLimits;
use crate::push::PushConfig;
use a2a::rpc::Access;
use a2a::types::AgentCard;
use std::collections::BTreeMap;

/// Which built-in agent answers messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExecutorKind {
    /// The deterministic CleverAgents session executor (plans, echo).
    #[default]
    Default,
    /// Behaves as the a2a-tck and ACTS scenarios expect where a message names
    /// one of their behaviours, as the default everywhere else (chosen by
    /// configuration only).
    Tck,
}

/// Everything the application is configured with.
#[derive(Clone, Debug, Default)]
pub struct AppConfig {
    pub executor: ExecutorKind,
    pub push: PushConfig,
    /// Bounds on what one caller can make the application hold.
    pub limits: DomainLimits,
    /// The media types a message's parts may name (the card's input modes);
    /// the default takes any.
    pub input_modes: crate::tasks::InputModes,
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
    /// The longest a long-polling GetTask (`currentGeneration`, A2A 1.1) is
    /// held before it answers with the task as it stands; `None`:
    /// [`crate::tasks::DEFAULT_LONG_POLL_MAX`].
    pub long_poll_max: Option<std::time::Duration>,
    /// The registry store commits and push deliveries are recorded into; the
    /// agent shares it with the server, which serves it at `GET /metrics`.
    pub metrics: std::sync::Arc<a2a::metrics::Metrics>,
}
