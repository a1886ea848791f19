#![cfg(test)]
//! The behavioural suite on PostgreSQL, and what only a shared database
//! shows: several stores on one database (announcements, claims, readers
//! while others commit), migrations, and the plans the listings get.

mod faults;

use crate::PgStore;
use a2a::types::TaskState;
use store::suite::{append, claim, context_totals, create, create_with_hooks, ordered, row, two_contexts};
use store::{Appended, Commit, DeliveryKey, DocWrite, Expect, Store, StoreError, TaskQuery, TaskWrite};

store::store_suite!(suite, {
    let url = crate::cluster::TestCluster::fresh_database();
    let store = PgStore::open(&url).await.expect("postgres opens");
    (Box::new(store), None)
});

/// How long a test waits for what must happen, however loaded the machine
/// (a notice or a closed socket to cross loopback, say): well under the
/// time cargo-mutants gives a test run, so a mutant that never gets there
/// fails the test rather than timing it out.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(20);

/// A store on a fresh database of the test cluster.
async fn fresh_store() -> PgStore {
    let url = crate::cluster::TestCluster::fresh_database();
    PgStore::open(&url).await.expect("open")
}

#[tokio::test]
async fn postgres_survives_reopen_and_migrates_once() {
    let url = crate::cluster::TestCluster::fresh_database();
    {
        let store = PgStore::open(&url).await.expect("open");
        create(
            &store,
            row("t", "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
        )
        .await;
    }
    let store = PgStore::open(&url).await.expect("reopen");
    assert_eq!(
        store.get_task("ns", "t").await.ok().flatten().map(|r| r.last_seq),
        Some(1)
    );
    assert_eq!(store.events_after("ns", "t", 0).await.map(|e| e.len()), Ok(1));
}

#[tokio::test]
async fn postgres_announces_appended_events_to_every_store_on_the_database() {
    let url = crate::cluster::TestCluster::fresh_database();
    let (producer, follower) = (
        PgStore::open(&url).await.expect("open"),
        PgStore::open(&url).await.expect("open a second"),
    );
    let mut notices = follower.appended().expect("a shared store announces");
    create(
        &producer,
        row("t", "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    let wanted = Appended {
        task_id: Some("t".into()),
        last_seq: 1,
    };
    let heard = tokio::time::timeout(PATIENCE, async {
        loop {
            match notices.recv().await {
                Ok(notice) if notice == wanted => return Some(notice),
                Ok(_) => continue,
                Err(_) => return None,
            }
        }
    })
    .await;
    assert_eq!(heard, Ok(Some(wanted)));
    // What the notice announces is in the table, for the other store too.
    assert_eq!(follower.events_after("ns", "t", 0).await.map(|e| e.len()), Ok(1));
}

/// A connection of the test's own to the store's database, beside the store.
async fn raw_client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    client
}

/// How PostgreSQL plans the statements of a listing of context `c` in the
/// completed state on a table without statistics (as the planner finds one
/// filled since the agent started), with the plan it keeps for every call:
/// the total's plan, then the page's.
async fn postgres_listing_plans(url: &str) -> Result<String, String> {
    let listing = crate::reads::listing(&TaskQuery {
        namespace: "ns".into(),
        context_id: Some("c".into()),
        state: Some(TaskState::Completed.to_string()),
        limit: 20,
        ..Default::default()
    });
    {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(connection);
        client
            .batch_execute(&format!(
                "SET plan_cache_mode = force_generic_plan; \
                 PREPARE counted AS {}; PREPARE paged AS {}",
                listing.count_sql, listing.page_sql
            ))
            .await
            .map_err(|e| e.to_string())?;
        let lines = client
            .simple_query(&format!(
                "EXPLAIN EXECUTE counted('ns', 'c', '{completed}'); \
                 EXPLAIN EXECUTE paged('ns', 'c', '{completed}', 21)",
                completed = TaskState::Completed
            ))
            .await
            .map_err(|e| e.to_string())?;
        Ok(lines
            .iter()
            .filter_map(|line| match line {
                tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

#[tokio::test]
async fn postgres_lists_a_context_in_one_state_from_its_own_index() {
    let url = crate::cluster::TestCluster::fresh_database();
    let store = PgStore::open(&url).await.expect("open");
    for (id, ctx, state) in [
        ("t1", "c", TaskState::Completed),
        ("t2", "d", TaskState::Completed),
        ("t3", "c", TaskState::Working),
    ] {
        create(&store, row(id, "ns", ctx, state, "2024-01-01T00:00:00.000Z")).await;
    }
    let plans = postgres_listing_plans(&url)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let scans: Vec<&str> = plans.lines().filter(|line| line.contains(" Scan ")).collect();
    assert_eq!(
        scans
            .iter()
            .map(|line| line.trim().split("  (").next().unwrap_or(""))
            .collect::<Vec<_>>(),
        [
            "->  Index Only Scan using context_counts_pkey on context_counts",
            "->  Index Scan using context_counts_pkey on context_counts context_counts_1",
            "->  Index Only Scan using tasks_by_context_state on tasks",
            "->  Index Scan Backward using tasks_by_context_state on tasks"
        ],
        "the total reads the kept counts' key (or, for a context without, counts the index range), \
         the page reads the index backwards:\n{plans}"
    );
    assert_eq!(context_totals(&store, "c").await, Ok((2, 1, 1)));
}

#[tokio::test]
async fn postgres_event_order_is_filled_from_an_older_store() {
    let url = crate::cluster::TestCluster::fresh_database();
    {
        let store = PgStore::open(&url).await.expect("open");
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
    let downgraded = async {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(connection);
        // The database as migration 1 left it: no event order yet.
        client
            .batch_execute(
                "DROP TABLE namespace_counts; DROP TABLE context_counts; \
                 DROP TABLE push_outbox; DROP INDEX task_events_by_namespace; \
                 ALTER TABLE task_events DROP COLUMN namespace, DROP COLUMN position; \
                 DROP SEQUENCE event_position; DROP INDEX tasks_by_context_state; \
                 UPDATE schema_version SET version = 1",
            )
            .await
            .map_err(|e| e.to_string())
    }
    .await;
    assert_eq!(downgraded, Ok(()));
    let store = PgStore::open(&url).await.expect("reopen migrates");
    // The counts are kept from the tasks already stored.
    assert_eq!(context_totals(&store, "c").await, Ok((2, 2, 0)));
    // Each task's events stay in their order; tasks come in the order of their last write.
    let strings = |v: &[(&str, u64)]| v.iter().map(|(t, s)| (t.to_string(), *s)).collect::<Vec<_>>();
    assert_eq!(
        ordered(&store, "ns", 0, 100).await,
        strings(&[("t2", 1), ("t1", 1), ("t1", 2)])
    );
    // New events are placed after the ones filled in.
    append(&store, "t2", "ns", "c", 2).await;
    assert_eq!(
        ordered(&store, "ns", 0, 100).await,
        strings(&[("t2", 1), ("t1", 1), ("t1", 2), ("t2", 2)])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_namespace_readers_miss_nothing_while_agents_commit_concurrently() {
    const AGENTS: usize = 3;
    const APPENDS: u64 = 40;
    let url = crate::cluster::TestCluster::fresh_database();
    let reader = PgStore::open(&url).await.expect("open the reader");
    let agents: Vec<_> = (0..AGENTS)
        .map(|i| {
            let url = url.clone();
            tokio::spawn(async move {
                let store = PgStore::open(&url).await.expect("open an agent");
                let id = format!("t{i}");
                create(
                    &store,
                    row(&id, "ns", "c", TaskState::Working, "2024-01-01T00:00:00.000Z"),
                )
                .await;
                for seq in 2..=APPENDS + 1 {
                    append(&store, &id, "ns", "c", seq).await;
                }
            })
        })
        .collect();
    // Reads on from the last position seen while the agents commit: every
    // event must be seen exactly once, each task's in order.
    let wanted = AGENTS * (APPENDS as usize + 1);
    let deadline = std::time::Instant::now() + PATIENCE;
    let (mut seen, mut last) = (Vec::new(), 0);
    while seen.len() < wanted && std::time::Instant::now() < deadline {
        let page = reader
            .namespace_events_after("ns", last, 7)
            .await
            .unwrap_or_default();
        if let Some(newest) = page.last() {
            last = newest.position;
        }
        seen.extend(page.into_iter().map(|e| (e.task_id, e.event.seq)));
    }
    for agent in agents {
        assert!(agent.await.is_ok(), "an agent failed");
    }
    seen.extend(
        ordered(&reader, "ns", last, wanted + 1)
            .await
            .into_iter()
            .collect::<Vec<_>>(),
    );
    assert_eq!(seen.len(), wanted, "each event seen once");
    for i in 0..AGENTS {
        let id = format!("t{i}");
        let seqs: Vec<u64> = seen.iter().filter(|(t, _)| *t == id).map(|(_, s)| *s).collect();
        assert_eq!(seqs, (1..=APPENDS + 1).collect::<Vec<_>>(), "task {id}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_outbox_rows_are_claimed_once_across_stores() {
    const TASKS: usize = 24;
    let url = crate::cluster::TestCluster::fresh_database();
    let first = PgStore::open(&url).await.expect("open");
    for i in 0..TASKS {
        assert!(create_with_hooks(&first, &format!("t{i}")).await.is_ok());
    }
    // Two agents claim at once, a few rows at a time, under leases that
    // outlast the test: no row may be claimed twice.
    let claimers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|holder| {
            let url = url.clone();
            tokio::spawn(async move {
                let store = PgStore::open(&url).await.expect("open an agent");
                let mut got = Vec::new();
                loop {
                    let batch = store
                        .claim_deliveries(holder, 1000, i64::MAX, 3)
                        .await
                        .expect("claim");
                    if batch.is_empty() {
                        return got;
                    }
                    got.extend(batch.into_iter().map(|d| d.key));
                }
            })
        })
        .collect();
    let mut all: Vec<DeliveryKey> = Vec::new();
    for claimer in claimers {
        all.extend(claimer.await.expect("a claimer failed"));
    }
    let claimed = all.len();
    all.sort();
    all.dedup();
    assert_eq!(
        (claimed, all.len()),
        (2 * TASKS, 2 * TASKS),
        "each row claimed exactly once"
    );
    // A lease held by another store keeps the row until it expires.
    let second = PgStore::open(&url).await.expect("open");
    assert!(create_with_hooks(&first, "late").await.is_ok());
    assert_eq!(claim(&first, "a", 1000, 2000).await.len(), 2);
    assert_eq!(claim(&second, "b", 1999, 3000).await, vec![]);
    assert_eq!(claim(&second, "b", 2000, 3000).await.len(), 2);
}

#[tokio::test]
async fn postgres_writes_groups_whole_keeps_the_counts_and_gathers_reads() {
    const TASKS: usize = 64;
    const READS: usize = 300;
    let url = crate::cluster::TestCluster::fresh_database();
    let store = std::sync::Arc::new(PgStore::open(&url).await.expect("open"));
    let namespace = |i: usize| if i.is_multiple_of(2) { "a" } else { "b" };
    let created: Vec<_> = (0..TASKS)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let r = row(
                    &format!("t{i}"),
                    namespace(i),
                    "c",
                    TaskState::Working,
                    "2024-01-01T00:00:00.000Z",
                );
                create(&*store, r).await;
            })
        })
        .collect();
    for c in created {
        c.await.expect("a create");
    }
    let counts = store.counts();
    assert_eq!(counts.groups_replayed, 0, "no check failed: {counts:?}");
    assert!((1..=TASKS as u64).contains(&counts.groups_whole), "{counts:?}");
    // A failed check: the group is replayed, and the commit refused alone.
    let again = Commit {
        task: Some(TaskWrite {
            row: row("t0", "a", "c", TaskState::Working, "2024-01-01T00:00:00.000Z"),
            create: true,
            expected_last_seq: 0,
            expected_rank: None,
            events: vec![],
        }),
        ..Commit::default()
    };
    assert!(matches!(
        store.commit(again).await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(store.counts().groups_replayed, 1);
    // Half the tasks of namespace a completed, together, and one of them
    // deleted: the kept counts follow every path.
    let completed: Vec<_> = (0..TASKS)
        .filter(|i| i.is_multiple_of(4))
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut r = row(
                    &format!("t{i}"),
                    "a",
                    "c",
                    TaskState::Completed,
                    "2024-01-01T00:00:01.000Z",
                );
                r.body = store
                    .get_task("a", &r.id)
                    .await
                    .ok()
                    .flatten()
                    .expect("the task")
                    .body;
                r.last_seq = 1;
                let commit = Commit {
                    task: Some(TaskWrite {
                        row: r,
                        create: false,
                        expected_last_seq: 1,
                        expected_rank: None,
                        events: vec![],
                    }),
                    ..Commit::default()
                };
                store.commit(commit).await.map(|c| c.task_rank.is_some())
            })
        })
        .collect();
    for c in completed {
        assert_eq!(c.await.expect("an update"), Ok(true));
    }
    let gone = Commit {
        delete_tasks: vec![store::TaskDelete {
            namespace: "a".into(),
            id: "t0".into(),
        }],
        ..Commit::default()
    };
    assert_eq!(store.commit(gone).await.map(|c| c.deleted_tasks), Ok(1));
    let total = |ns: &'static str, state: Option<TaskState>| {
        let store = store.clone();
        async move {
            let query = TaskQuery {
                namespace: ns.into(),
                state: state.map(|s| s.to_string()),
                limit: 1,
                ..Default::default()
            };
            store.list_tasks(&query).await.map(|page| page.total)
        }
    };
    assert_eq!(total("a", None).await, Ok(31));
    assert_eq!(total("a", Some(TaskState::Completed)).await, Ok(15));
    assert_eq!(total("a", Some(TaskState::Working)).await, Ok(16));
    assert_eq!(total("b", Some(TaskState::Working)).await, Ok(32));
    assert_eq!(store.check_integrity(false).await.map(|i| i.problems), Ok(vec![]));

    // Reads of tasks present, absent, and asked in the wrong namespace, all at once.
    let before = store.counts();
    let reads: Vec<_> = (0..READS)
        .map(|k| {
            let store = store.clone();
            let (i, ns) = (k % (TASKS + 11), namespace(k / (TASKS + 11)));
            tokio::spawn(async move {
                let id = format!("t{i}");
                let row = store.get_task(ns, &id).await.expect("a read");
                let encoded = store.get_task_encoded(ns, &id).await.expect("an encoded read");
                (i, ns, row, encoded)
            })
        })
        .collect();
    for read in reads {
        let (i, ns, row, encoded) = read.await.expect("a read");
        let present = i < TASKS && namespace(i) == ns && i != 0; // t0 was deleted
        assert_eq!(row.is_some(), present, "t{i} in {ns}");
        if let Some(r) = &row {
            assert_eq!(
                (
                    r.id.clone(),
                    r.namespace.as_str(),
                    r.context_id.as_str(),
                    r.last_seq
                ),
                (format!("t{i}"), ns, "c", 1)
            );
            let encoded = encoded.expect("the same task, encoded");
            let value: serde_json::Value = serde_json::from_str(encoded.get()).expect("JSON");
            assert_eq!(value, serde_json::to_value(&r.body).expect("a task"));
        } else {
            assert!(encoded.is_none(), "t{i} in {ns}");
        }
    }
    let counts = store.counts();
    let (reads, queries) = (
        counts.task_reads - before.task_reads,
        counts.task_queries - before.task_queries,
    );
    assert_eq!(reads, 2 * READS as u64);
    assert!(
        queries * 10 < reads,
        "reads gathered: {counts:?} after {before:?}"
    );
}

#[tokio::test]
async fn postgres_integrity_check_compares_the_kept_counts_with_the_tasks() {
    let url = crate::cluster::TestCluster::fresh_database();
    let store = PgStore::open(&url).await.expect("open");
    two_contexts(&store).await;
    assert_eq!(store.check_integrity(false).await.map(|i| i.problems), Ok(vec![]));
    // Context c (two tasks) is counted, context d (one) counts its match.
    assert_eq!(context_totals(&store, "c").await, Ok((2, 2, 0)));
    assert_eq!(context_totals(&store, "d").await, Ok((1, 1, 0)));
    let client = raw_client(&url).await;
    let kept: i64 = client
        .query_one("SELECT COUNT(*) FROM context_counts", &[])
        .await
        .and_then(|row| row.try_get(0))
        .expect("the kept rows");
    assert_eq!(kept, 1, "one row: context c, working");
    let (working, failed) = (TaskState::Working, TaskState::Failed);
    client
        .batch_execute(&format!(
            "UPDATE namespace_counts SET n = 5; DELETE FROM context_counts; \
             INSERT INTO context_counts VALUES ('ns', 'gone', '{failed}', 2)"
        ))
        .await
        .expect("the counts changed behind the store's back");
    let mut problems = store.check_integrity(false).await.expect("a check").problems;
    problems.sort();
    assert_eq!(
        problems,
        [
            format!("context ns/c: 0 tasks counted in state {working} but 2 stored"),
            format!("context ns/gone: 2 tasks counted in state {failed} but 0 stored"),
            format!("namespace ns: 5 tasks counted in state {working} but 3 stored"),
        ]
    );
}

#[tokio::test]
async fn postgres_writes_a_group_of_tasks_by_their_keys() {
    let url = crate::cluster::TestCluster::fresh_database();
    let store = PgStore::open(&url).await.expect("open");
    two_contexts(&store).await;
    let client = raw_client(&url).await;
    // The plan kept for every call of the group statement (an update of t1,
    // a creation in context c) on a store grown since the agent started, so
    // the planner has its size but no statistics: tasks, kept counts and
    // documents are each read by their keys.
    let lines = client
        .simple_query(&format!(
            "INSERT INTO tasks SELECT 'x' || g, 'ns', 'x' || g, 's', 't', 1, g, '{{}}' \
               FROM generate_series(1, 20000) g; \
             INSERT INTO context_counts SELECT 'ns', 'x' || g, 's', 2 FROM generate_series(1, 20000) g; \
             INSERT INTO docs SELECT 'hooks', 'ns', 'x' || g || '/w', 1, '{{}}' FROM generate_series(1, 20000) g; \
             SET plan_cache_mode = force_generic_plan; PREPARE written AS {}; \
             EXPLAIN EXECUTE written(ARRAY['t1', 't9'], ARRAY['ns', 'ns'], ARRAY['c', 'c'], \
               ARRAY['s', 's'], ARRAY['t', 't'], ARRAY[2, 1]::bigint[], ARRAY['{{}}', '{{}}'], \
               ARRAY[false, true], ARRAY[1, 0]::bigint[], ARRAY[NULL, NULL]::text[], \
               ARRAY[NULL, NULL]::text[], ARRAY[NULL, NULL]::text[], ARRAY['t1'], ARRAY['ns'], \
               ARRAY[2]::bigint[], ARRAY['{{}}'], ARRAY[7, NULL]::bigint[])",
            crate::sql::WRITE_TASKS_STRICT
        ))
        .await
        .expect("the plan");
    let plan: Vec<String> = lines
        .iter()
        .filter_map(|line| match line {
            tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
            _ => None,
        })
        .collect();
    let plan = plan.join("\n");
    for table in ["tasks", "context_counts", "docs"] {
        assert!(
            !plan.contains(&format!("Seq Scan on {table}")),
            "{table} read whole:\n{plan}"
        );
    }
    assert!(plan.contains("Index Scan using tasks_pkey on tasks"), "{plan}");
}

#[tokio::test]
async fn postgres_connections_run_without_jit() {
    let url = crate::cluster::TestCluster::fresh_database();
    let store = PgStore::open(&url).await.expect("open");
    let conn = store.pool.get().await.expect("a read connection");
    let jit: String = conn
        .client
        .query_one("SHOW jit", &[])
        .await
        .and_then(|row| row.try_get(0))
        .expect("the setting");
    assert_eq!(jit, "off");
}

#[tokio::test]
async fn postgres_names_its_backend() {
    let store = fresh_store().await;
    let store: &dyn Store = &store;
    assert_eq!(store.backend(), "postgres");
}

/// A group in which one commit fails is replayed one commit at a time, and
/// the others' outcomes are what the group would have given: here, one
/// deletion, one of a task that is not there, one task moved with an event
/// that owes its two webhooks a delivery each, and one of the webhooks
/// dropped with what it was owed. The three are submitted before the test's (one-threaded)
/// runtime lets the writer run, so they make one group.
#[tokio::test]
async fn postgres_a_replayed_group_keeps_the_others_deletions_and_events() {
    let store = fresh_store().await;
    assert!(create_with_hooks(&store, "z").await.is_ok());
    for id in ["x", "y"] {
        create(
            &store,
            row(id, "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
        )
        .await;
    }
    let before = store.counts().groups_replayed;
    let again = Commit {
        task: Some(TaskWrite {
            row: row("x", "ns", "c", TaskState::Working, "2024-01-01T00:00:00.000Z"),
            create: true,
            expected_last_seq: 0,
            expected_rank: None,
            events: vec![],
        }),
        ..Commit::default()
    };
    let gone = Commit {
        delete_tasks: vec![store::TaskDelete {
            namespace: "ns".into(),
            id: "y".into(),
        }],
        ..Commit::default()
    };
    let event: a2a::types::StreamResponse = serde_json::from_value(serde_json::json!({"statusUpdate": {
        "taskId": "z", "contextId": "c", "status": {"state": TaskState::Working}
    }}))
    .expect("an event");
    let moved = Commit {
        task: Some(TaskWrite {
            row: row("z", "ns", "c", TaskState::Working, "2024-01-01T00:00:01.000Z"),
            create: false,
            expected_last_seq: 1,
            expected_rank: None,
            events: vec![store::EventRow {
                seq: 2,
                body: event.clone(),
            }],
        }),
        fanout: Some(store::Fanout {
            coll: "hooks".into(),
            prefix: "z/".into(),
        }),
        ..Commit::default()
    };
    let nobody = Commit {
        delete_tasks: vec![store::TaskDelete {
            namespace: "ns".into(),
            id: "nobody".into(),
        }],
        ..Commit::default()
    };
    let dropped = Commit {
        deliveries: vec![store::DeliveryChange::DropTarget {
            namespace: "ns".into(),
            task_id: "z".into(),
            config_id: Some("w1".into()),
        }],
        ..Commit::default()
    };
    let (refused, deleted, moved, nobody, dropped) = (
        store.commit(again),
        store.commit(gone),
        store.commit(moved),
        store.commit(nobody),
        store.commit(dropped),
    );
    let (refused, deleted, moved, nobody, dropped) = tokio::join!(refused, deleted, moved, nobody, dropped);
    assert!(matches!(refused, Err(StoreError::Conflict { .. })), "{refused:?}");
    assert_eq!(deleted.map(|c| c.deleted_tasks), Ok(1));
    assert!(moved.is_ok(), "{moved:?}");
    assert_eq!(nobody.map(|c| c.deleted_tasks), Ok(0));
    assert!(dropped.is_ok(), "{dropped:?}");
    assert_eq!(store.counts().groups_replayed, before + 1);
    assert_eq!(store.get_task("ns", "y").await, Ok(None));
    let events = store.events_after("ns", "z", 1).await.unwrap_or_default();
    assert_eq!(
        events.into_iter().map(|e| (e.seq, e.body)).collect::<Vec<_>>(),
        [(2, event)]
    );
    // Events 1 and 2, each owed to both webhooks, then the first webhook
    // dropped: what is left is owed to the second.
    let pending = store.pending_deliveries("ns", "z").await.unwrap_or_default();
    let owed: Vec<_> = pending
        .iter()
        .map(|d| (d.key.config_id.as_str(), d.key.seq))
        .collect();
    assert_eq!(owed, [("w2", 1), ("w2", 2)]);
}

/// Reads of one task gathered into one query each get the task. They are
/// all made before the test's (one-threaded) runtime lets the gatherer run.
#[tokio::test]
async fn postgres_gathered_reads_of_one_task_each_get_it() {
    let store = fresh_store().await;
    create(
        &store,
        row("t", "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    let read = || store.get_task("ns", "t");
    let (a, b, c, d) = tokio::join!(read(), read(), read(), read());
    let found: Vec<bool> = [a, b, c, d]
        .into_iter()
        .map(|r| matches!(r, Ok(Some(_))))
        .collect();
    assert_eq!(found, [true; 4]);
}

#[tokio::test]
async fn postgres_versioned_document_writes_stand_in_one_round_trip() {
    let store = fresh_store().await;
    let writes = [
        DocWrite::put("c", "ns", "k", Expect::Absent, serde_json::json!(1)),
        DocWrite::put("c", "ns", "k", Expect::Version(1), serde_json::json!(2)),
        DocWrite::delete("c", "ns", "k", Expect::Version(2)),
    ];
    for write in writes {
        let commit = Commit {
            docs: vec![write],
            ..Commit::default()
        };
        assert!(store.commit(commit).await.is_ok());
    }
    assert_eq!(store.get_doc("c", "ns", "k").await, Ok(None));
    let counts = store.counts();
    assert_eq!(
        (counts.groups_whole, counts.groups_replayed),
        (3, 0),
        "{counts:?}"
    );
}

#[tokio::test]
async fn postgres_two_changes_of_one_task_in_one_group_stand_in_order() {
    let store = fresh_store().await;
    create(
        &store,
        row("t", "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    let change = |seq: u64, state: TaskState| {
        let event: a2a::types::StreamResponse = serde_json::from_value(serde_json::json!({"statusUpdate": {
            "taskId": "t", "contextId": "c", "status": {"state": state}
        }}))
        .expect("an event");
        Commit {
            task: Some(TaskWrite {
                row: row("t", "ns", "c", state, "2024-01-01T00:00:01.000Z"),
                create: false,
                expected_last_seq: seq - 1,
                expected_rank: None,
                events: vec![store::EventRow { seq, body: event }],
            }),
            ..Commit::default()
        }
    };
    let before = store.counts();
    // Both queued before the writer runs: one group.
    let (first, second) = (
        store.commit(change(2, TaskState::Working)),
        store.commit(change(3, TaskState::Completed)),
    );
    let (first, second) = tokio::join!(first, second);
    assert!(first.is_ok() && second.is_ok(), "{first:?} {second:?}");
    let counts = store.counts();
    assert_eq!(
        (counts.groups_whole, counts.groups_replayed),
        (before.groups_whole + 1, before.groups_replayed),
        "{counts:?}"
    );
    let task = store.get_task("ns", "t").await.ok().flatten();
    assert_eq!(
        task.map(|t| (t.last_seq, t.state)),
        Some((3, TaskState::Completed.to_string()))
    );
    let seqs: Vec<u64> = store
        .events_after("ns", "t", 0)
        .await
        .unwrap_or_default()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs, [1, 2, 3]);
}
