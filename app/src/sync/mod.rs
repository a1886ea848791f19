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

pub mod compare;
pub mod remote;

use crate::registry::{file_infos, Registry, RevisionDoc};
use crate::store::{Commit, DocWrite, Expect, StoreError, StoreHandle};
use crate::util::{self, Family};
use a2a::rpc::Error;
use a2a::types::{
    ProjectRevisionOrigin, RegistryKind, SyncDirection, SyncEntityStatus, SyncItem, SyncOrigin, SyncOutcome,
    SyncPullParams, SyncPushParams, SyncReport, SyncState, SyncStatus, SyncStatusParams,
};
use a2a::ErrorKind;
use compare::{fingerprint, version, Base, Decision, Direction};
use remote::Remote;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::{Arc, Mutex};

const FAMILY: Family = Family::Ext;

/// Versions of both sides at the last sync; key `{remote}/{kind}/{name}`.
const BASE: &str = "sync-base";
/// Last pull and push per remote; key: the remote name.
const META: &str = "sync-meta";

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

    /// How namespace `ns` compares with the remote, without writing anything.
    pub async fn status(&self, ns: &str, p: SyncStatusParams) -> Result<SyncStatus, Error> {
        let remote = Remote::choose(&self.remotes, p.remote.as_deref())?;
        let meta = self.meta(ns, &remote.name).await?;
        let mut status = SyncStatus {
            remote: remote.name.clone(),
            remote_url: remote.url.clone(),
            reachable: true,
            last_pull_at: meta["lastPullAt"].as_str().map(str::to_string),
            last_push_at: meta["lastPushAt"].as_str().map(str::to_string),
            entities: vec![],
        };
        for kind in kinds_of(&p.kinds) {
            let Ok(theirs) = remote.list(ns, kind).await else {
                status.reachable = false;
                status.entities.clear();
                return Ok(status);
            };
            let mut all: BTreeMap<String, (Option<Value>, Option<Value>)> = BTreeMap::new();
            for e in self.local_list(ns, kind).await? {
                let name = name_of(&e);
                all.entry(name).or_default().0 = Some(e);
            }
            for e in theirs {
                let name = name_of(&e);
                all.entry(name).or_default().1 = Some(e);
            }
            for (name, (ours, theirs)) in all {
                let state = match (&ours, &theirs) {
                    (Some(_), None) => SyncState::LocalOnly,
                    (None, Some(_)) => SyncState::RemoteOnly,
                    (Some(o), Some(t)) if fingerprint(kind, o) == fingerprint(kind, t) => continue,
                    (Some(o), Some(t)) => {
                        let key = format!("{}/{}/{name}", remote.name, kind.descriptor().name);
                        compare::state(self.base(ns, &key).await?, version(o), version(t))
                    }
                    (None, None) => continue,
                };
                status.entities.push(SyncEntityStatus {
                    kind,
                    name,
                    state,
                    local_version: ours.as_ref().map(version),
                    remote_version: theirs.as_ref().map(version),
                });
            }
        }
        Ok(status)
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

    /// Syncs every entity of `kind` present on the source side.
    async fn sync_kind(&self, session: &Session<'_>, kind: RegistryKind) -> Result<Vec<SyncItem>, Error> {
        let theirs = session
            .remote
            .list(session.ns, kind)
            .await
            .map_err(|e| session.remote.error(e))?;
        let ours = self.local_list(session.ns, kind).await?;
        let by_name = |list: Vec<Value>| -> BTreeMap<String, Value> {
            list.into_iter().map(|e| (name_of(&e), e)).collect()
        };
        let (theirs, ours) = (by_name(theirs), by_name(ours));
        let (source, target) = match session.direction {
            Direction::Pull => (&theirs, &ours),
            Direction::Push => (&ours, &theirs),
        };
        let wanted: BTreeSet<&str> = session.run.names.iter().map(String::as_str).collect();
        let mut items = vec![];
        for (name, src) in source {
            if wanted.is_empty() || wanted.contains(name.as_str()) {
                items.push(self.sync_entity(session, kind, src, target.get(name)).await?);
            }
        }
        Ok(items)
    }

    /// Syncs one entity from `src` onto `dst` (absent: not on the target side).
    async fn sync_entity(
        &self,
        session: &Session<'_>,
        kind: RegistryKind,
        src: &Value,
        dst: Option<&Value>,
    ) -> Result<SyncItem, Error> {
        let (ours, theirs) = match session.direction {
            Direction::Pull => (dst, Some(src)),
            Direction::Push => (Some(src), dst),
        };
        let mut item = SyncItem {
            kind,
            name: name_of(src),
            outcome: SyncOutcome::Created,
            local_version: ours.map(version),
            remote_version: theirs.map(version),
            message: None,
        };
        let outcome = match (ours, theirs) {
            (Some(o), Some(t)) if fingerprint(kind, o) == fingerprint(kind, t) => {
                if !session.run.dry_run {
                    let base = Base {
                        local: version(o),
                        remote: version(t),
                    };
                    self.commit(
                        vec![base_write(session.ns, &session.base_key(kind, &item.name), base)],
                        &item.name,
                    )
                    .await?;
                }
                SyncOutcome::Unchanged
            }
            (Some(o), Some(t)) => {
                let base = self.base(session.ns, &session.base_key(kind, &item.name)).await?;
                match compare::decide(session.direction, base, version(o), version(t), session.run.force) {
                    Decision::Copy => SyncOutcome::Updated,
                    Decision::Keep(outcome, why) => {
                        item.outcome = outcome;
                        item.message = Some(why);
                        return Ok(item);
                    }
                }
            }
            _ => SyncOutcome::Created,
        };
        item.outcome = outcome;
        if outcome != SyncOutcome::Unchanged && !session.run.dry_run {
            if let Err(why) = self.copy(session, kind, src, dst, &mut item).await? {
                item.outcome = SyncOutcome::Conflict;
                item.message = Some(why);
            }
        }
        Ok(item)
    }

    /// Copies `src` over `dst` in the session's direction, recording the new
    /// versions in `item`; `Err(why)` when the entity cannot be copied.
    async fn copy(
        &self,
        session: &Session<'_>,
        kind: RegistryKind,
        src: &Value,
        dst: Option<&Value>,
        item: &mut SyncItem,
    ) -> Result<Result<(), String>, Error> {
        let (ns, remote) = (session.ns, &session.remote);
        match session.direction {
            Direction::Pull => {
                let files = match kind {
                    RegistryKind::Project => match remote.files(ns, src).await? {
                        Ok(files) => Some(files),
                        Err(why) => return Ok(Err(why)),
                    },
                    _ => None,
                };
                item.local_version = Some(self.write_local(session, kind, src, dst, files).await?);
            }
            Direction::Push => {
                let files = match kind {
                    RegistryKind::Project => Some(self.registry.project_files(ns, &item.name, None).await?.1),
                    _ => None,
                };
                let written = remote.write(ns, kind, src, dst, files).await?;
                let base = Base {
                    local: version(src),
                    remote: written,
                };
                self.commit(
                    vec![base_write(ns, &session.base_key(kind, &item.name), base)],
                    &item.name,
                )
                .await?;
                item.remote_version = Some(written);
            }
        }
        Ok(Ok(()))
    }

    /// Writes a remote entity here (create or replace) with its base record;
    /// the new local version.
    async fn write_local(
        &self,
        session: &Session<'_>,
        kind: RegistryKind,
        theirs: &Value,
        ours: Option<&Value>,
        files: Option<Vec<Value>>,
    ) -> Result<i64, Error> {
        let (ns, remote) = (session.ns, &session.remote);
        let name = name_of(theirs);
        let now = util::now();
        let mut value = compare::spec_of(kind, theirs);
        value["namespace"] = json!(ns);
        value["createdAt"] = ours.map_or(json!(now), |o| o["createdAt"].clone());
        value["updatedAt"] = json!(now);
        value["origin"] = json!(SyncOrigin {
            remote: remote.name.clone(),
            remote_version: version(theirs),
            synced_at: now.clone(),
        });
        let mut docs = vec![];
        if kind == RegistryKind::Tool {
            value["builtin"] = json!(false);
        }
        if kind == RegistryKind::Project {
            let files = files.unwrap_or_default();
            let (parent, old) = match ours {
                Some(_) => {
                    let (revision, old) = self.registry.project_files(ns, &name, None).await?;
                    (Some(revision), old)
                }
                None => (None, vec![]),
            };
            let next = parent.map_or(1, |p| p + 1);
            value["files"] = json!(file_infos(&files));
            value["currentRevision"] = json!(next);
            let message = format!("Pulled from remote {}", remote.name);
            let revision = RevisionDoc {
                revision: next,
                parent_revision: parent,
                origin: ProjectRevisionOrigin::Synced,
                plan_id: None,
                message: Some(&message),
                created_at: &now,
                changes: crate::registry::changes(&old, &files),
                files: &files,
            };
            docs.push(revision.write(ns, &name)?);
        }
        let expect = match ours {
            Some(o) => Expect::Version(u64::try_from(version(o)).unwrap_or(0)),
            None => Expect::Absent,
        };
        let local_version = ours.map_or(1, |o| version(o) + 1);
        docs.insert(0, DocWrite::put(kind.descriptor().name, ns, &name, expect, value));
        let base = Base {
            local: local_version,
            remote: version(theirs),
        };
        docs.push(base_write(ns, &session.base_key(kind, &name), base));
        self.commit(docs, &format!("{} `{name}`", kind.descriptor().name))
            .await?;
        Ok(local_version)
    }

    /// Every stored entity of `kind` here (built-in tools are not stored).
    async fn local_list(&self, ns: &str, kind: RegistryKind) -> Result<Vec<Value>, Error> {
        let (n, coll) = (ns.to_string(), kind.descriptor().name);
        let docs = self
            .db
            .run(FAMILY, move |s| s.list_docs(coll, &n, "", None, usize::MAX))
            .await?;
        Ok(docs
            .into_iter()
            .map(|d| {
                let mut v = d.value;
                v["version"] = json!(d.version);
                v
            })
            .collect())
    }

    async fn base(&self, ns: &str, key: &str) -> Result<Option<Base>, Error> {
        let (n, k) = (ns.to_string(), key.to_string());
        let doc = self.db.run(FAMILY, move |s| s.get_doc(BASE, &n, &k)).await?;
        Ok(doc.and_then(|d| {
            Some(Base {
                local: d.value["local"].as_i64()?,
                remote: d.value["remote"].as_i64()?,
            })
        }))
    }

    /// The last pull and push times with `remote`.
    async fn meta(&self, ns: &str, remote: &str) -> Result<Value, Error> {
        let (n, key) = (ns.to_string(), remote.to_string());
        let doc = self.db.run(FAMILY, move |s| s.get_doc(META, &n, &key)).await?;
        Ok(doc.map(|d| d.value).unwrap_or_else(|| json!({})))
    }

    async fn record_finished(&self, session: &Session<'_>, finished_at: &str) -> Result<(), Error> {
        let mut meta = self.meta(session.ns, &session.remote.name).await?;
        let field = match session.direction {
            Direction::Pull => "lastPullAt",
            Direction::Push => "lastPushAt",
        };
        meta[field] = json!(finished_at);
        let write = DocWrite::put(META, session.ns, &session.remote.name, Expect::Any, meta);
        self.commit(vec![write], "sync state").await
    }

    async fn commit(&self, docs: Vec<DocWrite>, what: &str) -> Result<(), Error> {
        let commit = Commit { task: None, docs };
        match self.db.call(move |s| s.commit(&commit)).await {
            Ok(_) => Ok(()),
            Err(StoreError::Conflict { .. }) => Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!("{what} changed during the sync; retry"),
            )),
            Err(e) => Err(FAMILY.internal(e.to_string())),
        }
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

fn base_write(ns: &str, key: &str, base: Base) -> DocWrite {
    DocWrite::put(
        BASE,
        ns,
        key,
        Expect::Any,
        json!({ "local": base.local, "remote": base.remote }),
    )
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
