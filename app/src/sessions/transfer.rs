//! Moving a session between instances: the export document (format
//! `urn:cleveragents:session-export`, version 1) and its checks on import.
//! Every part carries the SHA-256 of its canonical JSON (object keys sorted,
//! no whitespace), so a document changed after export is refused before
//! anything is created.

use super::{plan_links, SessionRecord, FAMILY};
use crate::store::{Commit, StoreError, StoreHandle, TaskRow, TaskWrite};
use crate::util::{self, to_json};
use a2a::rpc::Error;
use a2a::types::{SessionExport, SessionExportFormat, SessionExportSession, SessionExportTask, Task};
use a2a::ErrorKind;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The version of the document format this server writes and reads.
const FORMAT_VERSION: i32 = 1;

/// The export document of a session whose tasks are `rows` (newest first).
pub(super) fn export(record: &SessionRecord, rows: &[TaskRow]) -> Result<SessionExport, Error> {
    let session = SessionExportSession {
        id: record.id.clone(),
        title: record.title.clone(),
        metadata: record.metadata.clone(),
        created_at: record.created_at.clone(),
    };
    let mut tasks = Vec::with_capacity(rows.len());
    for row in rows.iter().rev() {
        tasks.push(SessionExportTask {
            task_sha256: checksum(&to_json(&row.body, FAMILY)?),
            task: row.body.clone(),
        });
    }
    Ok(SessionExport {
        format: SessionExportFormat::UrnCleveragentsSessionExport,
        format_version: FORMAT_VERSION,
        exported_at: util::now(),
        session_sha256: checksum(&to_json(&session, FAMILY)?),
        session,
        tasks,
        plans: plan_links(rows),
    })
}

/// Checks a document: its version, every checksum and that each task is of
/// the session; the session record and its tasks (oldest first) to recreate.
pub(super) fn check(document: SessionExport) -> Result<(SessionRecord, Vec<Task>), Error> {
    if document.format_version != FORMAT_VERSION {
        return Err(FAMILY.invalid_params(
            "document.formatVersion",
            &format!(
                "version {} is not supported (this server reads {FORMAT_VERSION})",
                document.format_version
            ),
        ));
    }
    if checksum(&to_json(&document.session, FAMILY)?) != document.session_sha256 {
        return Err(FAMILY.invalid_params(
            "document.sessionSha256",
            "does not match the session: the document was changed after export",
        ));
    }
    let session = document.session;
    let mut tasks = Vec::with_capacity(document.tasks.len());
    for (index, exported) in document.tasks.into_iter().enumerate() {
        if checksum(&to_json(&exported.task, FAMILY)?) != exported.task_sha256 {
            return Err(FAMILY.invalid_params(
                &format!("document.tasks[{index}].taskSha256"),
                &format!(
                    "does not match task {}: the document was changed after export",
                    exported.task.id
                ),
            ));
        }
        if exported.task.context_id.as_deref() != Some(session.id.as_str()) {
            return Err(FAMILY.invalid_params(
                &format!("document.tasks[{index}].task.contextId"),
                "must be the session id",
            ));
        }
        if tasks.iter().any(|t: &Task| t.id == exported.task.id) {
            return Err(FAMILY.invalid_params(&format!("document.tasks[{index}].task.id"), "appears twice"));
        }
        tasks.push(exported.task);
    }
    let record = SessionRecord {
        id: session.id,
        title: session.title,
        metadata: session.metadata,
        created_at: session.created_at,
    };
    Ok((record, tasks))
}

/// Creates the session's tasks in `ns`, oldest first, as their stored form
/// (history and artifacts kept; no events: they happened elsewhere).
pub(super) async fn recreate(
    db: &StoreHandle,
    ns: &str,
    record: &SessionRecord,
    tasks: Vec<Task>,
) -> Result<(), Error> {
    let mut created: Vec<String> = Vec::with_capacity(tasks.len());
    for task in tasks {
        let id = task.id.clone();
        let write = TaskWrite {
            row: TaskRow::new(ns, task, 0),
            create: true,
            expected_last_seq: 0,
            events: vec![],
        };
        let outcome = db
            .commit(Commit {
                task: Some(write),
                ..Commit::default()
            })
            .await;
        if let Err(e) = outcome {
            // A task id taken since the checks (or in another namespace):
            // undo what this import created, so it leaves nothing behind.
            let _ = db.delete_tasks(ns, created, vec![]).await;
            return Err(match e {
                StoreError::Conflict { .. } => Error::new(
                    ErrorKind::ExtAlreadyExists,
                    format!("Task {id} of session {} already exists", record.id),
                ),
                other => FAMILY.internal(other.to_string()),
            });
        }
        created.push(id);
    }
    Ok(())
}

/// Lowercase hex SHA-256 of `value`'s canonical JSON.
pub(super) fn checksum(value: &Value) -> String {
    let mut text = String::new();
    canonical(value, &mut text);
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `value` with object keys sorted and no whitespace.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_checksum_is_of_sorted_keys_without_whitespace() {
        let value = json!({ "c": { "d": "é" }, "b": [true, null], "a": 1 });
        let mut text = String::new();
        canonical(&value, &mut text);
        assert_eq!(text, r#"{"a":1,"b":[true,null],"c":{"d":"é"}}"#);
        assert_eq!(
            checksum(&value),
            "434dff3222b93c659b5a618c43cf36f50414c76403e40fe4c57dff53deff9706"
        );
    }
}
