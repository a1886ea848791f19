//! Registries of the ten entity kinds (`_cleveragents/registry/{kind}/…`).
//!
//! All kinds share one implementation on JSON: an entity is its spec plus
//! `namespace`, `version`, `createdAt` and `updatedAt`, stored as a document
//! whose store version is the entity version (so optimistic concurrency is the
//! store's own check). Names are unique per namespace and kind. Projects are
//! also versioned virtual file trees: every change of their files writes a
//! new immutable revision document in the same commit.

use crate::app::App;
use crate::store::{Commit, Doc, DocWrite, Expect, StoreError};
use crate::util::{self, namespace_of, require, Family};
use a2a::rpc::{Access, CallContext, Error};
use a2a::ErrorKind;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

const FAMILY: Family = Family::Ext;

/// The ten registry kinds with their collection names and wire names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Actor,
    Tool,
    Skill,
    Resource,
    ResourceType,
    Project,
    Validation,
    Action,
    AutomationProfile,
    Invariant,
}

impl Kind {
    pub const ALL: [Kind; 10] = [
        Kind::Actor,
        Kind::Tool,
        Kind::Skill,
        Kind::Resource,
        Kind::ResourceType,
        Kind::Project,
        Kind::Validation,
        Kind::Action,
        Kind::AutomationProfile,
        Kind::Invariant,
    ];

    /// Document collection (also the human label).
    pub fn coll(self) -> &'static str {
        match self {
            Kind::Actor => "actor",
            Kind::Tool => "tool",
            Kind::Skill => "skill",
            Kind::Resource => "resource",
            Kind::ResourceType => "resource-type",
            Kind::Project => "project",
            Kind::Validation => "validation",
            Kind::Action => "action",
            Kind::AutomationProfile => "automation-profile",
            Kind::Invariant => "invariant",
        }
    }

    /// `RegistryKind` wire name.
    pub fn wire(self) -> &'static str {
        match self {
            Kind::Actor => "REGISTRY_KIND_ACTOR",
            Kind::Tool => "REGISTRY_KIND_TOOL",
            Kind::Skill => "REGISTRY_KIND_SKILL",
            Kind::Resource => "REGISTRY_KIND_RESOURCE",
            Kind::ResourceType => "REGISTRY_KIND_RESOURCE_TYPE",
            Kind::Project => "REGISTRY_KIND_PROJECT",
            Kind::Validation => "REGISTRY_KIND_VALIDATION",
            Kind::Action => "REGISTRY_KIND_ACTION",
            Kind::AutomationProfile => "REGISTRY_KIND_AUTOMATION_PROFILE",
            Kind::Invariant => "REGISTRY_KIND_INVARIANT",
        }
    }

    fn label(self) -> String {
        let mut s = self.coll().replace('-', " ");
        if let Some(first) = s.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        s
    }
}

/// Revisions of project file trees; key `{project}/{revision:010}`.
pub const PROJECT_REV: &str = "project-revision";

pub fn revision_key(project: &str, revision: i64) -> String {
    format!("{project}/{revision:010}")
}

/// The tools every namespace has: deterministic and safe. Their argument
/// conventions (the `inputSchema`s) are explained in `execution.rs`.
pub(crate) fn builtin_tools(namespace: &str) -> Vec<Value> {
    let tool = |name: &str, kind: &str, description: &str, schema: Value| {
        json!({
            "name": name, "namespace": namespace, "version": 1,
            "createdAt": "1970-01-01T00:00:00.000Z", "updatedAt": "1970-01-01T00:00:00.000Z",
            "description": description, "kind": kind, "builtin": true, "inputSchema": schema
        })
    };
    let string = json!({ "type": "string" });
    vec![
        tool(
            "approval",
            "TOOL_KIND_APPROVAL",
            "Asks the user to approve before continuing.",
            json!({ "type": "object", "properties": { "question": string }, "additionalProperties": false }),
        ),
        tool(
            "run-validation",
            "TOOL_KIND_RUN_VALIDATION",
            "Runs the plan's declared validations on its workspace.",
            json!({ "type": "object", "properties": { "validations": { "type": "array", "items": string } },
                    "additionalProperties": false }),
        ),
        tool(
            "template",
            "TOOL_KIND_TEMPLATE",
            "Renders a text template with the plan inputs.",
            json!({ "type": "object", "required": ["template"],
                    "properties": { "template": string, "name": string }, "additionalProperties": false }),
        ),
        tool(
            "write-file",
            "TOOL_KIND_WRITE_FILE",
            "Writes a file into the plan's virtual workspace.",
            json!({ "type": "object", "required": ["path"],
                    "properties": { "path": { "type": "string", "minLength": 1 }, "content": string,
                                    "fromStep": string, "mediaType": string },
                    "additionalProperties": false }),
        ),
    ]
}

fn check_name(name: &str) -> Result<(), Error> {
    if name.is_empty() || name.len() > 200 || name.contains('/') || name.chars().any(char::is_control) {
        return Err(FAMILY.invalid_params(
            "name",
            "must be 1 to 200 characters without '/' or control characters",
        ));
    }
    Ok(())
}

fn entity_of(doc: &Doc) -> Value {
    let mut value = doc.value.clone();
    if let Some(obj) = value.as_object_mut() {
        obj.insert("version".into(), json!(doc.version));
    }
    value
}

/// File infos of a file list (ProjectFile JSON values).
pub fn file_infos(files: &[Value]) -> Vec<Value> {
    let mut infos: Vec<Value> = files
        .iter()
        .map(|f| {
            let bytes = file_bytes(f);
            json!({
                "path": f["path"], "mediaType": f["mediaType"],
                "sizeBytes": bytes.len(), "sha256": hex(&Sha256::digest(&bytes)),
            })
        })
        .collect();
    infos.sort_by(|a, b| a["path"].as_str().cmp(&b["path"].as_str()));
    infos
}

/// The bytes of a ProjectFile JSON value (text, or base64 raw).
pub fn file_bytes(file: &Value) -> Vec<u8> {
    use base64::Engine as _;
    if let Some(text) = file.get("text").and_then(Value::as_str) {
        return text.as_bytes().to_vec();
    }
    file.get("raw")
        .and_then(Value::as_str)
        .and_then(|raw| base64::engine::general_purpose::STANDARD.decode(raw).ok())
        .unwrap_or_default()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn check_files(files: &[Value]) -> Result<(), Error> {
    let mut seen = std::collections::BTreeSet::new();
    for (i, file) in files.iter().enumerate() {
        let path = file["path"].as_str().unwrap_or_default();
        let bad = path.is_empty()
            || path.starts_with('/')
            || path
                .split('/')
                .any(|seg| seg.is_empty() || seg == "." || seg == "..")
            || path.chars().any(char::is_control);
        if bad {
            return Err(FAMILY.invalid_params(
                &format!("project.files[{i}].path"),
                "must be a relative path without empty, '.' or '..' segments",
            ));
        }
        if !seen.insert(path.to_string()) {
            return Err(FAMILY.invalid_params(&format!("project.files[{i}].path"), "appears twice"));
        }
    }
    Ok(())
}

fn conflict(kind: Kind, name: &str, expected: i64, found: Option<u64>) -> Error {
    match found {
        None => FAMILY.not_found(&format!("{} `{name}`", kind.label())),
        Some(found) => Error::new(
            ErrorKind::ExtInvalidState,
            format!(
                "{} `{name}` is at version {found}, not the expected {expected}",
                kind.label()
            ),
        )
        .with_metadata("currentVersion", found.to_string()),
    }
}

impl App {
    pub(crate) async fn reg_get(
        &self,
        namespace: &str,
        kind: Kind,
        name: &str,
    ) -> Result<Option<Value>, Error> {
        if kind == Kind::Tool {
            if let Some(t) = builtin_tools(namespace).into_iter().find(|t| t["name"] == name) {
                return Ok(Some(t));
            }
        }
        let (ns, key) = (namespace.to_string(), name.to_string());
        let doc = self
            .db(FAMILY, move |s| s.get_doc(kind.coll(), &ns, &key))
            .await?;
        Ok(doc.map(|d| entity_of(&d)))
    }

    pub(crate) async fn reg_show(
        &self,
        ctx: &CallContext,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Value, Error> {
        let ns = namespace_of(namespace);
        let what = format!("{} `{name}`", kind.label());
        require(ctx, &ns, Access::Reader, FAMILY, &what)?;
        self.reg_get(&ns, kind, name)
            .await?
            .ok_or_else(|| FAMILY.not_found(&what))
    }

    pub(crate) async fn reg_list(
        &self,
        ctx: &CallContext,
        kind: Kind,
        namespace: Option<&str>,
        filter: Option<&str>,
        cursor: Option<&str>,
        limit: Option<i32>,
    ) -> Result<(Vec<Value>, Option<String>), Error> {
        let ns = namespace_of(namespace);
        if !util::can_read(ctx, &ns) {
            return Err(FAMILY.not_found(&format!("namespace `{ns}`")));
        }
        let limit = match limit {
            None | Some(0) => 50,
            Some(n) if (1..=500).contains(&n) => n as usize,
            Some(_) => return Err(FAMILY.invalid_params("limit", "must be between 1 and 500")),
        };
        let filter = filter.unwrap_or_default().to_lowercase();
        let mut items: Vec<Value> = if kind == Kind::Tool {
            builtin_tools(&ns)
        } else {
            vec![]
        };
        let ns2 = ns.clone();
        let docs = self
            .db(FAMILY, move |s| {
                s.list_docs(kind.coll(), &ns2, "", None, usize::MAX)
            })
            .await?;
        items.extend(docs.iter().map(entity_of));
        items.retain(|v| {
            let name = v["name"].as_str().unwrap_or_default();
            let matches = filter.is_empty()
                || name.to_lowercase().contains(&filter)
                || v["description"]
                    .as_str()
                    .unwrap_or_default()
                    .to_lowercase()
                    .contains(&filter);
            matches && cursor.is_none_or(|c| c.is_empty() || name > c)
        });
        items.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        let next =
            (items.len() > limit).then(|| items[limit - 1]["name"].as_str().unwrap_or_default().to_string());
        items.truncate(limit);
        Ok((items, next))
    }

    pub(crate) async fn reg_add(
        &self,
        ctx: &CallContext,
        kind: Kind,
        namespace: Option<&str>,
        spec: Value,
    ) -> Result<Value, Error> {
        let ns = namespace_of(namespace);
        let name = spec["name"].as_str().unwrap_or_default().to_string();
        require(
            ctx,
            &ns,
            Access::Writer,
            FAMILY,
            &format!("{} `{name}`", kind.label()),
        )?;
        check_name(&name)?;
        if kind == Kind::Tool && builtin_tools(&ns).iter().any(|t| t["name"] == name.as_str()) {
            return Err(Error::new(
                ErrorKind::ExtAlreadyExists,
                format!("Tool `{name}` is built in"),
            ));
        }
        let now = util::now();
        let mut entity: Map<String, Value> = spec.as_object().cloned().unwrap_or_default();
        entity.insert("namespace".into(), json!(ns));
        entity.insert("createdAt".into(), json!(now));
        entity.insert("updatedAt".into(), json!(now));
        let mut docs = vec![];
        match kind {
            Kind::Tool => {
                entity.insert("builtin".into(), json!(false));
            }
            Kind::Project => {
                let files = entity
                    .remove("files")
                    .and_then(|f| f.as_array().cloned())
                    .unwrap_or_default();
                check_files(&files)?;
                entity.insert("files".into(), json!(file_infos(&files)));
                entity.insert("currentRevision".into(), json!(1));
                docs.push(DocWrite::put(
                    PROJECT_REV,
                    &ns,
                    &revision_key(&name, 1),
                    Expect::Absent,
                    json!({ "revision": 1, "origin": "PROJECT_REVISION_ORIGIN_CREATED", "createdAt": now,
                            "files": files, "changes": files.iter().map(|f| json!({"path": f["path"], "change": "FILE_CHANGE_KIND_ADDED"})).collect::<Vec<_>>() }),
                ));
            }
            _ => {}
        }
        docs.insert(
            0,
            DocWrite::put(kind.coll(), &ns, &name, Expect::Absent, Value::Object(entity)),
        );
        let commit = Commit { task: None, docs };
        match self.db_raw(move |s| s.commit(&commit)).await {
            Ok(_) => {}
            Err(StoreError::Conflict { .. }) => {
                return Err(Error::new(
                    ErrorKind::ExtAlreadyExists,
                    format!("{} `{name}` already exists in namespace `{ns}`", kind.label()),
                ))
            }
            Err(e) => return Err(FAMILY.internal(e.to_string())),
        }
        self.reg_get(&ns, kind, &name)
            .await?
            .ok_or_else(|| FAMILY.internal("entity vanished after commit"))
    }

    pub(crate) async fn reg_update(
        &self,
        ctx: &CallContext,
        kind: Kind,
        namespace: Option<&str>,
        expected_version: i64,
        spec: Value,
    ) -> Result<Value, Error> {
        let ns = namespace_of(namespace);
        let name = spec["name"].as_str().unwrap_or_default().to_string();
        let what = format!("{} `{name}`", kind.label());
        require(ctx, &ns, Access::Writer, FAMILY, &what)?;
        check_name(&name)?;
        if kind == Kind::Tool && builtin_tools(&ns).iter().any(|t| t["name"] == name.as_str()) {
            return Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!("Tool `{name}` is built in and cannot change"),
            ));
        }
        let current = self
            .reg_get(&ns, kind, &name)
            .await?
            .ok_or_else(|| FAMILY.not_found(&what))?;
        let expected = u64::try_from(expected_version)
            .map_err(|_| FAMILY.invalid_params("expectedVersion", "must be positive"))?;
        let mut entity: Map<String, Value> = spec.as_object().cloned().unwrap_or_default();
        for keep in ["namespace", "createdAt", "origin", "builtin", "currentRevision"] {
            if let Some(v) = current.get(keep) {
                entity.insert(keep.into(), v.clone());
            }
        }
        let now = util::now();
        entity.insert("updatedAt".into(), json!(now));
        let mut docs = vec![];
        if kind == Kind::Project {
            match entity.remove("files").and_then(|f| f.as_array().cloned()) {
                Some(files) => {
                    check_files(&files)?;
                    let (rev, old) = self.project_files(&ns, &name, None).await?;
                    let next = rev + 1;
                    entity.insert("files".into(), json!(file_infos(&files)));
                    entity.insert("currentRevision".into(), json!(next));
                    docs.push(DocWrite::put(
                        PROJECT_REV,
                        &ns,
                        &revision_key(&name, next),
                        Expect::Absent,
                        json!({ "revision": next, "parentRevision": rev, "origin": "PROJECT_REVISION_ORIGIN_UPDATED",
                                "createdAt": now, "files": files, "changes": changes(&old, &files) }),
                    ));
                }
                None => {
                    entity.insert("files".into(), current.get("files").cloned().unwrap_or(json!([])));
                }
            }
        }
        docs.insert(
            0,
            DocWrite::put(
                kind.coll(),
                &ns,
                &name,
                Expect::Version(expected),
                Value::Object(entity),
            ),
        );
        let commit = Commit { task: None, docs };
        match self.db_raw(move |s| s.commit(&commit)).await {
            Ok(_) => {}
            Err(StoreError::Conflict {
                index: Some(0),
                found,
            }) => return Err(conflict(kind, &name, expected_version, found)),
            Err(StoreError::Conflict { .. }) => {
                return Err(Error::new(
                    ErrorKind::ExtInvalidState,
                    format!("{what} changed concurrently; retry"),
                ))
            }
            Err(e) => return Err(FAMILY.internal(e.to_string())),
        }
        self.reg_get(&ns, kind, &name)
            .await?
            .ok_or_else(|| FAMILY.internal("entity vanished after commit"))
    }

    pub(crate) async fn reg_remove(
        &self,
        ctx: &CallContext,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        expected_version: i64,
    ) -> Result<a2a::types::RegistryRemoveResult, Error> {
        let ns = namespace_of(namespace);
        let what = format!("{} `{name}`", kind.label());
        require(ctx, &ns, Access::Writer, FAMILY, &what)?;
        if kind == Kind::Tool && builtin_tools(&ns).iter().any(|t| t["name"] == name) {
            return Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!("Tool `{name}` is built in and cannot be removed"),
            ));
        }
        let expected = u64::try_from(expected_version)
            .map_err(|_| FAMILY.invalid_params("expectedVersion", "must be positive"))?;
        let commit = Commit {
            task: None,
            docs: vec![DocWrite::delete(
                kind.coll(),
                &ns,
                name,
                Expect::Version(expected),
            )],
        };
        match self.db_raw(move |s| s.commit(&commit)).await {
            Ok(_) => Ok(a2a::types::RegistryRemoveResult {
                namespace: ns,
                name: name.to_string(),
                removed_version: expected_version,
            }),
            Err(StoreError::Conflict { found, .. }) => Err(conflict(kind, name, expected_version, found)),
            Err(e) => Err(FAMILY.internal(e.to_string())),
        }
    }

    /// The files of a project at `revision` (current when `None`).
    pub(crate) async fn project_files(
        &self,
        namespace: &str,
        project: &str,
        revision: Option<i64>,
    ) -> Result<(i64, Vec<Value>), Error> {
        let entity = self
            .reg_get(namespace, Kind::Project, project)
            .await?
            .ok_or_else(|| FAMILY.not_found(&format!("Project `{project}`")))?;
        let rev = revision.unwrap_or_else(|| entity["currentRevision"].as_i64().unwrap_or(1));
        let (ns, key) = (namespace.to_string(), revision_key(project, rev));
        let doc = self
            .db(FAMILY, move |s| s.get_doc(PROJECT_REV, &ns, &key))
            .await?;
        let files = doc
            .and_then(|d| d.value.get("files").and_then(Value::as_array).cloned())
            .ok_or_else(|| FAMILY.not_found(&format!("revision {rev} of project `{project}`")))?;
        Ok((rev, files))
    }
}

/// The file changes from `old` to `new`.
pub fn changes(old: &[Value], new: &[Value]) -> Vec<Value> {
    let mut out = vec![];
    for f in new {
        match old.iter().find(|o| o["path"] == f["path"]) {
            None => out.push(json!({ "path": f["path"], "change": "FILE_CHANGE_KIND_ADDED" })),
            Some(o) if file_bytes(o) != file_bytes(f) || o["mediaType"] != f["mediaType"] => {
                out.push(json!({ "path": f["path"], "change": "FILE_CHANGE_KIND_MODIFIED" }))
            }
            Some(_) => {}
        }
    }
    for o in old {
        if !new.iter().any(|f| f["path"] == o["path"]) {
            out.push(json!({ "path": o["path"], "change": "FILE_CHANGE_KIND_DELETED" }));
        }
    }
    out
}
