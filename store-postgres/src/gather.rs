//! Concurrent task reads gathered into one query. Every statement costs the
//! server a bind, an executor and a flush of its answer, and the agent a
//! request and a reply on the connection, which for a read by primary key
//! is most of its cost; so reads of single tasks queue here, and whatever
//! has queued while earlier queries were out goes as one `id = ANY($1)`
//! query. A read alone waits for nothing: it is sent as soon as a query
//! slot is free. Each query runs on its own, so it sees one committed state,
//! taken after every read it answers was asked (a reader sees every commit
//! answered before it asked).

use super::conn::backend;
use super::counts::Counters;
use super::pool::Pool;
use std::collections::HashMap;
use std::sync::Arc;
use store::{StoreError, StoreResult};
use tokio::sync::{mpsc, oneshot, Semaphore};

/// The most tasks one query reads.
const MAX_GATHERED: usize = 128;

/// How many gathered queries may be out at once. One: the reads that arrive
/// while it is out make the next, so a query carries more reads the busier
/// the agent is, and its fixed cost is shared the more.
const QUERIES_OUT: usize = 1;

/// A task row as read, its body still text.
#[derive(Clone)]
pub(super) struct Found {
    pub(super) context_id: String,
    pub(super) state: String,
    pub(super) status_ts: String,
    pub(super) last_seq: i64,
    pub(super) rank: i64,
    pub(super) body: String,
}

type Reply = oneshot::Sender<StoreResult<Option<Found>>>;

/// One read waiting for its query.
struct Wanted {
    namespace: String,
    id: String,
    reply: Reply,
}

/// The queue of task reads; the gatherer task ends when it is dropped.
pub(super) struct Gather {
    queue: mpsc::UnboundedSender<Wanted>,
}

impl Gather {
    /// Starts the gatherer on the current runtime, reading from `pool`.
    pub(super) fn start(pool: Arc<Pool>, counters: Arc<Counters>) -> Gather {
        let (queue, rx) = mpsc::unbounded_channel();
        tokio::spawn(run(pool, rx, counters));
        Gather { queue }
    }

    /// Task `id` of `namespace` (none of another namespace).
    pub(super) async fn task(&self, namespace: &str, id: &str) -> StoreResult<Option<Found>> {
        let (reply, answer) = oneshot::channel();
        let wanted = Wanted {
            namespace: namespace.to_string(),
            id: id.to_string(),
            reply,
        };
        if self.queue.send(wanted).is_err() {
            return Err(stopped());
        }
        answer.await.unwrap_or_else(|_| Err(stopped()))
    }
}

fn stopped() -> StoreError {
    StoreError::Backend("postgres: the task reader has stopped".into())
}

/// Takes what has queued whenever a query slot is free, and sends it as one
/// query.
async fn run(pool: Arc<Pool>, mut rx: mpsc::UnboundedReceiver<Wanted>, counters: Arc<Counters>) {
    let slots = Arc::new(Semaphore::new(QUERIES_OUT));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let Some(first) = rx.recv().await else {
            return;
        };
        let mut batch = vec![first];
        while batch.len() < MAX_GATHERED {
            match rx.try_recv() {
                Ok(wanted) => batch.push(wanted),
                Err(_) => break,
            }
        }
        counters.task_query(batch.len());
        let pool = pool.clone();
        tokio::spawn(async move {
            answer(&pool, batch).await;
            drop(slot);
        });
    }
}

/// Reads every task of `batch` in one query and tells each reader.
async fn answer(pool: &Pool, batch: Vec<Wanted>) {
    let ids: Vec<&str> = batch.iter().map(|w| w.id.as_str()).collect();
    // Whether each read is its task's last in the batch (it takes the row;
    // those before it get a copy).
    let mut seen = std::collections::HashSet::with_capacity(ids.len());
    let mut last: Vec<bool> = ids.iter().rev().map(|id| seen.insert(*id)).collect();
    last.reverse();
    let read = async {
        let conn = pool.get().await?;
        let sql = conn
            .statement(
                "SELECT id, namespace, context_id, state, status_ts, last_seq, rank, body \
                 FROM tasks WHERE id = ANY($1)",
            )
            .await?;
        let rows = conn.client.query(&sql, &[&ids]).await.map_err(backend)?;
        let mut found = HashMap::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get(0).map_err(backend)?;
            let namespace: String = row.try_get(1).map_err(backend)?;
            let task = Found {
                context_id: row.try_get(2).map_err(backend)?,
                state: row.try_get(3).map_err(backend)?,
                status_ts: row.try_get(4).map_err(backend)?,
                last_seq: row.try_get(5).map_err(backend)?,
                rank: row.try_get(6).map_err(backend)?,
                body: row.try_get(7).map_err(backend)?,
            };
            found.insert(id, (namespace, task));
        }
        Ok::<_, StoreError>(found)
    };
    match read.await {
        Ok(mut found) => {
            for (wanted, last) in batch.into_iter().zip(last) {
                let task = match found.get(&wanted.id) {
                    Some((namespace, _)) if *namespace != wanted.namespace => None,
                    Some(_) if last => found.remove(&wanted.id).map(|(_, task)| task),
                    Some((_, task)) => Some(task.clone()),
                    None => None,
                };
                let _ = wanted.reply.send(Ok(task));
            }
        }
        Err(e) => {
            for wanted in batch {
                let _ = wanted.reply.send(Err(e.clone()));
            }
        }
    }
}
