//! Sync (`_cleveragents/sync/pull|push|status`): registry entities of one
//! namespace between this instance and a configured remote CleverAgents
//! server, through the project's own client (`client::HttpTransport`).
//!
//! Decisions the schema leaves open:
//! - **Remotes** come from [`crate::AppConfig::sync_remotes`] (name → A2A
//!   endpoint URL). Without `remote`, the remote named `default` is used, else
//!   the only one configured; several and none named `default` is
//!   ExtInvalidParams. An unknown remote (or none configured) is ExtNotFound.
//!   Remotes are called without credentials and in the same namespace name.
//! - **What is compared**: an entity's spec (the client-writable fields of its
//!   kind); for projects also the file list (path, media type, SHA-256).
//!   Built-in tools never sync. Projects travel with their current tree: a
//!   pull reads remote file contents with `context/inspect`, which carries no
//!   content for binary files, so a remote project with a binary file is
//!   reported CONFLICT ("cannot be synced") and left alone.
//! - **Change detection**: after every successful transfer (or an equal
//!   comparison) the pair of versions is remembered per remote, kind and name
//!   (collection `sync-base`). A side whose version differs from that base
//!   changed since. Pull: remote changed and local not → UPDATED; local
//!   changed and remote not → UNCHANGED (this side is ahead; push it); both
//!   changed, or never synced and different → CONFLICT unless `force`. Push is
//!   the mirror image. Only entities present on the source side are reported.
//! - **Writes**: a pulled entity is written with `origin` (remote, its remote
//!   version, when) in one commit with its base record (a project also gets a
//!   new revision of origin SYNCED); pushes use the remote's registry add and
//!   update with the remote version as `expectedVersion`. A remote error
//!   stops the run with ExtInternalError; entities already written stay.
//! - Only one sync per namespace runs at a time (ExtInvalidState otherwise).
//!   `sync/status` reports an unreachable remote as `reachable: false`.

use crate::app::App;
use crate::registry::{file_infos, revision_key, Kind, PROJECT_REV};
use crate::store::{Commit, DocWrite, Expect, StoreError};
use crate::util::{self, from_json, namespace_of, require, Family};
use a2a::rpc::{Access, CallContext, CallError, Error, Transport};
use a2a::types::{RegistryKind, SyncPullParams, SyncPushParams, SyncReport, SyncStatus, SyncStatusParams};
use a2a::ErrorKind;
use client::{HttpConfig, HttpTransport};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

const FAMILY: Family = Family::Ext;

/// Versions of both sides at the last sync; key `{remote}/{kind}/{name}`.
const BASE: &str = "sync-base";
/// Last pull and push per remote; key: the remote name.
const META: &str = "sync-meta";

/// The client-writable fields of each kind (its `*Spec`).
fn spec_fields(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Actor => &["name", "description", "kind", "instructions", "skills", "tools"],
        Kind::Tool => &["name", "description", "kind", "inputSchema", "config"],
        Kind::Skill => &["name", "description", "tags", "tools", "examples", "instructions"],
        Kind::Resource => &[
            "name",
            "description",
            "resourceType",
            "mediaType",
            "uri",
            "text",
            "data",
        ],
        Kind::ResourceType => &["name", "description", "mediaTypes", "schema"],
        Kind::Project => &["name", "description"],
        Kind::Validation => &[
            "name",
            "description",
            "kind",
            "pathGlob",
            "pattern",
            "schema",
            "maxBytes",
            "severity",
        ],
        Kind::Action => &[
            "name",
            "description",
            "actor",
            "inputSchema",
            "steps",
            "validations",
            "automationProfile",
        ],
        Kind::AutomationProfile => &["name", "description", "approvalMode", "autoApply", "budget"],
        Kind::Invariant => &["name", "description", "validations", "projects", "enforcement"],
    }
}

/// Registry methods of a kind: list, add, update, and the params field of its spec.
fn methods(kind: Kind) -> (&'static str, &'static str, &'static str, &'static str) {
    macro_rules! m {
        ($seg:literal, $field:literal) => {
            (
                concat!("_cleveragents/registry/", $seg, "/list"),
                concat!("_cleveragents/registry/", $seg, "/add"),
                concat!("_cleveragents/registry/", $seg, "/update"),
                $field,
            )
        };
    }
    match kind {
        Kind::Actor => m!("actors", "actor"),
        Kind::Tool => m!("tools", "tool"),
        Kind::Skill => m!("skills", "skill"),
        Kind::Resource => m!("resources", "resource"),
        Kind::ResourceType => m!("resource-types", "resourceType"),
        Kind::Project => m!("projects", "project"),
        Kind::Validation => m!("validations", "validation"),
        Kind::Action => m!("actions", "action"),
        Kind::AutomationProfile => m!("automation-profiles", "automationProfile"),
        Kind::Invariant => m!("invariants", "invariant"),
    }
}

fn spec_of(kind: Kind, entity: &Value) -> Value {
    let mut spec = Map::new();
    for field in spec_fields(kind) {
        if let Some(v) = entity.get(*field) {
            spec.insert((*field).to_string(), v.clone());
        }
    }
    Value::Object(spec)
}

/// What two sides are compared on.
fn fingerprint(kind: Kind, entity: &Value) -> Value {
    let files: Vec<Value> = entity["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| json!([f["path"], f["mediaType"], f["sha256"]]))
        .collect();
    json!({ "spec": spec_of(kind, entity), "files": files })
}

fn version(entity: &Value) -> i64 {
    entity["version"].as_i64().unwrap_or(0)
}

fn remote_error(remote: &str, url: &str, error: CallError) -> Error {
    FAMILY.internal(format!("remote `{remote}` ({url}) failed: {error}"))
}

fn kinds_of(kinds: &[RegistryKind]) -> Vec<Kind> {
    if kinds.is_empty() {
        return Kind::ALL.to_vec();
    }
    let wanted: BTreeSet<String> = kinds
        .iter()
        .filter_map(|k| serde_json::to_value(k).ok())
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    Kind::ALL
        .into_iter()
        .filter(|k| wanted.contains(k.wire()))
        .collect()
}

/// Frees the namespace's sync slot when the run ends.
struct Running<'a> {
    app: &'a App,
    namespace: String,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if let Ok(mut running) = self.app.syncing.lock() {
            running.remove(&self.namespace);
        }
    }
}

/// One remote, ready to call.
struct Remote {
    name: String,
    url: String,
    transport: HttpTransport,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Pull,
    Push,
}

/// A sync run's parameters (pull and push share them).
struct Run {
    namespace: Option<String>,
    remote: Option<String>,
    kinds: Vec<RegistryKind>,
    names: Vec<String>,
    dry_run: bool,
    force: bool,
}

impl App {
    fn remote(&self, requested: Option<&str>) -> Result<Remote, Error> {
        let remotes = &self.config.sync_remotes;
        let name = match requested.filter(|r| !r.is_empty()) {
            Some(name) => name.to_string(),
            None if remotes.contains_key("default") => "default".to_string(),
            None if remotes.len() == 1 => remotes.keys().next().cloned().unwrap_or_default(),
            None if remotes.is_empty() => return Err(FAMILY.not_found("A sync remote")),
            None => {
                return Err(FAMILY.invalid_params(
                    "remote",
                    &format!(
                        "name one of the configured remotes: {}",
                        remotes.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                ))
            }
        };
        let url = remotes
            .get(&name)
            .cloned()
            .ok_or_else(|| FAMILY.not_found(&format!("Remote `{name}`")))?;
        let mut config = HttpConfig::new(url.clone());
        // A sync is interactive: fail fast on a dead remote instead of retrying.
        config.timeout = Duration::from_secs(10);
        config.connect_timeout = Duration::from_secs(3);
        config.retries = 0;
        let transport = HttpTransport::new(config).map_err(|e| remote_error(&name, &url, e))?;
        Ok(Remote { name, url, transport })
    }

    /// Every entity of a kind on the remote (built-in tools left out).
    async fn remote_list(&self, remote: &Remote, ns: &str, kind: Kind) -> Result<Vec<Value>, CallError> {
        let (list, ..) = methods(kind);
        let mut items = vec![];
        let mut cursor: Option<String> = None;
        // Bounded: at most 1000 pages of 500.
        for _ in 0..1000 {
            let mut params = json!({ "namespace": ns, "limit": 500 });
            if let Some(c) = &cursor {
                params["cursor"] = json!(c);
            }
            let page = remote.transport.call(list, params).await?;
            items.extend(
                page["items"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|e| e["builtin"] != true)
                    .cloned(),
            );
            match page["nextCursor"].as_str().filter(|c| !c.is_empty()) {
                Some(c) => cursor = Some(c.to_string()),
                None => break,
            }
        }
        Ok(items)
    }

    /// Every stored entity of a kind here (built-in tools are not stored).
    async fn local_list(&self, ns: &str, kind: Kind) -> Result<Vec<Value>, Error> {
        let n = ns.to_string();
        let docs = self
            .db(FAMILY, move |s| {
                s.list_docs(kind.coll(), &n, "", None, usize::MAX)
            })
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

    async fn base(&self, ns: &str, key: &str) -> Result<Option<(i64, i64)>, Error> {
        let (n, k) = (ns.to_string(), key.to_string());
        let doc = self.db(FAMILY, move |s| s.get_doc(BASE, &n, &k)).await?;
        Ok(doc.and_then(|d| Some((d.value["local"].as_i64()?, d.value["remote"].as_i64()?))))
    }

    fn base_write(ns: &str, key: &str, local: i64, remote: i64) -> DocWrite {
        DocWrite::put(
            BASE,
            ns,
            key,
            Expect::Any,
            json!({ "local": local, "remote": remote }),
        )
    }

    async fn commit_sync(&self, docs: Vec<DocWrite>, what: &str) -> Result<(), Error> {
        let commit = Commit { task: None, docs };
        match self.db_raw(move |s| s.commit(&commit)).await {
            Ok(_) => Ok(()),
            Err(StoreError::Conflict { .. }) => Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!("{what} changed during the sync; retry"),
            )),
            Err(e) => Err(FAMILY.internal(e.to_string())),
        }
    }

    fn claim(&self, ns: &str) -> Result<Running<'_>, Error> {
        let mut running = self
            .syncing
            .lock()
            .map_err(|_| FAMILY.internal("sync registry poisoned"))?;
        if !running.insert(ns.to_string()) {
            return Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!("another sync of namespace `{ns}` is running"),
            ));
        }
        Ok(Running {
            app: self,
            namespace: ns.to_string(),
        })
    }

    /// The full tree of a remote project, or why it cannot be copied.
    async fn remote_files(
        &self,
        remote: &Remote,
        ns: &str,
        entity: &Value,
    ) -> Result<Result<Vec<Value>, String>, Error> {
        let project = entity["name"].as_str().unwrap_or_default();
        let mut files = vec![];
        for info in entity["files"].as_array().into_iter().flatten() {
            let path = info["path"].as_str().unwrap_or_default();
            let inspected = remote
                .transport
                .call(
                    "_cleveragents/context/inspect",
                    json!({ "namespace": ns, "project": project, "kind": "CONTEXT_ITEM_KIND_FILE", "name": path }),
                )
                .await
                .map_err(|e| remote_error(&remote.name, &remote.url, e))?;
            match inspected["text"].as_str() {
                Some(text) => {
                    files.push(json!({ "path": path, "mediaType": info["mediaType"], "text": text }))
                }
                None => return Ok(Err(format!("binary file `{path}` cannot be synced"))),
            }
        }
        Ok(Ok(files))
    }

    /// Writes a remote entity here (create or replace) with its base record.
    async fn write_local(
        &self,
        ns: &str,
        kind: Kind,
        remote: &Remote,
        theirs: &Value,
        ours: Option<&Value>,
        files: Option<Vec<Value>>,
    ) -> Result<i64, Error> {
        let name = theirs["name"].as_str().unwrap_or_default().to_string();
        let now = util::now();
        let mut value = spec_of(kind, theirs);
        value["namespace"] = json!(ns);
        value["createdAt"] = ours.map_or(json!(now), |o| o["createdAt"].clone());
        value["updatedAt"] = json!(now);
        value["origin"] = json!({ "remote": remote.name, "remoteVersion": version(theirs), "syncedAt": now });
        let mut docs = vec![];
        if kind == Kind::Tool {
            value["builtin"] = json!(false);
        }
        if kind == Kind::Project {
            let files = files.unwrap_or_default();
            let (parent, old) = match ours {
                Some(_) => {
                    let (rev, old) = self.project_files(ns, &name, None).await?;
                    (Some(rev), old)
                }
                None => (None, vec![]),
            };
            let next = parent.map_or(1, |p| p + 1);
            value["files"] = json!(file_infos(&files));
            value["currentRevision"] = json!(next);
            let mut rev = json!({ "revision": next, "origin": "PROJECT_REVISION_ORIGIN_SYNCED", "createdAt": now,
                                  "message": format!("Pulled from remote {}", remote.name),
                                  "changes": crate::registry::changes(&old, &files), "files": files });
            if let Some(p) = parent {
                rev["parentRevision"] = json!(p);
            }
            docs.push(DocWrite::put(
                PROJECT_REV,
                ns,
                &revision_key(&name, next),
                Expect::Absent,
                rev,
            ));
        }
        let expect = match ours {
            Some(o) => Expect::Version(u64::try_from(version(o)).unwrap_or(0)),
            None => Expect::Absent,
        };
        let local_version = ours.map_or(1, |o| version(o) + 1);
        docs.insert(0, DocWrite::put(kind.coll(), ns, &name, expect, value));
        docs.push(Self::base_write(
            ns,
            &format!("{}/{}/{name}", remote.name, kind.coll()),
            local_version,
            version(theirs),
        ));
        self.commit_sync(docs, &format!("{} `{name}`", kind.coll()))
            .await?;
        Ok(local_version)
    }

    /// Writes a local entity to the remote (add or update); its new remote version.
    async fn write_remote(
        &self,
        ns: &str,
        kind: Kind,
        remote: &Remote,
        ours: &Value,
        theirs: Option<&Value>,
    ) -> Result<i64, Error> {
        let name = ours["name"].as_str().unwrap_or_default().to_string();
        let (_, add, update, field) = methods(kind);
        let mut spec = spec_of(kind, ours);
        if kind == Kind::Project {
            let (_, files) = self.project_files(ns, &name, None).await?;
            spec["files"] = json!(files);
        }
        let (method, mut params) = match theirs {
            None => (add, json!({ "namespace": ns })),
            Some(t) => (update, json!({ "namespace": ns, "expectedVersion": version(t) })),
        };
        params[field] = spec;
        let written = remote
            .transport
            .call(method, params)
            .await
            .map_err(|e| remote_error(&remote.name, &remote.url, e))?;
        let remote_version = version(&written);
        self.commit_sync(
            vec![Self::base_write(
                ns,
                &format!("{}/{}/{name}", remote.name, kind.coll()),
                version(ours),
                remote_version,
            )],
            &format!("{} `{name}`", kind.coll()),
        )
        .await?;
        Ok(remote_version)
    }

    async fn sync_run(&self, ctx: &CallContext, run: Run, direction: Direction) -> Result<SyncReport, Error> {
        let ns = namespace_of(run.namespace.as_deref());
        require(ctx, &ns, Access::Admin, FAMILY, &format!("namespace `{ns}`"))?;
        let remote = self.remote(run.remote.as_deref())?;
        let _running = self.claim(&ns)?;
        let started_at = util::now();
        let names: BTreeSet<&str> = run.names.iter().map(String::as_str).collect();
        let (mut created, mut updated, mut unchanged, mut conflicts) = (0, 0, 0, 0);
        let mut items = vec![];
        for kind in kinds_of(&run.kinds) {
            let theirs_all = self
                .remote_list(&remote, &ns, kind)
                .await
                .map_err(|e| remote_error(&remote.name, &remote.url, e))?;
            let ours_all = self.local_list(&ns, kind).await?;
            let by_name = |list: &[Value]| -> BTreeMap<String, Value> {
                list.iter()
                    .map(|e| (e["name"].as_str().unwrap_or_default().to_string(), e.clone()))
                    .collect()
            };
            let (theirs_all, ours_all) = (by_name(&theirs_all), by_name(&ours_all));
            let (source, target) = match direction {
                Direction::Pull => (&theirs_all, &ours_all),
                Direction::Push => (&ours_all, &theirs_all),
            };
            for (name, src) in source {
                if !names.is_empty() && !names.contains(name.as_str()) {
                    continue;
                }
                let dst = target.get(name);
                let key = format!("{}/{}/{name}", remote.name, kind.coll());
                let (ours, theirs) = match direction {
                    Direction::Pull => (dst, Some(src)),
                    Direction::Push => (Some(src), dst),
                };
                let mut item = json!({ "kind": kind.wire(), "name": name });
                let set_versions = |item: &mut Value, local: Option<i64>, remote: Option<i64>| {
                    if let Some(l) = local {
                        item["localVersion"] = json!(l);
                    }
                    if let Some(r) = remote {
                        item["remoteVersion"] = json!(r);
                    }
                };
                let current = (ours.map(version), theirs.map(version));
                let Some(dst) = dst else {
                    // Only on the source side: create it on the target.
                    let mut after = current;
                    if !run.dry_run {
                        match direction {
                            Direction::Pull => {
                                let files = if kind == Kind::Project {
                                    match self.remote_files(&remote, &ns, src).await? {
                                        Ok(f) => Some(f),
                                        Err(why) => {
                                            conflicts += 1;
                                            item["outcome"] = json!("SYNC_OUTCOME_CONFLICT");
                                            item["message"] = json!(why);
                                            set_versions(&mut item, current.0, current.1);
                                            items.push(item);
                                            continue;
                                        }
                                    }
                                } else {
                                    None
                                };
                                after.0 = Some(self.write_local(&ns, kind, &remote, src, None, files).await?);
                            }
                            Direction::Push => {
                                after.1 = Some(self.write_remote(&ns, kind, &remote, src, None).await?);
                            }
                        }
                    }
                    created += 1;
                    item["outcome"] = json!("SYNC_OUTCOME_CREATED");
                    set_versions(&mut item, after.0, after.1);
                    items.push(item);
                    continue;
                };
                let (ours, theirs) = match direction {
                    Direction::Pull => (dst, src),
                    Direction::Push => (src, dst),
                };
                if fingerprint(kind, ours) == fingerprint(kind, theirs) {
                    if !run.dry_run {
                        self.commit_sync(
                            vec![Self::base_write(&ns, &key, version(ours), version(theirs))],
                            name,
                        )
                        .await?;
                    }
                    unchanged += 1;
                    item["outcome"] = json!("SYNC_OUTCOME_UNCHANGED");
                    set_versions(&mut item, current.0, current.1);
                    items.push(item);
                    continue;
                }
                let base = self.base(&ns, &key).await?;
                let local_changed = base.is_none_or(|(l, _)| l != version(ours));
                let remote_changed = base.is_none_or(|(_, r)| r != version(theirs));
                let (source_changed, target_changed) = match direction {
                    Direction::Pull => (remote_changed, local_changed),
                    Direction::Push => (local_changed, remote_changed),
                };
                if !source_changed && target_changed {
                    // The target is ahead: nothing to copy in this direction.
                    unchanged += 1;
                    item["outcome"] = json!("SYNC_OUTCOME_UNCHANGED");
                    item["message"] = json!(match direction {
                        Direction::Pull => "Changed only locally since the last sync; push to publish it.",
                        Direction::Push => "Changed only remotely since the last sync; pull to get it.",
                    });
                    set_versions(&mut item, current.0, current.1);
                    items.push(item);
                    continue;
                }
                if target_changed && !run.force {
                    conflicts += 1;
                    item["outcome"] = json!("SYNC_OUTCOME_CONFLICT");
                    item["message"] = json!(format!(
                        "Changed locally (v{}) and remotely (v{}) since the last sync; use force to overwrite.",
                        version(ours),
                        version(theirs)
                    ));
                    set_versions(&mut item, current.0, current.1);
                    items.push(item);
                    continue;
                }
                let mut after = current;
                if !run.dry_run {
                    match direction {
                        Direction::Pull => {
                            let files = if kind == Kind::Project {
                                match self.remote_files(&remote, &ns, theirs).await? {
                                    Ok(f) => Some(f),
                                    Err(why) => {
                                        conflicts += 1;
                                        item["outcome"] = json!("SYNC_OUTCOME_CONFLICT");
                                        item["message"] = json!(why);
                                        set_versions(&mut item, current.0, current.1);
                                        items.push(item);
                                        continue;
                                    }
                                }
                            } else {
                                None
                            };
                            after.0 = Some(
                                self.write_local(&ns, kind, &remote, theirs, Some(ours), files)
                                    .await?,
                            );
                        }
                        Direction::Push => {
                            after.1 = Some(self.write_remote(&ns, kind, &remote, ours, Some(theirs)).await?);
                        }
                    }
                }
                updated += 1;
                item["outcome"] = json!("SYNC_OUTCOME_UPDATED");
                set_versions(&mut item, after.0, after.1);
                items.push(item);
            }
        }
        let finished_at = util::now();
        if !run.dry_run {
            let (n, key) = (ns.clone(), remote.name.clone());
            let mut meta = self
                .db(FAMILY, move |s| s.get_doc(META, &n, &key))
                .await?
                .map(|d| d.value)
                .unwrap_or_else(|| json!({}));
            meta[if direction == Direction::Pull {
                "lastPullAt"
            } else {
                "lastPushAt"
            }] = json!(finished_at);
            self.commit_sync(
                vec![DocWrite::put(META, &ns, &remote.name, Expect::Any, meta)],
                "sync state",
            )
            .await?;
        }
        from_json(
            json!({
                "remote": remote.name,
                "direction": if direction == Direction::Pull { "SYNC_DIRECTION_PULL" } else { "SYNC_DIRECTION_PUSH" },
                "dryRun": run.dry_run, "startedAt": started_at, "finishedAt": finished_at, "items": items,
                "created": created, "updated": updated, "unchanged": unchanged, "conflicts": conflicts,
            }),
            FAMILY,
        )
    }

    pub(crate) async fn sync_pull(&self, ctx: &CallContext, p: SyncPullParams) -> Result<SyncReport, Error> {
        let run = Run {
            namespace: p.namespace,
            remote: p.remote,
            kinds: p.kinds,
            names: p.names,
            dry_run: p.dry_run.unwrap_or(false),
            force: p.force.unwrap_or(false),
        };
        self.sync_run(ctx, run, Direction::Pull).await
    }

    pub(crate) async fn sync_push(&self, ctx: &CallContext, p: SyncPushParams) -> Result<SyncReport, Error> {
        let run = Run {
            namespace: p.namespace,
            remote: p.remote,
            kinds: p.kinds,
            names: p.names,
            dry_run: p.dry_run.unwrap_or(false),
            force: p.force.unwrap_or(false),
        };
        self.sync_run(ctx, run, Direction::Push).await
    }

    pub(crate) async fn sync_status(
        &self,
        ctx: &CallContext,
        p: SyncStatusParams,
    ) -> Result<SyncStatus, Error> {
        let ns = namespace_of(p.namespace.as_deref());
        require(ctx, &ns, Access::Reader, FAMILY, &format!("namespace `{ns}`"))?;
        let remote = self.remote(p.remote.as_deref())?;
        let (n, key) = (ns.clone(), remote.name.clone());
        let meta = self
            .db(FAMILY, move |s| s.get_doc(META, &n, &key))
            .await?
            .map(|d| d.value)
            .unwrap_or_else(|| json!({}));
        let mut status =
            json!({ "remote": remote.name, "remoteUrl": remote.url, "reachable": true, "entities": [] });
        for field in ["lastPullAt", "lastPushAt"] {
            if let Some(at) = meta.get(field) {
                status[field] = at.clone();
            }
        }
        let mut entities = vec![];
        for kind in kinds_of(&p.kinds) {
            let theirs = match self.remote_list(&remote, &ns, kind).await {
                Ok(list) => list,
                Err(_) => {
                    status["reachable"] = json!(false);
                    return from_json(status, FAMILY);
                }
            };
            let ours = self.local_list(&ns, kind).await?;
            let mut all: BTreeMap<String, (Option<Value>, Option<Value>)> = BTreeMap::new();
            for e in ours {
                let name = e["name"].as_str().unwrap_or_default().to_string();
                all.entry(name).or_default().0 = Some(e);
            }
            for e in theirs {
                let name = e["name"].as_str().unwrap_or_default().to_string();
                all.entry(name).or_default().1 = Some(e);
            }
            for (name, sides) in all {
                let mut entry = json!({ "kind": kind.wire(), "name": name });
                let state = match &sides {
                    (Some(o), None) => {
                        entry["localVersion"] = json!(version(o));
                        "SYNC_STATE_LOCAL_ONLY"
                    }
                    (None, Some(t)) => {
                        entry["remoteVersion"] = json!(version(t));
                        "SYNC_STATE_REMOTE_ONLY"
                    }
                    (Some(o), Some(t)) => {
                        entry["localVersion"] = json!(version(o));
                        entry["remoteVersion"] = json!(version(t));
                        if fingerprint(kind, o) == fingerprint(kind, t) {
                            continue;
                        }
                        let base = self
                            .base(&ns, &format!("{}/{}/{name}", remote.name, kind.coll()))
                            .await?;
                        let local_changed = base.is_none_or(|(l, _)| l != version(o));
                        let remote_changed = base.is_none_or(|(_, r)| r != version(t));
                        match (local_changed, remote_changed) {
                            (true, false) => "SYNC_STATE_LOCAL_AHEAD",
                            (false, true) => "SYNC_STATE_REMOTE_AHEAD",
                            _ => "SYNC_STATE_DIVERGED",
                        }
                    }
                    (None, None) => continue,
                };
                entry["state"] = json!(state);
                entities.push(entry);
            }
        }
        status["entities"] = json!(entities);
        from_json(status, FAMILY)
    }
}
