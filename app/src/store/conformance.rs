#![cfg(test)]
//! The one behavioural test suite of the storage trait, instantiated for every
//! backend by `store_suite!`.

use super::*;
use serde_json::json;

fn row(id: &str, ns: &str, ctx: &str, state: &str, ts: &str) -> TaskRow {
    TaskRow {
        id: id.into(),
        namespace: ns.into(),
        context_id: ctx.into(),
        state: state.into(),
        status_ts: ts.into(),
        last_seq: 0,
        rank: 0,
        body: json!({ "id": id }),
    }
}

fn create(store: &dyn Store, r: TaskRow) {
    let commit = Commit {
        task: Some(TaskWrite {
            row: r.clone(),
            create: true,
            expected_last_seq: 0,
            events: vec![EventRow {
                seq: 1,
                body: json!({ "task": { "id": r.id } }),
            }],
        }),
        docs: vec![],
    };
    assert!(store.commit(&commit).is_ok());
}

pub fn task_create_update_and_events(store: &dyn Store) {
    create(
        store,
        row(
            "t1",
            "ns",
            "c1",
            "TASK_STATE_SUBMITTED",
            "2024-01-01T00:00:00.000Z",
        ),
    );
    let again = Commit {
        task: Some(TaskWrite {
            row: row("t1", "ns", "c1", "TASK_STATE_SUBMITTED", "x"),
            create: true,
            expected_last_seq: 0,
            events: vec![],
        }),
        docs: vec![],
    };
    assert_eq!(
        store.commit(&again),
        Err(StoreError::Conflict {
            index: None,
            found: Some(1)
        })
    );
    let mut updated = row(
        "t1",
        "ns",
        "c1",
        "TASK_STATE_COMPLETED",
        "2024-01-01T00:00:01.000Z",
    );
    updated.body = json!({ "id": "t1", "done": true });
    let update = Commit {
        task: Some(TaskWrite {
            row: updated,
            create: false,
            expected_last_seq: 1,
            events: vec![
                EventRow {
                    seq: 2,
                    body: json!({ "n": 2 }),
                },
                EventRow {
                    seq: 3,
                    body: json!({ "n": 3 }),
                },
            ],
        }),
        docs: vec![],
    };
    assert!(store.commit(&update).is_ok());
    // A stale writer (expects seq 1, the log is at 3) is refused.
    assert_eq!(
        store.commit(&update),
        Err(StoreError::Conflict {
            index: None,
            found: Some(3)
        })
    );
    let got = store.get_task("ns", "t1").ok().flatten();
    assert_eq!(got.as_ref().map(|r| r.last_seq), Some(3));
    assert_eq!(
        got.as_ref().map(|r| r.state.as_str()),
        Some("TASK_STATE_COMPLETED")
    );
    assert_eq!(got.map(|r| r.body), Some(json!({ "id": "t1", "done": true })));
    let events = store.events_after("ns", "t1", 1).unwrap_or_default();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![2, 3]);
    assert_eq!(events[1].body, json!({ "n": 3 }));
    assert_eq!(store.events_after("ns", "t1", 3).map(|e| e.len()), Ok(0));
    assert_eq!(store.get_task("ns", "nope"), Ok(None));
    // A task is found only in its own namespace, and so are its events.
    assert_eq!(store.get_task("other", "t1"), Ok(None));
    assert_eq!(store.events_after("other", "t1", 0), Ok(vec![]));
}

pub fn list_tasks_newest_first_with_filters(store: &dyn Store) {
    create(
        store,
        row(
            "a",
            "ns",
            "c1",
            "TASK_STATE_COMPLETED",
            "2024-01-01T00:00:00.000Z",
        ),
    );
    create(
        store,
        row("b", "ns", "c2", "TASK_STATE_WORKING", "2024-01-02T00:00:00.000Z"),
    );
    create(
        store,
        row(
            "c",
            "ns",
            "c1",
            "TASK_STATE_COMPLETED",
            "2024-01-03T00:00:00.000Z",
        ),
    );
    create(
        store,
        row(
            "d",
            "other",
            "c1",
            "TASK_STATE_COMPLETED",
            "2024-01-04T00:00:00.000Z",
        ),
    );
    let ids = |page: &TaskPage| page.rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    let query = TaskQuery {
        namespace: "ns".into(),
        limit: 2,
        ..Default::default()
    };
    let first = store.list_tasks(&query).unwrap_or_default();
    assert_eq!(ids(&first), vec!["c", "b"]);
    assert_eq!((first.total, first.more), (3, true));
    let cursor = first.rows.last().map(|r| r.rank);
    let second = store
        .list_tasks(&TaskQuery {
            before_rank: cursor,
            ..query.clone()
        })
        .unwrap_or_default();
    assert_eq!(ids(&second), vec!["a"]);
    assert_eq!((second.total, second.more), (3, false));
    let by_ctx = store
        .list_tasks(&TaskQuery {
            context_id: Some("c1".into()),
            limit: 10,
            ..query.clone()
        })
        .unwrap_or_default();
    assert_eq!(ids(&by_ctx), vec!["c", "a"]);
    let by_state = store
        .list_tasks(&TaskQuery {
            state: Some("TASK_STATE_WORKING".into()),
            limit: 10,
            ..query.clone()
        })
        .unwrap_or_default();
    assert_eq!(ids(&by_state), vec!["b"]);
    let by_time = store
        .list_tasks(&TaskQuery {
            status_ts_from: Some("2024-01-02T00:00:00.000Z".into()),
            limit: 10,
            ..query
        })
        .unwrap_or_default();
    assert_eq!(ids(&by_time), vec!["c", "b"]);
    assert_eq!(
        store.namespaces(),
        Ok(vec!["ns".to_string(), "other".to_string()])
    );
}

pub fn documents_are_versioned_and_commits_atomic(store: &dyn Store) {
    let put = |expect, v| Commit {
        task: None,
        docs: vec![DocWrite::put("actor", "ns", "k", expect, v)],
    };
    assert_eq!(
        store
            .commit(&put(Expect::Absent, json!(1)))
            .map(|c| c.doc_versions),
        Ok(vec![1])
    );
    assert_eq!(
        store.commit(&put(Expect::Absent, json!(2))),
        Err(StoreError::Conflict {
            index: Some(0),
            found: Some(1)
        })
    );
    assert_eq!(
        store.commit(&put(Expect::Version(7), json!(2))),
        Err(StoreError::Conflict {
            index: Some(0),
            found: Some(1)
        })
    );
    assert_eq!(
        store
            .commit(&put(Expect::Version(1), json!(2)))
            .map(|c| c.doc_versions),
        Ok(vec![2])
    );
    // A commit whose second write fails leaves the first unapplied.
    let mixed = Commit {
        task: None,
        docs: vec![
            DocWrite::put("actor", "ns", "other", Expect::Absent, json!("x")),
            DocWrite::put("actor", "ns", "k", Expect::Version(1), json!(3)),
        ],
    };
    assert_eq!(
        store.commit(&mixed),
        Err(StoreError::Conflict {
            index: Some(1),
            found: Some(2)
        })
    );
    assert_eq!(store.get_doc("actor", "ns", "other"), Ok(None));
    let doc = store.get_doc("actor", "ns", "k").ok().flatten();
    assert_eq!(doc.map(|d| (d.version, d.value)), Some((2, json!(2))));
    let del = Commit {
        task: None,
        docs: vec![DocWrite::delete("actor", "ns", "k", Expect::Version(2))],
    };
    assert_eq!(store.commit(&del).map(|c| c.doc_versions), Ok(vec![0]));
    assert_eq!(store.get_doc("actor", "ns", "k"), Ok(None));
}

pub fn list_docs_by_prefix_and_cursor(store: &dyn Store) {
    let docs = ["p/1", "p/2", "p/3", "q/1", "p"]
        .iter()
        .map(|k| DocWrite::put("c", "ns", k, Expect::Absent, json!(k)))
        .collect();
    assert!(store.commit(&Commit { task: None, docs }).is_ok());
    let keys = |docs: Vec<Doc>| docs.into_iter().map(|d| d.key).collect::<Vec<_>>();
    assert_eq!(
        store.list_docs("c", "ns", "p/", None, 10).map(keys),
        Ok(vec!["p/1".into(), "p/2".into(), "p/3".into()])
    );
    assert_eq!(
        store.list_docs("c", "ns", "p/", Some("p/1"), 1).map(keys),
        Ok(vec!["p/2".into()])
    );
    assert_eq!(store.list_docs("c", "ns", "", None, 10).map(|d| d.len()), Ok(5));
    assert_eq!(
        store.list_docs("c", "other", "", None, 10).map(|d| d.len()),
        Ok(0)
    );
}

pub fn integrity_is_clean(store: &dyn Store) {
    create(
        store,
        row("t", "ns", "c", "TASK_STATE_SUBMITTED", "2024-01-01T00:00:00.000Z"),
    );
    let report = store.check_integrity(true);
    assert_eq!(report.as_ref().map(|r| r.problems.clone()), Ok(vec![]));
    assert_eq!(report.map(|r| r.checked_objects), Ok(1));
}

macro_rules! store_suite {
    ($name:ident, $make:expr) => {
        mod $name {
            use super::*;
            fn store() -> Box<dyn Store> {
                $make
            }
            #[test]
            fn task_create_update_and_events() {
                super::task_create_update_and_events(&*store());
            }
            #[test]
            fn list_tasks_newest_first_with_filters() {
                super::list_tasks_newest_first_with_filters(&*store());
            }
            #[test]
            fn documents_are_versioned_and_commits_atomic() {
                super::documents_are_versioned_and_commits_atomic(&*store());
            }
            #[test]
            fn list_docs_by_prefix_and_cursor() {
                super::list_docs_by_prefix_and_cursor(&*store());
            }
            #[test]
            fn integrity_is_clean() {
                super::integrity_is_clean(&*store());
            }
        }
    };
}

store_suite!(memory, Box::new(MemoryStore::new()));
store_suite!(
    sqlite,
    Box::new(SqliteStore::open_in_memory().expect("in-memory sqlite opens"))
);

#[test]
fn sqlite_survives_reopen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    {
        let store = SqliteStore::open(&path).expect("open");
        create(
            &store,
            row("t", "ns", "c", "TASK_STATE_SUBMITTED", "2024-01-01T00:00:00.000Z"),
        );
    }
    let store = SqliteStore::open(&path).expect("reopen");
    assert_eq!(
        store.get_task("ns", "t").ok().flatten().map(|r| r.last_seq),
        Some(1)
    );
    assert_eq!(store.events_after("ns", "t", 0).map(|e| e.len()), Ok(1));
}
