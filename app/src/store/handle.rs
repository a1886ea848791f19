//! The store as async code uses it: each call runs on tokio's blocking pool, so
//! a durable commit's `fsync` never stalls the async workers. Every service
//! owns a clone of the handle.

use super::{Store, StoreError, StoreResult};
use crate::util::Family;
use a2a::rpc::Error;
use std::sync::Arc;

/// A shared, cloneable handle on the store.
#[derive(Clone)]
pub struct StoreHandle {
    store: Arc<dyn Store>,
}

impl StoreHandle {
    pub fn new(store: Arc<dyn Store>) -> Self {
        StoreHandle { store }
    }

    /// The store itself (for diagnostics and tests).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Runs a store call; a failure is an internal error of `family`.
    pub async fn run<T, F>(&self, family: Family, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> StoreResult<T> + Send + 'static,
    {
        self.call(f).await.map_err(|e| family.internal(e.to_string()))
    }

    /// Runs a store call and keeps the store error, so callers can map conflicts.
    pub async fn call<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> StoreResult<T> + Send + 'static,
    {
        let store = self.store.clone();
        match tokio::task::spawn_blocking(move || f(&*store)).await {
            Ok(result) => result,
            Err(e) => Err(StoreError::Backend(format!("storage task failed: {e}"))),
        }
    }
}
