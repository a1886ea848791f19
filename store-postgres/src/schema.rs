//! The PostgreSQL schema and its numbered migrations.
//!
//! Migration `i` brings the schema from version `i` to `i + 1`; the version
//! is kept in `schema_version`. Every agent migrates on start: they take one
//! advisory lock for it, so two agents starting together on one database
//! migrate it once. Text columns that are ordered or compared by range use
//! the `C` collation, so keys sort bytewise as in the other backends,
//! whatever the database's locale.

use super::conn::{backend, Conn};
use store::{StoreError, StoreResult};

/// The channel on which a commit announces the task events it appended.
pub(super) const EVENTS_CHANNEL: &str = "cleveragents_task_events";

/// Taken while migrating (an arbitrary, fixed advisory lock key).
const MIGRATION_LOCK: i64 = 0x636c_6576_6572;

/// Migrations in order.
pub(super) const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE tasks (
        id         TEXT PRIMARY KEY,
        namespace  TEXT COLLATE \"C\" NOT NULL,
        context_id TEXT COLLATE \"C\" NOT NULL,
        state      TEXT COLLATE \"C\" NOT NULL,
        status_ts  TEXT COLLATE \"C\" NOT NULL,
        last_seq   BIGINT NOT NULL,
        rank       BIGINT NOT NULL,
        body       TEXT NOT NULL
    );
    CREATE INDEX tasks_by_namespace_rank ON tasks(namespace, rank DESC);
    CREATE INDEX tasks_by_context ON tasks(namespace, context_id, rank DESC);
    CREATE INDEX tasks_by_state ON tasks(namespace, state, rank DESC);
    CREATE TABLE task_events (
        task_id TEXT NOT NULL,
        seq     BIGINT NOT NULL,
        body    TEXT NOT NULL,
        PRIMARY KEY (task_id, seq)
    );
    CREATE TABLE docs (
        coll      TEXT COLLATE \"C\" NOT NULL,
        namespace TEXT COLLATE \"C\" NOT NULL,
        key       TEXT COLLATE \"C\" NOT NULL,
        version   BIGINT NOT NULL,
        body      TEXT NOT NULL,
        PRIMARY KEY (coll, namespace, key)
    );
    -- The recency rank of task writes, shared by every agent on the database.
    CREATE SEQUENCE task_rank;
",
    "
    -- Every appended task event in one store-wide order, which the namespace
    -- event stream reads by position; the bodies stay in task_events (an event
    -- is stored once). Positions come from a sequence, so none is given twice,
    -- even after the newest events are deleted with their tasks; the writer
    -- takes them under EVENT_ORDER_LOCK, so they also become visible in order.
    CREATE SEQUENCE event_position;
    CREATE TABLE event_order (
        position  BIGINT PRIMARY KEY,
        namespace TEXT COLLATE \"C\" NOT NULL,
        task_id   TEXT NOT NULL,
        seq       BIGINT NOT NULL
    );
    CREATE INDEX event_order_by_namespace ON event_order(namespace, position);
    CREATE INDEX event_order_by_task ON event_order(task_id);
    -- The events already stored, each task's in order, tasks in the order of
    -- their last write.
    INSERT INTO event_order(position, namespace, task_id, seq)
        SELECT row_number() OVER (ORDER BY t.rank, e.seq), t.namespace, e.task_id, e.seq
        FROM task_events e JOIN tasks t ON t.id = e.task_id;
    SELECT setval('event_position', COALESCE(MAX(position), 0) + 1, false) FROM event_order;
",
    "
    -- The push outbox: one row per task event still owed to one webhook,
    -- written in the transaction that appends the event and deleted once
    -- delivered or given up. An agent leases a row (holder, lease expiry)
    -- while it delivers; another takes it only once the lease has expired.
    CREATE TABLE push_outbox (
        namespace       TEXT COLLATE \"C\" NOT NULL,
        task_id         TEXT NOT NULL,
        config_id       TEXT COLLATE \"C\" NOT NULL,
        seq             BIGINT NOT NULL,
        body            TEXT NOT NULL,
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_ms BIGINT NOT NULL DEFAULT 0,
        holder          TEXT,
        lease_until_ms  BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (namespace, task_id, config_id, seq)
    );
    CREATE INDEX push_outbox_by_holder ON push_outbox(holder) WHERE holder IS NOT NULL;
",
    "
    -- A listing of one context in one state (a client's completed tasks in
    -- a conversation, say) reads exactly its matches, in rank order, and
    -- counts them in the same index range. Without it, a table the planner
    -- had no statistics of yet (one filled since the agent started) was
    -- counted through the state index: every task of the namespace in that
    -- state, each read from the table to check its context.
    CREATE INDEX tasks_by_context_state ON tasks(namespace, context_id, state, rank DESC);
",
    super::sql::CREATE_REFUSE,
    "
    -- An event's namespace and position move beside its body: one row and
    -- two index entries per appended event, where the order table took a
    -- second row and three more entries. Positions still come from the
    -- sequence, under EVENT_ORDER_LOCK.
    ALTER TABLE task_events ADD COLUMN namespace TEXT COLLATE \"C\", ADD COLUMN position BIGINT;
    UPDATE task_events e SET namespace = o.namespace, position = o.position
        FROM event_order o WHERE o.task_id = e.task_id AND o.seq = e.seq;
    ALTER TABLE task_events ALTER COLUMN namespace SET NOT NULL, ALTER COLUMN position SET NOT NULL;
    CREATE INDEX task_events_by_namespace ON task_events(namespace, position);
    DROP TABLE event_order;
",
    "
    -- Kept counts of tasks per namespace and state, and per context and
    -- state for every context of two tasks or more, so a listing learns its
    -- total from a handful of rows instead of counting its matches. (A
    -- context of one task, most of them, is counted in one index probe, and
    -- costs no row.) Every statement that changes tasks changes the counts
    -- in the same statement, under EVENT_ORDER_LOCK (which every such
    -- transaction takes first), so two agents change them one at a time.
    CREATE TABLE namespace_counts (
        namespace TEXT COLLATE \"C\" NOT NULL,
        state     TEXT COLLATE \"C\" NOT NULL,
        n         BIGINT NOT NULL,
        PRIMARY KEY (namespace, state)
    );
    CREATE TABLE context_counts (
        namespace  TEXT COLLATE \"C\" NOT NULL,
        context_id TEXT COLLATE \"C\" NOT NULL,
        state      TEXT COLLATE \"C\" NOT NULL,
        n          BIGINT NOT NULL,
        PRIMARY KEY (namespace, context_id, state)
    );
    INSERT INTO context_counts SELECT namespace, context_id, state, COUNT(*) FROM tasks
        WHERE (namespace, context_id) IN
            (SELECT namespace, context_id FROM tasks GROUP BY 1, 2 HAVING COUNT(*) >= 2)
        GROUP BY 1, 2, 3;
    INSERT INTO namespace_counts SELECT namespace, state, COUNT(*) FROM tasks GROUP BY 1, 2;
",
    "
    -- The rank indexes in ascending order: every write takes the highest
    -- rank yet, so its entry goes to the right end of its range, where the
    -- btree appends and splits a full page unevenly; in descending order it
    -- went to the left end, splitting pages in halves that stayed half
    -- empty. Listings read them backwards, as cheaply.
    DROP INDEX tasks_by_namespace_rank;
    DROP INDEX tasks_by_context;
    DROP INDEX tasks_by_state;
    DROP INDEX tasks_by_context_state;
    CREATE INDEX tasks_by_namespace_rank ON tasks(namespace, rank);
    CREATE INDEX tasks_by_context ON tasks(namespace, context_id, rank);
    CREATE INDEX tasks_by_state ON tasks(namespace, state, rank);
    CREATE INDEX tasks_by_context_state ON tasks(namespace, context_id, state, rank);
",
    "
    -- Migration 7 first kept the counts with statement triggers (and one
    -- form of it made no context_counts); it was rewritten in place once
    -- the statements kept them, so a database migrated by its first form
    -- counted every change twice, in the trigger and in the statement (the
    -- upgrade fixture of schema 7 showed it). The triggers and their
    -- function go, and the counts are taken again from the tasks, under
    -- EVENT_ORDER_LOCK like every change of them.
    SELECT pg_advisory_xact_lock(109317209878386);
    DROP TRIGGER IF EXISTS tasks_counted_on_insert ON tasks;
    DROP TRIGGER IF EXISTS tasks_counted_on_update ON tasks;
    DROP TRIGGER IF EXISTS tasks_counted_on_delete ON tasks;
    DROP FUNCTION IF EXISTS cleveragents_count_tasks();
    CREATE TABLE IF NOT EXISTS context_counts (
        namespace  TEXT COLLATE \"C\" NOT NULL,
        context_id TEXT COLLATE \"C\" NOT NULL,
        state      TEXT COLLATE \"C\" NOT NULL,
        n          BIGINT NOT NULL,
        PRIMARY KEY (namespace, context_id, state)
    );
    DELETE FROM namespace_counts;
    DELETE FROM context_counts;
    INSERT INTO context_counts SELECT namespace, context_id, state, COUNT(*) FROM tasks
        WHERE (namespace, context_id) IN
            (SELECT namespace, context_id FROM tasks GROUP BY 1, 2 HAVING COUNT(*) >= 2)
        GROUP BY 1, 2, 3;
    INSERT INTO namespace_counts SELECT namespace, state, COUNT(*) FROM tasks GROUP BY 1, 2;
",
];

/// Held by every transaction that appends task events, from the moment it
/// takes their positions until it commits (an arbitrary, fixed advisory lock
/// key). A sequence alone would not order the stream: two agents' commits
/// may take positions 7 and 8 and the one holding 8 commit first, so a reader
/// that saw 8 would skip 7. Under the lock, positions are taken by one
/// transaction at a time, and the lock is released only once that
/// transaction is visible, so every position is visible before any larger.
/// Every transaction that changes tasks takes it too, so the rows of the
/// kept counts are only ever changed under it.
pub(super) const EVENT_ORDER_LOCK: i64 = 0x636c_6576_6f72;

/// Brings the schema to the newest version, in one transaction.
pub(super) async fn migrate(conn: &Conn) -> StoreResult<()> {
    let client = &conn.client;
    client.batch_execute("BEGIN").await.map_err(backend)?;
    let outcome = async {
        client
            .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(backend)?;
        client
            .batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            .await
            .map_err(backend)?;
        let current: i32 = client
            .query_one("SELECT COALESCE(MAX(version), 0) FROM schema_version", &[])
            .await
            .map_err(backend)?
            .try_get(0)
            .map_err(backend)?;
        let current = usize::try_from(current).unwrap_or(0);
        if current > MIGRATIONS.len() {
            return Err(StoreError::Backend(format!(
                "database schema version {current} is newer than this program ({})",
                MIGRATIONS.len()
            )));
        }
        for sql in &MIGRATIONS[current..] {
            client.batch_execute(sql).await.map_err(backend)?;
        }
        let newest = MIGRATIONS.len() as i32;
        client
            .execute("DELETE FROM schema_version", &[])
            .await
            .map_err(backend)?;
        client
            .execute("INSERT INTO schema_version(version) VALUES($1)", &[&newest])
            .await
            .map_err(backend)?;
        Ok(())
    }
    .await;
    match outcome {
        Ok(()) => client.batch_execute("COMMIT").await.map_err(backend),
        Err(e) => {
            let _ = client.batch_execute("ROLLBACK").await;
            Err(e)
        }
    }
}
