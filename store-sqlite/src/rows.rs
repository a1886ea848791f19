//! How rows travel between Rust and SQLite: how a connection is set up,
//! errors, and the task columns every task query selects.

use store::json::decode;
use store::{StoreError, StoreResult, TaskRow};

pub(super) fn backend<E: std::fmt::Display>(e: E) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// The VFS every connection opens the database with: the file held locked
/// by this process while open, the WAL index in its memory (see
/// [`super::SqliteStore::open`]).
pub(super) const EXCLUSIVE_VFS: &str = "unix-excl";

/// Prepared statements kept per connection: every query the store runs fits.
const STATEMENT_CACHE: usize = 64;

/// What every connection of the store is opened with: a wait for a busy
/// database rather than an immediate failure, and its statement cache.
/// A further connection to the database at `path` (a reader, the
/// checkpointer), beside the writer's, configured as every one is.
pub(super) fn open_beside(
    path: &std::path::Path,
    flags: rusqlite::OpenFlags,
) -> StoreResult<rusqlite::Connection> {
    let conn = rusqlite::Connection::open_with_flags_and_vfs(
        path,
        flags | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        EXCLUSIVE_VFS,
    )
    .map_err(backend)?;
    configure(&conn)?;
    Ok(conn)
}

pub(super) fn configure(conn: &rusqlite::Connection) -> StoreResult<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(backend)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    Ok(())
}

/// A stored body as it is, checked to be JSON (a damaged file is a store
/// failure, never malformed output).
pub(super) fn raw_body(value: rusqlite::types::ValueRef<'_>) -> StoreResult<a2a::rpc::RawJson> {
    store::json::raw(value.as_str().map_err(backend)?.to_owned())
}

/// The columns of a task row, in the order [`task_from_row`] reads them.
pub(super) const TASK_COLUMNS: &str = "id, namespace, context_id, state, status_ts, last_seq, rank, body";

/// A task row selected with [`TASK_COLUMNS`]; a body that does not decode is
/// reported as a store failure, not a panic.
pub(super) fn task_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoreResult<TaskRow>> {
    // Borrowed from SQLite's buffer: the text is parsed, never copied.
    let body = row.get_ref(7)?.as_str().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(7, rusqlite::types::Type::Text, Box::new(e))
    })?;
    let task = match decode(body) {
        Ok(task) => task,
        Err(e) => return Ok(Err(e)),
    };
    Ok(Ok(TaskRow {
        id: row.get(0)?,
        namespace: row.get(1)?,
        context_id: row.get(2)?,
        state: row.get(3)?,
        status_ts: row.get(4)?,
        last_seq: row.get::<_, i64>(5)? as u64,
        rank: row.get(6)?,
        body: task,
    }))
}
