//! The PostgreSQL backend: one database shared by any number of agents,
//! selected with a `postgres://` URL.
//!
//! - [`cluster`](cluster.rs): a throwaway cluster for tests (feature `test-cluster`);
//! - [`conn`](conn.rs): a connection with its prepared statements;
//! - [`pool`](pool.rs): the read connections;
//! - [`counts`](counts.rs): what the store has done, counted;
//! - [`gather`](gather.rs): concurrent task reads gathered into one query;
//! - [`schema`](schema.rs): the numbered migrations (and `upgrade.rs`, the
//!   tests that open a database of every older schema version, from
//!   `fixtures/`);
//! - [`writer`](writer.rs): group commit, durable before any caller is answered;
//! - [`group`](group.rs): a group of commits in one round trip;
//! - [`sql`](sql.rs): the statements of a commit, lenient and strict;
//! - [`reads`](reads.rs): the queries behind the trait's reads;
//! - [`outbox`](outbox.rs): the push outbox and its leases across agents;
//! - [`listen`](listen.rs): LISTEN/NOTIFY, how an agent learns of the task
//!   events other agents append.
//!
//! Everything runs on the caller's runtime: the connections' drivers, the
//! writer and the listener are tasks spawned by [`PgStore::open`], and a read
//! is the caller's own future awaiting its round trip, so no thread waits
//! for the database. Reads go to a few connections in turn: one connection
//! carries many concurrent queries (the driver pipelines them), so the pool
//! stays small. A connection found broken is reopened on its next use.

#[cfg(any(test, feature = "test-cluster"))]
pub mod cluster;
mod conn;
mod counts;
mod gather;
mod group;
mod listen;
mod outbox;
mod pool;
mod reads;
mod schema;
mod sql;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod upgrade;
mod writer;

use a2a::rpc::RawJson;
use conn::Conn;
use counts::Counters;
pub use counts::PgCounts;
use gather::Gather;
use pool::{Pool, READERS};
use std::sync::Arc;
use std::time::Duration;
use store::json::{decode, raw};
use store::*;
use tokio::sync::broadcast;
use tokio_postgres::Config;
use writer::Writer;

/// How long opening waits for the listener to be in place.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(10);

/// A store in one PostgreSQL database, shared with other agents.
pub struct PgStore {
    pool: Arc<Pool>,
    tasks: Gather,
    counters: Arc<Counters>,
    writer: Writer,
    feed: broadcast::Sender<Appended>,
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db`),
    /// migrates it, and starts the writer and the listener as tasks of the
    /// current runtime, which the store then lives on.
    pub async fn open(url: &str) -> StoreResult<Self> {
        let mut config: Config = url
            .parse()
            .map_err(|e| StoreError::Backend(format!("invalid PostgreSQL URL: {e}")))?;
        // No JIT compilation: every statement here is short, but once the
        // tables are large the planner's cost of the group statement passes
        // `jit_above_cost`, and compiling it took 200-300 ms per group at a
        // million tasks, where running it takes a few.
        let options = match config.get_options() {
            Some(given) => format!("{given} -c jit=off"),
            None => "-c jit=off".to_string(),
        };
        config.options(&options);
        let writer_conn = Conn::open(&config).await?;
        schema::migrate(&writer_conn).await?;
        let counters = Arc::new(Counters::default());
        let writer = Writer::start(config.clone(), writer_conn, counters.clone());
        let (feed, mut first) = broadcast::channel(listen::FEED_CAPACITY);
        tokio::spawn(listen::listen(config.clone(), feed.clone()));
        // Listening before the first commit is answered, so no announcement
        // of this agent's lifetime goes unheard.
        match tokio::time::timeout(LISTEN_TIMEOUT, first.recv()).await {
            Ok(Ok(_)) => {}
            _ => {
                return Err(StoreError::Backend(
                    "postgres: cannot LISTEN for task events".into(),
                ))
            }
        }
        let pool = Arc::new(Pool::new(config));
        // Connected up front, so no first read pays for a connection.
        for _ in 0..READERS {
            pool.get().await?;
        }
        let tasks = Gather::start(pool.clone(), counters.clone());
        Ok(PgStore {
            pool,
            tasks,
            counters,
            writer,
            feed,
        })
    }
}

impl PgStore {
    /// What this store has done since it opened.
    pub fn counts(&self) -> PgCounts {
        self.counters.snapshot()
    }
}

impl Drop for PgStore {
    /// Stops taking commits; the writer still commits what is queued while
    /// the runtime runs (nothing unanswered was acknowledged).
    fn drop(&mut self) {
        self.writer.close();
    }
}

impl Store for PgStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    fn commit(&self, commit: Commit) -> Answer<'_, Committed> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.writer.submit(
            commit,
            Box::new(move |outcome| {
                let _ = tx.send(outcome);
            }),
        );
        Answer::later(async move {
            rx.await
                .unwrap_or_else(|_| Err(StoreError::Backend("the postgres writer dropped a commit".into())))
        })
    }

    fn get_task<'a>(&'a self, namespace: &'a str, id: &'a str) -> Answer<'a, Option<TaskRow>> {
        Answer::later(async move {
            let Some(found) = self.tasks.task(namespace, id).await? else {
                return Ok(None);
            };
            Ok(Some(TaskRow {
                id: id.to_string(),
                namespace: namespace.to_string(),
                context_id: found.context_id,
                state: found.state,
                status_ts: found.status_ts,
                last_seq: found.last_seq as u64,
                rank: found.rank,
                body: decode(&found.body)?,
            }))
        })
    }

    fn get_task_encoded<'a>(&'a self, namespace: &'a str, id: &'a str) -> Answer<'a, Option<RawJson>> {
        Answer::later(async move {
            self.tasks
                .task(namespace, id)
                .await?
                .map(|found| raw(found.body))
                .transpose()
        })
    }

    fn events_after<'a>(
        &'a self,
        namespace: &'a str,
        task_id: &'a str,
        after: u64,
    ) -> Answer<'a, Vec<EventRow>> {
        Answer::later(async move {
            reads::events_after(&*self.pool.get().await?, namespace, task_id, after).await
        })
    }

    fn namespace_events_after<'a>(
        &'a self,
        namespace: &'a str,
        after: u64,
        limit: usize,
    ) -> Answer<'a, Vec<OrderedEvent>> {
        Answer::later(async move {
            reads::namespace_events_after(&*self.pool.get().await?, namespace, after, limit).await
        })
    }

    fn list_tasks<'a>(&'a self, query: &'a TaskQuery) -> Answer<'a, TaskPage> {
        Answer::later(async move { reads::list_tasks(&*self.pool.get().await?, query).await })
    }

    fn get_doc<'a>(&'a self, coll: &'a str, namespace: &'a str, key: &'a str) -> Answer<'a, Option<Doc>> {
        Answer::later(async move { reads::get_doc(&*self.pool.get().await?, coll, namespace, key).await })
    }

    fn list_docs<'a>(
        &'a self,
        coll: &'a str,
        namespace: &'a str,
        prefix: &'a str,
        after: Option<&'a str>,
        limit: usize,
    ) -> Answer<'a, Vec<Doc>> {
        Answer::later(async move {
            reads::list_docs(&*self.pool.get().await?, coll, namespace, prefix, after, limit).await
        })
    }

    fn list_docs_before<'a>(
        &'a self,
        coll: &'a str,
        namespace: &'a str,
        before: Option<&'a str>,
        limit: usize,
    ) -> Answer<'a, Vec<Doc>> {
        Answer::later(async move {
            reads::list_docs_before(&*self.pool.get().await?, coll, namespace, before, limit).await
        })
    }

    fn namespaces(&self) -> Answer<'_, Vec<String>> {
        Answer::later(async move { reads::namespaces(&*self.pool.get().await?).await })
    }

    fn check_integrity(&self, deep: bool) -> Answer<'_, Integrity> {
        Answer::later(async move { reads::check_integrity(&*self.pool.get().await?, deep).await })
    }

    fn claim_deliveries<'a>(
        &'a self,
        holder: &'a str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: usize,
    ) -> Answer<'a, Vec<Delivery>> {
        Answer::later(async move {
            outbox::claim(&*self.pool.get().await?, holder, now_ms, lease_until_ms, limit).await
        })
    }

    fn renew_deliveries<'a>(&'a self, holder: &'a str, lease_until_ms: i64) -> Answer<'a, u64> {
        Answer::later(async move { outbox::renew(&*self.pool.get().await?, holder, lease_until_ms).await })
    }

    fn pending_deliveries<'a>(&'a self, namespace: &'a str, task_id: &'a str) -> Answer<'a, Vec<Delivery>> {
        Answer::later(async move { outbox::pending(&*self.pool.get().await?, namespace, task_id).await })
    }

    fn has_deliveries(&self) -> Answer<'_, bool> {
        Answer::later(async move { outbox::any(&*self.pool.get().await?).await })
    }

    fn appended(&self) -> Option<broadcast::Receiver<Appended>> {
        Some(self.feed.subscribe())
    }
}
