//! Moving a session between instances: the export document (format
//! `urn:cleveragents:session-export`) and its checks on import. Every part
//! carries the SHA-256 of its canonical JSON (object keys sorted, no
//! whitespace), so a document changed after export is refused before
//! anything is created.
//!
//! Version 2 carries each task's event log, so an imported task appears in
//! the namespace event stream and its stream resumes by the sequence numbers
//! it had; version 1 documents (tasks without logs) still import, their tasks
//! without events.

use super::{plan_links, SessionRecord, FAMILY};
use crate::store::{Commit, EventRow, StoreError, StoreHandle, TaskRow, TaskWrite};
use crate::util::{self, to_json};
use a2a::rpc::Error;
use a2a::types::{
    SessionExport, SessionExportEvent, SessionExportFormat, SessionExportSession, SessionExportTask,
    StreamResponse, Task,
};
use a2a::ErrorKind;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The version of the document format this server writes.
const FORMAT_VERSION: i32 = 2;
/// The first version, without event logs, which this server still reads.
const FORMAT_VERSION_WITHOUT_EVENTS: i32 = 1;

/// A task to recreate and its event log (empty from a version 1 document).
pub(super) struct Imported {
    pub task: Task,
    pub events: Vec<EventRow>,
}

/// The export document of a session whose tasks are `rows` (newest first),
/// each with its event log in `logs` (same order).
pub(super) fn export(
    record: &SessionRecord,
    rows: &[TaskRow],
    logs: Vec<Vec<EventRow>>,
) -> Result<SessionExport, Error> {
    let session = SessionExportSession {
        id: record.id.clone(),
        title: record.title.clone(),
        metadata: record.metadata.clone(),
        created_at: record.created_at.clone(),
    };
    let mut tasks = Vec::with_capacity(rows.len());
    for (row, log) in rows.iter().zip(logs).rev() {
        let events: Vec<SessionExportEvent> = log
            .into_iter()
            .map(|e| SessionExportEvent {
                seq: i64::try_from(e.seq).unwrap_or(i64::MAX),
                event: e.body,
            })
            .collect();
        tasks.push(SessionExportTask {
            task_sha256: checksum(&to_json(&row.body, FAMILY)?),
            events_sha256: Some(checksum(&to_json(&events, FAMILY)?)),
            events,
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

/// Checks a document: its version, every checksum, that each task is of the
/// session and each event of its task, numbered 1 to n; the session record
/// and its tasks (oldest first) to recreate.
pub(super) fn check(document: SessionExport) -> Result<(SessionRecord, Vec<Imported>), Error> {
    let with_events = match document.format_version {
        FORMAT_VERSION => true,
        FORMAT_VERSION_WITHOUT_EVENTS => false,
        other => {
            return Err(FAMILY.invalid_params(
                "document.formatVersion",
                &format!(
                    "version {other} is not supported (this server reads {FORMAT_VERSION} and {FORMAT_VERSION_WITHOUT_EVENTS})"
                ),
            ))
        }
    };
    if checksum(&to_json(&document.session, FAMILY)?) != document.session_sha256 {
        return Err(FAMILY.invalid_params(
            "document.sessionSha256",
            "does not match the session: the document was changed after export",
        ));
    }
    let session = document.session;
    let mut tasks: Vec<Imported> = Vec::with_capacity(document.tasks.len());
    for (index, exported) in document.tasks.into_iter().enumerate() {
        let at = |field: &str| format!("document.tasks[{index}].{field}");
        if checksum(&to_json(&exported.task, FAMILY)?) != exported.task_sha256 {
            return Err(FAMILY.invalid_params(
                &at("taskSha256"),
                &format!(
                    "does not match task {}: the document was changed after export",
                    exported.task.id
                ),
            ));
        }
        if exported.task.context_id.as_deref() != Some(session.id.as_str()) {
            return Err(FAMILY.invalid_params(&at("task.contextId"), "must be the session id"));
        }
        if tasks.iter().any(|t| t.task.id == exported.task.id) {
            return Err(FAMILY.invalid_params(&at("task.id"), "appears twice"));
        }
        let events = if with_events {
            let Some(sha) = &exported.events_sha256 else {
                return Err(FAMILY.invalid_params(&at("eventsSha256"), "is required in format version 2"));
            };
            if checksum(&to_json(&exported.events, FAMILY)?) != *sha {
                return Err(FAMILY.invalid_params(
                    &at("eventsSha256"),
                    &format!(
                        "does not match the events of task {}: the document was changed after export",
                        exported.task.id
                    ),
                ));
            }
            log_of(&exported.task, exported.events, &session.id, &at)?
        } else {
            if !exported.events.is_empty() || exported.events_sha256.is_some() {
                return Err(FAMILY.invalid_params(&at("events"), "format version 1 carries no events"));
            }
            vec![]
        };
        tasks.push(Imported {
            task: exported.task,
            events,
        });
    }
    let record = SessionRecord {
        id: session.id,
        title: session.title,
        metadata: session.metadata,
        created_at: session.created_at,
    };
    Ok((record, tasks))
}

/// The event log of `task` as stored: numbered 1 to n, each event of this
/// task in this session (`at` names a field of the task's entry).
fn log_of(
    task: &Task,
    events: Vec<SessionExportEvent>,
    session_id: &str,
    at: &dyn Fn(&str) -> String,
) -> Result<Vec<EventRow>, Error> {
    let mut log = Vec::with_capacity(events.len());
    for (i, exported) in events.into_iter().enumerate() {
        let field = |name: &str| at(&format!("events[{i}].{name}"));
        if exported.seq != i as i64 + 1 {
            return Err(FAMILY.invalid_params(
                &field("seq"),
                &format!("must be {}: the events are numbered 1 to n in order", i + 1),
            ));
        }
        let (task_id, context_id) = match &exported.event {
            StreamResponse::Task(t) => (Some(t.id.as_str()), t.context_id.as_deref()),
            StreamResponse::StatusUpdate(u) => (Some(u.task_id.as_str()), Some(u.context_id.as_str())),
            StreamResponse::ArtifactUpdate(u) => (Some(u.task_id.as_str()), Some(u.context_id.as_str())),
            StreamResponse::Message(m) => (m.task_id.as_deref(), m.context_id.as_deref()),
        };
        if task_id.is_some_and(|id| id != task.id) || context_id.is_some_and(|c| c != session_id) {
            return Err(FAMILY.invalid_params(
                &field("event"),
                &format!("is not an event of task {} in this session", task.id),
            ));
        }
        log.push(EventRow {
            seq: i as u64 + 1,
            body: exported.event,
        });
    }
    Ok(log)
}

/// Creates the session's tasks in `ns`, oldest first, as their stored form
/// (history, artifacts and event logs kept; the events take new positions
/// in this store's namespace stream).
pub(super) async fn recreate(
    db: &StoreHandle,
    ns: &str,
    record: &SessionRecord,
    tasks: Vec<Imported>,
) -> Result<(), Error> {
    let mut created: Vec<String> = Vec::with_capacity(tasks.len());
    for Imported { task, events } in tasks {
        let id = task.id.clone();
        let write = TaskWrite {
            row: TaskRow::new(ns, task, events.len() as u64),
            create: true,
            expected_last_seq: 0,
            expected_rank: None,
            events,
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
