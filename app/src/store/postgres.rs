//! The PostgreSQL backend: one database shared by any number of agents,
//! selected with a `postgres://` URL.
//!
//! - [`io`](io.rs): the store's own runtime, and how the trait's synchronous
//!   reads wait for it without stalling the caller's async workers;
//! - [`conn`](conn.rs): a connection with its prepared statements;
//! - [`schema`](schema.rs): the numbered migrations;
//! - [`writer`](writer.rs): group commit, durable before any caller is answered;
//! - [`reads`](reads.rs): the queries behind the trait's reads;
//! - [`outbox`](outbox.rs): the push outbox and its leases across agents;
//! - [`listen`](listen.rs): LISTEN/NOTIFY, how an agent learns of the task
//!   events other agents append.
//!
//! Reads go to a few connections in turn: one connection carries many
//! concurrent queries (the driver pipelines them), so the pool stays small.
//! A connection found broken is reopened on its next use.

#[cfg(any(test, feature = "pg-test-cluster"))]
pub mod cluster;
mod conn;
mod io;
mod listen;
mod outbox;
pub(super) mod reads;
mod schema;
mod writer;

use super::*;
use conn::Conn;
use io::Io;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast;
use tokio_postgres::Config;
use writer::Writer;

/// Read connections per store.
const READERS: usize = 3;

/// How long opening waits for the listener to be in place.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(10);

/// A store in one PostgreSQL database, shared with other agents.
pub struct PgStore {
    io: Io,
    pool: Arc<Pool>,
    writer: Writer,
    feed: broadcast::Sender<Appended>,
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db`),
    /// migrates it, and starts the writer and the listener.
    pub fn open(url: &str) -> StoreResult<Self> {
        let config: Config = url
            .parse()
            .map_err(|e| StoreError::Backend(format!("invalid PostgreSQL URL: {e}")))?;
        let io = Io::start()?;
        let writer_conn = io.run({
            let config = config.clone();
            async move {
                let conn = Conn::open(&config).await?;
                schema::migrate(&conn).await?;
                Ok(conn)
            }
        })?;
        let writer = Writer::start(io.handle(), config.clone(), writer_conn);
        let (feed, mut first) = broadcast::channel(listen::FEED_CAPACITY);
        io.handle().spawn(listen::listen(config.clone(), feed.clone()));
        // Listening before the first commit is answered, so no announcement
        // of this agent's lifetime goes unheard.
        io.run(async move {
            match tokio::time::timeout(LISTEN_TIMEOUT, first.recv()).await {
                Ok(Ok(_)) => Ok(()),
                _ => Err(StoreError::Backend(
                    "postgres: cannot LISTEN for task events".into(),
                )),
            }
        })?;
        let pool = Arc::new(Pool::new(config));
        // Connected up front, so no first read pays for a connection.
        io.run({
            let pool = pool.clone();
            async move {
                for _ in 0..READERS {
                    pool.get().await?;
                }
                Ok(())
            }
        })?;
        Ok(PgStore {
            io,
            pool,
            writer,
            feed,
        })
    }

    /// Runs `read` on a pooled connection, on the store's runtime.
    fn read<T, F, Fut>(&self, read: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(Arc<Conn>) -> Fut + Send + 'static,
        Fut: Future<Output = StoreResult<T>> + Send,
    {
        let pool = self.pool.clone();
        self.io.run(async move { read(pool.get().await?).await })
    }
}

impl Drop for PgStore {
    /// Commits what is queued before the runtime stops.
    fn drop(&mut self) {
        self.writer.close();
        if let Some(drained) = self.writer.take_task() {
            let _ = self.io.run(async move {
                let _ = drained.await;
                Ok(())
            });
        }
    }
}

/// The read connections, used in turn.
struct Pool {
    config: Config,
    slots: Vec<Mutex<Option<Arc<Conn>>>>,
    next: AtomicUsize,
}

impl Pool {
    fn new(config: Config) -> Self {
        Pool {
            config,
            slots: (0..READERS).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// The next connection, opened if it is not (or no longer) open.
    async fn get(&self) -> StoreResult<Arc<Conn>> {
        let slot = &self.slots[self.next.fetch_add(1, Ordering::Relaxed) % READERS];
        let open = slot
            .lock()
            .map_err(|_| StoreError::Backend("postgres pool lock poisoned".into()))?
            .clone()
            .filter(|conn| !conn.is_closed());
        if let Some(conn) = open {
            return Ok(conn);
        }
        let conn = Arc::new(Conn::open(&self.config).await?);
        if let Ok(mut slot) = slot.lock() {
            *slot = Some(conn.clone());
        }
        Ok(conn)
    }
}

impl Store for PgStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    fn commit(&self, commit: &Commit) -> StoreResult<Committed> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.submit(
            commit.clone(),
            Box::new(move |outcome| {
                let _ = tx.send(outcome);
            }),
        );
        io::wait(rx)
    }

    fn submit(&self, commit: Commit, done: CommitDone) {
        self.writer.submit(commit, done);
    }

    fn get_task(&self, namespace: &str, id: &str) -> StoreResult<Option<TaskRow>> {
        let (namespace, id) = (namespace.to_string(), id.to_string());
        self.read(move |conn| async move { reads::get_task(&conn, &namespace, &id).await })
    }

    fn events_after(&self, namespace: &str, task_id: &str, after: u64) -> StoreResult<Vec<EventRow>> {
        let (namespace, task_id) = (namespace.to_string(), task_id.to_string());
        self.read(move |conn| async move { reads::events_after(&conn, &namespace, &task_id, after).await })
    }

    fn namespace_events_after(
        &self,
        namespace: &str,
        after: u64,
        limit: usize,
    ) -> StoreResult<Vec<OrderedEvent>> {
        let namespace = namespace.to_string();
        self.read(
            move |conn| async move { reads::namespace_events_after(&conn, &namespace, after, limit).await },
        )
    }

    fn list_tasks(&self, query: &TaskQuery) -> StoreResult<TaskPage> {
        let query = query.clone();
        self.read(move |conn| async move { reads::list_tasks(&conn, &query).await })
    }

    fn get_doc(&self, coll: &str, namespace: &str, key: &str) -> StoreResult<Option<Doc>> {
        let (coll, namespace, key) = (coll.to_string(), namespace.to_string(), key.to_string());
        self.read(move |conn| async move { reads::get_doc(&conn, &coll, &namespace, &key).await })
    }

    fn list_docs(
        &self,
        coll: &str,
        namespace: &str,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>> {
        let (coll, namespace, prefix) = (coll.to_string(), namespace.to_string(), prefix.to_string());
        let after = after.map(str::to_string);
        self.read(move |conn| async move {
            reads::list_docs(&conn, &coll, &namespace, &prefix, after.as_deref(), limit).await
        })
    }

    fn list_docs_before(
        &self,
        coll: &str,
        namespace: &str,
        before: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>> {
        let (coll, namespace) = (coll.to_string(), namespace.to_string());
        let before = before.map(str::to_string);
        self.read(move |conn| async move {
            reads::list_docs_before(&conn, &coll, &namespace, before.as_deref(), limit).await
        })
    }

    fn namespaces(&self) -> StoreResult<Vec<String>> {
        self.read(|conn| async move { reads::namespaces(&conn).await })
    }

    fn check_integrity(&self, deep: bool) -> StoreResult<Integrity> {
        self.read(move |conn| async move { reads::check_integrity(&conn, deep).await })
    }

    fn claim_deliveries(
        &self,
        holder: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>> {
        let holder = holder.to_string();
        self.read(
            move |conn| async move { outbox::claim(&conn, &holder, now_ms, lease_until_ms, limit).await },
        )
    }

    fn renew_deliveries(&self, holder: &str, lease_until_ms: i64) -> StoreResult<u64> {
        let holder = holder.to_string();
        self.read(move |conn| async move { outbox::renew(&conn, &holder, lease_until_ms).await })
    }

    fn pending_deliveries(&self, namespace: &str, task_id: &str) -> StoreResult<Vec<Delivery>> {
        let (namespace, task_id) = (namespace.to_string(), task_id.to_string());
        self.read(move |conn| async move { outbox::pending(&conn, &namespace, &task_id).await })
    }

    fn has_deliveries(&self) -> StoreResult<bool> {
        self.read(|conn| async move { outbox::any(&conn).await })
    }

    fn appended(&self) -> Option<broadcast::Receiver<Appended>> {
        Some(self.feed.subscribe())
    }
}
