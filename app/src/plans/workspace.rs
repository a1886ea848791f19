//! A plan's virtual workspace: the files its WRITE_FILE steps wrote
//! (ProjectFile values sorted by path). It lives in the plan record, never on
//! the host filesystem and never in the project before apply; what the plan
//! sees is the project with the workspace written over it.

use crate::registry::file_bytes;
use serde_json::Value;
use std::collections::BTreeMap;

/// `tree` with the `workspace` files written over it, sorted by path.
pub(crate) fn overlay(tree: &[Value], workspace: &[Value]) -> Vec<Value> {
    let mut files: BTreeMap<String, Value> = tree
        .iter()
        .map(|f| (f["path"].as_str().unwrap_or_default().to_string(), f.clone()))
        .collect();
    for f in workspace {
        files.insert(f["path"].as_str().unwrap_or_default().to_string(), f.clone());
    }
    files.into_values().collect()
}

/// Files the workspace would add or modify in `tree`, and their total size.
pub(crate) fn changed_files(tree: &[Value], workspace: &[Value]) -> (i32, i64) {
    let (mut count, mut bytes) = (0i32, 0i64);
    for f in workspace {
        let same = tree
            .iter()
            .find(|o| o["path"] == f["path"])
            .is_some_and(|o| file_bytes(o) == file_bytes(f) && o["mediaType"] == f["mediaType"]);
        if !same {
            count += 1;
            bytes += file_bytes(f).len() as i64;
        }
    }
    (count, bytes)
}

/// The media type a written file gets when its step names none.
pub(crate) fn media_type_of(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("md") => "text/markdown",
        Some("json") => "application/json",
        _ => "text/plain",
    }
}

/// A relative path without empty, `.` or `..` segments or control characters,
/// so a step cannot write outside the project's tree.
pub(crate) fn valid_path(path: &str) -> bool {
    !(path.is_empty()
        || path.starts_with('/')
        || path
            .split('/')
            .any(|seg| seg.is_empty() || seg == "." || seg == "..")
        || path.chars().any(char::is_control))
}
