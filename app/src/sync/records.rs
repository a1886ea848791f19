//! The sync's own records in the store, beside the entities: the base (both
//! sides' versions at the last sync of each entity) and the last pull and push
//! times per remote. Every write is one commit; a conflicting one means the
//! entity changed while the sync ran.

use super::compare::Base;
use super::compare::Direction;
use super::{Session, SyncService, FAMILY};
use crate::store::{Commit, DocWrite, Expect, Internal, StoreError};
use a2a::rpc::Error;
use a2a::ErrorKind;
use serde_json::{json, Value};

/// Versions of both sides at the last sync; key `{remote}/{kind}/{name}`.
const BASE: &str = "sync-base";
/// Last pull and push per remote; key: the remote name.
const META: &str = "sync-meta";

impl SyncService {
    pub(super) async fn base(&self, ns: &str, key: &str) -> Result<Option<Base>, Error> {
        let (n, k) = (ns.to_string(), key.to_string());
        let doc = self.db.store().get_doc(BASE, &n, &k).await.internal(FAMILY)?;
        Ok(doc.and_then(|d| {
            Some(Base {
                local: d.value["local"].as_i64()?,
                remote: d.value["remote"].as_i64()?,
            })
        }))
    }

    /// The last pull and push times with `remote`.
    pub(super) async fn meta(&self, ns: &str, remote: &str) -> Result<Value, Error> {
        let (n, key) = (ns.to_string(), remote.to_string());
        let doc = self.db.store().get_doc(META, &n, &key).await.internal(FAMILY)?;
        Ok(doc.map(|d| d.value).unwrap_or_else(|| json!({})))
    }

    pub(super) async fn record_finished(
        &self,
        session: &Session<'_>,
        finished_at: &str,
    ) -> Result<(), Error> {
        let mut meta = self.meta(session.ns, &session.remote.name).await?;
        let field = match session.direction {
            Direction::Pull => "lastPullAt",
            Direction::Push => "lastPushAt",
        };
        meta[field] = json!(finished_at);
        let write = DocWrite::put(META, session.ns, &session.remote.name, Expect::Any, meta);
        self.commit(vec![write], "sync state").await
    }

    pub(super) async fn commit(&self, docs: Vec<DocWrite>, what: &str) -> Result<(), Error> {
        let commit = Commit {
            task: None,
            docs,
            ..Commit::default()
        };
        match self.db.commit(commit).await {
            Ok(_) => Ok(()),
            Err(StoreError::Conflict { .. }) => Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!("{what} changed during the sync; retry"),
            )),
            Err(e) => Err(FAMILY.internal(e.to_string())),
        }
    }
}

pub(super) fn base_write(ns: &str, key: &str, base: Base) -> DocWrite {
    DocWrite::put(
        BASE,
        ns,
        key,
        Expect::Any,
        json!({ "local": base.local, "remote": base.remote }),
    )
}
