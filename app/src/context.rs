//! Context (`_cleveragents/context/{show,inspect,simulate,set}`): which
//! project files and registry resources plans on a project see, with token
//! estimates (`ceil(UTF-8 bytes / 4)`, 0 for binary content) and a budget.
//!
//! A project's settings are a document of the `context-settings` collection
//! keyed by the project name, written in the same commit as a version bump of
//! the project entity (so changing them increments the project's version).
//! The document remembers the project's `createdAt`, so settings of a removed
//! project never apply to a new project of the same name. A project without
//! settings uses [`default_settings`].
//!
//! Include and exclude are path globs ([`crate::glob`]); `context/set` refuses
//! one that does not compile.

use crate::glob;
use crate::registry::file_bytes;
use crate::registry::Registry;
use crate::store::StoreHandle;
use crate::store::{Commit, DocWrite, Expect, Internal, StoreError};
use crate::util::{self, namespace, Family};
use a2a::rpc::{CallContext, Error};
use a2a::types::RegistryKind;
use a2a::types::{
    ContextExclusionReason, ContextInspectParams, ContextInspection, ContextItem, ContextItemKind,
    ContextReport, ContextSetParams, ContextSettings, ContextShowParams, ContextSimulateParams,
    ContextSimulation,
};
use a2a::ErrorKind;
use globset::GlobSet;
use serde_json::{json, Value};

const FAMILY: Family = Family::Ext;

/// Document collection of context settings; key: the project name.
pub const COLL: &str = "context-settings";

/// Token budget of a project that has no saved settings.
pub const DEFAULT_MAX_TOKENS: i64 = 100_000;

/// The settings of a project that has none saved: every file, no resources.
pub fn default_settings() -> ContextSettings {
    ContextSettings {
        include: vec!["**".into()],
        exclude: vec![],
        resources: vec![],
        max_tokens: DEFAULT_MAX_TOKENS,
    }
}

/// Estimated tokens of `bytes` bytes of text: `ceil(bytes / 4)`.
pub fn estimate_tokens(bytes: usize) -> i64 {
    i64::try_from(bytes.div_ceil(4)).unwrap_or(i64::MAX)
}

/// The include and exclude globs of settings, compiled once per report.
struct Filter {
    include: GlobSet,
    exclude: GlobSet,
}

impl Filter {
    fn of(settings: &ContextSettings) -> Filter {
        Filter {
            include: glob::any_of(&settings.include),
            exclude: glob::any_of(&settings.exclude),
        }
    }
}

/// One candidate item with its content (`None` when binary).
struct Candidate {
    item: ContextItem,
    text: Option<String>,
}

fn file_candidate(file: &Value, filter: &Filter) -> Candidate {
    let path = file["path"].as_str().unwrap_or_default().to_string();
    let bytes = file_bytes(file);
    let text = match file.get("text").and_then(Value::as_str) {
        Some(text) => Some(text.to_string()),
        None => String::from_utf8(bytes.clone()).ok(),
    };
    let reason = if !filter.include.is_match(&path) {
        Some(ContextExclusionReason::NotIncluded)
    } else if filter.exclude.is_match(&path) {
        Some(ContextExclusionReason::ExcludedByPattern)
    } else if text.is_none() {
        Some(ContextExclusionReason::Binary)
    } else {
        None
    };
    Candidate {
        item: ContextItem {
            kind: ContextItemKind::File,
            name: path,
            media_type: file["mediaType"]
                .as_str()
                .unwrap_or("application/octet-stream")
                .to_string(),
            included: reason.is_none(),
            exclusion_reason: reason,
            size_bytes: i64::try_from(bytes.len()).unwrap_or(i64::MAX),
            estimated_tokens: if text.is_some() {
                estimate_tokens(bytes.len())
            } else {
                0
            },
        },
        text,
    }
}

/// A resource as the plan sees it: its text, else its data as JSON.
fn resource_candidate(resource: &Value, listed: bool) -> Candidate {
    let name = resource["name"].as_str().unwrap_or_default().to_string();
    let (text, default_type) = match (resource.get("text").and_then(Value::as_str), resource.get("data")) {
        (Some(text), _) => (text.to_string(), "text/plain"),
        (None, Some(data)) => (data.to_string(), "application/json"),
        (None, None) => (String::new(), "text/plain"),
    };
    Candidate {
        item: ContextItem {
            kind: ContextItemKind::Resource,
            name,
            media_type: resource["mediaType"].as_str().unwrap_or(default_type).to_string(),
            included: listed,
            exclusion_reason: (!listed).then_some(ContextExclusionReason::NotIncluded),
            size_bytes: i64::try_from(text.len()).unwrap_or(i64::MAX),
            estimated_tokens: estimate_tokens(text.len()),
        },
        text: Some(text),
    }
}

fn check_settings(settings: &ContextSettings) -> Result<(), Error> {
    if settings.include.len() + settings.exclude.len() > 200 {
        return Err(FAMILY.invalid_params("settings", "at most 200 globs in include and exclude together"));
    }
    if settings.max_tokens < 0 {
        return Err(FAMILY.invalid_params("settings.maxTokens", "must be zero or positive"));
    }
    for (field, globs) in [("include", &settings.include), ("exclude", &settings.exclude)] {
        for (i, glob) in globs.iter().enumerate() {
            if glob.is_empty() || glob.len() > 500 || glob.chars().any(char::is_control) {
                return Err(FAMILY.invalid_params(
                    &format!("settings.{field}[{i}]"),
                    "must be a glob of 1 to 500 characters without control characters",
                ));
            }
            if let Err(e) = glob::path_glob(glob) {
                return Err(FAMILY.invalid_params(
                    &format!("settings.{field}[{i}]"),
                    &format!("is not a valid glob: {}", e.kind()),
                ));
            }
        }
    }
    Ok(())
}

/// What a context is computed from: the project at a revision and its settings.
struct Basis {
    /// The raw stored project document (its value and store version).
    project: crate::store::Doc,
    revision: i64,
    files: Vec<Value>,
    settings: ContextSettings,
    plan_id: Option<String>,
}

/// The context service.
#[derive(Clone)]
pub struct ContextService {
    db: StoreHandle,
    registry: Registry,
}

impl ContextService {
    pub fn new(db: StoreHandle, registry: Registry) -> Self {
        ContextService { db, registry }
    }

    /// Loads the project (at the plan's base revision when `plan_id` is given)
    /// and its saved settings.
    async fn context_basis(&self, ns: &str, project: &str, plan_id: Option<&str>) -> Result<Basis, Error> {
        let what = format!("Project `{project}`");
        let store = self.db.store();
        // Both reads at once: on a networked store they share one round trip.
        let (doc, saved) = tokio::try_join!(
            store.get_doc(RegistryKind::Project.descriptor().name, ns, project),
            store.get_doc(COLL, ns, project),
        )
        .internal(FAMILY)?;
        let doc = doc.ok_or_else(|| FAMILY.not_found(&what))?;
        let plan_id = plan_id.filter(|id| !id.is_empty()).map(str::to_string);
        let revision = match &plan_id {
            None => None,
            Some(id) => {
                let plan = self
                    .db
                    .store()
                    .get_doc(crate::plans::COLL, ns, id)
                    .await
                    .internal(FAMILY)?
                    .filter(|plan| plan.value["plan"]["project"] == project)
                    .ok_or_else(|| FAMILY.not_found(&format!("plan `{id}` of project `{project}`")))?;
                plan.value["plan"]["baseProjectRevision"].as_i64()
            }
        };
        let (revision, files) = self.registry.project_files(ns, project, revision).await?;
        let settings = match saved {
            Some(saved) if saved.value["projectCreatedAt"] == doc.value["createdAt"] => {
                util::from_json(saved.value["settings"].clone(), FAMILY)?
            }
            _ => default_settings(),
        };
        Ok(Basis {
            project: doc,
            revision,
            files,
            settings,
            plan_id,
        })
    }

    /// The listed resources (ExtNotFound for one that does not exist).
    async fn context_resources(&self, ns: &str, names: &[String]) -> Result<Vec<Value>, Error> {
        let mut out: Vec<Value> = vec![];
        for name in names {
            if out.iter().any(|r| r["name"] == name.as_str()) {
                continue;
            }
            let resource = self
                .registry
                .get(ns, RegistryKind::Resource, name)
                .await?
                .ok_or_else(|| FAMILY.not_found(&format!("Resource `{name}`")))?;
            out.push(resource);
        }
        Ok(out)
    }

    /// The context of `basis` under `settings`.
    async fn context_report(
        &self,
        ns: &str,
        project: &str,
        basis: &Basis,
        settings: &ContextSettings,
    ) -> Result<ContextReport, Error> {
        let mut files: Vec<&Value> = basis.files.iter().collect();
        files.sort_by(|a, b| a["path"].as_str().cmp(&b["path"].as_str()));
        let filter = Filter::of(settings);
        let mut items: Vec<ContextItem> = files.iter().map(|f| file_candidate(f, &filter).item).collect();
        for resource in self.context_resources(ns, &settings.resources).await? {
            items.push(resource_candidate(&resource, true).item);
        }
        let total_tokens = items
            .iter()
            .filter(|i| i.included)
            .fold(0i64, |sum, i| sum.saturating_add(i.estimated_tokens));
        Ok(ContextReport {
            project: project.to_string(),
            project_revision: basis.revision,
            plan_id: basis.plan_id.clone(),
            settings: settings.clone(),
            items,
            total_tokens,
            within_budget: total_tokens <= settings.max_tokens,
        })
    }

    pub async fn show(&self, ctx: &CallContext, params: ContextShowParams) -> Result<ContextReport, Error> {
        let ns = namespace(ctx);
        let basis = self
            .context_basis(&ns, &params.project, params.plan_id.as_deref())
            .await?;
        self.context_report(&ns, &params.project, &basis, &basis.settings)
            .await
    }

    pub async fn inspect(
        &self,
        ctx: &CallContext,
        params: ContextInspectParams,
    ) -> Result<ContextInspection, Error> {
        let ns = namespace(ctx);
        let basis = self
            .context_basis(&ns, &params.project, params.plan_id.as_deref())
            .await?;
        let candidate = match params.kind {
            ContextItemKind::File => basis
                .files
                .iter()
                .find(|f| f["path"] == params.name.as_str())
                .map(|f| file_candidate(f, &Filter::of(&basis.settings)))
                .ok_or_else(|| {
                    FAMILY.not_found(&format!(
                        "file `{}` in revision {} of project `{}`",
                        params.name, basis.revision, params.project
                    ))
                })?,
            ContextItemKind::Resource => {
                let resource = self
                    .registry
                    .get(&ns, RegistryKind::Resource, &params.name)
                    .await?
                    .ok_or_else(|| FAMILY.not_found(&format!("Resource `{}`", params.name)))?;
                let listed = basis.settings.resources.contains(&params.name);
                resource_candidate(&resource, listed)
            }
        };
        Ok(ContextInspection {
            project: params.project,
            project_revision: basis.revision,
            item: candidate.item,
            text: candidate.text,
        })
    }

    pub async fn simulate(
        &self,
        ctx: &CallContext,
        params: ContextSimulateParams,
    ) -> Result<ContextSimulation, Error> {
        let ns = namespace(ctx);
        check_settings(&params.settings)?;
        let basis = self
            .context_basis(&ns, &params.project, params.plan_id.as_deref())
            .await?;
        let current = self
            .context_report(&ns, &params.project, &basis, &basis.settings)
            .await?;
        let simulated = self
            .context_report(&ns, &params.project, &basis, &params.settings)
            .await?;
        Ok(ContextSimulation {
            token_delta: simulated.total_tokens.saturating_sub(current.total_tokens),
            current,
            simulated,
        })
    }

    pub async fn set(&self, ctx: &CallContext, params: ContextSetParams) -> Result<ContextReport, Error> {
        let ns = namespace(ctx);
        let project = params.project.clone();
        let what = format!("Project `{project}`");
        check_settings(&params.settings)?;
        let basis = self.context_basis(&ns, &project, None).await?;
        let current_version = basis.project.version;
        if let Some(expected) = params.expected_version {
            if u64::try_from(expected).ok() != Some(current_version) {
                return Err(Error::new(
                    ErrorKind::ExtInvalidState,
                    format!("{what} is at version {current_version}, not the expected {expected}"),
                )
                .with_metadata("currentVersion", current_version.to_string()));
            }
        }
        let report = self
            .context_report(&ns, &project, &basis, &params.settings)
            .await?;
        if !report.within_budget {
            return Err(Error::new(
                ErrorKind::ExtBudgetExceeded,
                format!(
                    "the context would need {} tokens, over the budget of {}; nothing was saved",
                    report.total_tokens, params.settings.max_tokens
                ),
            )
            .with_metadata("totalTokens", report.total_tokens.to_string())
            .with_metadata("maxTokens", params.settings.max_tokens.to_string()));
        }
        let mut entity = basis.project.value.clone();
        if let Some(obj) = entity.as_object_mut() {
            obj.insert("updatedAt".into(), json!(util::now()));
        }
        let saved = json!({
            "projectCreatedAt": basis.project.value["createdAt"],
            "settings": util::to_json(&params.settings, FAMILY)?,
        });
        let commit = Commit {
            task: None,
            docs: vec![
                DocWrite::put(
                    RegistryKind::Project.descriptor().name,
                    &ns,
                    &project,
                    Expect::Version(current_version),
                    entity,
                ),
                DocWrite::put(COLL, &ns, &project, Expect::Any, saved),
            ],
            ..Commit::default()
        };
        match self.db.commit(commit).await {
            Ok(_) => Ok(report),
            Err(StoreError::Conflict { found: None, .. }) => Err(FAMILY.not_found(&what)),
            Err(StoreError::Conflict { .. }) => Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!("{what} changed concurrently; retry"),
            )),
            Err(e) => Err(FAMILY.internal(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_up() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(1), 1);
        assert_eq!(estimate_tokens(4), 1);
        assert_eq!(estimate_tokens(45), 12);
        assert_eq!(estimate_tokens(73), 19);
    }
}
