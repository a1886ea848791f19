//! A memory store with some of its calls changed: a test says what it
//! changes in an [`Around`] impl, and [`Wrapped`] passes every other call
//! to the memory store unchanged.

use app::store::{
    Commit, CommitDone, Delivery, Doc, EventRow, InlineStore, Integrity, MemoryStore, OrderedEvent,
    StoreResult, TaskPage, TaskQuery, TaskRow,
};

/// What a test changes of a memory store; every call not overridden here is
/// the memory store's own.
pub trait Around: Send + Sync + 'static {
    /// The memory store underneath.
    fn inner(&self) -> &MemoryStore;
    fn backend(&self) -> &'static str {
        "wrapped"
    }
    fn submit(&self, commit: Commit, done: CommitDone) {
        self.inner().submit(commit, done)
    }
    fn get_doc(&self, coll: &str, namespace: &str, key: &str) -> StoreResult<Option<Doc>> {
        self.inner().get_doc(coll, namespace, key)
    }
    fn check_integrity(&self, deep: bool) -> StoreResult<Integrity> {
        self.inner().check_integrity(deep)
    }
}

/// A store made of an [`Around`].
pub struct Wrapped<T>(pub T);

impl<T: Around> InlineStore for Wrapped<T> {
    fn backend(&self) -> &'static str {
        self.0.backend()
    }
    fn submit(&self, commit: Commit, done: CommitDone) {
        self.0.submit(commit, done)
    }
    fn get_task(&self, namespace: &str, id: &str) -> StoreResult<Option<TaskRow>> {
        self.0.inner().get_task(namespace, id)
    }
    fn events_after(&self, namespace: &str, task_id: &str, after: u64) -> StoreResult<Vec<EventRow>> {
        self.0.inner().events_after(namespace, task_id, after)
    }
    fn namespace_events_after(
        &self,
        namespace: &str,
        after: u64,
        limit: usize,
    ) -> StoreResult<Vec<OrderedEvent>> {
        self.0.inner().namespace_events_after(namespace, after, limit)
    }
    fn list_tasks(&self, query: &TaskQuery) -> StoreResult<TaskPage> {
        self.0.inner().list_tasks(query)
    }
    fn get_doc(&self, coll: &str, namespace: &str, key: &str) -> StoreResult<Option<Doc>> {
        self.0.get_doc(coll, namespace, key)
    }
    fn list_docs(
        &self,
        coll: &str,
        namespace: &str,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>> {
        self.0.inner().list_docs(coll, namespace, prefix, after, limit)
    }
    fn list_docs_before(
        &self,
        coll: &str,
        namespace: &str,
        before: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>> {
        self.0.inner().list_docs_before(coll, namespace, before, limit)
    }
    fn namespaces(&self) -> StoreResult<Vec<String>> {
        self.0.inner().namespaces()
    }
    fn check_integrity(&self, deep: bool) -> StoreResult<Integrity> {
        self.0.check_integrity(deep)
    }
    fn claim_deliveries(
        &self,
        holder: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>> {
        self.0
            .inner()
            .claim_deliveries(holder, now_ms, lease_until_ms, limit)
    }
    fn renew_deliveries(&self, holder: &str, lease_until_ms: i64) -> StoreResult<u64> {
        self.0.inner().renew_deliveries(holder, lease_until_ms)
    }
    fn pending_deliveries(&self, namespace: &str, task_id: &str) -> StoreResult<Vec<Delivery>> {
        self.0.inner().pending_deliveries(namespace, task_id)
    }
    fn has_deliveries(&self) -> StoreResult<bool> {
        self.0.inner().has_deliveries()
    }
}
