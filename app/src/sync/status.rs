//! `sync/status`: how a namespace compares with a remote, entity by entity,
//! read from both sides and written nowhere. An unreachable remote is an
//! answer (`reachable: false`), not an error.

use super::compare::{self, fingerprint, version};
use super::remote::Remote;
use super::{kinds_of, name_of, SyncService};
use a2a::rpc::Error;
use a2a::types::{SyncEntityStatus, SyncState, SyncStatus, SyncStatusParams};
use serde_json::Value;
use std::collections::BTreeMap;

impl SyncService {
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
}
