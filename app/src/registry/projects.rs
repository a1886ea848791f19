//! Projects' own rule: a project is also a versioned virtual file tree. The
//! entity keeps the current tree's file infos and `currentRevision`; every
//! change of its files writes a new immutable revision document (key
//! `{project}/{revision:010}`) in the same commit as the entity.

use crate::store::{DocWrite, Expect};
use crate::util::Family;
use a2a::rpc::Error;
use a2a::types::{FileChangeKind, ProjectFileChange, ProjectFileInfo, ProjectRevisionOrigin};
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const FAMILY: Family = Family::Ext;

/// The collection of project revisions.
pub const PROJECT_REV: &str = "project-revision";

/// The key of a project revision: zero-padded so keys sort by revision.
pub fn revision_key(project: &str, revision: i64) -> String {
    format!("{project}/{revision:010}")
}

/// A stored project revision: the whole tree and what changed from its parent.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RevisionDoc<'a> {
    pub revision: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_revision: Option<i64>,
    pub origin: ProjectRevisionOrigin,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<&'a str>,
    pub created_at: &'a str,
    pub files: &'a [Value],
    pub changes: Vec<Value>,
}

impl RevisionDoc<'_> {
    /// The write that creates this revision of `project` (it must not exist yet).
    pub fn write(&self, namespace: &str, project: &str) -> Result<DocWrite, Error> {
        let value =
            serde_json::to_value(self).map_err(|e| FAMILY.internal(format!("encoding failed: {e}")))?;
        Ok(DocWrite::put(
            PROJECT_REV,
            namespace,
            &revision_key(project, self.revision),
            Expect::Absent,
            value,
        ))
    }
}

/// File infos of a file list (ProjectFile JSON values), ordered by path.
pub fn file_infos(files: &[Value]) -> Vec<Value> {
    let mut infos: Vec<ProjectFileInfo> = files
        .iter()
        .map(|f| {
            let bytes = file_bytes(f);
            ProjectFileInfo {
                path: f["path"].as_str().unwrap_or_default().to_string(),
                media_type: f["mediaType"].as_str().unwrap_or_default().to_string(),
                size_bytes: i64::try_from(bytes.len()).unwrap_or(i64::MAX),
                sha256: hex(&Sha256::digest(&bytes)),
            }
        })
        .collect();
    infos.sort_by(|a, b| a.path.cmp(&b.path));
    infos.iter().map(|info| json!(info)).collect()
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

/// The size of a file's content in bytes, as [`file_bytes`] would decode it,
/// without decoding it.
pub fn file_size(file: &Value) -> usize {
    if let Some(text) = file.get("text").and_then(Value::as_str) {
        return text.len();
    }
    let raw = file.get("raw").and_then(Value::as_str).unwrap_or_default();
    let digits = raw.trim_end_matches('=').len();
    digits / 4 * 3 + (digits % 4).saturating_sub(1)
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks the paths of a tree: relative, no empty, `.` or `..` segments, no
/// control characters, no path twice.
pub fn check_files(files: &[Value], field: &str) -> Result<(), Error> {
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
                &format!("{field}.files[{i}].path"),
                "must be a relative path without empty, '.' or '..' segments",
            ));
        }
        if !seen.insert(path.to_string()) {
            return Err(FAMILY.invalid_params(&format!("{field}.files[{i}].path"), "appears twice"));
        }
    }
    Ok(())
}

/// The file changes from `old` to `new`: added and modified files in `new`'s
/// order, then deleted ones in `old`'s.
pub fn changes(old: &[Value], new: &[Value]) -> Vec<Value> {
    let change = |path: &Value, change: FileChangeKind| {
        json!(ProjectFileChange {
            path: path.as_str().unwrap_or_default().to_string(),
            change,
        })
    };
    let mut out = vec![];
    for f in new {
        match old.iter().find(|o| o["path"] == f["path"]) {
            None => out.push(change(&f["path"], FileChangeKind::Added)),
            Some(o) if file_bytes(o) != file_bytes(f) || o["mediaType"] != f["mediaType"] => {
                out.push(change(&f["path"], FileChangeKind::Modified))
            }
            Some(_) => {}
        }
    }
    for o in old {
        if !new.iter().any(|f| f["path"] == o["path"]) {
            out.push(change(&o["path"], FileChangeKind::Deleted));
        }
    }
    out
}
