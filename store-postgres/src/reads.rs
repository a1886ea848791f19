//! The store's reads as async queries on one pooled connection. Each runs as
//! one statement (a listing: two), so it sees one committed state of the
//! shared database.

use super::conn::{backend, Conn};
use serde_json::Value;
use store::json::decode;
use store::{Doc, EventRow, Integrity, OrderedEvent, StoreResult, TaskPage, TaskQuery, TaskRow};
use tokio_postgres::types::ToSql;
use tokio_postgres::Row;

const TASK_COLUMNS: &str = "id, namespace, context_id, state, status_ts, last_seq, rank, body";

/// A task row selected with [`TASK_COLUMNS`]; a body that does not decode is
/// a store failure, not a panic.
fn task_from_row(row: &Row) -> StoreResult<TaskRow> {
    let text = |i: usize| row.try_get::<_, String>(i).map_err(backend);
    Ok(TaskRow {
        id: text(0)?,
        namespace: text(1)?,
        context_id: text(2)?,
        state: text(3)?,
        status_ts: text(4)?,
        last_seq: row.try_get::<_, i64>(5).map_err(backend)? as u64,
        rank: row.try_get::<_, i64>(6).map_err(backend)?,
        body: decode(row.try_get::<_, &str>(7).map_err(backend)?)?,
    })
}

pub(super) async fn events_after(
    conn: &Conn,
    namespace: &str,
    task_id: &str,
    after: u64,
) -> StoreResult<Vec<EventRow>> {
    let sql = conn
        .statement(
            "SELECT e.seq, e.body FROM task_events e JOIN tasks t ON t.id = e.task_id \
             WHERE e.task_id = $1 AND t.namespace = $2 AND e.seq > $3 ORDER BY e.seq",
        )
        .await?;
    let rows = conn
        .client
        .query(&sql, &[&task_id, &namespace, &(after as i64)])
        .await
        .map_err(backend)?;
    rows.iter()
        .map(|row| {
            Ok(EventRow {
                seq: row.try_get::<_, i64>(0).map_err(backend)? as u64,
                body: decode(row.try_get::<_, &str>(1).map_err(backend)?)?,
            })
        })
        .collect()
}

/// The events of a namespace after position `after`, in position order: one
/// range scan of the events' (namespace, position) index.
pub(super) async fn namespace_events_after(
    conn: &Conn,
    namespace: &str,
    after: u64,
    limit: usize,
) -> StoreResult<Vec<OrderedEvent>> {
    let sql = conn
        .statement(
            "SELECT e.position, e.task_id, t.context_id, e.seq, e.body FROM task_events e \
             JOIN tasks t ON t.id = e.task_id \
             WHERE e.namespace = $1 AND e.position > $2 ORDER BY e.position LIMIT $3",
        )
        .await?;
    let after = i64::try_from(after).unwrap_or(i64::MAX);
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = conn
        .client
        .query(&sql, &[&namespace, &after, &limit])
        .await
        .map_err(backend)?;
    rows.iter()
        .map(|row| {
            Ok(OrderedEvent {
                position: row.try_get::<_, i64>(0).map_err(backend)? as u64,
                task_id: row.try_get(1).map_err(backend)?,
                context_id: row.try_get(2).map_err(backend)?,
                event: EventRow {
                    seq: row.try_get::<_, i64>(3).map_err(backend)? as u64,
                    body: decode(row.try_get::<_, &str>(4).map_err(backend)?)?,
                },
            })
        })
        .collect()
}

/// The statements of one listing: the count of its matches (bound to the
/// first `count_args` of `args`) and its page (bound to all of them).
pub(crate) struct Listing {
    pub count_sql: String,
    pub page_sql: String,
    args: Vec<Param>,
    count_args: usize,
}

/// The statements that list `query`.
pub(crate) fn listing(query: &TaskQuery) -> Listing {
    let mut filter = String::from("namespace = $1");
    let mut args: Vec<Param> = vec![Box::new(query.namespace.clone())];
    if let Some(context) = &query.context_id {
        and(&mut filter, &mut args, "context_id =", Box::new(context.clone()));
    }
    if let Some(state) = &query.state {
        and(&mut filter, &mut args, "state =", Box::new(state.clone()));
    }
    if let Some(from) = &query.status_ts_from {
        and(&mut filter, &mut args, "status_ts >=", Box::new(from.clone()));
    }
    let count_args = args.len();
    // Without a time filter the total is a sum of kept counts (a handful of
    // rows), or for a context without counts (of one task at most) a count
    // of its matches; under a time filter, a count of the matches.
    let count_sql = match (&query.status_ts_from, &query.context_id) {
        (None, None) => format!("SELECT COALESCE(SUM(n), 0)::bigint FROM namespace_counts WHERE {filter}"),
        (None, Some(_)) => format!(
            "SELECT CASE WHEN EXISTS (SELECT 1 FROM context_counts WHERE namespace = $1 AND context_id = $2) \
             THEN (SELECT COALESCE(SUM(n), 0)::bigint FROM context_counts WHERE {filter}) \
             ELSE (SELECT COUNT(*) FROM tasks WHERE {filter}) END"
        ),
        (Some(_), _) => format!("SELECT COUNT(*) FROM tasks WHERE {filter}"),
    };
    if let Some(rank) = query.before_rank {
        and(&mut filter, &mut args, "rank <", Box::new(rank));
    }
    args.push(Box::new(
        i64::try_from(query.limit).unwrap_or(i64::MAX).saturating_add(1),
    ));
    let page_sql = format!(
        "SELECT {TASK_COLUMNS} FROM tasks WHERE {filter} ORDER BY rank DESC LIMIT ${}",
        args.len()
    );
    Listing {
        count_sql,
        page_sql,
        args,
        count_args,
    }
}

/// A page of tasks; the total is counted by the indexes on every call, as
/// several agents change the tasks and none can keep the count alone.
pub(super) async fn list_tasks(conn: &Conn, query: &TaskQuery) -> StoreResult<TaskPage> {
    let Listing {
        count_sql,
        page_sql,
        args,
        count_args,
    } = listing(query);
    let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| &**a as &(dyn ToSql + Sync)).collect();
    let (count, page) = tokio::try_join!(conn.statement(&count_sql), conn.statement(&page_sql))?;
    // Both in one round trip.
    let (counted, found) = tokio::try_join!(
        conn.client.query_one(&count, &params[..count_args]),
        conn.client.query(&page, &params)
    )
    .map_err(backend)?;
    let total: i64 = counted.try_get(0).map_err(backend)?;
    let mut rows = found.iter().map(task_from_row).collect::<StoreResult<Vec<_>>>()?;
    let more = rows.len() > query.limit;
    rows.truncate(query.limit);
    Ok(TaskPage {
        rows,
        total: total as u64,
        more,
    })
}

type Param = Box<dyn ToSql + Sync + Send>;

/// Adds `clause` on the next parameter, `value`, to the listing's filter.
fn and(filter: &mut String, args: &mut Vec<Param>, clause: &str, value: Param) {
    args.push(value);
    filter.push_str(&format!(" AND {clause} ${}", args.len()));
}

pub(super) async fn get_doc(conn: &Conn, coll: &str, namespace: &str, key: &str) -> StoreResult<Option<Doc>> {
    let sql = conn
        .statement("SELECT version, body FROM docs WHERE coll = $1 AND namespace = $2 AND key = $3")
        .await?;
    let row = conn
        .client
        .query_opt(&sql, &[&coll, &namespace, &key])
        .await
        .map_err(backend)?;
    row.map(|row| {
        Ok(Doc {
            key: key.to_string(),
            version: row.try_get::<_, i64>(0).map_err(backend)? as u64,
            value: decode(row.try_get::<_, &str>(1).map_err(backend)?)?,
        })
    })
    .transpose()
}

/// Documents whose key starts with `prefix`, after `after`: a range scan of
/// the primary key (keys sort bytewise), stopped at the first key outside
/// the prefix, so no pattern escaping is needed.
pub(super) async fn list_docs(
    conn: &Conn,
    coll: &str,
    namespace: &str,
    prefix: &str,
    after: Option<&str>,
    limit: usize,
) -> StoreResult<Vec<Doc>> {
    let (op, lower) = match after {
        Some(a) if a >= prefix => (">", a),
        _ => (">=", prefix),
    };
    let sql = conn
        .statement(&format!(
            "SELECT key, version, body FROM docs WHERE coll = $1 AND namespace = $2 AND key {op} $3 \
             ORDER BY key LIMIT $4"
        ))
        .await?;
    let rows = conn
        .client
        .query(
            &sql,
            &[
                &coll,
                &namespace,
                &lower,
                &i64::try_from(limit).unwrap_or(i64::MAX),
            ],
        )
        .await
        .map_err(backend)?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        let key: String = row.try_get(0).map_err(backend)?;
        if !key.starts_with(prefix) {
            break;
        }
        out.push(Doc {
            key,
            version: row.try_get::<_, i64>(1).map_err(backend)? as u64,
            value: decode(row.try_get::<_, &str>(2).map_err(backend)?)?,
        });
    }
    Ok(out)
}

pub(super) async fn list_docs_before(
    conn: &Conn,
    coll: &str,
    namespace: &str,
    before: Option<&str>,
    limit: usize,
) -> StoreResult<Vec<Doc>> {
    // The primary key (coll, namespace, key), all COLLATE "C", read backwards.
    let sql = conn
        .statement(
            "SELECT key, version, body FROM docs WHERE coll = $1 AND namespace = $2 \
             AND ($3::text IS NULL OR key < $3) ORDER BY key DESC LIMIT $4",
        )
        .await?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = conn
        .client
        .query(&sql, &[&coll, &namespace, &before, &limit])
        .await
        .map_err(backend)?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        out.push(Doc {
            key: row.try_get(0).map_err(backend)?,
            version: row.try_get::<_, i64>(1).map_err(backend)? as u64,
            value: decode(row.try_get::<_, &str>(2).map_err(backend)?)?,
        });
    }
    Ok(out)
}

pub(super) async fn namespaces(conn: &Conn) -> StoreResult<Vec<String>> {
    let rows = conn
        .client
        .query(
            "SELECT namespace FROM tasks UNION SELECT namespace FROM docs ORDER BY 1",
            &[],
        )
        .await
        .map_err(backend)?;
    rows.iter().map(|r| r.try_get(0).map_err(backend)).collect()
}

/// Every task's row against its log, the documents counted (and with
/// `deep`, every document and task body decoded).
pub(super) async fn check_integrity(conn: &Conn, deep: bool) -> StoreResult<Integrity> {
    let client = &conn.client;
    let mut problems = Vec::new();
    let tasks = client
        .query(
            "SELECT t.id, t.last_seq, COALESCE((SELECT MAX(seq) FROM task_events e WHERE e.task_id = t.id), 0)
             FROM tasks t",
            &[],
        )
        .await
        .map_err(backend)?;
    let mut checked = 0u64;
    for row in &tasks {
        let (id, last, max): (String, i64, i64) = (
            row.try_get(0).map_err(backend)?,
            row.try_get(1).map_err(backend)?,
            row.try_get(2).map_err(backend)?,
        );
        checked += 1;
        if last != max {
            problems.push(format!("task {id}: last_seq {last} but log ends at {max}"));
        }
    }
    // The kept counts against the tasks counted.
    for row in client
        .query(
            "WITH t AS (SELECT namespace, context_id, state, COUNT(*) AS n FROM tasks GROUP BY 1, 2, 3),
                  tracked AS (SELECT namespace, context_id FROM context_counts
                              UNION SELECT namespace, context_id FROM t GROUP BY 1, 2 HAVING SUM(n) >= 2)
             SELECT 'namespace ' || namespace, state, COALESCE(k.n, 0), COALESCE(s.n, 0::bigint)
               FROM namespace_counts k
               FULL JOIN (SELECT namespace, state, SUM(n)::bigint AS n FROM t GROUP BY 1, 2) s USING (namespace, state)
               WHERE COALESCE(k.n, 0) <> COALESCE(s.n, 0)
             UNION ALL
             SELECT 'context ' || x.namespace || '/' || x.context_id, COALESCE(k.state, t.state),
                    COALESCE(k.n, 0), COALESCE(t.n, 0)
               FROM tracked x
               JOIN (context_counts k FULL JOIN t ON k.namespace = t.namespace
                       AND k.context_id = t.context_id AND k.state = t.state)
                 ON x.namespace = COALESCE(k.namespace, t.namespace)
                AND x.context_id = COALESCE(k.context_id, t.context_id)
               WHERE COALESCE(k.n, 0) <> COALESCE(t.n, 0)",
            &[],
        )
        .await
        .map_err(backend)?
    {
        let (scope, state): (String, String) = (row.try_get(0).map_err(backend)?, row.try_get(1).map_err(backend)?);
        let (kept, counted): (i64, i64) =
            (row.try_get(2).map_err(backend)?, row.try_get(3).map_err(backend)?);
        problems.push(format!(
            "{scope}: {kept} tasks counted in state {state} but {counted} stored"
        ));
    }
    let docs: i64 = client
        .query_one("SELECT COUNT(*) FROM docs", &[])
        .await
        .map_err(backend)?
        .try_get(0)
        .map_err(backend)?;
    checked += docs as u64;
    if deep {
        for row in client
            .query("SELECT coll, namespace, key, body FROM docs", &[])
            .await
            .map_err(backend)?
        {
            let body: &str = row.try_get(3).map_err(backend)?;
            if serde_json::from_str::<Value>(body).is_err() {
                let (coll, ns, key): (String, String, String) = (
                    row.try_get(0).map_err(backend)?,
                    row.try_get(1).map_err(backend)?,
                    row.try_get(2).map_err(backend)?,
                );
                problems.push(format!("document {coll}/{ns}/{key} is not valid JSON"));
            }
        }
        for row in client
            .query("SELECT id, body FROM tasks", &[])
            .await
            .map_err(backend)?
        {
            if decode::<a2a::types::Task>(row.try_get::<_, &str>(1).map_err(backend)?).is_err() {
                let id: String = row.try_get(0).map_err(backend)?;
                problems.push(format!("task {id} is not a readable Task"));
            }
        }
    }
    Ok(Integrity {
        checked_objects: checked,
        problems,
    })
}
