//! One pull or push over the entities of a kind: which side is the source,
//! what the comparison with the base decides for each entity, and the copy
//! itself (a pulled entity written here with its origin and base record; a
//! pushed one written through the remote, then its base recorded here).

use super::compare::{self, fingerprint, version, Base, Decision, Direction};
use super::records::base_write;
use super::{name_of, Session, SyncService};
use crate::registry::{file_infos, RevisionDoc};
use crate::store::{DocWrite, Expect};
use crate::util;
use a2a::rpc::Error;
use a2a::types::{ProjectRevisionOrigin, RegistryKind, SyncItem, SyncOrigin, SyncOutcome};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

impl SyncService {
    /// Syncs every entity of `kind` present on the source side.
    pub(super) async fn sync_kind(
        &self,
        session: &Session<'_>,
        kind: RegistryKind,
    ) -> Result<Vec<SyncItem>, Error> {
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
                // What a remote holds is held to the bounds of what a caller
                // could write here.
                let spec = compare::spec_of(kind, src);
                let spec = spec.as_object().cloned().unwrap_or_default();
                if let Err(refused) = self
                    .registry
                    .check_bounds(kind, &item.name, &spec, files.as_deref())
                {
                    return Ok(Err(format!("not copied: {}", refused.message)));
                }
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
}
