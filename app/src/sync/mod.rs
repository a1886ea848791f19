//! Sync (`_cleveragents/sync/pull|push|status`): registry entities of one
//! namespace between this instance and a configured remote CleverAgents
//! server, through the project's own client ([`remote`]).
//!
//! Decisions the schema leaves open:
//! - **Remotes** come from [`crate::AppConfig::sync_remotes`] (name → A2A
//!   endpoint URL). Without `remote`, the remote named `default` is used, else
//!   the only one configured; several and none named `default` is
//!   ExtInvalidParams. An unknown remote (or none configured) is ExtNotFound.
//!   Remotes are called without credentials and in the same namespace name.
//! - **What is compared** ([`compare`]): an entity's spec (the client-writable
//!   fields of its kind); for projects also the file list (path, media type,
//!   SHA-256). Built-in tools never sync. Projects travel with their current
//!   tree: a remote project with a binary file is reported CONFLICT ("cannot be
//!   synced") and left alone.
//! - **Change detection**: a side whose version differs from the base changed
//!   since. Pull: remote changed and local not → UPDATED; local changed and
//!   remote not → UNCHANGED (this side is ahead; push it); both changed, or
//!   never synced and different → CONFLICT unless `force`. Push is the mirror
//!   image. Only entities present on the source side are reported.
//! - **Writes**: a pulled entity is written with `origin` (remote, its remote
//!   version, when) in one commit with its base record (a project also gets a
//!   new revision of origin SYNCED); pushes use the remote's registry add and
//!   update with the remote version as `expectedVersion`. A remote error
//!   stops the run with ExtInternalError; entities already written stay.
//! - Only one sync per namespace runs at a time (ExtInvalidState otherwise).
//!   `sync/status` reports an unreachable remote as `reachable: false`.
//!
//! This module holds the service and a run's frame (the remote chosen, the
//! namespace claimed, the report); `status` answers `sync/status`,
//! `transfer` moves entities, and `records` keeps the base and last-sync
//! times.

pub mod compare;
mod records;
pub mod remote;
mod status;
mod transfer;

use crate::registry::Registry;
use crate::store::{Internal, StoreHandle};
use crate::util::{self, Family};
use a2a::rpc::Error;
use a2a::types::{RegistryKind, SyncDirection, SyncOutcome, SyncPullParams, SyncPushParams, SyncReport};
use a2a::ErrorKind;
use compare::Direction;
use remote::Remote;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};

const FAMILY: Family = Family::Ext;

/// The sync service.
#[derive(Clone)]
pub struct SyncService {
    db: StoreHandle,
    registry: Registry,
    /// Configured remotes: name → A2A endpoint URL.
    remotes: BTreeMap<String, String>,
    /// Namespaces with a sync running.
    running: Arc<Mutex<HashSet<String>>>,
}

/// A sync run's parameters (pull and push share them).
struct Run {
    remote: Option<String>,
    kinds: Vec<RegistryKind>,
    names: Vec<String>,
    dry_run: bool,
    force: bool,
}

/// A run under way: where it syncs, with whom, and how.
struct Session<'a> {
    ns: &'a str,
    remote: Remote,
    direction: Direction,
    run: Run,
}

impl Session<'_> {
    fn base_key(&self, kind: RegistryKind, name: &str) -> String {
        format!("{}/{}/{name}", self.remote.name, kind.descriptor().name)
    }
}

/// Frees the namespace's sync slot when the run ends.
struct Claim {
    running: Arc<Mutex<HashSet<String>>>,
    namespace: String,
}

impl Drop for Claim {
    fn drop(&mut self) {
        if let Ok(mut running) = self.running.lock() {
            running.remove(&self.namespace);
        }
    }
}

impl SyncService {
    pub fn new(db: StoreHandle, registry: Registry, remotes: BTreeMap<String, String>) -> Self {
        SyncService {
            db,
            registry,
            remotes,
            running: Arc::default(),
        }
    }

    /// Copies what changed on the remote into namespace `ns`.
    pub async fn pull(&self, ns: &str, p: SyncPullParams) -> Result<SyncReport, Error> {
        let run = Run {
            remote: p.remote,
            kinds: p.kinds,
            names: p.names,
            dry_run: p.dry_run.unwrap_or(false),
            force: p.force.unwrap_or(false),
        };
        self.run(ns, run, Direction::Pull).await
    }

    /// Copies what changed in namespace `ns` to the remote.
    pub async fn push(&self, ns: &str, p: SyncPushParams) -> Result<SyncReport, Error> {
        let run = Run {
            remote: p.remote,
            kinds: p.kinds,
            names: p.names,
            dry_run: p.dry_run.unwrap_or(false),
            force: p.force.unwrap_or(false),
        };
        self.run(ns, run, Direction::Push).await
    }

    async fn run(&self, ns: &str, run: Run, direction: Direction) -> Result<SyncReport, Error> {
        let remote = Remote::choose(&self.remotes, run.remote.as_deref())?;
        let _claim = self.claim(ns)?;
        let started_at = util::now();
        let session = Session {
            ns,
            remote,
            direction,
            run,
        };
        let mut items = vec![];
        for kind in kinds_of(&session.run.kinds) {
            items.extend(self.sync_kind(&session, kind).await?);
        }
        let finished_at = util::now();
        if !session.run.dry_run {
            self.record_finished(&session, &finished_at).await?;
        }
        let count = |outcome: SyncOutcome| items.iter().filter(|i| i.outcome == outcome).count() as i32;
        Ok(SyncReport {
            remote: session.remote.name.clone(),
            direction: match direction {
                Direction::Pull => SyncDirection::Pull,
                Direction::Push => SyncDirection::Push,
            },
            dry_run: session.run.dry_run,
            started_at,
            finished_at,
            created: count(SyncOutcome::Created),
            updated: count(SyncOutcome::Updated),
            unchanged: count(SyncOutcome::Unchanged),
            conflicts: count(SyncOutcome::Conflict),
            items,
        })
    }

    /// Every stored entity of `kind` here (built-in tools are not stored).
    async fn local_list(&self, ns: &str, kind: RegistryKind) -> Result<Vec<Value>, Error> {
        let (n, coll) = (ns.to_string(), kind.descriptor().name);
        let docs = self
            .db
            .store()
            .list_docs(coll, &n, "", None, usize::MAX)
            .await
            .internal(FAMILY)?;
        Ok(docs
            .into_iter()
            .map(|d| {
                let mut v = d.value;
                v["version"] = json!(d.version);
                v
            })
            .collect())
    }

    fn claim(&self, ns: &str) -> Result<Claim, Error> {
        let mut running = self
            .running
            .lock()
            .map_err(|_| FAMILY.internal("sync registry poisoned"))?;
        if !running.insert(ns.to_string()) {
            return Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!("another sync of namespace `{ns}` is running"),
            ));
        }
        Ok(Claim {
            running: self.running.clone(),
            namespace: ns.to_string(),
        })
    }
}

fn name_of(entity: &Value) -> String {
    entity["name"].as_str().unwrap_or_default().to_string()
}

/// The kinds asked for, in schema order; every kind when none is named.
fn kinds_of(kinds: &[RegistryKind]) -> Vec<RegistryKind> {
    RegistryKind::ALL
        .into_iter()
        .filter(|k| kinds.is_empty() || kinds.contains(k))
        .collect()
}
