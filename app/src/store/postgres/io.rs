//! The store's own async runtime, and the bridge from the trait's
//! synchronous calls to it.
//!
//! The driver is async (`tokio-postgres`); the trait's reads are synchronous
//! and are called from the application's async workers. Each call is spawned
//! onto this runtime (two threads that own every connection), and the caller
//! waits for its answer. On a worker of a multi-threaded runtime the wait runs
//! inside `block_in_place`, so tokio moves that worker's other tasks to
//! another thread and nothing else stalls for the round trip; elsewhere (a
//! plain thread, a test) the caller simply blocks. Commits never wait here:
//! they are queued to the writer and answered through their callback.

use crate::store::{StoreError, StoreResult};
use std::future::Future;
use tokio::runtime::{Handle, RuntimeFlavor};

/// How many threads drive the connections: the work on them is I/O only.
const IO_THREADS: usize = 2;

/// The runtime every connection of one store lives on.
pub(super) struct Io {
    runtime: Option<tokio::runtime::Runtime>,
    handle: Handle,
}

impl Io {
    pub(super) fn start() -> StoreResult<Io> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(IO_THREADS)
            .thread_name("postgres-io")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Backend(format!("cannot start the postgres runtime: {e}")))?;
        let handle = runtime.handle().clone();
        Ok(Io {
            runtime: Some(runtime),
            handle,
        })
    }

    /// Where tasks of the store are spawned.
    pub(super) fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Runs `work` on the store's runtime and waits for its outcome (see the
    /// module docs for how the wait spares the caller's runtime).
    pub(super) fn run<T, F>(&self, work: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: Future<Output = StoreResult<T>> + Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let _ = tx.send(work.await);
        });
        wait(rx)
    }
}

/// Waits for the one answer `rx` will get from the store's runtime, sparing
/// the caller's runtime as [`Io::run`] does.
pub(super) fn wait<T>(rx: std::sync::mpsc::Receiver<StoreResult<T>>) -> StoreResult<T> {
    let wait = move || {
        rx.recv()
            .unwrap_or_else(|_| Err(StoreError::Backend("the postgres runtime dropped a call".into())))
    };
    match Handle::try_current() {
        Ok(caller) if caller.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(wait)
        }
        _ => wait(),
    }
}

impl Drop for Io {
    /// Stops the runtime without waiting on it, which is allowed from inside
    /// another runtime (where a store may well be dropped).
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
