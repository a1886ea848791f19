//! The read connections: a small pool beside the writer's connection. WAL
//! lets each read see the last durable commit without waiting for the
//! writer, so reads run in line on the caller's thread. A connection is
//! taken for one call and put back; the pool grows to the number of
//! threads reading at once and no further.

use super::rows::open_beside;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use store::{StoreError, StoreResult};

pub(super) struct Readers {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl Readers {
    pub(super) fn new(path: &Path) -> Self {
        Readers {
            path: path.to_path_buf(),
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Runs `f` on an idle connection (a new one when all are in use) and
    /// puts the connection back.
    pub(super) fn with<T>(&self, f: impl FnOnce(&Connection) -> StoreResult<T>) -> StoreResult<T> {
        let idle = self.lock()?.pop();
        let conn = match idle {
            Some(conn) => conn,
            None => open_reader(&self.path)?,
        };
        let result = f(&conn);
        self.lock()?.push(conn);
        result
    }

    fn lock(&self) -> StoreResult<std::sync::MutexGuard<'_, Vec<Connection>>> {
        self.idle
            .lock()
            .map_err(|_| StoreError::Backend("sqlite reader pool lock poisoned".into()))
    }
}

fn open_reader(path: &Path) -> StoreResult<Connection> {
    open_beside(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )
}
