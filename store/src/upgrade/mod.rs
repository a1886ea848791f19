//! Upgrade fixtures: a store written by an older schema version, opened by
//! today's code, must serve every task, event, plan, registry entry and
//! push configuration unchanged and take new writes.
//!
//! Each backend keeps, per schema version, a fixture written by the code of
//! that version (the data set of [`dataset`], committed through that
//! version's store API) beside an expectations file: what that version
//! served of it ([`served`]). Its tests open the fixture with today's store
//! and call [`check`], then [`writes_continue`]. `scripts/store-fixture`
//! generates a fixture for the newest schema version.

mod dataset;
mod served;

pub use dataset::{commit, dataset, COLLECTIONS, NAMESPACES, PUSH_COLLECTION};
pub use served::{normalized, served};

use crate::{Commit, DocWrite, EventRow, Expect, Fanout, Store, TaskQuery, TaskRow, TaskWrite};
use a2a::types::{StreamResponse, TaskState};
use serde_json::{json, Value};

/// The schema version of fixture `name`: `schema-N`, or `schema-N-VARIANT`
/// for a second form version N had (a migration once rewritten in place).
pub fn schema_of(name: &str) -> u32 {
    let rest = name.strip_prefix("schema-").unwrap_or(name);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("fixture {name}: not schema-N or schema-N-VARIANT"))
}

/// Asserts a backend keeps one fixture per schema version under `dir` (of
/// `migrations`; variants besides) and one test per fixture (`tested`, the
/// names [`fixture_tests!`](crate::fixture_tests) lists); `backend` names
/// the argument of `scripts/store-fixture` that writes a missing one.
pub fn assert_every_migration_has_its_fixture(
    dir: &std::path::Path,
    migrations: usize,
    tested: &[&str],
    backend: &str,
) {
    let by_version = |names: &mut Vec<String>| names.sort_by_key(|name| (schema_of(name), name.clone()));
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .expect("the fixtures directory")
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    by_version(&mut found);
    let every: Vec<String> = (1..=migrations).map(|v| format!("schema-{v}")).collect();
    let plain: Vec<String> = found.iter().filter(|n| every.contains(n)).cloned().collect();
    assert_eq!(
        plain, every,
        "one fixture per schema version (scripts/store-fixture {backend})"
    );
    let mut tests: Vec<String> = tested.iter().map(|n| n.to_string()).collect();
    by_version(&mut tests);
    assert_eq!(tests, found, "one test per fixture (fixture_tests!)");
}

/// One `#[tokio::test]` per fixture, each calling the backend's
/// `upgrade_keeps_data(name)`, and `const TESTED` listing the fixtures they
/// cover for [`assert_every_migration_has_its_fixture`].
#[macro_export]
macro_rules! fixture_tests {
    ($($test:ident => $name:literal),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $test() {
                upgrade_keeps_data($name).await;
            }
        )*
        const TESTED: &[&str] = &[$($name),*];
    };
}

/// Writes the data set into `store`, commit by commit.
pub async fn write(store: &dyn Store) {
    for (i, spec) in dataset().iter().enumerate() {
        if let Err(e) = store.commit(commit(spec)).await {
            panic!("commit {i} of the data set: {e:?}");
        }
    }
}

/// Asserts that `store` serves exactly what the expectations file
/// `expected` (JSON) says the fixture's version served. Parts the older
/// version had no API for (its expectations leave them out) are not
/// compared.
pub async fn check(store: &dyn Store, expected: &str) {
    let expected: Value = serde_json::from_str(expected).expect("the expectations file is JSON");
    let expected = normalized(expected);
    let got = normalized(served(store).await);
    let Some(parts) = expected.as_object() else {
        panic!("the expectations file is not an object");
    };
    for (part, want) in parts {
        match (want, &got[part]) {
            (Value::Object(want), Value::Object(have)) => {
                let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
                assert_eq!(keys(have), keys(want), "{part}: what is served");
                for (key, value) in want {
                    assert_eq!(&have[key], value, "{part}: {key}");
                }
            }
            (want, have) => assert_eq!(have, want, "{part}"),
        }
    }
}

/// After the upgrade, writes go on where the fixture left off: an event
/// appended to the working task (owing a delivery to each of its push
/// configurations), a new task in a context that has two, a registry
/// update at the version found; each is served, in the namespace event
/// stream after every older event, and the store checks clean.
pub async fn writes_continue(store: &dyn Store) {
    let ns = "default";
    let Some(work) = store.get_task(ns, "t-work").await.expect("get t-work") else {
        panic!("t-work is not served");
    };
    let before = store.namespace_events_after(ns, 0, 1000).await.expect("events");
    let newest = before.last().map(|e| e.position).unwrap_or_default();
    let total = |ctx: Option<&'static str>| async move {
        let query = TaskQuery {
            namespace: ns.into(),
            context_id: ctx.map(str::to_string),
            limit: 1,
            ..Default::default()
        };
        store.list_tasks(&query).await.expect("list").total
    };
    let (all, in_ctx) = (total(None).await, total(Some("ctx-a")).await);

    let seq = work.last_seq + 1;
    let progress: StreamResponse = serde_json::from_value(json!({ "statusUpdate": {
        "taskId": "t-work", "contextId": "ctx-b",
        "status": { "state": TaskState::Working, "timestamp": "2026-12-06T00:00:00.000Z" },
        "metadata": { "after": "upgrade" },
    } }))
    .expect("an event");
    let mut row = work.clone();
    row.last_seq = seq;
    let appended = store
        .commit(Commit {
            task: Some(TaskWrite {
                row,
                create: false,
                expected_last_seq: work.last_seq,
                expected_rank: Some(work.rank),
                events: vec![EventRow {
                    seq,
                    body: progress.clone(),
                }],
            }),
            fanout: Some(Fanout {
                coll: PUSH_COLLECTION.into(),
                prefix: "t-work/".into(),
            }),
            ..Commit::default()
        })
        .await;
    assert_eq!(
        appended.map(|c| c.deliveries_owed),
        Ok(2),
        "an event owed to both hooks"
    );
    let events = store
        .events_after(ns, "t-work", work.last_seq)
        .await
        .expect("events");
    assert_eq!(events, vec![EventRow { seq, body: progress }]);

    let fresh: a2a::types::Task = serde_json::from_value(json!({
        "id": "t-new", "contextId": "ctx-a", "status": { "state": TaskState::Submitted },
    }))
    .expect("a task");
    let created = store
        .commit(Commit {
            task: Some(TaskWrite {
                row: TaskRow {
                    id: "t-new".into(),
                    namespace: ns.into(),
                    context_id: "ctx-a".into(),
                    state: TaskState::Submitted.to_string(),
                    status_ts: "2026-12-06T00:00:01.000Z".into(),
                    last_seq: 1,
                    rank: 0,
                    body: fresh.clone(),
                },
                create: true,
                expected_last_seq: 0,
                expected_rank: None,
                events: vec![EventRow {
                    seq: 1,
                    body: StreamResponse::Task(fresh.clone()),
                }],
            }),
            ..Commit::default()
        })
        .await;
    assert!(created.is_ok(), "a new task: {created:?}");
    assert_eq!(
        store.get_task(ns, "t-new").await.ok().flatten().map(|r| r.body),
        Some(fresh)
    );
    assert_eq!(
        (total(None).await, total(Some("ctx-a")).await),
        (all + 1, in_ctx + 1)
    );
    let first = store
        .list_tasks(&TaskQuery {
            namespace: ns.into(),
            limit: 1,
            ..Default::default()
        })
        .await
        .map(|page| page.rows.first().map(|r| r.id.clone()));
    assert_eq!(
        first,
        Ok(Some("t-new".to_string())),
        "the newest task lists first"
    );

    let Some(reviewer) = store.get_doc("actor", ns, "reviewer").await.expect("get doc") else {
        panic!("the registry entry is not served");
    };
    let update = DocWrite::put(
        "actor",
        ns,
        "reviewer",
        Expect::Version(reviewer.version),
        json!({ "name": "reviewer", "model": "after-upgrade" }),
    );
    let updated = store
        .commit(Commit {
            docs: vec![update],
            ..Commit::default()
        })
        .await;
    assert_eq!(updated.map(|c| c.doc_versions), Ok(vec![reviewer.version + 1]));

    let after = store
        .namespace_events_after(ns, newest, 100)
        .await
        .expect("events");
    let after: Vec<(String, u64)> = after
        .iter()
        .filter(|e| e.position > newest)
        .map(|e| (e.task_id.clone(), e.event.seq))
        .collect();
    assert_eq!(after, vec![("t-work".to_string(), seq), ("t-new".to_string(), 1)]);
    let integrity = store.check_integrity(true).await.map(|i| i.problems);
    assert_eq!(integrity, Ok(vec![]));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;

    #[tokio::test]
    async fn the_data_set_is_served_as_written_and_writes_continue() {
        let store = MemoryStore::new();
        write(&store).await;
        let served = served(&store).await;
        assert_eq!(served["namespaces"], json!(["default", "team"]));
        assert_eq!(
            served["listings"]["default"]["order"],
            json!(["t-work", "t-input", "t-done"])
        );
        assert_eq!(served["tasks"]["default/t-done"]["last_seq"], json!(4));
        assert_eq!(
            served["docs"]["actor/default"],
            json!([{ "key": "reviewer", "version": 2, "value": { "name": "reviewer", "model": "echo-2" } }])
        );
        assert_eq!(served["docs"]["plan/default"][0]["version"], json!(2));
        assert_eq!(
            served["deliveries"]["default/t-work"]
                .as_array()
                .map(|rows| rows.len()),
            Some(4)
        );
        check(&store, &served.to_string()).await;
        writes_continue(&store).await;
    }
}
