//! The read connections: a few, used in turn, each carrying many concurrent
//! queries (the driver pipelines them), each reopened on its next use once
//! found broken.

use super::conn::Conn;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use store::{StoreError, StoreResult};
use tokio_postgres::Config;

/// Read connections per store.
pub(super) const READERS: usize = 3;

/// The read connections, used in turn.
pub(super) struct Pool {
    config: Config,
    slots: Vec<Mutex<Option<Arc<Conn>>>>,
    next: AtomicUsize,
}

impl Pool {
    pub(super) fn new(config: Config) -> Self {
        Pool {
            config,
            slots: (0..READERS).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// The next connection, opened if it is not (or no longer) open.
    pub(super) async fn get(&self) -> StoreResult<Arc<Conn>> {
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
