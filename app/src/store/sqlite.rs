//! The SQLite backend, the embedded default: one database file in the data
//! directory, WAL journal with `synchronous=FULL` so a commit is on disk before
//! it returns (and so before any caller is answered), and numbered migrations
//! tracked in `PRAGMA user_version`.

use super::*;
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// Migrations in order; migration `i` brings `user_version` from `i` to `i + 1`.
const MIGRATIONS: &[&str] = &["
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
"];

/// A store in one SQLite database.
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

fn backend<E: std::fmt::Display>(e: E) -> StoreError {
    StoreError::Backend(e.to_string())
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and migrates it.
    pub fn open(path: &Path) -> StoreResult<Self> {
        let conn = Connection::open(path).map_err(backend)?;
        Self::init(conn)
    }

    /// A private in-memory SQLite database (for the test suite).
    pub fn open_in_memory() -> StoreResult<Self> {
        Self::init(Connection::open_in_memory().map_err(backend)?)
    }

    fn init(mut conn: Connection) -> StoreResult<Self> {
        // WAL lets readers proceed during a write; FULL makes every commit
        // durable (fsync of the WAL) before it returns.
        conn.pragma_update(None, "journal_mode", "WAL").map_err(backend)?;
        conn.pragma_update(None, "synchronous", "FULL").map_err(backend)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(backend)?;
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
        Ok(SqliteStore {
            conn: Mutex::new(conn),
        })
    }

    fn lock(&self) -> StoreResult<MutexGuard<'_, Connection>> {
        self.conn
            .lock()
            .map_err(|_| StoreError::Backend("sqlite connection lock poisoned".into()))
    }
}

fn encode(value: &Value) -> StoreResult<String> {
    serde_json::to_string(value).map_err(backend)
}

fn decode(text: &str) -> StoreResult<Value> {
    serde_json::from_str(text).map_err(backend)
}

fn task_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(TaskRow, String)> {
    Ok((
        TaskRow {
            id: row.get(0)?,
            namespace: row.get(1)?,
            context_id: row.get(2)?,
            state: row.get(3)?,
            status_ts: row.get(4)?,
            last_seq: row.get::<_, i64>(5)? as u64,
            rank: row.get(6)?,
            body: Value::Null,
        },
        row.get(7)?,
    ))
}

fn finish(pair: (TaskRow, String)) -> StoreResult<TaskRow> {
    let (mut row, body) = pair;
    row.body = decode(&body)?;
    Ok(row)
}

const TASK_COLUMNS: &str = "id, namespace, context_id, state, status_ts, last_seq, rank, body";

/// Checks the task write's expectation, then stores the task row under a
/// fresh rank and appends its events; the rank given.
fn write_task(tx: &Transaction<'_>, tw: &TaskWrite) -> StoreResult<i64> {
    let found: Option<i64> = tx
        .query_row("SELECT last_seq FROM tasks WHERE id = ?1", [&tw.row.id], |r| {
            r.get(0)
        })
        .optional()
        .map_err(backend)?;
    let found = found.map(|v| v as u64);
    let ok = match (tw.create, found) {
        (true, None) => true,
        (false, Some(seq)) => seq == tw.expected_last_seq,
        _ => false,
    };
    if !ok {
        return Err(StoreError::Conflict { index: None, found });
    }
    let rank: i64 = tx
        .query_row(
            "INSERT INTO counters(name, value) VALUES('task_rank', 1)
                     ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value",
            [],
            |r| r.get(0),
        )
        .map_err(backend)?;
    let last_seq = tw.events.last().map(|e| e.seq).unwrap_or(tw.row.last_seq);
    tx.execute(
        "INSERT INTO tasks(id, namespace, context_id, state, status_ts, last_seq, rank, body)
                 VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT(id) DO UPDATE SET namespace = excluded.namespace,
                   context_id = excluded.context_id, state = excluded.state,
                   status_ts = excluded.status_ts, last_seq = excluded.last_seq,
                   rank = excluded.rank, body = excluded.body",
        params![
            tw.row.id,
            tw.row.namespace,
            tw.row.context_id,
            tw.row.state,
            tw.row.status_ts,
            last_seq as i64,
            rank,
            encode(&tw.row.body)?
        ],
    )
    .map_err(backend)?;
    for event in &tw.events {
        tx.execute(
            "INSERT INTO task_events(task_id, seq, body) VALUES(?1, ?2, ?3)",
            params![tw.row.id, event.seq as i64, encode(&event.body)?],
        )
        .map_err(backend)?;
    }
    Ok(rank)
}

/// Checks document write `index` against its expectation, then puts or
/// deletes it; the document's new version (0 for a deletion).
fn write_doc(tx: &Transaction<'_>, index: usize, write: &DocWrite) -> StoreResult<u64> {
    let found: Option<i64> = tx
        .query_row(
            "SELECT version FROM docs WHERE coll = ?1 AND namespace = ?2 AND key = ?3",
            params![write.coll, write.namespace, write.key],
            |r| r.get(0),
        )
        .optional()
        .map_err(backend)?;
    let found = found.map(|v| v as u64);
    let ok = match write.expect {
        Expect::Any => true,
        Expect::Absent => found.is_none(),
        Expect::Version(v) => found == Some(v),
    };
    if !ok {
        return Err(StoreError::Conflict {
            index: Some(index),
            found,
        });
    }
    match &write.value {
        Some(value) => {
            let version = found.unwrap_or(0) + 1;
            tx.execute(
                "INSERT INTO docs(coll, namespace, key, version, body) VALUES(?1, ?2, ?3, ?4, ?5)
                         ON CONFLICT(coll, namespace, key) DO UPDATE SET version = excluded.version, body = excluded.body",
                params![write.coll, write.namespace, write.key, version as i64, encode(value)?],
            )
            .map_err(backend)?;
            Ok(version)
        }
        None => {
            tx.execute(
                "DELETE FROM docs WHERE coll = ?1 AND namespace = ?2 AND key = ?3",
                params![write.coll, write.namespace, write.key],
            )
            .map_err(backend)?;
            Ok(0)
        }
    }
}

impl Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    fn commit(&self, commit: &Commit) -> StoreResult<Committed> {
        let mut conn = self.lock()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend)?;
        let task_rank = match &commit.task {
            Some(tw) => Some(write_task(&tx, tw)?),
            None => None,
        };
        let mut versions = Vec::with_capacity(commit.docs.len());
        for (index, write) in commit.docs.iter().enumerate() {
            versions.push(write_doc(&tx, index, write)?);
        }
        // Dropping `tx` on an early return above rolls everything back.
        tx.commit().map_err(backend)?;
        Ok(Committed {
            task_rank,
            doc_versions: versions,
        })
    }

    fn get_task(&self, namespace: &str, id: &str) -> StoreResult<Option<TaskRow>> {
        let conn = self.lock()?;
        let pair = conn
            .query_row(
                &format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = ?1 AND namespace = ?2"),
                [id, namespace],
                task_from_row,
            )
            .optional()
            .map_err(backend)?;
        pair.map(finish).transpose()
    }

    fn events_after(&self, namespace: &str, task_id: &str, after: u64) -> StoreResult<Vec<EventRow>> {
        let conn = self.lock()?;
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
    }

    fn list_tasks(&self, query: &TaskQuery) -> StoreResult<TaskPage> {
        let conn = self.lock()?;
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
        let total: i64 = conn
            .query_row(
                &format!("SELECT COUNT(*) FROM tasks WHERE {filter}"),
                rusqlite::params_from_iter(args.iter()),
                |r| r.get(0),
            )
            .map_err(backend)?;
        if let Some(r) = query.before_rank {
            args.push(r.into());
            filter.push_str(&format!(" AND rank < ?{}", args.len()));
        }
        args.push(((query.limit as i64).saturating_add(1)).into());
        let sql = format!(
            "SELECT {TASK_COLUMNS} FROM tasks WHERE {filter} ORDER BY rank DESC LIMIT ?{}",
            args.len()
        );
        let mut stmt = conn.prepare(&sql).map_err(backend)?;
        let mapped = stmt
            .query_map(rusqlite::params_from_iter(args.iter()), task_from_row)
            .map_err(backend)?;
        let mut rows = Vec::new();
        for pair in mapped {
            rows.push(finish(pair.map_err(backend)?)?);
        }
        let more = rows.len() > query.limit;
        rows.truncate(query.limit);
        Ok(TaskPage {
            rows,
            total: total as u64,
            more,
        })
    }

    fn get_doc(&self, coll: &str, namespace: &str, key: &str) -> StoreResult<Option<Doc>> {
        let conn = self.lock()?;
        let found = conn
            .query_row(
                "SELECT version, body FROM docs WHERE coll = ?1 AND namespace = ?2 AND key = ?3",
                params![coll, namespace, key],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
            )
            .optional()
            .map_err(backend)?;
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
        let conn = self.lock()?;
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
        let mut stmt = conn
            .prepare(&format!(
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
    }

    fn namespaces(&self) -> StoreResult<Vec<String>> {
        let conn = self.lock()?;
        let mut stmt = conn
            .prepare("SELECT namespace FROM tasks UNION SELECT namespace FROM docs ORDER BY 1")
            .map_err(backend)?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn check_integrity(&self, deep: bool) -> StoreResult<Integrity> {
        let conn = self.lock()?;
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
        Ok(Integrity {
            checked_objects: checked,
            problems,
        })
    }
}
