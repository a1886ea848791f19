//! One connection to the server with its prepared statements, and the
//! mapping of the driver's errors onto the store's.

use std::collections::HashMap;
use std::sync::Mutex;
use store::{StoreError, StoreResult};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config, NoTls, Statement};

/// A client whose statements are prepared once: every later use of a
/// statement costs one round trip instead of two.
pub(super) struct Conn {
    pub(super) client: Client,
    statements: Mutex<HashMap<String, Statement>>,
}

impl Conn {
    /// Connects; the connection is driven by a task on the current runtime
    /// (the caller's) until the client is dropped.
    pub(super) async fn open(config: &Config) -> StoreResult<Conn> {
        let (client, connection) = config.connect(NoTls).await.map_err(backend)?;
        tokio::spawn(async move {
            // Ends when the client is dropped or the server goes; the next
            // use of the client then fails and the caller reconnects.
            let _ = connection.await;
        });
        Ok(Conn {
            client,
            statements: Mutex::new(HashMap::new()),
        })
    }

    /// The prepared statement of `sql`.
    pub(super) async fn statement(&self, sql: &str) -> StoreResult<Statement> {
        if let Some(statement) = self.cached(sql)? {
            return Ok(statement);
        }
        let statement = self.client.prepare(sql).await.map_err(backend)?;
        self.statements
            .lock()
            .map_err(|_| poisoned())?
            .insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    fn cached(&self, sql: &str) -> StoreResult<Option<Statement>> {
        Ok(self.statements.lock().map_err(|_| poisoned())?.get(sql).cloned())
    }

    pub(super) fn is_closed(&self) -> bool {
        self.client.is_closed()
    }
}

fn poisoned() -> StoreError {
    StoreError::Backend("postgres statement cache lock poisoned".into())
}

/// A driver error as a store failure, with the server's message when it sent one.
pub(super) fn backend(e: tokio_postgres::Error) -> StoreError {
    match e.as_db_error() {
        Some(db) => StoreError::Backend(format!("postgres: {} ({})", db.message(), db.code().code())),
        None => StoreError::Backend(format!("postgres: {e}")),
    }
}

/// True for the failures the server asks to retry: a deadlock between two
/// instances' transactions, or a serialization failure.
pub(super) fn is_retryable(e: &tokio_postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(code) if *code == SqlState::T_R_DEADLOCK_DETECTED || *code == SqlState::T_R_SERIALIZATION_FAILURE
    )
}
