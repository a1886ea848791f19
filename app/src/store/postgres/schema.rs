//! The PostgreSQL schema and its numbered migrations.
//!
//! Migration `i` brings the schema from version `i` to `i + 1`; the version
//! is kept in `schema_version`. Every agent migrates on start: they take one
//! advisory lock for it, so two agents starting together on one database
//! migrate it once. Text columns that are ordered or compared by range use
//! the `C` collation, so keys sort bytewise as in the other backends,
//! whatever the database's locale.

use super::conn::{backend, Conn};
use crate::store::{StoreError, StoreResult};

/// The channel on which a commit announces the task events it appended.
pub(super) const EVENTS_CHANNEL: &str = "cleveragents_task_events";

/// Taken while migrating (an arbitrary, fixed advisory lock key).
const MIGRATION_LOCK: i64 = 0x636c_6576_6572;

/// Migrations in order.
const MIGRATIONS: &[&str] = &["
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
"];

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
