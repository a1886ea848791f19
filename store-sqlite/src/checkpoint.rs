//! The WAL checkpoint, on a thread of its own.
//!
//! By default SQLite checkpoints in the connection whose commit grew the WAL
//! past a threshold: here, the writer, which would then copy the WAL into
//! the database file and `fsync` it while every queued commit waits, a
//! stall of tens of milliseconds on the request path. The writer's automatic
//! checkpoint is off instead, and this thread, with a connection of its own,
//! runs a passive checkpoint (which never blocks the writer or a reader)
//! every [`PERIOD`] while commits arrive, so the WAL stays short.

use super::rows::{backend, open_beside};
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use store::StoreResult;

/// How often the WAL is checkpointed while commits arrive: about as often as
/// SQLite's own threshold (1,000 pages) is reached under load.
const PERIOD: Duration = Duration::from_millis(250);

/// The checkpoint thread; it stops (after a last checkpoint) when dropped.
pub(super) struct Checkpointer {
    turns: Arc<AtomicU64>,
    stop: Mutex<Option<mpsc::Sender<()>>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts checkpointing the database at `path`.
    pub(super) fn start(path: &Path) -> StoreResult<Checkpointer> {
        let conn = open_beside(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_URI,
        )?;
        let turns = Arc::new(AtomicU64::new(0));
        let (stop, stopped) = mpsc::channel();
        let seen = turns.clone();
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || run(&conn, &seen, &stopped))
            .map_err(backend)?;
        Ok(Checkpointer {
            turns,
            stop: Mutex::new(Some(stop)),
            thread: Some(thread),
        })
    }

    /// Tells the checkpointer a turn committed (the WAL grew).
    pub(super) fn committed(&self) {
        self.turns.fetch_add(1, Ordering::Relaxed);
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        if let Ok(mut stop) = self.stop.lock() {
            stop.take();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Checkpoints every period in which a turn committed, until stopped.
fn run(conn: &Connection, turns: &AtomicU64, stopped: &mpsc::Receiver<()>) {
    let mut checkpointed = 0;
    loop {
        let stop = matches!(
            stopped.recv_timeout(PERIOD),
            Ok(()) | Err(RecvTimeoutError::Disconnected)
        );
        let now = turns.load(Ordering::Relaxed);
        if now != checkpointed {
            checkpointed = now;
            // A failed checkpoint (the file busy, say) is tried again next
            // period; the WAL only grows meanwhile.
            let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        }
        if stop {
            return;
        }
    }
}
