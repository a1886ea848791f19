//! The push outbox on PostgreSQL: the statements the writer runs in a
//! commit's transaction, and the claims that lease due rows to one agent.
//!
//! A claim is one statement: it picks the head (oldest row) of each (task,
//! target) that is due and not leased, locks the picked rows `FOR UPDATE
//! SKIP LOCKED` and leases them. Two agents claiming at once never take one
//! row: a row the other is leasing is skipped, and a row leased by a claim
//! that committed since this one's snapshot is judged again on its new
//! version (its lease conditions sit on the locked row itself), which then
//! fails them.

use super::conn::{backend, Conn};
use store::json::decode;
use store::{Delivery, DeliveryKey, StoreResult};
use tokio_postgres::Row;

/// The rows a task write's events owe, one per event and target: the bodies
/// are copied from the events just appended. `$1` namespace, `$2` task, `$3`
/// key prefix, `$4` first appended sequence number, `$5` collection, `$6`
/// the prefix's end (or NULL).
pub(super) const FAN_OUT: &str = "INSERT INTO push_outbox(namespace, task_id, config_id, seq, body)
     SELECT $1, $2, substr(d.key, length($3) + 1), e.seq, e.body
     FROM docs d JOIN task_events e ON e.task_id = $2 AND e.seq >= $4
     WHERE d.coll = $5 AND d.namespace = $1 AND d.key >= $3
       AND ($6::text IS NULL OR d.key < $6) AND left(d.key, length($3)) = $3";
pub(super) const DONE: &str =
    "DELETE FROM push_outbox WHERE namespace = $1 AND task_id = $2 AND config_id = $3 AND seq = $4";
/// Reschedules a row and frees its lease, if `$5` still holds it.
pub(super) const RETRY: &str =
    "UPDATE push_outbox SET attempts = $6, next_attempt_ms = $7, holder = NULL, lease_until_ms = 0
     WHERE namespace = $1 AND task_id = $2 AND config_id = $3 AND seq = $4 AND holder = $5";
pub(super) const DROP_TARGET: &str =
    "DELETE FROM push_outbox WHERE namespace = $1 AND task_id = $2 AND ($3::text IS NULL OR config_id = $3)";

/// `$1` now, `$2` holder, `$3` lease expiry, `$4` limit.
const CLAIM: &str = "WITH heads AS (
       SELECT DISTINCT ON (namespace, task_id, config_id) namespace, task_id, config_id, seq
       FROM push_outbox ORDER BY namespace, task_id, config_id, seq),
     picked AS (
       SELECT o.namespace, o.task_id, o.config_id, o.seq FROM push_outbox o
       JOIN heads h ON h.namespace = o.namespace AND h.task_id = o.task_id
                   AND h.config_id = o.config_id AND h.seq = o.seq
       WHERE o.next_attempt_ms <= $1 AND (o.holder IS NULL OR o.lease_until_ms <= $1)
       ORDER BY o.next_attempt_ms LIMIT $4
       FOR UPDATE OF o SKIP LOCKED)
     UPDATE push_outbox o SET holder = $2, lease_until_ms = $3 FROM picked p
     WHERE o.namespace = p.namespace AND o.task_id = p.task_id AND o.config_id = p.config_id AND o.seq = p.seq
     RETURNING o.namespace, o.task_id, o.config_id, o.seq, o.body, o.attempts, o.next_attempt_ms";

const RENEW: &str = "UPDATE push_outbox SET lease_until_ms = $2 WHERE holder = $1";

const PENDING: &str = "SELECT namespace, task_id, config_id, seq, body, attempts, next_attempt_ms
     FROM push_outbox WHERE namespace = $1 AND task_id = $2 ORDER BY config_id, seq";

fn delivery(row: &Row) -> StoreResult<Delivery> {
    Ok(Delivery {
        key: DeliveryKey {
            namespace: row.try_get(0).map_err(backend)?,
            task_id: row.try_get(1).map_err(backend)?,
            config_id: row.try_get(2).map_err(backend)?,
            seq: row.try_get::<_, i64>(3).map_err(backend)? as u64,
        },
        body: decode(row.try_get::<_, &str>(4).map_err(backend)?)?,
        attempts: row.try_get::<_, i32>(5).map_err(backend)?.max(0) as u32,
        next_attempt_ms: row.try_get(6).map_err(backend)?,
    })
}

pub(super) async fn claim(
    conn: &Conn,
    holder: &str,
    now: i64,
    until: i64,
    limit: usize,
) -> StoreResult<Vec<Delivery>> {
    let sql = conn.statement(CLAIM).await?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = conn
        .client
        .query(&sql, &[&now, &holder, &until, &limit])
        .await
        .map_err(backend)?;
    let mut claimed: Vec<Delivery> = rows.iter().map(delivery).collect::<StoreResult<_>>()?;
    claimed.sort_by_key(|d| d.next_attempt_ms);
    Ok(claimed)
}

pub(super) async fn renew(conn: &Conn, holder: &str, until: i64) -> StoreResult<u64> {
    let sql = conn.statement(RENEW).await?;
    conn.client
        .execute(&sql, &[&holder, &until])
        .await
        .map_err(backend)
}

const ANY: &str = "SELECT EXISTS (SELECT 1 FROM push_outbox)";

/// True when the outbox holds any row.
pub(super) async fn any(conn: &Conn) -> StoreResult<bool> {
    let sql = conn.statement(ANY).await?;
    let row = conn.client.query_one(&sql, &[]).await.map_err(backend)?;
    row.try_get(0).map_err(backend)
}

pub(super) async fn pending(conn: &Conn, namespace: &str, task_id: &str) -> StoreResult<Vec<Delivery>> {
    let sql = conn.statement(PENDING).await?;
    let rows = conn
        .client
        .query(&sql, &[&namespace, &task_id])
        .await
        .map_err(backend)?;
    rows.iter().map(delivery).collect()
}
