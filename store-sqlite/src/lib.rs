//! The SQLite backend, the embedded default: one database file in the data
//! directory, WAL journal with `synchronous=FULL` so a commit is on disk before
//! it returns (and so before any caller is answered), the WAL checkpointed
//! on a thread of its own rather than in a commit, and numbered migrations
//! tracked in `PRAGMA user_version`.

mod checkpoint;
mod counts;
mod outbox;
mod readers;
mod recent;
mod rows;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod upgrade;
mod writer;

use a2a::rpc::RawJson;
use counts::TaskCounts;
use readers::Readers;
use recent::RecentBodies;
use rows::{backend, configure, raw_body, task_from_row, EXCLUSIVE_VFS, TASK_COLUMNS};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use store::json::decode;
use store::leases::Leases;
use store::*;
use writer::{Published, Writer};

/// Migrations in order; migration `i` brings `user_version` from `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE tasks (
        id         TEXT PRIMARY KEY,
        namespace  TEXT NOT NULL,
        context_id TEXT NOT NULL,
        state      TEXT NOT NULL,
        status_ts  TEXT NOT NULL,
        last_seq   INTEGER NOT NULL,
        rank       INTEGER NOT NULL,
        body       TEXT NOT NULL
    );
    CREATE INDEX tasks_by_namespace_rank ON tasks(namespace, rank DESC);
    CREATE INDEX tasks_by_context ON tasks(namespace, context_id, rank DESC);
    CREATE TABLE task_events (
        task_id TEXT NOT NULL,
        seq     INTEGER NOT NULL,
        body    TEXT NOT NULL,
        PRIMARY KEY (task_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE docs (
        coll      TEXT NOT NULL,
        namespace TEXT NOT NULL,
        key       TEXT NOT NULL,
        version   INTEGER NOT NULL,
        body      TEXT NOT NULL,
        PRIMARY KEY (coll, namespace, key)
    ) WITHOUT ROWID;
    CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
",
    "
    -- The listing's filters ride in its indexes, so filtering and counting
    -- read the index alone and visit the table only for the rows returned.
    DROP INDEX tasks_by_namespace_rank;
    DROP INDEX tasks_by_context;
    CREATE INDEX tasks_by_namespace_rank ON tasks(namespace, rank DESC, state, status_ts);
    CREATE INDEX tasks_by_context ON tasks(namespace, context_id, rank DESC, state, status_ts);
",
    "
    -- Tasks per context and state, moved by the writer in the transaction of
    -- each task write: a listing of one context learns its total without
    -- counting the context's tasks. Only contexts of two tasks or more are
    -- counted (a context of one, most of them, is counted by its index in no
    -- time, and costs the writer no row); a state no task is in has no row.
    CREATE TABLE context_counts (
        namespace  TEXT NOT NULL,
        context_id TEXT NOT NULL,
        state      TEXT NOT NULL,
        n          INTEGER NOT NULL,
        PRIMARY KEY (namespace, context_id, state)
    ) WITHOUT ROWID;
    INSERT INTO context_counts(namespace, context_id, state, n)
        SELECT namespace, context_id, state, COUNT(*) FROM tasks
        WHERE (namespace, context_id) IN
            (SELECT namespace, context_id FROM tasks GROUP BY namespace, context_id HAVING COUNT(*) >= 2)
        GROUP BY namespace, context_id, state;
",
    "
    -- Every appended task event in one store-wide order, which the namespace
    -- event stream reads by position; the bodies stay in task_events (an event
    -- is stored once). AUTOINCREMENT: a position is never given twice, even
    -- after the newest events are deleted with their tasks.
    CREATE TABLE event_order (
        position  INTEGER PRIMARY KEY AUTOINCREMENT,
        namespace TEXT NOT NULL,
        task_id   TEXT NOT NULL,
        seq       INTEGER NOT NULL
    );
    CREATE INDEX event_order_by_namespace ON event_order(namespace, position);
    INSERT INTO event_order(namespace, task_id, seq)
        SELECT t.namespace, e.task_id, e.seq FROM task_events e JOIN tasks t ON t.id = e.task_id
        ORDER BY t.rank, e.seq;
",
    "
    -- The push outbox: one row per task event still owed to one webhook,
    -- written in the transaction that appends the event and deleted once
    -- delivered or given up. Leases are held in memory by the one process
    -- that opens the database.
    CREATE TABLE push_outbox (
        namespace       TEXT NOT NULL,
        task_id         TEXT NOT NULL,
        config_id       TEXT NOT NULL,
        seq             INTEGER NOT NULL,
        body            TEXT NOT NULL,
        attempts        INTEGER NOT NULL,
        next_attempt_ms INTEGER NOT NULL,
        PRIMARY KEY (namespace, task_id, config_id, seq)
    ) WITHOUT ROWID;
",
    "
    -- An event's namespace and position move beside its body: one row and
    -- one index entry more per appended event, where the order table took a
    -- row, an index entry and its AUTOINCREMENT bookkeeping. The writer hands
    -- positions out and saves the last in counters once per turn, so none is
    -- given twice, even after the newest events are deleted with their tasks.
    ALTER TABLE task_events ADD COLUMN namespace TEXT NOT NULL DEFAULT '';
    ALTER TABLE task_events ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
    UPDATE task_events SET namespace = o.namespace, position = o.position
        FROM event_order o WHERE o.task_id = task_events.task_id AND o.seq = task_events.seq;
    INSERT INTO counters(name, value)
        SELECT 'event_position', seq FROM sqlite_sequence WHERE name = 'event_order'
        ON CONFLICT(name) DO UPDATE SET value = excluded.value;
    CREATE INDEX task_events_by_namespace ON task_events(namespace, position);
    DROP TABLE event_order;
",
    "
    -- The rank indexes in ascending order: every write takes the highest
    -- rank yet, so its entry goes to the right end of its range, where the
    -- b-tree appends; in descending order it went to the left end, and every
    -- insert shifted the cells of a full page. Listings read them backwards,
    -- as cheaply.
    DROP INDEX tasks_by_namespace_rank;
    DROP INDEX tasks_by_context;
    CREATE INDEX tasks_by_namespace_rank ON tasks(namespace, rank, state, status_ts);
    CREATE INDEX tasks_by_context ON tasks(namespace, context_id, rank, state, status_ts);
",
];

/// A store in one SQLite database: one writer thread (group commit) and a
/// pool of read connections.
pub struct SqliteStore {
    writer: Writer,
    readers: Readers,
    counts: Arc<TaskCounts>,
    recent: Arc<RecentBodies>,
    leases: Arc<Leases>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and migrates it.
    pub fn open(path: &Path) -> StoreResult<Self> {
        // The database belongs to this process (the push leases live in its
        // memory): `unix-excl` holds the file locked for as long as it is
        // open, so a second process is refused instead of sharing it, and the
        // WAL index lives in this process's heap, so beginning and ending a
        // transaction locks in memory rather than with `fcntl` on a `-shm` file.
        let mut conn = Connection::open_with_flags_and_vfs(path, OpenFlags::default(), EXCLUSIVE_VFS)
            .map_err(backend)?;
        // WAL lets readers proceed during a write; FULL makes every commit
        // durable (fsync of the WAL) before it returns.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(open_error)?;
        conn.pragma_update(None, "synchronous", "FULL").map_err(backend)?;
        // A turn in which a commit fails runs again with each commit in a
        // savepoint, whose journal (the pages it changes that the turn
        // changed before) would otherwise spill to a temporary file.
        conn.pragma_update(None, "temp_store", "MEMORY")
            .map_err(backend)?;
        // The writer revisits the same hot pages (the newest leaves of each
        // index) every turn; with SQLite's default 2 MB it read them back
        // from the WAL. 16 MB, a bound of the agent's memory like any other.
        conn.pragma_update(None, "cache_size", -16384).map_err(backend)?;
        // Checkpoints run on a thread of their own (see `checkpoint`), not
        // in the writer's commits.
        conn.pragma_update(None, "wal_autocheckpoint", 0)
            .map_err(backend)?;
        configure(&conn)?;
        migrate(&mut conn)?;
        let counts = Arc::new(TaskCounts::load(&conn)?);
        let recent = Arc::new(RecentBodies::default());
        let published = Published {
            counts: counts.clone(),
            recent: recent.clone(),
            checkpoint: checkpoint::Checkpointer::start(path)?,
        };
        Ok(SqliteStore {
            writer: Writer::start(conn, published)?,
            readers: Readers::new(path),
            counts,
            recent,
            leases: Arc::default(),
        })
    }
}

/// Why the database could not be opened: held by another process (after the
/// busy timeout, in case that process was just stopping), or the failure itself.
fn open_error(e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy) => {
            StoreError::Backend("the database is in use by another process".into())
        }
        _ => backend(e),
    }
}

/// Brings the schema to the newest version, one numbered migration at a time.
fn migrate(conn: &mut Connection) -> StoreResult<()> {
    let current: u32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(backend)?;
    if current as usize > MIGRATIONS.len() {
        return Err(StoreError::Backend(format!(
            "database schema version {current} is newer than this program ({})",
            MIGRATIONS.len()
        )));
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        let tx = conn.transaction().map_err(backend)?;
        tx.execute_batch(sql).map_err(backend)?;
        tx.pragma_update(None, "user_version", (index + 1) as u32)
            .map_err(backend)?;
        tx.commit().map_err(backend)?;
    }
    Ok(())
}

impl InlineStore for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    fn submit(&self, mut commit: Commit, done: CommitDone) {
        if commit.deliveries.is_empty() {
            return self.writer.submit(commit, done);
        }
        // A retry by a holder whose lease lapsed (and may be another's now)
        // changes nothing; the leases finished go once the commit is durable.
        commit.deliveries.retain(|change| match change {
            DeliveryChange::Retry { key, holder, .. } => self.leases.holds(key, holder).unwrap_or(false),
            _ => true,
        });
        let (leases, changes) = (self.leases.clone(), commit.deliveries.clone());
        self.writer.submit(
            commit,
            Box::new(move |outcome| {
                if outcome.is_ok() {
                    leases.release(&changes);
                }
                done(outcome)
            }),
        );
    }

    fn claim_deliveries(
        &self,
        holder: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>> {
        let due = self.readers.with(|conn| outbox::due_heads(conn, now_ms))?;
        let taken = self.leases.take(due, holder, now_ms, lease_until_ms, limit)?;
        let mut claimed = Vec::with_capacity(taken.len());
        for key in taken {
            match self.readers.with(|conn| outbox::row(conn, &key)) {
                Ok(Some(row)) => claimed.push(row),
                // Finished meanwhile, or unreadable: not in flight after all.
                Ok(None) => self.leases.release(&[DeliveryChange::Done(key)]),
                Err(e) => {
                    self.leases.release(&[DeliveryChange::Done(key)]);
                    return Err(e);
                }
            }
        }
        Ok(claimed)
    }

    fn renew_deliveries(&self, holder: &str, lease_until_ms: i64) -> StoreResult<u64> {
        self.leases.renew(holder, lease_until_ms)
    }

    fn pending_deliveries(&self, namespace: &str, task_id: &str) -> StoreResult<Vec<Delivery>> {
        self.readers
            .with(|conn| outbox::pending(conn, namespace, task_id))
    }

    fn has_deliveries(&self) -> StoreResult<bool> {
        self.readers.with(outbox::any)
    }

    fn get_task(&self, namespace: &str, id: &str) -> StoreResult<Option<TaskRow>> {
        self.readers.with(|conn| {
            conn.prepare_cached(&format!(
                "SELECT {TASK_COLUMNS} FROM tasks WHERE id = ?1 AND namespace = ?2"
            ))
            .and_then(|mut stmt| stmt.query_row([id, namespace], task_from_row).optional())
            .map_err(backend)?
            .transpose()
        })
    }

    fn get_task_encoded(&self, namespace: &str, id: &str) -> StoreResult<Option<RawJson>> {
        if let Some(body) = self.recent.get(namespace, id) {
            return Ok(Some(body));
        }
        self.readers.with(|conn| {
            conn.prepare_cached("SELECT body FROM tasks WHERE id = ?1 AND namespace = ?2")
                .and_then(|mut stmt| {
                    stmt.query_row([id, namespace], |row| Ok(raw_body(row.get_ref(0)?)))
                        .optional()
                })
                .map_err(backend)?
                .transpose()
        })
    }

    fn namespace_events_after(
        &self,
        namespace: &str,
        after: u64,
        limit: usize,
    ) -> StoreResult<Vec<OrderedEvent>> {
        self.readers.with(|conn| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT e.position, e.task_id, t.context_id, e.seq, e.body FROM task_events e \
                     JOIN tasks t ON t.id = e.task_id \
                     WHERE e.namespace = ?1 AND e.position > ?2 ORDER BY e.position LIMIT ?3",
                )
                .map_err(backend)?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let after = i64::try_from(after).unwrap_or(i64::MAX);
            let rows = stmt
                .query_map(params![namespace, after, limit], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, String>(4)?,
                    ))
                })
                .map_err(backend)?;
            let mut out = Vec::new();
            for row in rows {
                let (position, task_id, context_id, seq, body) = row.map_err(backend)?;
                out.push(OrderedEvent {
                    position: position as u64,
                    task_id,
                    context_id,
                    event: EventRow {
                        seq: seq as u64,
                        body: decode(&body)?,
                    },
                });
            }
            Ok(out)
        })
    }

    fn events_after(&self, namespace: &str, task_id: &str, after: u64) -> StoreResult<Vec<EventRow>> {
        self.readers.with(|conn| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT e.seq, e.body FROM task_events e JOIN tasks t ON t.id = e.task_id \
                     WHERE e.task_id = ?1 AND t.namespace = ?2 AND e.seq > ?3 ORDER BY e.seq",
                )
                .map_err(backend)?;
            let rows = stmt
                .query_map(params![task_id, namespace, after as i64], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
                })
                .map_err(backend)?;
            let mut out = Vec::new();
            for row in rows {
                let (seq, body) = row.map_err(backend)?;
                out.push(EventRow {
                    seq: seq as u64,
                    body: decode(&body)?,
                });
            }
            Ok(out)
        })
    }

    fn list_tasks(&self, query: &TaskQuery) -> StoreResult<TaskPage> {
        let mut filter = String::from("namespace = ?1");
        let mut args: Vec<rusqlite::types::Value> = vec![query.namespace.clone().into()];
        if let Some(c) = &query.context_id {
            args.push(c.clone().into());
            filter.push_str(&format!(" AND context_id = ?{}", args.len()));
        }
        if let Some(s) = &query.state {
            args.push(s.clone().into());
            filter.push_str(&format!(" AND state = ?{}", args.len()));
        }
        if let Some(t) = &query.status_ts_from {
            args.push(t.clone().into());
            filter.push_str(&format!(" AND status_ts >= ?{}", args.len()));
        }
        // Without a time filter the total is kept (in memory per namespace,
        // in `context_counts` per context); with one, the covering indexes
        // count the matches without reading a task.
        let known_total = match (&query.context_id, &query.status_ts_from) {
            (None, None) => self.counts.total(&query.namespace, query.state.as_deref()),
            _ => None,
        };
        let context_total = match (&query.context_id, &query.status_ts_from) {
            (Some(context), None) => Some(context),
            _ => None,
        };
        let count_sql = format!("SELECT COUNT(*) FROM tasks WHERE {filter}");
        let count_args = args.len();
        if let Some(r) = query.before_rank {
            args.push(r.into());
            filter.push_str(&format!(" AND rank < ?{}", args.len()));
        }
        args.push(((query.limit as i64).saturating_add(1)).into());
        let page_sql = format!(
            "SELECT {TASK_COLUMNS} FROM tasks WHERE {filter} ORDER BY rank DESC LIMIT ?{}",
            args.len()
        );
        self.readers.with(|conn| {
            let kept = match context_total {
                Some(context) => context_count(conn, &query.namespace, context, query.state.as_deref())?,
                None => None,
            };
            let total = match known_total.or(kept) {
                Some(total) => total,
                None => conn
                    .prepare_cached(&count_sql)
                    .and_then(|mut stmt| {
                        stmt.query_row(rusqlite::params_from_iter(&args[..count_args]), |r| {
                            r.get::<_, i64>(0)
                        })
                    })
                    .map_err(backend)? as u64,
            };
            let mut stmt = conn.prepare_cached(&page_sql).map_err(backend)?;
            let mapped = stmt
                .query_map(rusqlite::params_from_iter(args.iter()), task_from_row)
                .map_err(backend)?;
            let mut rows = Vec::new();
            for row in mapped {
                rows.push(row.map_err(backend)??);
            }
            let more = rows.len() > query.limit;
            rows.truncate(query.limit);
            Ok(TaskPage { rows, total, more })
        })
    }

    fn get_doc(&self, coll: &str, namespace: &str, key: &str) -> StoreResult<Option<Doc>> {
        let found = self.readers.with(|conn| {
            conn.prepare_cached(
                "SELECT version, body FROM docs WHERE coll = ?1 AND namespace = ?2 AND key = ?3",
            )
            .and_then(|mut stmt| {
                stmt.query_row(params![coll, namespace, key], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
                })
                .optional()
            })
            .map_err(backend)
        })?;
        found
            .map(|(version, body)| {
                Ok(Doc {
                    key: key.to_string(),
                    version: version as u64,
                    value: decode(&body)?,
                })
            })
            .transpose()
    }

    fn list_docs(
        &self,
        coll: &str,
        namespace: &str,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>> {
        // Prefix match by range so no LIKE escaping is needed: keys >= prefix
        // and starting with it (checked in Rust, the scan stops at the first miss).
        let lower = match after {
            Some(a) if a >= prefix => a.to_string(),
            _ => prefix.to_string(),
        };
        let op = if after.is_some_and(|a| a >= prefix) {
            ">"
        } else {
            ">="
        };
        self.readers.with(|conn| {
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT key, version, body FROM docs WHERE coll = ?1 AND namespace = ?2 AND key {op} ?3 ORDER BY key"
            ))
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![coll, namespace, lower], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .map_err(backend)?;
        let mut out = Vec::new();
        for row in rows {
            let (key, version, body) = row.map_err(backend)?;
            if !key.starts_with(prefix) || out.len() >= limit {
                break;
            }
            out.push(Doc {
                key,
                version: version as u64,
                value: decode(&body)?,
            });
        }
        Ok(out)
        })
    }

    fn list_docs_before(
        &self,
        coll: &str,
        namespace: &str,
        before: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.readers.with(|conn| {
            // The primary key (coll, namespace, key) read backwards.
            let mut stmt = conn
                .prepare_cached(
                    "SELECT key, version, body FROM docs WHERE coll = ?1 AND namespace = ?2 \
                     AND (?3 IS NULL OR key < ?3) ORDER BY key DESC LIMIT ?4",
                )
                .map_err(backend)?;
            let rows = stmt
                .query_map(params![coll, namespace, before, limit], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                    ))
                })
                .map_err(backend)?;
            let mut out = Vec::new();
            for row in rows {
                let (key, version, body) = row.map_err(backend)?;
                out.push(Doc {
                    key,
                    version: version as u64,
                    value: decode(&body)?,
                });
            }
            Ok(out)
        })
    }

    fn namespaces(&self) -> StoreResult<Vec<String>> {
        self.readers.with(|conn| {
            let mut stmt = conn
                .prepare("SELECT namespace FROM tasks UNION SELECT namespace FROM docs ORDER BY 1")
                .map_err(backend)?;
            let rows = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(backend)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(backend)
        })
    }

    fn check_integrity(&self, deep: bool) -> StoreResult<Integrity> {
        self.readers.with(|conn| {
        let mut problems = Vec::new();
        let pragma = if deep {
            "PRAGMA integrity_check"
        } else {
            "PRAGMA quick_check"
        };
        let mut stmt = conn.prepare(pragma).map_err(backend)?;
        let results = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(backend)?;
        for line in results {
            let line = line.map_err(backend)?;
            if line != "ok" {
                problems.push(line);
            }
        }
        let mut stmt = conn
            .prepare(
                "SELECT t.id, t.last_seq, COALESCE((SELECT MAX(seq) FROM task_events e WHERE e.task_id = t.id), 0)
                 FROM tasks t",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
            })
            .map_err(backend)?;
        let mut checked = 0u64;
        for row in rows {
            let (id, last, max) = row.map_err(backend)?;
            checked += 1;
            if last != max {
                problems.push(format!("task {id}: last_seq {last} but log ends at {max}"));
            }
        }
        let docs: i64 = conn
            .query_row("SELECT COUNT(*) FROM docs", [], |r| r.get(0))
            .map_err(backend)?;
        checked += docs as u64;
        if deep {
            let mut stmt = conn
                .prepare("SELECT coll, namespace, key, body FROM docs")
                .map_err(backend)?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                    ))
                })
                .map_err(backend)?;
            for row in rows {
                let (coll, ns, key, body) = row.map_err(backend)?;
                if serde_json::from_str::<Value>(&body).is_err() {
                    problems.push(format!("document {coll}/{ns}/{key} is not valid JSON"));
                }
            }
        }
        if deep {
            let mut stmt = conn.prepare("SELECT id, body FROM tasks").map_err(backend)?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(backend)?;
            for row in rows {
                let (id, body) = row.map_err(backend)?;
                if decode::<a2a::types::Task>(&body).is_err() {
                    problems.push(format!("task {id} is not a readable Task"));
                }
            }
        }
        Ok(Integrity {
            checked_objects: checked,
            problems,
        })
        })
    }
}

/// The kept count of a context's tasks (in `state` when given), or `None`
/// for a context that has no counts (one task at most: its index counts it).
fn context_count(
    conn: &Connection,
    namespace: &str,
    context: &str,
    state: Option<&str>,
) -> StoreResult<Option<u64>> {
    let mut stmt = conn
        .prepare_cached("SELECT state, n FROM context_counts WHERE namespace = ?1 AND context_id = ?2")
        .map_err(backend)?;
    let rows = stmt
        .query_map(params![namespace, context], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
        })
        .map_err(backend)?;
    let mut counted = false;
    let mut total = 0u64;
    for row in rows {
        let (row_state, n) = row.map_err(backend)?;
        counted = true;
        if state.is_none_or(|s| s == row_state) {
            total += n as u64;
        }
    }
    Ok(counted.then_some(total))
}
