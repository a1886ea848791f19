//! Faults only a real server can inject, each on a database of its own so
//! the crate's other tests, sharing the cluster, never see them: a commit
//! refused as a conflict (tried again, a bounded number of times) or for
//! good (not tried again), the store's connections ended by the server
//! (opened again), no connection to be had (each commit fails saying so,
//! until one can be opened), and a task deletion waiting for the event
//! order lock another writer holds.

use super::{raw_client, PATIENCE};
use crate::schema::EVENT_ORDER_LOCK;
use crate::writer::RETRIES;
use crate::PgStore;
use a2a::types::TaskState;
use std::time::Duration;
use store::suite::{create, row};
use store::{Commit, DocWrite, Expect, Store, TaskDelete};

fn put(key: &str) -> Commit {
    Commit {
        docs: vec![DocWrite::put(
            "c",
            "ns",
            key,
            Expect::Absent,
            serde_json::json!({"k": key}),
        )],
        ..Commit::default()
    }
}

/// Makes the next `refusals` writes of a document fail with SQLSTATE
/// condition `condition` (a sequence counts the tries: it is not rolled
/// back with them).
async fn refuse_next(client: &tokio_postgres::Client, refusals: usize, condition: &str) {
    let sql = format!(
        "DROP TRIGGER IF EXISTS refuse ON docs;
         DROP SEQUENCE IF EXISTS tries;
         CREATE SEQUENCE tries;
         CREATE OR REPLACE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
             IF nextval('tries') <= {refusals} THEN
                 RAISE EXCEPTION 'refused by the test' USING ERRCODE = '{condition}';
             END IF;
             RETURN NEW;
         END $$;
         CREATE TRIGGER refuse BEFORE INSERT ON docs FOR EACH ROW EXECUTE FUNCTION refuse();"
    );
    client.batch_execute(&sql).await.expect("the trigger is set");
}

/// How many times a document write was tried since [`refuse_next`].
async fn tries(client: &tokio_postgres::Client) -> i64 {
    let row = client
        .query_one("SELECT last_value FROM tries", &[])
        .await
        .expect("the count");
    row.get(0)
}

#[tokio::test]
async fn a_commit_refused_on_a_conflict_is_tried_again_boundedly_else_not() {
    let url = crate::cluster::TestCluster::fresh_database();
    let store = PgStore::open(&url).await.expect("open");
    let client = raw_client(&url).await;
    // Sent in one round trip, refused, then replayed alone: the first try
    // and RETRIES more.
    let tried_in_all = i64::try_from(RETRIES + 2).expect("small");
    refuse_next(&client, RETRIES + 1, "serialization_failure").await;
    assert!(store.commit(put("kept")).await.is_ok());
    assert_eq!(tries(&client).await, tried_in_all);
    refuse_next(&client, RETRIES + 2, "serialization_failure").await;
    let refused = store.commit(put("given up")).await.map(|_| ());
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.to_string().contains("refused by the test")),
        "{refused:?}"
    );
    assert_eq!(tries(&client).await, tried_in_all);
    assert_eq!(
        store
            .get_doc("c", "ns", "kept")
            .await
            .map(|d| d.map(|d| d.version)),
        Ok(Some(1))
    );
    assert_eq!(store.get_doc("c", "ns", "given up").await, Ok(None));
    // A refusal that is not a conflict is final: the replay tries once.
    refuse_next(&client, 2, "check_violation").await;
    assert!(store.commit(put("checked")).await.is_err());
    assert_eq!(tries(&client).await, 2);
    assert_eq!(store.get_doc("c", "ns", "checked").await, Ok(None));
}

#[tokio::test]
async fn connections_the_server_ends_are_opened_again() {
    let url = crate::cluster::TestCluster::fresh_database();
    let store = PgStore::open(&url).await.expect("open");
    assert!(store.commit(put("before")).await.is_ok());
    assert!(store
        .get_doc("c", "ns", "before")
        .await
        .is_ok_and(|d| d.is_some()));
    let client = raw_client(&url).await;
    let ended: i64 = client
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .await
        .expect("terminated")
        .get(0);
    assert!(ended >= 2, "the writer's and a reader's connections: {ended}");
    // A call may still go to a connection whose end the store has not yet
    // read; every later one finds it closed and opens another.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut key = 0;
    loop {
        key += 1;
        let wrote = store.commit(put(&format!("after {key}"))).await.is_ok();
        let read = store
            .get_doc("c", "ns", "before")
            .await
            .is_ok_and(|d| d.is_some());
        if wrote && read {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still failing after {key} tries"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_task_deletion_waits_for_the_event_order_lock() {
    let url = crate::cluster::TestCluster::fresh_database();
    let store = PgStore::open(&url).await.expect("open");
    create(
        &store,
        row("t", "ns", "c", TaskState::Completed, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    // Another writer holds the lock, in a transaction left open.
    let holder = raw_client(&url).await;
    holder
        .batch_execute(&format!(
            "BEGIN; SELECT pg_advisory_xact_lock({EVENT_ORDER_LOCK})"
        ))
        .await
        .expect("the lock is held");
    let deleting = tokio::spawn(async move {
        let deleted = store
            .commit(Commit {
                delete_tasks: vec![TaskDelete {
                    namespace: "ns".into(),
                    id: "t".into(),
                }],
                ..Commit::default()
            })
            .await
            .map(|_| ());
        (store, deleted)
    });
    let watcher = raw_client(&url).await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let waiting: i64 = watcher
            .query_one(
                "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
                 WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()",
                &[],
            )
            .await
            .expect("the locks")
            .get(0);
        if waiting == 1 {
            break;
        }
        assert!(
            !deleting.is_finished() && tokio::time::Instant::now() < deadline,
            "the deletion did not wait for the lock"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    holder.batch_execute("COMMIT").await.expect("the lock is let go");
    let (store, deleted) = deleting.await.expect("the deletion ends");
    assert_eq!(deleted, Ok(()));
    assert_eq!(store.get_task("ns", "t").await, Ok(None));
}

/// Lets connections to database `name` be opened, or not (said from the
/// cluster's own database: a session cannot shut out its own).
async fn allow_connections(name: &str, allowed: bool) {
    let admin = raw_client(&crate::cluster::TestCluster::shared().url("postgres")).await;
    let sql = format!("ALTER DATABASE \"{name}\" WITH ALLOW_CONNECTIONS {allowed}");
    admin.batch_execute(&sql).await.expect("the database altered");
}

#[tokio::test]
async fn a_writer_that_cannot_reconnect_says_so_and_resumes_when_it_can() {
    let url = crate::cluster::TestCluster::fresh_database();
    let store = PgStore::open(&url).await.expect("open");
    assert!(store.commit(put("before")).await.is_ok());
    let client = raw_client(&url).await;
    let name: String = client
        .query_one("SELECT current_database()", &[])
        .await
        .expect("the name")
        .get(0);
    allow_connections(&name, false).await;
    client
        .batch_execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .await
        .expect("terminated");
    // Once the writer has found its connection closed, each commit fails
    // with why: no connection can be opened.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut tries = 0;
    loop {
        tries += 1;
        let refused = store.commit(put(&format!("during {tries}"))).await.map(|_| ());
        if refused
            .as_ref()
            .is_err_and(|e| e.to_string().contains("cannot reconnect"))
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "after {tries} tries: {refused:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    allow_connections(&name, true).await;
    assert!(store.commit(put("after")).await.is_ok());
    assert_eq!(
        store
            .get_doc("c", "ns", "after")
            .await
            .map(|d| d.map(|d| d.version)),
        Ok(Some(1))
    );
}
