#![cfg(test)]
//! The behavioural suite on SQLite, and what only a file on disk shows:
//! reopening, migrating an older store, a damaged row, leases that do not
//! outlive their process, a database another process holds, a turn that
//! cannot take the write lock, checkpoints.

use crate::SqliteStore;
use a2a::types::TaskState;
use store::suite::{
    append, claim, context_totals, create, create_with_hooks, ordered, row, triples, two_contexts,
};
use store::{Store, StoreError, TaskQuery};

store::store_suite!(suite, {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("store.db")).expect("sqlite opens");
    (Box::new(store), Some(dir))
});

#[tokio::test]
async fn sqlite_damaged_body_is_a_store_failure_not_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    // Damaged while no agent holds it (a running one holds the file locked).
    drop(sqlite_with_one_task(&path).await);
    rusqlite::Connection::open(&path)
        .and_then(|conn| conn.execute("UPDATE tasks SET body = '{\"id\": \"t\", ' WHERE id = 't'", []))
        .expect("damage the row");
    let store = SqliteStore::open(&path).expect("reopen");
    for outcome in [
        store.get_task_encoded("ns", "t").await.map(|_| ()),
        store.get_task("ns", "t").await.map(|_| ()),
    ] {
        match outcome {
            Err(StoreError::Backend(why)) => assert!(why.starts_with("stored data is unreadable"), "{why}"),
            other => panic!("expected a store failure, got {other:?}"),
        }
    }
}

/// A SQLite store at `path` holding task `t` of namespace `ns`, submitted.
async fn sqlite_with_one_task(path: &std::path::Path) -> SqliteStore {
    let store = SqliteStore::open(path).expect("open");
    create(
        &store,
        row("t", "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    store
}

#[tokio::test]
async fn sqlite_survives_reopen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    drop(sqlite_with_one_task(&path).await);
    let store = SqliteStore::open(&path).expect("reopen");
    assert_eq!(
        store.get_task("ns", "t").await.ok().flatten().map(|r| r.last_seq),
        Some(1)
    );
    assert_eq!(store.events_after("ns", "t", 0).await.map(|e| e.len()), Ok(1));
    let page = store
        .list_tasks(&TaskQuery {
            namespace: "ns".into(),
            state: Some(TaskState::Submitted.to_string()),
            limit: 10,
            ..Default::default()
        })
        .await;
    assert_eq!(page.map(|p| p.total), Ok(1), "the counts are read back on open");
}

#[tokio::test]
async fn sqlite_context_counts_are_filled_from_an_older_store() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    {
        let store = SqliteStore::open(&path).expect("open");
        two_contexts(&store).await;
    }
    {
        // The store as migration 2 left it: no per-context counts yet.
        let conn = rusqlite::Connection::open(&path).expect("raw open");
        conn.execute_batch(DOWNGRADE_TO_3)
            .and_then(|()| conn.execute_batch("DROP TABLE context_counts; PRAGMA user_version = 2;"))
            .expect("downgrade");
    }
    let store = SqliteStore::open(&path).expect("reopen migrates");
    assert_eq!(context_totals(&store, "c").await, Ok((2, 2, 0)));
    assert_eq!(context_totals(&store, "d").await, Ok((1, 1, 0)));
}

/// Takes a store of the newest schema back to what migration 3 left: no
/// event order (and so no positions), no outbox.
const DOWNGRADE_TO_3: &str = "
    DROP TABLE push_outbox;
    DROP INDEX task_events_by_namespace;
    ALTER TABLE task_events DROP COLUMN position;
    ALTER TABLE task_events DROP COLUMN namespace;
    DELETE FROM counters WHERE name = 'event_position';
    PRAGMA user_version = 3;
";

#[tokio::test]
async fn sqlite_event_order_is_filled_from_an_older_store() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    {
        let store = SqliteStore::open(&path).expect("open");
        create(
            &store,
            row("t1", "ns", "c", TaskState::Working, "2024-01-01T00:00:00.000Z"),
        )
        .await;
        create(
            &store,
            row("t2", "ns", "c", TaskState::Working, "2024-01-01T00:00:00.000Z"),
        )
        .await;
        append(&store, "t1", "ns", "c", 2).await;
    }
    {
        // The store as migration 3 left it: no event order yet.
        let conn = rusqlite::Connection::open(&path).expect("raw open");
        conn.execute_batch(DOWNGRADE_TO_3).expect("downgrade");
    }
    let store = SqliteStore::open(&path).expect("reopen migrates");
    // Each task's events stay in their order; tasks come in the order of their last write.
    let pairs = ordered(&store, "ns", 0, 100).await;
    let strings = |v: &[(&str, u64)]| v.iter().map(|(t, s)| (t.to_string(), *s)).collect::<Vec<_>>();
    assert_eq!(pairs, strings(&[("t2", 1), ("t1", 1), ("t1", 2)]));
}

#[tokio::test]
async fn sqlite_outbox_survives_reopen_and_leases_do_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    {
        let store = SqliteStore::open(&path).expect("open");
        assert!(create_with_hooks(&store, "t").await.is_ok());
        assert_eq!(claim(&store, "a", 1000, i64::MAX).await.len(), 2);
    }
    // The process that held the leases is gone with them.
    let store = SqliteStore::open(&path).expect("reopen");
    assert_eq!(
        claim(&store, "b", 1000, 2000).await,
        triples(&[("t", "w1", 1), ("t", "w2", 1)])
    );
}

#[tokio::test]
async fn sqlite_positions_are_not_given_again_after_a_reopen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    let newest = {
        let store = SqliteStore::open(&path).expect("open");
        for id in ["kept", "gone"] {
            create(
                &store,
                row(id, "ns", "c", TaskState::Working, "2024-01-01T00:00:00.000Z"),
            )
            .await;
        }
        append(&store, "gone", "ns", "c", 2).await;
        let newest = store.namespace_events_after("ns", 0, 100).await.expect("events");
        let deleted = store
            .commit(store::Commit {
                delete_tasks: vec![store::TaskDelete {
                    namespace: "ns".into(),
                    id: "gone".into(),
                }],
                ..store::Commit::default()
            })
            .await
            .map(|c| c.deleted_tasks);
        assert_eq!(deleted, Ok(1));
        newest.last().map(|e| e.position).expect("a newest position")
    };
    let store = SqliteStore::open(&path).expect("reopen");
    append(&store, "kept", "ns", "c", 2).await;
    let events = store.namespace_events_after("ns", 0, 100).await.expect("events");
    let positions: Vec<(String, u64)> = events.iter().map(|e| (e.task_id.clone(), e.event.seq)).collect();
    assert_eq!(positions, [("kept".to_string(), 1), ("kept".to_string(), 2)]);
    assert!(
        events[1].position > newest,
        "{} after {newest}",
        events[1].position
    );
}

#[tokio::test]
async fn sqlite_listings_read_the_rank_indexes_backwards_without_sorting() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    {
        let store = SqliteStore::open(&path).expect("open");
        two_contexts(&store).await;
    }
    let conn = rusqlite::Connection::open(&path).expect("raw open");
    let plan = |filter: &str| {
        let sql = format!(
            "EXPLAIN QUERY PLAN SELECT id FROM tasks WHERE {filter} AND rank < 9 ORDER BY rank DESC LIMIT 21"
        );
        let mut stmt = conn.prepare(&sql).expect("a plan");
        let details: Vec<String> = stmt
            .query_map([], |r| r.get::<_, String>(3))
            .expect("the plan's rows")
            .collect::<Result<_, _>>()
            .expect("the plan's details");
        details.join("; ")
    };
    let working = TaskState::Working;
    assert_eq!(
        plan(&format!("namespace = 'ns' AND state = '{working}'")),
        "SEARCH tasks USING INDEX tasks_by_namespace_rank (namespace=? AND rank<?)"
    );
    assert_eq!(
        plan("namespace = 'ns' AND context_id = 'c'"),
        "SEARCH tasks USING INDEX tasks_by_context (namespace=? AND context_id=? AND rank<?)"
    );
}

#[tokio::test]
async fn sqlite_names_its_backend() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("store.db")).expect("open");
    let store: &dyn Store = &store;
    assert_eq!(store.backend(), "sqlite");
}

/// The writer never checkpoints (its automatic checkpoint is off): the
/// pages committed turns append to the WAL reach the database file only
/// because the checkpoint thread is told of each turn. Waited for with a
/// bound far beyond its period (60 of them), so only a checkpoint that never
/// comes fails, and fails before a harness that stops hung tests would.
#[tokio::test]
async fn sqlite_committed_turns_reach_the_database_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    let store = SqliteStore::open(&path).expect("open");
    let size = || std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let before = size();
    for n in 0..50 {
        let id = format!("t{n}");
        create(
            &store,
            row(&id, "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
        )
        .await;
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while size() <= before {
        assert!(
            std::time::Instant::now() < deadline,
            "no checkpoint in 15 s: the database file is still {before} bytes"
        );
        // The writer and the checkpointer run on threads of their own.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(store);
}

/// Set in the subprocess that holds the database for the test below.
const HOLD: &str = "CLEVERAGENTS_TEST_HOLD_SQLITE";

/// A database another process holds (an agent already running on the same
/// data directory) is refused by name, once the busy timeout shows it is not
/// just being let go. The holder is this test binary run again: it opens the
/// store, says so, and keeps it until its stdin closes.
#[tokio::test]
async fn sqlite_a_database_held_by_another_process_is_refused_by_name() {
    use std::io::{BufRead, Write};
    if let Ok(path) = std::env::var(HOLD) {
        let store = SqliteStore::open(std::path::Path::new(&path)).expect("the holder opens");
        // On a line of its own: the harness has begun one with the test's name.
        println!("\nholding");
        std::io::stdout().flush().expect("said");
        let _ = std::io::stdin().read_line(&mut String::new());
        drop(store);
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    drop(sqlite_with_one_task(&path).await);
    let mut holder = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "--exact",
            "tests::sqlite_a_database_held_by_another_process_is_refused_by_name",
        ])
        .args(["--nocapture", "--test-threads=1"])
        .env(HOLD, &path)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the holder starts");
    let mut said = std::io::BufReader::new(holder.stdout.take().expect("its stdout")).lines();
    let holding = said.by_ref().map_while(Result::ok).any(|line| line == "holding");
    assert!(holding, "the holder never opened the store");
    let refused = SqliteStore::open(&path).map(|_| ());
    drop(holder.stdin.take());
    // Read to its end: the holder still reports its test as it leaves.
    said.for_each(drop);
    assert!(holder.wait().is_ok_and(|status| status.success()));
    match refused {
        Err(StoreError::Backend(why)) => assert_eq!(why, "the database is in use by another process"),
        other => panic!("expected the database in use, got {other:?}"),
    }
    // Let go, it opens with what it held.
    let store = SqliteStore::open(&path).expect("reopen");
    assert_eq!(
        store.get_task("ns", "t").await.ok().flatten().map(|r| r.last_seq),
        Some(1)
    );
}

/// A turn whose transaction cannot begin (another connection holds the
/// write lock past the busy timeout) answers each of its commits with why,
/// and writes nothing; once the lock is let go, the next turn lands.
#[tokio::test]
async fn sqlite_a_turn_that_cannot_begin_fails_each_commit_with_why() {
    use store::{Commit, EventRow, TaskWrite};
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.db");
    let store = SqliteStore::open(&path).expect("open");
    let commit = |id: &str| {
        let row = row(id, "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z");
        let body = a2a::types::StreamResponse::Task(row.body.clone());
        Commit {
            task: Some(TaskWrite {
                row,
                create: true,
                expected_last_seq: 0,
                expected_rank: None,
                events: vec![EventRow { seq: 1, body }],
            }),
            ..Commit::default()
        }
    };
    // In this process the file's lock is shared, so a connection of the
    // test can take the write lock the writer needs.
    let blocker = rusqlite::Connection::open_with_flags_and_vfs(
        &path,
        rusqlite::OpenFlags::default(),
        crate::rows::EXCLUSIVE_VFS,
    )
    .expect("a second connection");
    blocker.execute_batch("BEGIN IMMEDIATE").expect("the write lock");
    let refused = store.commit(commit("t1")).await;
    match refused {
        Err(StoreError::Backend(why)) => assert_eq!(why, "database is locked"),
        other => panic!("expected the turn's failure, got {other:?}"),
    }
    blocker.execute_batch("ROLLBACK").expect("the lock let go");
    assert!(store.commit(commit("t2")).await.is_ok());
    assert_eq!(
        store
            .get_task("ns", "t1")
            .await
            .ok()
            .flatten()
            .map(|r| r.last_seq),
        None
    );
    assert_eq!(
        store
            .get_task("ns", "t2")
            .await
            .ok()
            .flatten()
            .map(|r| r.last_seq),
        Some(1)
    );
}
