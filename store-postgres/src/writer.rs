//! Group commit on PostgreSQL: one writer task owns the write connection.
//! Commits queue up while it is busy; each turn takes everything queued as
//! one group, in one transaction that returns once the server has flushed it
//! to its WAL (`synchronous_commit` on, `fsync` on), and only then tells
//! every caller its outcome.
//!
//! A group is first sent in one round trip ([`group`](super::group)), which
//! stands whole when every check passes — the common case. Otherwise nothing
//! of it stands, and the group is replayed here one commit at a time, each
//! inside its own savepoint, so a commit that fails its checks is rolled
//! back alone and changes nothing, and its neighbours still stand.
//!
//! Several agents may write the same database. Every check is made by the
//! statement that writes (`UPDATE … WHERE last_seq = expected`, `INSERT … ON
//! CONFLICT DO NOTHING`), which under READ COMMITTED waits for a concurrent
//! writer of the same row and then judges its committed result, so an
//! optimistic check holds across agents. A deadlock between two agents'
//! transactions costs the commit that lost it a retry, not a failure.
//!
//! Each commit that appends task events also announces them on
//! [`EVENTS_CHANNEL`] (`pg_notify`, delivered when the transaction commits
//! and dropped with a rolled-back savepoint), which is how other agents
//! learn of them promptly.
//!
//! Events get their store-wide positions under [`EVENT_ORDER_LOCK`], taken
//! by any turn that changes tasks and held until the turn's transaction
//! commits, so positions become visible in the order they were given (see
//! the lock's docs), and the kept task counts are changed by one agent at a
//! time.

use super::conn::{backend, is_retryable, Conn};
use super::counts::Counters;
use super::group::{self, takes_event_order_lock, Sent};
use super::listen::announcement;
use super::outbox;
use super::schema::{EVENTS_CHANNEL, EVENT_ORDER_LOCK};
use super::sql::{
    ANNOUNCE, APPEND_EVENTS, CREATE_TASK, DELETE_DOC_ANY, DELETE_DOC_VERSION, DELETE_TASK, DOC_VERSION,
    LOCK_EVENT_ORDER, PUT_DOC_ABSENT, PUT_DOC_ANY, PUT_DOC_VERSION, TASK_LAST_SEQ, UPDATE_TASK,
};
use std::sync::{Arc, Mutex};
use store::json::encode;
use store::{
    prefix_end, Commit, CommitDone, Committed, DeliveryChange, DocWrite, Expect, Fanout, StoreError,
    StoreResult, TaskDelete, TaskWrite,
};
use tokio::sync::mpsc;
use tokio_postgres::Config;

/// The most commits one transaction takes, so one turn's latency stays bounded.
const MAX_BATCH: usize = 256;

/// How often a commit that lost a deadlock to another agent is tried again.
pub(super) const RETRIES: usize = 3;

type Job = (Commit, CommitDone);

/// The writer's queue.
pub(super) struct Writer {
    // `None` once the store is closing: the writer finishes what is queued.
    queue: Mutex<Option<mpsc::UnboundedSender<Job>>>,
}

impl Writer {
    /// Starts the writer task on the current runtime with the connection `conn`.
    pub(super) fn start(config: Config, conn: Conn, counters: Arc<Counters>) -> Writer {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(run(config, conn, rx, counters));
        Writer {
            queue: Mutex::new(Some(tx)),
        }
    }

    /// Queues `commit`; `done` hears the outcome once it is durable.
    pub(super) fn submit(&self, commit: Commit, done: CommitDone) {
        let refused = match self.queue.lock() {
            Ok(queue) => match queue.as_ref() {
                Some(queue) => queue.send((commit, done)).err().map(|e| e.0 .1),
                None => Some(done),
            },
            Err(_) => {
                done(Err(StoreError::Backend(
                    "postgres writer queue lock poisoned".into(),
                )));
                return;
            }
        };
        if let Some(done) = refused {
            done(Err(StoreError::Backend("the postgres writer has stopped".into())));
        }
    }

    /// Stops taking commits; those queued are still committed.
    pub(super) fn close(&self) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.take();
        }
    }
}

/// The writer's loop: one transaction per turn until the queue closes. A
/// connection that broke is reopened for the next turn.
async fn run(config: Config, conn: Conn, mut rx: mpsc::UnboundedReceiver<Job>, counters: Arc<Counters>) {
    let mut conn = Some(conn);
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if conn.as_ref().is_none_or(Conn::is_closed) {
            conn = Conn::open(&config).await.ok();
        }
        let (commits, dones): (Vec<Commit>, Vec<CommitDone>) = batch.into_iter().unzip();
        let outcomes = match &conn {
            Some(conn) => commit_batch(conn, &commits, &counters).await,
            None => failed_all(&commits, StoreError::Backend("postgres: cannot reconnect".into())),
        };
        for (done, outcome) in dones.into_iter().zip(outcomes) {
            done(outcome);
        }
    }
}

fn failed_all(batch: &[Commit], e: StoreError) -> Vec<StoreResult<Committed>> {
    batch.iter().map(|_| Err(e.clone())).collect()
}

/// Why one commit did not apply.
enum Failed {
    /// It failed its checks, or could not be encoded: final.
    Store(StoreError),
    /// The server refused a statement (it may ask for a retry).
    Server(tokio_postgres::Error),
}

impl From<StoreError> for Failed {
    fn from(e: StoreError) -> Self {
        Failed::Store(e)
    }
}

impl From<tokio_postgres::Error> for Failed {
    fn from(e: tokio_postgres::Error) -> Self {
        Failed::Server(e)
    }
}

/// Applies every commit of `batch` in one durable transaction: in one round
/// trip, or else replayed; the outcome of each, in order.
async fn commit_batch(conn: &Conn, batch: &[Commit], counters: &Counters) -> Vec<StoreResult<Committed>> {
    let (sent, failed) = group::send(conn, batch).await;
    counters.group(!matches!(sent, Sent::RolledBack));
    match (sent, failed) {
        (Sent::Committed(done), failed) => done
            .into_iter()
            .zip(failed)
            .map(|(committed, failed)| match failed {
                Some(e) => Err(e),
                None => Ok(committed),
            })
            .collect(),
        (Sent::Unknown(e), failed) => failed
            .into_iter()
            .map(|f| Err(f.unwrap_or_else(|| e.clone())))
            .collect(),
        (Sent::RolledBack, _) => replay(conn, batch).await,
    }
}

/// Applies every commit of `batch` in one durable transaction, each in its
/// own savepoint; the outcome of each, in order.
async fn replay(conn: &Conn, batch: &[Commit]) -> Vec<StoreResult<Committed>> {
    let client = &conn.client;
    if let Err(e) = client.batch_execute("BEGIN").await {
        return failed_all(batch, backend(e));
    }
    // The event order lock first, before any row lock, as a group sent in one
    // round trip takes it too, so two agents' writers never wait for each
    // other in opposite orders. Taken outside every savepoint, it is held
    // until the transaction ends.
    if batch.iter().any(takes_event_order_lock) {
        if let Err(e) = lock_event_order(conn).await {
            let _ = client.batch_execute("ROLLBACK").await;
            return failed_all(batch, e);
        }
    }
    let mut outcomes = Vec::with_capacity(batch.len());
    for commit in batch {
        let mut attempt = 0;
        let outcome = loop {
            if let Err(e) = client.batch_execute("SAVEPOINT one_commit").await {
                let _ = client.batch_execute("ROLLBACK").await;
                return failed_all(batch, backend(e));
            }
            let failed = match apply(conn, commit).await {
                Ok(applied) => match client.batch_execute("RELEASE SAVEPOINT one_commit").await {
                    Ok(()) => break Ok(applied),
                    Err(e) => Failed::Server(e),
                },
                Err(failed) => failed,
            };
            if let Err(e) = client.batch_execute("ROLLBACK TO SAVEPOINT one_commit").await {
                let _ = client.batch_execute("ROLLBACK").await;
                return failed_all(batch, backend(e));
            }
            match failed {
                Failed::Server(e) if is_retryable(&e) && attempt < RETRIES => attempt += 1,
                Failed::Server(e) => break Err(backend(e)),
                Failed::Store(e) => break Err(e),
            }
        };
        outcomes.push(outcome);
    }
    match client.batch_execute("COMMIT").await {
        Ok(()) => outcomes,
        // Nothing of the turn is known to be on disk: every commit failed.
        Err(e) => failed_all(batch, backend(e)),
    }
}

/// Takes the event order lock for the rest of the transaction.
async fn lock_event_order(conn: &Conn) -> StoreResult<()> {
    let lock = conn.statement(LOCK_EVENT_ORDER).await?;
    conn.client
        .execute(&lock, &[&EVENT_ORDER_LOCK])
        .await
        .map_err(backend)?;
    Ok(())
}

/// One commit: the task write, then the document writes in order, then the
/// task deletions (the transaction holds the event order lock if it appends
/// events).
async fn apply(conn: &Conn, commit: &Commit) -> Result<Committed, Failed> {
    let task_rank = match &commit.task {
        Some(tw) => Some(write_task(conn, tw).await?),
        None => None,
    };
    let mut doc_versions = Vec::with_capacity(commit.docs.len());
    for (index, write) in commit.docs.iter().enumerate() {
        doc_versions.push(write_doc(conn, index, write).await?);
    }
    // After the documents: a target written by this commit is owed its events too.
    let deliveries_owed = match (&commit.task, &commit.fanout) {
        (Some(tw), Some(fanout)) => fan_out(conn, tw, fanout).await?,
        _ => 0,
    };
    let mut deleted_tasks = 0;
    for delete in &commit.delete_tasks {
        if delete_task(conn, delete).await? {
            deleted_tasks += 1;
        }
    }
    for change in &commit.deliveries {
        change_outbox(conn, change).await?;
    }
    Ok(Committed {
        task_rank,
        doc_versions,
        deleted_tasks,
        deliveries_owed,
    })
}

async fn delete_task(conn: &Conn, delete: &TaskDelete) -> Result<bool, Failed> {
    let sql = conn.statement(DELETE_TASK).await?;
    let row = conn
        .client
        .query_one(&sql, &[&delete.id, &delete.namespace])
        .await?;
    Ok(row.try_get::<_, i64>(0)? > 0)
}

/// Records the outbox rows the task write's events owe; how many.
async fn fan_out(conn: &Conn, tw: &TaskWrite, fanout: &Fanout) -> Result<u64, Failed> {
    let Some(first) = tw.events.first() else {
        return Ok(0);
    };
    let sql = conn.statement(outbox::FAN_OUT).await?;
    let owed = conn
        .client
        .execute(
            &sql,
            &[
                &tw.row.namespace,
                &tw.row.id,
                &fanout.prefix,
                &(first.seq as i64),
                &fanout.coll,
                &prefix_end(&fanout.prefix),
            ],
        )
        .await?;
    Ok(owed)
}

/// Applies one outbox change (a retry only by the lease's holder).
async fn change_outbox(conn: &Conn, change: &DeliveryChange) -> Result<(), Failed> {
    let client = &conn.client;
    match change {
        DeliveryChange::Done(key) => {
            let sql = conn.statement(outbox::DONE).await?;
            client
                .execute(
                    &sql,
                    &[&key.namespace, &key.task_id, &key.config_id, &(key.seq as i64)],
                )
                .await?;
        }
        DeliveryChange::Retry {
            key,
            holder,
            attempts,
            next_attempt_ms,
        } => {
            let sql = conn.statement(outbox::RETRY).await?;
            let attempts = i32::try_from(*attempts).unwrap_or(i32::MAX);
            client
                .execute(
                    &sql,
                    &[
                        &key.namespace,
                        &key.task_id,
                        &key.config_id,
                        &(key.seq as i64),
                        holder,
                        &attempts,
                        next_attempt_ms,
                    ],
                )
                .await?;
        }
        DeliveryChange::DropTarget {
            namespace,
            task_id,
            config_id,
        } => {
            let sql = conn.statement(outbox::DROP_TARGET).await?;
            client.execute(&sql, &[namespace, task_id, config_id]).await?;
        }
    }
    Ok(())
}

/// Stores the task row (creating it, or updating it if its log still ends
/// where the writer expects) and appends its events; the rank given.
async fn write_task(conn: &Conn, tw: &TaskWrite) -> Result<i64, Failed> {
    let client = &conn.client;
    let row = &tw.row;
    let last_seq = tw.events.last().map(|e| e.seq).unwrap_or(row.last_seq) as i64;
    let body = encode(&row.body)?;
    let expected = tw.expected_last_seq as i64;
    let stored = if tw.create {
        let sql = conn.statement(CREATE_TASK).await?;
        client
            .query_opt(
                &sql,
                &[
                    &row.id,
                    &row.namespace,
                    &row.context_id,
                    &row.state,
                    &row.status_ts,
                    &last_seq,
                    &body,
                ],
            )
            .await?
    } else {
        let sql = conn.statement(UPDATE_TASK).await?;
        client
            .query_opt(
                &sql,
                &[
                    &row.id,
                    &row.namespace,
                    &row.context_id,
                    &row.state,
                    &row.status_ts,
                    &last_seq,
                    &body,
                    &expected,
                    &tw.expected_rank,
                ],
            )
            .await?
    };
    let Some(stored) = stored else {
        let sql = conn.statement(TASK_LAST_SEQ).await?;
        let found = client.query_opt(&sql, &[&row.id]).await?;
        return Err(Failed::Store(StoreError::Conflict {
            index: None,
            found: match found {
                Some(r) => Some(r.try_get::<_, i64>(0)? as u64),
                None => None,
            },
        }));
    };
    let rank: i64 = stored.try_get(0)?;
    if !tw.events.is_empty() {
        let append = conn.statement(APPEND_EVENTS).await?;
        let seqs: Vec<i64> = tw.events.iter().map(|e| e.seq as i64).collect();
        let bodies = tw
            .events
            .iter()
            .map(|e| encode(&e.body))
            .collect::<StoreResult<Vec<_>>>()?;
        client
            .execute(&append, &[&row.id, &row.namespace, &seqs, &bodies])
            .await?;
        let announce = conn.statement(ANNOUNCE).await?;
        client
            .execute(
                &announce,
                &[&EVENTS_CHANNEL, &announcement(&row.id, last_seq as u64)],
            )
            .await?;
    }
    Ok(rank)
}

/// Puts or deletes document write `index` if it finds what it expects; the
/// document's new version (0 for a deletion).
async fn write_doc(conn: &Conn, index: usize, write: &DocWrite) -> Result<u64, Failed> {
    let client = &conn.client;
    let at = [
        &write.coll as &(dyn tokio_postgres::types::ToSql + Sync),
        &write.namespace,
        &write.key,
    ];
    let written: Option<u64> = match (&write.value, write.expect) {
        (Some(value), expect) => {
            let body = encode(value)?;
            let row = match expect {
                Expect::Any => {
                    let sql = conn.statement(PUT_DOC_ANY).await?;
                    client.query_opt(&sql, &[at[0], at[1], at[2], &body]).await?
                }
                Expect::Absent => {
                    let sql = conn.statement(PUT_DOC_ABSENT).await?;
                    client.query_opt(&sql, &[at[0], at[1], at[2], &body]).await?
                }
                Expect::Version(v) => {
                    let sql = conn.statement(PUT_DOC_VERSION).await?;
                    client
                        .query_opt(&sql, &[at[0], at[1], at[2], &body, &(v as i64)])
                        .await?
                }
            };
            match row {
                Some(r) => Some(r.try_get::<_, i64>(0)? as u64),
                None => None,
            }
        }
        (None, Expect::Any) => {
            let sql = conn.statement(DELETE_DOC_ANY).await?;
            client.execute(&sql, &at).await?;
            Some(0)
        }
        (None, Expect::Absent) => {
            // Deleting what must not exist: nothing to do when it does not.
            None
        }
        (None, Expect::Version(v)) => {
            let sql = conn.statement(DELETE_DOC_VERSION).await?;
            client
                .query_opt(&sql, &[at[0], at[1], at[2], &(v as i64)])
                .await?
                .map(|_| 0)
        }
    };
    if let Some(version) = written {
        return Ok(version);
    }
    let sql = conn.statement(DOC_VERSION).await?;
    let found = match client.query_opt(&sql, &at).await? {
        Some(r) => Some(r.try_get::<_, i64>(0)? as u64),
        None => None,
    };
    if matches!((&write.value, write.expect, found), (None, Expect::Absent, None)) {
        return Ok(0);
    }
    Err(Failed::Store(StoreError::Conflict {
        index: Some(index),
        found,
    }))
}
