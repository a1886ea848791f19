//! What two sides of a sync are compared on, and what a comparison decides.
//!
//! An entity is compared on its spec (the fields a client writes, as the schema
//! declares them for its kind) and, for projects, on the file list (path, media
//! type, SHA-256). After every transfer, or an equal comparison, the pair of
//! versions is remembered as the *base*; a side whose version differs from the
//! base changed since.

use a2a::types::{RegistryKind, SyncOutcome, SyncState};
use serde_json::{json, Map, Value};

/// Which way entities travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Pull,
    Push,
}

/// The spec of a stored or remote entity: its client-writable fields. A
/// project's `files` are compared through the fingerprint (the entity holds
/// file infos, not the files a spec carries).
pub fn spec_of(kind: RegistryKind, entity: &Value) -> Value {
    let mut spec = Map::new();
    for field in kind.descriptor().spec_fields {
        if kind == RegistryKind::Project && *field == "files" {
            continue;
        }
        if let Some(v) = entity.get(*field) {
            spec.insert((*field).to_string(), v.clone());
        }
    }
    Value::Object(spec)
}

/// What two sides are compared on.
pub fn fingerprint(kind: RegistryKind, entity: &Value) -> Value {
    let files: Vec<Value> = entity["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| json!([f["path"], f["mediaType"], f["sha256"]]))
        .collect();
    json!({ "spec": spec_of(kind, entity), "files": files })
}

/// The version of an entity's JSON.
pub fn version(entity: &Value) -> i64 {
    entity["version"].as_i64().unwrap_or(0)
}

/// The versions of both sides at the last sync.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Base {
    pub local: i64,
    pub remote: i64,
}

/// Which sides changed since `base` (both, when never synced).
pub fn changed(base: Option<Base>, local: i64, remote: i64) -> (bool, bool) {
    (
        base.is_none_or(|b| b.local != local),
        base.is_none_or(|b| b.remote != remote),
    )
}

/// What to do with an entity present on both sides whose fingerprints differ.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// Copy the source over the target.
    Copy,
    /// Leave both sides alone, reporting this outcome and why.
    Keep(SyncOutcome, String),
}

/// Decides for an entity present on both sides, different, with `base`.
pub fn decide(direction: Direction, base: Option<Base>, local: i64, remote: i64, force: bool) -> Decision {
    let (local_changed, remote_changed) = changed(base, local, remote);
    let (source_changed, target_changed) = match direction {
        Direction::Pull => (remote_changed, local_changed),
        Direction::Push => (local_changed, remote_changed),
    };
    if !source_changed && target_changed {
        // The target is ahead: nothing to copy in this direction.
        let why = match direction {
            Direction::Pull => "Changed only locally since the last sync; push to publish it.",
            Direction::Push => "Changed only remotely since the last sync; pull to get it.",
        };
        return Decision::Keep(SyncOutcome::Unchanged, why.into());
    }
    if target_changed && !force {
        return Decision::Keep(
            SyncOutcome::Conflict,
            format!("Changed locally (v{local}) and remotely (v{remote}) since the last sync; use force to overwrite."),
        );
    }
    Decision::Copy
}

/// The status of an entity present on both sides, different, with `base`.
pub fn state(base: Option<Base>, local: i64, remote: i64) -> SyncState {
    match changed(base, local, remote) {
        (true, false) => SyncState::LocalAhead,
        (false, true) => SyncState::RemoteAhead,
        _ => SyncState::Diverged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_side_that_changed_alone_wins_and_both_changing_is_a_conflict() {
        let base = Some(Base { local: 2, remote: 5 });
        assert_eq!(decide(Direction::Pull, base, 2, 6, false), Decision::Copy);
        assert_eq!(decide(Direction::Push, base, 3, 5, false), Decision::Copy);
        assert!(matches!(
            decide(Direction::Pull, base, 3, 5, false),
            Decision::Keep(SyncOutcome::Unchanged, _)
        ));
        assert!(matches!(
            decide(Direction::Pull, base, 3, 6, false),
            Decision::Keep(SyncOutcome::Conflict, _)
        ));
        assert_eq!(decide(Direction::Pull, base, 3, 6, true), Decision::Copy);
        assert!(matches!(
            decide(Direction::Push, None, 1, 1, false),
            Decision::Keep(SyncOutcome::Conflict, _)
        ));
        assert_eq!(state(base, 3, 5), SyncState::LocalAhead);
        assert_eq!(state(base, 2, 6), SyncState::RemoteAhead);
        assert_eq!(state(None, 2, 6), SyncState::Diverged);
    }

    #[test]
    fn a_project_is_compared_on_its_file_infos_not_a_files_spec() {
        let entity = json!({"name": "p", "description": "d", "files": [{"path": "a", "mediaType": "text/plain", "sha256": "00"}]});
        assert_eq!(
            spec_of(RegistryKind::Project, &entity),
            json!({"name": "p", "description": "d"})
        );
        assert_eq!(
            fingerprint(RegistryKind::Project, &entity)["files"],
            json!([["a", "text/plain", "00"]])
        );
    }
}
