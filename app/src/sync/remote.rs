//! The remote side of a sync: choosing the configured remote, and reading and
//! writing its registry through the project's own HTTP client, by the method
//! names the schema declares for each kind.

use super::compare::{spec_of, version};
use crate::util::{self, Family};
use a2a::registry::RegistryOperation;
use a2a::rpc::{CallError, Client, Error, Transport};
use a2a::types::{ContextInspectParams, ContextItemKind, RegistryKind, RegistryListParams};
use client::{HttpConfig, HttpTransport};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

const FAMILY: Family = Family::Ext;

/// The name the remote is chosen by when a request names none and several are configured.
const DEFAULT_REMOTE: &str = "default";
/// Largest page the remote is asked for, and how many pages at most.
const PAGE: i32 = 500;
const MAX_PAGES: usize = 1000;

/// One remote, ready to call.
pub struct Remote {
    pub name: String,
    pub url: String,
    client: Client<HttpTransport>,
}

impl Remote {
    /// The remote `requested`, else the one named `default`, else the only one.
    pub fn choose(remotes: &BTreeMap<String, String>, requested: Option<&str>) -> Result<Remote, Error> {
        let name = match requested.filter(|r| !r.is_empty()) {
            Some(name) => name.to_string(),
            None if remotes.contains_key(DEFAULT_REMOTE) => DEFAULT_REMOTE.to_string(),
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
        // The remote's spans join the trace of the sync request (W3C headers).
        if let Some(context) = telemetry::current() {
            config.headers.extend(
                context
                    .fields()
                    .map(|(name, value)| (name.to_string(), value.to_string())),
            );
        }
        let transport = HttpTransport::new(config).map_err(|e| failed(&name, &url, e))?;
        Ok(Remote {
            name,
            url,
            client: Client::new(transport),
        })
    }

    /// The error for a failed remote call.
    pub fn error(&self, error: CallError) -> Error {
        failed(&self.name, &self.url, error)
    }

    /// Every entity of `kind` on the remote (built-in tools left out).
    pub async fn list(&self, ns: &str, kind: RegistryKind) -> Result<Vec<Value>, CallError> {
        let method = kind.descriptor().method(RegistryOperation::List);
        let mut items = vec![];
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = RegistryListParams {
                namespace: Some(ns.to_string()),
                limit: Some(PAGE),
                cursor: cursor.take(),
                filter: None,
            };
            let params = serde_json::to_value(params).map_err(|e| CallError::Decode(e.to_string()))?;
            let page = self.client.transport().call(method, params).await?;
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

    /// The full tree of a remote project, or why it cannot be copied: a pull
    /// reads file contents with `context/inspect`, which carries no content for
    /// binary files.
    pub async fn files(&self, ns: &str, entity: &Value) -> Result<Result<Vec<Value>, String>, Error> {
        let project = entity["name"].as_str().unwrap_or_default();
        let mut files = vec![];
        for info in entity["files"].as_array().into_iter().flatten() {
            let path = info["path"].as_str().unwrap_or_default();
            let inspected = self
                .client
                .context_inspect(ContextInspectParams {
                    namespace: Some(ns.to_string()),
                    project: project.to_string(),
                    plan_id: None,
                    kind: ContextItemKind::File,
                    name: path.to_string(),
                })
                .await
                .map_err(|e| self.error(e))?;
            match inspected.text {
                Some(text) => {
                    files.push(json!({ "path": path, "mediaType": info["mediaType"], "text": text }))
                }
                None => return Ok(Err(format!("binary file `{path}` cannot be synced"))),
            }
        }
        Ok(Ok(files))
    }

    /// Adds (`theirs` absent) or updates the remote copy of `ours`, whose
    /// project tree is `files`; the remote's new version.
    pub async fn write(
        &self,
        ns: &str,
        kind: RegistryKind,
        ours: &Value,
        theirs: Option<&Value>,
        files: Option<Vec<Value>>,
    ) -> Result<i64, Error> {
        let descriptor = kind.descriptor();
        let mut spec = spec_of(kind, ours);
        if let Some(files) = files {
            spec["files"] = json!(files);
        }
        let (method, mut params) = match theirs {
            None => (
                descriptor.method(RegistryOperation::Add),
                json!({ (util::NAMESPACE_FIELD): ns }),
            ),
            Some(t) => (
                descriptor.method(RegistryOperation::Update),
                json!({ (util::NAMESPACE_FIELD): ns, "expectedVersion": version(t) }),
            ),
        };
        params[descriptor.spec_field] = spec;
        let written = self
            .client
            .transport()
            .call(method, params)
            .await
            .map_err(|e| self.error(e))?;
        Ok(version(&written))
    }
}

fn failed(remote: &str, url: &str, error: CallError) -> Error {
    FAMILY.internal(format!("remote `{remote}` ({url}) failed: {error}"))
}
