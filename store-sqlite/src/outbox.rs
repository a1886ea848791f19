//! The push outbox on SQLite: the rows a commit's events owe (written by
//! the writer in the commit's transaction), their changes, and the reads
//! behind claiming them. Leases are the process's own ([`super::Leases`]).

use super::rows::backend;
use rusqlite::{params, Connection, OptionalExtension};
use store::json::decode;
use store::{prefix_end, Delivery, DeliveryChange, DeliveryKey, Fanout, StoreResult, TaskWrite};

/// Records one row per event of `tw` and per target under `fanout`; how
/// many. The bodies are copied from the events just appended, so each is
/// encoded once.
pub(super) fn fan_out(conn: &Connection, tw: &TaskWrite, fanout: &Fanout) -> StoreResult<u64> {
    let Some(first) = tw.events.first() else {
        return Ok(0);
    };
    conn.prepare_cached(
        "INSERT INTO push_outbox(namespace, task_id, config_id, seq, body, attempts, next_attempt_ms)
         SELECT ?1, ?2, substr(d.key, length(?3) + 1), e.seq, e.body, 0, 0
         FROM docs d JOIN task_events e ON e.task_id = ?2 AND e.seq >= ?4
         WHERE d.coll = ?5 AND d.namespace = ?1 AND d.key >= ?3 AND (?6 IS NULL OR d.key < ?6)
           AND substr(d.key, 1, length(?3)) = ?3",
    )
    .and_then(|mut stmt| {
        stmt.execute(params![
            tw.row.namespace,
            tw.row.id,
            fanout.prefix,
            first.seq as i64,
            fanout.coll,
            prefix_end(&fanout.prefix)
        ])
    })
    .map(|rows| rows as u64)
    .map_err(backend)
}

/// Removes the rows of a deleted task.
pub(super) fn drop_task(conn: &Connection, namespace: &str, task_id: &str) -> StoreResult<()> {
    conn.prepare_cached("DELETE FROM push_outbox WHERE namespace = ?1 AND task_id = ?2")
        .and_then(|mut stmt| stmt.execute(params![namespace, task_id]))
        .map_err(backend)?;
    Ok(())
}

/// Applies one outbox change; a retry's lease was checked by the store
/// before the commit was queued.
pub(super) fn apply(conn: &Connection, change: &DeliveryChange) -> StoreResult<()> {
    let outcome = match change {
        DeliveryChange::Done(key) => conn
            .prepare_cached(
                "DELETE FROM push_outbox WHERE namespace = ?1 AND task_id = ?2 AND config_id = ?3 AND seq = ?4",
            )
            .and_then(|mut stmt| stmt.execute(params![key.namespace, key.task_id, key.config_id, key.seq as i64])),
        DeliveryChange::Retry {
            key,
            attempts,
            next_attempt_ms,
            ..
        } => conn
            .prepare_cached(
                "UPDATE push_outbox SET attempts = ?5, next_attempt_ms = ?6
                 WHERE namespace = ?1 AND task_id = ?2 AND config_id = ?3 AND seq = ?4",
            )
            .and_then(|mut stmt| {
                stmt.execute(params![
                    key.namespace,
                    key.task_id,
                    key.config_id,
                    key.seq as i64,
                    attempts,
                    next_attempt_ms
                ])
            }),
        DeliveryChange::DropTarget {
            namespace,
            task_id,
            config_id,
        } => conn
            .prepare_cached(
                "DELETE FROM push_outbox WHERE namespace = ?1 AND task_id = ?2 AND (?3 IS NULL OR config_id = ?3)",
            )
            .and_then(|mut stmt| stmt.execute(params![namespace, task_id, config_id])),
    };
    outcome.map(|_| ()).map_err(backend)
}

/// The head (oldest row) of every (task, target) due at `now`, soonest first.
pub(super) fn due_heads(conn: &Connection, now: i64) -> StoreResult<Vec<DeliveryKey>> {
    // SQLite takes the bare columns of a MIN() aggregate from the row holding the minimum.
    let mut stmt = conn
        .prepare_cached(
            "SELECT namespace, task_id, config_id, seq FROM (
               SELECT namespace, task_id, config_id, MIN(seq) AS seq, next_attempt_ms
               FROM push_outbox GROUP BY namespace, task_id, config_id)
             WHERE next_attempt_ms <= ?1 ORDER BY next_attempt_ms",
        )
        .map_err(backend)?;
    let rows = stmt
        .query_map([now], |r| {
            Ok(DeliveryKey {
                namespace: r.get(0)?,
                task_id: r.get(1)?,
                config_id: r.get(2)?,
                seq: r.get::<_, i64>(3)? as u64,
            })
        })
        .map_err(backend)?;
    rows.collect::<Result<_, _>>().map_err(backend)
}

/// The row `key`, if it is still pending.
pub(super) fn row(conn: &Connection, key: &DeliveryKey) -> StoreResult<Option<Delivery>> {
    let found: Option<(String, u32, i64)> = conn
        .prepare_cached(
            "SELECT body, attempts, next_attempt_ms FROM push_outbox
             WHERE namespace = ?1 AND task_id = ?2 AND config_id = ?3 AND seq = ?4",
        )
        .and_then(|mut stmt| {
            stmt.query_row(
                params![key.namespace, key.task_id, key.config_id, key.seq as i64],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
        })
        .map_err(backend)?;
    found
        .map(|(body, attempts, next)| {
            Ok(Delivery {
                key: key.clone(),
                body: decode(&body)?,
                attempts,
                next_attempt_ms: next,
            })
        })
        .transpose()
}

/// True when the outbox holds any row.
pub(super) fn any(conn: &Connection) -> StoreResult<bool> {
    conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM push_outbox)")
        .and_then(|mut stmt| stmt.query_row([], |r| r.get::<_, bool>(0)))
        .map_err(backend)
}

/// Every pending row of a task, in (target, sequence) order.
pub(super) fn pending(conn: &Connection, namespace: &str, task_id: &str) -> StoreResult<Vec<Delivery>> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT config_id, seq, body, attempts, next_attempt_ms FROM push_outbox
             WHERE namespace = ?1 AND task_id = ?2 ORDER BY config_id, seq",
        )
        .map_err(backend)?;
    let rows = stmt
        .query_map(params![namespace, task_id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, u32>(3)?,
                r.get::<_, i64>(4)?,
            ))
        })
        .map_err(backend)?;
    let mut out = Vec::new();
    for row in rows {
        let (config_id, seq, body, attempts, next) = row.map_err(backend)?;
        out.push(Delivery {
            key: DeliveryKey {
                namespace: namespace.to_string(),
                task_id: task_id.to_string(),
                config_id,
                seq: seq as u64,
            },
            body: decode(&body)?,
            attempts,
            next_attempt_ms: next,
        });
    }
    Ok(out)
}
