//! The registry: every kind the schema declares (`_cleveragents/registry/{kind}/…`),
//! in one generic implementation over the generated
//! [`a2a::registry::RegistryEntity`] trait, so no kind is listed here.
//!
//! An entity is its spec plus `namespace`, `createdAt` and `updatedAt`, stored as
//! a document in the collection named after its kind whose store version is the
//! entity version (so optimistic concurrency is the store's own check). Names
//! are unique per namespace and kind. Two kinds add a rule of their own: tools
//! (the built-in ones, [`builtin`]) and projects (versioned file trees,
//! [`projects`]).

pub mod builtin;
pub mod projects;

use crate::limits::DomainLimits;
use crate::store::{Commit, Doc, DocWrite, Expect, Internal, StoreError, StoreHandle};
use crate::util::{self, Family};
use a2a::registry::{RegistryEntity, RegistryOperation};
use a2a::rpc::Error;
use a2a::types::{ProjectRevisionOrigin, RegistryKind, RegistryListParams, RegistryRemoveResult};
use a2a::ErrorKind;
pub use builtin::{builtin_tool, builtin_tools};
pub use projects::{changes, file_bytes, file_infos, file_size, hex, revision_key, RevisionDoc, PROJECT_REV};
use serde_json::{json, Map, Value};

const FAMILY: Family = Family::Ext;

/// Page size of a list without `limit`, and the largest one allowed.
const DEFAULT_PAGE: usize = 50;
const MAX_PAGE: i32 = 500;

/// Entity fields the server keeps across updates (the client cannot write them).
const SERVER_KEPT: [&str; 5] = ["namespace", "createdAt", "origin", "builtin", "currentRevision"];

/// The registry service.
#[derive(Clone)]
pub struct Registry {
    db: StoreHandle,
    limits: DomainLimits,
}

impl Registry {
    pub fn new(db: StoreHandle, limits: DomainLimits) -> Self {
        Registry { db, limits }
    }

    /// Checks what an entity of `kind` would be stored as: its spec without
    /// files against the entity bound, and a project's files against the
    /// project bounds (paths as [`projects::check_files`] requires).
    pub fn check_bounds(
        &self,
        kind: RegistryKind,
        field: &str,
        spec: &Map<String, Value>,
        files: Option<&[Value]>,
    ) -> Result<(), Error> {
        self.limits.check_entity(FAMILY, field, spec)?;
        if let (RegistryKind::Project, Some(files)) = (kind, files) {
            projects::check_files(files, field)?;
            self.limits
                .check_project_files(FAMILY, field, files.iter().map(file_size))?;
        }
        Ok(())
    }

    /// The entity `name` of `kind` as its JSON, or `None`.
    pub async fn get(&self, namespace: &str, kind: RegistryKind, name: &str) -> Result<Option<Value>, Error> {
        if kind == RegistryKind::Tool {
            if let Some(tool) = builtin_tool(namespace, name) {
                return util::to_json(&tool, FAMILY).map(Some);
            }
        }
        let (ns, key, coll) = (namespace.to_string(), name.to_string(), kind.descriptor().name);
        let doc = self.db.store().get_doc(coll, &ns, &key).await.internal(FAMILY)?;
        Ok(doc.map(|d| entity_of(&d)))
    }

    /// The entity `name` of kind `E`, or `None`.
    pub async fn find<E: RegistryEntity>(&self, namespace: &str, name: &str) -> Result<Option<E>, Error> {
        match self.get(namespace, E::KIND, name).await? {
            Some(value) => util::from_json(value, FAMILY).map(Some),
            None => Ok(None),
        }
    }

    /// The entity `name` of kind `E`; not found is ExtNotFound.
    pub async fn show<E: RegistryEntity>(&self, namespace: &str, name: &str) -> Result<E, Error> {
        self.find(namespace, name)
            .await?
            .ok_or_else(|| FAMILY.not_found(&what(E::KIND, name)))
    }

    /// One page of the entities of kind `E`, ordered by name, filtered by a
    /// case-insensitive substring of the name or description.
    pub async fn list<E: RegistryEntity>(
        &self,
        namespace: &str,
        params: RegistryListParams,
    ) -> Result<E::List, Error> {
        let limit = match params.limit {
            None | Some(0) => DEFAULT_PAGE,
            Some(n) if (1..=MAX_PAGE).contains(&n) => n as usize,
            Some(_) => return Err(FAMILY.invalid_params("limit", "must be between 1 and 500")),
        };
        let filter = params.filter.unwrap_or_default().to_lowercase();
        let cursor = params.cursor.filter(|c| !c.is_empty());
        let mut items: Vec<Value> = match E::KIND {
            RegistryKind::Tool => builtin_tools(namespace).iter().map(|t| json!(t)).collect(),
            _ => vec![],
        };
        let (ns, coll) = (namespace.to_string(), E::descriptor().name);
        let docs = self
            .db
            .store()
            .list_docs(coll, &ns, "", None, usize::MAX)
            .await
            .internal(FAMILY)?;
        items.extend(docs.iter().map(entity_of));
        let text = |v: &Value, field: &str| v[field].as_str().unwrap_or_default().to_lowercase();
        items.retain(|v| {
            let name = v["name"].as_str().unwrap_or_default();
            let matches = filter.is_empty()
                || text(v, "name").contains(&filter)
                || text(v, "description").contains(&filter);
            matches && cursor.as_deref().is_none_or(|c| name > c)
        });
        items.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        let next =
            (items.len() > limit).then(|| items[limit - 1]["name"].as_str().unwrap_or_default().to_string());
        items.truncate(limit);
        let items = items
            .into_iter()
            .map(|v| util::from_json(v, FAMILY))
            .collect::<Result<Vec<E>, Error>>()?;
        Ok(E::page(items, next))
    }

    /// Creates an entity of kind `E` at version 1.
    pub async fn add<E: RegistryEntity>(&self, namespace: &str, spec: E::Spec) -> Result<E, Error> {
        let mut entity = spec_object(&spec)?;
        let name = entity_name(&entity)?;
        let kind = E::KIND;
        builtin::refuse_builtin(kind, namespace, &name, RegistryOperation::Add)?;
        let files = (kind == RegistryKind::Project).then(|| take_files(&mut entity).unwrap_or_default());
        self.check_bounds(kind, E::descriptor().spec_field, &entity, files.as_deref())?;
        let now = util::now();
        entity.insert("namespace".into(), json!(namespace));
        entity.insert("createdAt".into(), json!(now));
        entity.insert("updatedAt".into(), json!(now));
        let mut docs = vec![];
        match kind {
            RegistryKind::Tool => {
                entity.insert("builtin".into(), json!(false));
            }
            RegistryKind::Project => {
                let files = files.unwrap_or_default();
                entity.insert("files".into(), json!(file_infos(&files)));
                entity.insert("currentRevision".into(), json!(1));
                let revision = RevisionDoc {
                    revision: 1,
                    parent_revision: None,
                    origin: ProjectRevisionOrigin::Created,
                    plan_id: None,
                    message: None,
                    created_at: &now,
                    changes: changes(&[], &files),
                    files: &files,
                };
                docs.push(revision.write(namespace, &name)?);
            }
            _ => {}
        }
        docs.insert(
            0,
            DocWrite::put(
                kind.descriptor().name,
                namespace,
                &name,
                Expect::Absent,
                Value::Object(entity),
            ),
        );
        match self
            .db
            .commit(Commit {
                task: None,
                docs,
                ..Commit::default()
            })
            .await
        {
            Ok(_) => {}
            Err(StoreError::Conflict { .. }) => {
                return Err(Error::new(
                    ErrorKind::ExtAlreadyExists,
                    format!("{} already exists in namespace `{namespace}`", what(kind, &name)),
                ))
            }
            Err(e) => return Err(FAMILY.internal(e.to_string())),
        }
        self.stored(namespace, &name).await
    }

    /// Replaces the client-writable fields of an entity of kind `E` at
    /// `expected_version`, which becomes the next version.
    pub async fn update<E: RegistryEntity>(
        &self,
        namespace: &str,
        expected_version: i64,
        spec: E::Spec,
    ) -> Result<E, Error> {
        let mut entity = spec_object(&spec)?;
        let name = entity_name(&entity)?;
        let kind = E::KIND;
        builtin::refuse_builtin(kind, namespace, &name, RegistryOperation::Update)?;
        let files = if kind == RegistryKind::Project {
            take_files(&mut entity)
        } else {
            None
        };
        self.check_bounds(kind, E::descriptor().spec_field, &entity, files.as_deref())?;
        let current = self
            .get(namespace, kind, &name)
            .await?
            .ok_or_else(|| FAMILY.not_found(&what(kind, &name)))?;
        let expected = positive(expected_version)?;
        for keep in SERVER_KEPT {
            if let Some(v) = current.get(keep) {
                entity.insert(keep.into(), v.clone());
            }
        }
        let now = util::now();
        entity.insert("updatedAt".into(), json!(now));
        let mut docs = vec![];
        if kind == RegistryKind::Project {
            match files {
                Some(files) => {
                    let (revision, old) = self.project_files(namespace, &name, None).await?;
                    let next = revision + 1;
                    entity.insert("files".into(), json!(file_infos(&files)));
                    entity.insert("currentRevision".into(), json!(next));
                    let doc = RevisionDoc {
                        revision: next,
                        parent_revision: Some(revision),
                        origin: ProjectRevisionOrigin::Updated,
                        plan_id: None,
                        message: None,
                        created_at: &now,
                        changes: changes(&old, &files),
                        files: &files,
                    };
                    docs.push(doc.write(namespace, &name)?);
                }
                None => {
                    entity.insert("files".into(), current.get("files").cloned().unwrap_or(json!([])));
                }
            }
        }
        docs.insert(
            0,
            DocWrite::put(
                kind.descriptor().name,
                namespace,
                &name,
                Expect::Version(expected),
                Value::Object(entity),
            ),
        );
        match self
            .db
            .commit(Commit {
                task: None,
                docs,
                ..Commit::default()
            })
            .await
        {
            Ok(_) => {}
            Err(StoreError::Conflict {
                index: Some(0),
                found,
            }) => return Err(conflict(kind, &name, expected_version, found)),
            Err(StoreError::Conflict { .. }) => {
                return Err(Error::new(
                    ErrorKind::ExtInvalidState,
                    format!("{} changed concurrently; retry", what(kind, &name)),
                ))
            }
            Err(e) => return Err(FAMILY.internal(e.to_string())),
        }
        self.stored(namespace, &name).await
    }

    /// Removes the entity `name` of kind `E` at `expected_version`.
    pub async fn remove<E: RegistryEntity>(
        &self,
        namespace: &str,
        name: &str,
        expected_version: i64,
    ) -> Result<RegistryRemoveResult, Error> {
        let kind = E::KIND;
        builtin::refuse_builtin(kind, namespace, name, RegistryOperation::Remove)?;
        let expected = positive(expected_version)?;
        let delete = DocWrite::delete(kind.descriptor().name, namespace, name, Expect::Version(expected));
        let commit = Commit {
            task: None,
            docs: vec![delete],
            ..Commit::default()
        };
        match self.db.commit(commit).await {
            Ok(_) => Ok(RegistryRemoveResult {
                namespace: namespace.to_string(),
                name: name.to_string(),
                removed_version: expected_version,
            }),
            Err(StoreError::Conflict { found, .. }) => Err(conflict(kind, name, expected_version, found)),
            Err(e) => Err(FAMILY.internal(e.to_string())),
        }
    }

    /// The files of a project at `revision` (the current one when `None`).
    pub async fn project_files(
        &self,
        namespace: &str,
        project: &str,
        revision: Option<i64>,
    ) -> Result<(i64, Vec<Value>), Error> {
        let entity = self
            .get(namespace, RegistryKind::Project, project)
            .await?
            .ok_or_else(|| FAMILY.not_found(&what(RegistryKind::Project, project)))?;
        let revision = revision.unwrap_or_else(|| entity["currentRevision"].as_i64().unwrap_or(1));
        let (ns, key) = (namespace.to_string(), revision_key(project, revision));
        let doc = self
            .db
            .store()
            .get_doc(PROJECT_REV, &ns, &key)
            .await
            .internal(FAMILY)?;
        let files = doc
            .and_then(|d| d.value.get("files").and_then(Value::as_array).cloned())
            .ok_or_else(|| FAMILY.not_found(&format!("revision {revision} of project `{project}`")))?;
        Ok((revision, files))
    }

    /// An entity just committed.
    async fn stored<E: RegistryEntity>(&self, namespace: &str, name: &str) -> Result<E, Error> {
        self.find(namespace, name)
            .await?
            .ok_or_else(|| FAMILY.internal("entity vanished after commit"))
    }
}

/// "Resource type `x`": how messages name an entity.
pub fn what(kind: RegistryKind, name: &str) -> String {
    format!("{} `{name}`", kind.descriptor().label)
}

/// The entity JSON of a stored document: its value plus the store version.
fn entity_of(doc: &Doc) -> Value {
    let mut value = doc.value.clone();
    if let Some(obj) = value.as_object_mut() {
        obj.insert("version".into(), json!(doc.version));
    }
    value
}

fn spec_object<S: serde::Serialize>(spec: &S) -> Result<Map<String, Value>, Error> {
    match util::to_json(spec, FAMILY)? {
        Value::Object(object) => Ok(object),
        _ => Err(FAMILY.internal("a spec is not an object")),
    }
}

/// The entity's name, checked: 1 to 200 characters without `/` or control characters.
fn entity_name(entity: &Map<String, Value>) -> Result<String, Error> {
    let name = entity.get("name").and_then(Value::as_str).unwrap_or_default();
    if name.is_empty() || name.len() > 200 || name.contains('/') || name.chars().any(char::is_control) {
        return Err(FAMILY.invalid_params(
            "name",
            "must be 1 to 200 characters without '/' or control characters",
        ));
    }
    Ok(name.to_string())
}

/// The `files` of a project spec, taken out of the entity (it stores infos).
fn take_files(entity: &mut Map<String, Value>) -> Option<Vec<Value>> {
    entity.remove("files").and_then(|f| f.as_array().cloned())
}

fn positive(expected_version: i64) -> Result<u64, Error> {
    u64::try_from(expected_version).map_err(|_| FAMILY.invalid_params("expectedVersion", "must be positive"))
}

fn conflict(kind: RegistryKind, name: &str, expected: i64, found: Option<u64>) -> Error {
    match found {
        None => FAMILY.not_found(&what(kind, name)),
        Some(found) => Error::new(
            ErrorKind::ExtInvalidState,
            format!(
                "{} is at version {found}, not the expected {expected}",
                what(kind, name)
            ),
        )
        .with_metadata("currentVersion", found.to_string()),
    }
}
