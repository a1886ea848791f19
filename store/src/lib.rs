//! The store of CleverAgents: the async storage API every backend
//! implements, its record types, the in-memory backend, and the one
//! behavioural suite every backend passes (feature `suite`). The durable
//! backends are crates of their own (`cleveragents-store-sqlite`,
//! `cleveragents-store-postgres`), so a user of the application compiles
//! only the backends it opens.
//!
//! The API is **async** ([`Store`]): every read and commit returns an
//! [`Answer`] the caller awaits. The embedded backends (SQLite, memory)
//! answer reads in line from memory or the page cache ([`InlineStore`]), so
//! a read costs no thread hop and no allocation; the PostgreSQL backend
//! awaits its driver on the caller's runtime. Commits are answered once they
//! are durable, so a durable backend can gather concurrent commits into one
//! transaction and one `fsync` (group commit) on a thread or task of its
//! own, and async code never waits on the disk.
//!
//! The model is deliberately small:
//! - **tasks**: one row per A2A task (the typed Task plus the columns queries
//!   filter on) and an append-only log of its events (typed StreamResponses),
//!   each with a per-task sequence number;
//! - **documents**: versioned JSON values addressed by `(collection, namespace,
//!   key)`, which hold registry entities, plans, project revisions, push
//!   configurations and settings.
//!
//! - **the push outbox**: one row per task event still to be delivered to one
//!   webhook, written by the commit that appends the event ([`Fanout`]), so an
//!   acknowledged event's deliveries are as durable as the event itself.
//!
//! Every change goes through [`Store::commit`], which applies a task change and
//! any number of document writes in **one atomic, durable transaction**, with
//! optimistic version checks, so a state change and its event are either both
//! on disk before the caller is answered or neither is. Only the outbox's
//! leases are taken outside a commit ([`Store::claim_deliveries`]): a lease
//! is a promise between live agents, not state that must survive.

mod answer;
pub mod counts;
pub mod json;
pub mod leases;
pub mod lifecycle;
pub mod memory;
pub mod timestamp;

#[cfg(any(test, feature = "suite"))]
pub mod suite;
#[cfg(any(test, feature = "suite"))]
pub mod upgrade;

use a2a::rpc::RawJson;
use a2a::types::{StreamResponse, Task};
use serde_json::Value;
use std::fmt;

pub use answer::Answer;
pub use memory::MemoryStore;

/// The current schema version of the stores' data model.
pub const STORE_SCHEMA_VERSION: u32 = 1;

/// One A2A task as stored: the Task and the columns queries filter on.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRow {
    pub id: String,
    pub namespace: String,
    pub context_id: String,
    /// Wire name of the state, e.g. `TASK_STATE_WORKING`.
    pub state: String,
    /// Fixed-width UTC status timestamp (see [`timestamp::now`]).
    pub status_ts: String,
    /// Sequence number of the last event of this task.
    pub last_seq: u64,
    /// Recency rank assigned by the store on every write: larger is newer,
    /// and never below 1 (a listing's cursor of 0 or less is none it gave).
    pub rank: i64,
    pub body: Task,
}

impl TaskRow {
    /// The row of `task` in `namespace` whose log ends at `last_seq`; the
    /// store assigns the rank. The body is kept without a generation: that
    /// is `last_seq` (see [`TaskRow::answer`]), and the encoded body stays
    /// the form a caller of every version may read.
    pub fn new(namespace: &str, mut task: Task, last_seq: u64) -> Self {
        task.generation = None;
        TaskRow {
            id: task.id.clone(),
            namespace: namespace.to_string(),
            context_id: task.context_id.clone().unwrap_or_default(),
            state: task.status.state.to_string(),
            status_ts: task.status.timestamp.clone().unwrap_or_else(timestamp::now),
            last_seq,
            rank: 0,
            body: task,
        }
    }
}

impl TaskRow {
    /// The task as answered: its body with its generation (A2A 1.1), which
    /// is the sequence number of its last event: the log starts with the
    /// task itself (1) and every change of its state or artifacts appends
    /// one event.
    pub fn answer(self) -> Task {
        let mut task = self.body;
        task.generation = Some(generation(self.last_seq));
        task
    }
}

/// The generation (A2A 1.1) of a task whose log ends at `seq`, or of the
/// event with sequence number `seq`.
pub fn generation(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}

/// One persisted task event: a StreamResponse with its per-task sequence number.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    pub seq: u64,
    pub body: StreamResponse,
}

/// One task event in the store-wide order of appends (the namespace event stream).
#[derive(Clone, Debug, PartialEq)]
pub struct OrderedEvent {
    /// Position of the append: it grows with every event appended anywhere in
    /// the store and is never given twice, so it orders the events of a
    /// namespace (with gaps where other namespaces' events fall).
    pub position: u64,
    pub task_id: String,
    pub context_id: String,
    pub event: EventRow,
}

/// A task change inside a commit.
#[derive(Clone, Debug)]
pub struct TaskWrite {
    pub row: TaskRow,
    /// True to create the task (conflict if it exists), false to update it
    /// (conflict if it does not exist or its stored `last_seq` is not
    /// `expected_last_seq`).
    pub create: bool,
    pub expected_last_seq: u64,
    /// For an update, the rank the row had when it was read: when given, a
    /// row rewritten since (it has another rank) is a conflict too. A change
    /// that appends no event (a message added to the history) leaves
    /// `last_seq` as it was, so only the rank tells two such writes apart;
    /// without it the second would silently replace the first.
    pub expected_rank: Option<i64>,
    /// Events to append; their sequence numbers must continue the task's log.
    pub events: Vec<EventRow>,
}

/// The version a document write expects to find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    Any,
    Absent,
    Version(u64),
}

/// One document write: put `value` (or delete when `None`).
#[derive(Clone, Debug)]
pub struct DocWrite {
    pub coll: String,
    pub namespace: String,
    pub key: String,
    pub expect: Expect,
    pub value: Option<Value>,
}

impl DocWrite {
    pub fn put(coll: &str, namespace: &str, key: &str, expect: Expect, value: Value) -> Self {
        DocWrite {
            coll: coll.into(),
            namespace: namespace.into(),
            key: key.into(),
            expect,
            value: Some(value),
        }
    }
    pub fn delete(coll: &str, namespace: &str, key: &str, expect: Expect) -> Self {
        DocWrite {
            coll: coll.into(),
            namespace: namespace.into(),
            key: key.into(),
            expect,
            value: None,
        }
    }
}

/// A stored document.
#[derive(Clone, Debug, PartialEq)]
pub struct Doc {
    pub key: String,
    /// 1 on creation, +1 on every put.
    pub version: u64,
    pub value: Value,
}

/// A task to delete inside a commit, with its event log (a task of another
/// namespace, or one already gone, is left alone).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskDelete {
    pub namespace: String,
    pub id: String,
}

/// Which deliveries the events of a task write owe: one outbox row per
/// appended event and per document of collection `coll` in the task's
/// namespace whose key starts with `prefix`, as the commit leaves those
/// documents (one written by the same commit counts). The rest of the key
/// names the target ([`DeliveryKey::config_id`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Fanout {
    pub coll: String,
    pub prefix: String,
}

/// Names one outbox row: an event of a task, owed to one target.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeliveryKey {
    pub namespace: String,
    pub task_id: String,
    pub config_id: String,
    pub seq: u64,
}

/// One pending push delivery (an outbox row).
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    pub key: DeliveryKey,
    /// The event, as appended.
    pub body: StreamResponse,
    /// Attempts made so far.
    pub attempts: u32,
    /// Not to be tried before this instant (milliseconds since the Unix epoch).
    pub next_attempt_ms: i64,
}

/// A change to the outbox inside a commit.
#[derive(Clone, Debug, PartialEq)]
pub enum DeliveryChange {
    /// Delivered, or given up: the row goes.
    Done(DeliveryKey),
    /// Failed: `holder` gives its lease up, and the row waits until
    /// `next_attempt_ms` with `attempts` made. Ignored unless `holder`
    /// still holds the row's lease (another agent took it over).
    Retry {
        key: DeliveryKey,
        holder: String,
        attempts: u32,
        next_attempt_ms: i64,
    },
    /// A target went (or, with no `config_id`, every target of the task):
    /// its pending rows go.
    DropTarget {
        namespace: String,
        task_id: String,
        config_id: Option<String>,
    },
}

/// One atomic unit of change.
#[derive(Clone, Debug, Default)]
pub struct Commit {
    pub task: Option<TaskWrite>,
    /// The outbox rows the task write's events owe (see [`Fanout`]).
    pub fanout: Option<Fanout>,
    pub docs: Vec<DocWrite>,
    /// Applied after the task write and the documents; a deleted task's
    /// outbox rows go with it.
    pub delete_tasks: Vec<TaskDelete>,
    /// Applied last.
    pub deliveries: Vec<DeliveryChange>,
}

/// What a commit did: the rank given to the task, each document's new
/// version (0 for deletions), in order, how many tasks it deleted, and how
/// many outbox rows its events owe.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Committed {
    pub task_rank: Option<i64>,
    pub doc_versions: Vec<u64>,
    pub deleted_tasks: u64,
    pub deliveries_owed: u64,
}

/// Filters and cursor of a task listing; results are newest first (by rank).
#[derive(Clone, Debug, Default)]
pub struct TaskQuery {
    pub namespace: String,
    pub context_id: Option<String>,
    pub state: Option<String>,
    /// Only tasks whose status timestamp is at or after this fixed-width instant.
    pub status_ts_from: Option<String>,
    /// Only tasks strictly older than this rank (the cursor).
    pub before_rank: Option<i64>,
    pub limit: usize,
}

/// A page of tasks and the number of matches ignoring the cursor and limit.
#[derive(Clone, Debug, Default)]
pub struct TaskPage {
    pub rows: Vec<TaskRow>,
    pub total: u64,
    /// True when more rows follow the last one returned.
    pub more: bool,
}

/// Result of an integrity check.
#[derive(Clone, Debug, Default)]
pub struct Integrity {
    pub checked_objects: u64,
    pub problems: Vec<String>,
}

/// Why a store call failed.
#[derive(Clone, Debug, PartialEq)]
pub enum StoreError {
    /// An optimistic check failed: `index` is the failing document write
    /// (`None` for the task write) and `found` the version found (None = absent).
    Conflict {
        index: Option<usize>,
        found: Option<u64>,
    },
    /// The backend failed (I/O, corruption, a poisoned lock).
    Backend(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Conflict { index, found } => {
                write!(f, "version conflict (write {index:?}, found {found:?})")
            }
            StoreError::Backend(message) => write!(f, "storage failure: {message}"),
        }
    }
}

impl std::error::Error for StoreError {}

pub type StoreResult<T> = Result<T, StoreError>;

/// Word that a task's log grew, possibly by another agent sharing the store.
#[derive(Clone, Debug, PartialEq)]
pub struct Appended {
    /// The task; `None` when any task's log may have grown (notices were
    /// missed), so every watcher reads the store again.
    pub task_id: Option<String>,
    /// The sequence number the task's log now ends at (0 with no task).
    pub last_seq: u64,
}

impl Appended {
    /// The notice that anything may have changed.
    pub fn everything() -> Self {
        Appended {
            task_id: None,
            last_seq: 0,
        }
    }
}

/// The least string above every string that starts with `prefix` (its last
/// character raised by one), so a prefix can be matched as a key range;
/// `None` when there is none (an empty prefix, or one ending in the last
/// character of a range).
pub fn prefix_end(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    let last = chars.pop()?;
    let next = (last as u32 + 1..=char::MAX as u32).find_map(char::from_u32)?;
    chars.push(next);
    Some(chars.into_iter().collect())
}

/// Told the outcome of a submitted commit, once it is durable or has failed.
pub type CommitDone = Box<dyn FnOnce(StoreResult<Committed>) + Send>;

/// The storage every backend provides, as async code uses it. See the module
/// docs for the model.
///
/// Every call returns an [`Answer`]: the embedded backends answer in line
/// (through [`InlineStore`]), a networked one awaits its round trips on the
/// caller's runtime. Arguments are borrowed for as long as the answer lives,
/// so a call copies nothing it does not keep.
pub trait Store: Send + Sync + 'static {
    /// Backend name, e.g. `sqlite`.
    fn backend(&self) -> &'static str;
    /// Applies `commit` atomically and durably, or nothing of it; answers
    /// once the commit is durable or has failed. A backend may gather
    /// concurrent commits into one transaction; each still succeeds or fails
    /// alone. Dropping the answer does not withdraw the commit.
    fn commit(&self, commit: Commit) -> Answer<'_, Committed>;
    /// The task `id` of `namespace`; a task of another namespace is not found.
    fn get_task<'a>(&'a self, namespace: &'a str, id: &'a str) -> Answer<'a, Option<TaskRow>>;
    /// The body of [`Store::get_task`] encoded, as an answer sends it: a
    /// backend that keeps it encoded hands it out without decoding it.
    fn get_task_encoded<'a>(&'a self, namespace: &'a str, id: &'a str) -> Answer<'a, Option<RawJson>>;
    /// Events of task `task_id` of `namespace` with a sequence number above
    /// `after`, in order (none for a task of another namespace).
    fn events_after<'a>(
        &'a self,
        namespace: &'a str,
        task_id: &'a str,
        after: u64,
    ) -> Answer<'a, Vec<EventRow>>;
    fn list_tasks<'a>(&'a self, query: &'a TaskQuery) -> Answer<'a, TaskPage>;
    /// Events of every task of `namespace` whose position is above `after`,
    /// in position order, at most `limit`. Positions are given in commit order,
    /// so a reader never sees a position while an earlier one of a commit not
    /// yet visible could still appear below it: reading on from the last
    /// position seen misses nothing and repeats nothing.
    fn namespace_events_after<'a>(
        &'a self,
        namespace: &'a str,
        after: u64,
        limit: usize,
    ) -> Answer<'a, Vec<OrderedEvent>>;
    fn get_doc<'a>(&'a self, coll: &'a str, namespace: &'a str, key: &'a str) -> Answer<'a, Option<Doc>>;
    /// Documents of a collection in a namespace whose key starts with `prefix`,
    /// in key order, after the key `after` (exclusive), at most `limit`.
    fn list_docs<'a>(
        &'a self,
        coll: &'a str,
        namespace: &'a str,
        prefix: &'a str,
        after: Option<&'a str>,
        limit: usize,
    ) -> Answer<'a, Vec<Doc>>;
    /// Documents of a collection in a namespace in **descending** key order,
    /// keys strictly below `before` (all when `None`), at most `limit`: a
    /// keyset page of the newest first when keys sort by time.
    fn list_docs_before<'a>(
        &'a self,
        coll: &'a str,
        namespace: &'a str,
        before: Option<&'a str>,
        limit: usize,
    ) -> Answer<'a, Vec<Doc>>;
    /// Every namespace that holds a task or a document.
    fn namespaces(&self) -> Answer<'_, Vec<String>>;
    /// Checks the store's consistency; `deep` also decodes every value. A
    /// full scan: a backend answering in line runs it off the async workers.
    fn check_integrity(&self, deep: bool) -> Answer<'_, Integrity>;
    /// Leases to `holder` until `lease_until_ms` up to `limit` outbox rows due
    /// at `now_ms` and not leased to anybody else, and returns them. Only the
    /// oldest pending row of each (task, target) is ever due, so one target
    /// gets a task's events in order. A row stays leased until a commit
    /// finishes it ([`DeliveryChange`]) or its lease expires; a store only
    /// this process opens keeps its leases in memory, so a restart finds
    /// every row free. Times are milliseconds since the Unix epoch.
    fn claim_deliveries<'a>(
        &'a self,
        holder: &'a str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: usize,
    ) -> Answer<'a, Vec<Delivery>>;
    /// Extends every lease `holder` holds to `lease_until_ms`; how many.
    fn renew_deliveries<'a>(&'a self, holder: &'a str, lease_until_ms: i64) -> Answer<'a, u64>;
    /// The pending outbox rows of task `task_id` of `namespace`, in (target,
    /// sequence) order.
    fn pending_deliveries<'a>(&'a self, namespace: &'a str, task_id: &'a str) -> Answer<'a, Vec<Delivery>>;
    /// True while any outbox row is still owed to its webhook (due now or
    /// later), in any namespace: the deliveries an agent that lets its
    /// process end would leave waiting.
    fn has_deliveries(&self) -> Answer<'_, bool>;
    /// Notices of task events appended by other processes sharing the
    /// store, for a store that can be shared (`None`: only this process
    /// writes it, and the task engine already knows every event). A notice
    /// is a wake-up only: the events are read with [`Store::events_after`].
    fn appended(&self) -> Option<tokio::sync::broadcast::Receiver<Appended>>;
}

/// A backend that answers its reads in line, on the caller's thread: the
/// embedded stores, whose reads come from memory or the page cache and so
/// cost less than any hand-off would. Every such backend is a [`Store`];
/// commits are still submitted, so a durable backend can answer them from a
/// writer thread of its own once they are on disk (group commit), and the
/// async workers never wait for a `fsync`.
pub trait InlineStore: Send + Sync + 'static {
    /// Backend name, e.g. `sqlite`.
    fn backend(&self) -> &'static str;
    /// Applies `commit` as [`Store::commit`] does and tells `done` the
    /// outcome, in line or from another thread, never before it is durable.
    fn submit(&self, commit: Commit, done: CommitDone);
    /// See [`Store::get_task`].
    fn get_task(&self, namespace: &str, id: &str) -> StoreResult<Option<TaskRow>>;
    /// See [`Store::get_task_encoded`]. By default the decoded body, encoded again.
    fn get_task_encoded(&self, namespace: &str, id: &str) -> StoreResult<Option<RawJson>> {
        InlineStore::get_task(self, namespace, id)?
            .map(|row| encode_body(&row.body))
            .transpose()
    }
    /// See [`Store::events_after`].
    fn events_after(&self, namespace: &str, task_id: &str, after: u64) -> StoreResult<Vec<EventRow>>;
    /// See [`Store::list_tasks`].
    fn list_tasks(&self, query: &TaskQuery) -> StoreResult<TaskPage>;
    /// See [`Store::namespace_events_after`].
    fn namespace_events_after(
        &self,
        namespace: &str,
        after: u64,
        limit: usize,
    ) -> StoreResult<Vec<OrderedEvent>>;
    /// See [`Store::get_doc`].
    fn get_doc(&self, coll: &str, namespace: &str, key: &str) -> StoreResult<Option<Doc>>;
    /// See [`Store::list_docs`].
    fn list_docs(
        &self,
        coll: &str,
        namespace: &str,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>>;
    /// See [`Store::list_docs_before`].
    fn list_docs_before(
        &self,
        coll: &str,
        namespace: &str,
        before: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>>;
    /// See [`Store::namespaces`].
    fn namespaces(&self) -> StoreResult<Vec<String>>;
    /// See [`Store::check_integrity`]: a long scan, which may block; it is
    /// given a thread of tokio's blocking pool when called from async code.
    fn check_integrity(&self, deep: bool) -> StoreResult<Integrity>;
    /// See [`Store::claim_deliveries`].
    fn claim_deliveries(
        &self,
        holder: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>>;
    /// See [`Store::renew_deliveries`].
    fn renew_deliveries(&self, holder: &str, lease_until_ms: i64) -> StoreResult<u64>;
    /// See [`Store::pending_deliveries`].
    fn pending_deliveries(&self, namespace: &str, task_id: &str) -> StoreResult<Vec<Delivery>>;
    /// See [`Store::has_deliveries`].
    fn has_deliveries(&self) -> StoreResult<bool>;
}

/// A task encoded as an answer sends it (and as the memory store keeps it).
pub fn encode_body(task: &Task) -> StoreResult<RawJson> {
    a2a::rpc::to_raw(task).map_err(|e| StoreError::Backend(e.to_string()))
}

impl<S: InlineStore> Store for S {
    fn backend(&self) -> &'static str {
        InlineStore::backend(self)
    }

    fn commit(&self, commit: Commit) -> Answer<'_, Committed> {
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        self.submit(
            commit,
            Box::new(move |outcome| {
                // The caller may have dropped the answer; the commit stands.
                let _ = tx.send(outcome);
            }),
        );
        let dropped = || StoreError::Backend("the store dropped a commit unanswered".into());
        match rx.try_recv() {
            // Answered in line (the memory store): no wait at all.
            Ok(outcome) => Answer::ready(outcome),
            Err(tokio::sync::oneshot::error::TryRecvError::Empty) => {
                Answer::later(async move { rx.await.unwrap_or_else(|_| Err(dropped())) })
            }
            Err(tokio::sync::oneshot::error::TryRecvError::Closed) => Answer::ready(Err(dropped())),
        }
    }

    fn get_task<'a>(&'a self, namespace: &'a str, id: &'a str) -> Answer<'a, Option<TaskRow>> {
        Answer::ready(InlineStore::get_task(self, namespace, id))
    }

    fn get_task_encoded<'a>(&'a self, namespace: &'a str, id: &'a str) -> Answer<'a, Option<RawJson>> {
        Answer::ready(InlineStore::get_task_encoded(self, namespace, id))
    }

    fn events_after<'a>(
        &'a self,
        namespace: &'a str,
        task_id: &'a str,
        after: u64,
    ) -> Answer<'a, Vec<EventRow>> {
        Answer::ready(InlineStore::events_after(self, namespace, task_id, after))
    }

    fn list_tasks<'a>(&'a self, query: &'a TaskQuery) -> Answer<'a, TaskPage> {
        Answer::ready(InlineStore::list_tasks(self, query))
    }

    fn namespace_events_after<'a>(
        &'a self,
        namespace: &'a str,
        after: u64,
        limit: usize,
    ) -> Answer<'a, Vec<OrderedEvent>> {
        Answer::ready(InlineStore::namespace_events_after(self, namespace, after, limit))
    }

    fn get_doc<'a>(&'a self, coll: &'a str, namespace: &'a str, key: &'a str) -> Answer<'a, Option<Doc>> {
        Answer::ready(InlineStore::get_doc(self, coll, namespace, key))
    }

    fn list_docs<'a>(
        &'a self,
        coll: &'a str,
        namespace: &'a str,
        prefix: &'a str,
        after: Option<&'a str>,
        limit: usize,
    ) -> Answer<'a, Vec<Doc>> {
        Answer::ready(InlineStore::list_docs(
            self, coll, namespace, prefix, after, limit,
        ))
    }

    fn list_docs_before<'a>(
        &'a self,
        coll: &'a str,
        namespace: &'a str,
        before: Option<&'a str>,
        limit: usize,
    ) -> Answer<'a, Vec<Doc>> {
        Answer::ready(InlineStore::list_docs_before(
            self, coll, namespace, before, limit,
        ))
    }

    fn namespaces(&self) -> Answer<'_, Vec<String>> {
        Answer::ready(InlineStore::namespaces(self))
    }

    fn check_integrity(&self, deep: bool) -> Answer<'_, Integrity> {
        // A multi-threaded runtime lends the scan its worker and moves that
        // worker's other tasks elsewhere; anywhere else the caller simply
        // waits, as it asked to.
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) if runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                Answer::ready(tokio::task::block_in_place(|| {
                    InlineStore::check_integrity(self, deep)
                }))
            }
            _ => Answer::ready(InlineStore::check_integrity(self, deep)),
        }
    }

    fn claim_deliveries<'a>(
        &'a self,
        holder: &'a str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: usize,
    ) -> Answer<'a, Vec<Delivery>> {
        Answer::ready(InlineStore::claim_deliveries(
            self,
            holder,
            now_ms,
            lease_until_ms,
            limit,
        ))
    }

    fn renew_deliveries<'a>(&'a self, holder: &'a str, lease_until_ms: i64) -> Answer<'a, u64> {
        Answer::ready(InlineStore::renew_deliveries(self, holder, lease_until_ms))
    }

    fn pending_deliveries<'a>(&'a self, namespace: &'a str, task_id: &'a str) -> Answer<'a, Vec<Delivery>> {
        Answer::ready(InlineStore::pending_deliveries(self, namespace, task_id))
    }

    fn has_deliveries(&self) -> Answer<'_, bool> {
        Answer::ready(InlineStore::has_deliveries(self))
    }

    fn appended(&self) -> Option<tokio::sync::broadcast::Receiver<Appended>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{generation, prefix_end, MemoryStore, Store, StoreError, TaskRow};
    use a2a::types::TaskState;

    #[test]
    fn a_prefix_ends_below_its_last_character_raised() {
        assert_eq!(prefix_end("ab").as_deref(), Some("ac"));
        assert_eq!(prefix_end("a/").as_deref(), Some("a0"));
        // Past the surrogates, the next character that is one.
        assert_eq!(prefix_end("x\u{d7ff}").as_deref(), Some("x\u{e000}"));
        assert_eq!(prefix_end(""), None);
        assert_eq!(prefix_end("\u{10ffff}"), None);
    }

    /// A task is answered at the generation of its last event, the number
    /// itself, saturating where the wire's integer ends.
    #[test]
    fn a_task_is_answered_at_the_generation_of_its_last_event() {
        let task = serde_json::from_value(serde_json::json!({
            "id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}
        }))
        .expect("a task");
        let row = TaskRow::new("ns", task, 7);
        assert_eq!(row.answer().generation, Some(7));
        assert_eq!(generation(1), 1);
        assert_eq!(generation(u64::MAX), i64::MAX);
    }

    /// A store's failure reads as what it is, for logs and internal errors.
    #[test]
    fn a_store_error_says_what_failed() {
        let conflict = StoreError::Conflict {
            index: Some(2),
            found: None,
        };
        assert_eq!(
            conflict.to_string(),
            "version conflict (write Some(2), found None)"
        );
        let backend = StoreError::Backend("disk full".into());
        assert_eq!(backend.to_string(), "storage failure: disk full");
    }

    /// The memory store's integrity check finds a task whose row names
    /// another last event than its log ends at: a write that appends no
    /// event takes the row's `last_seq` as given.
    #[tokio::test]
    async fn a_row_naming_another_last_event_than_its_log_is_a_problem() {
        use crate::suite::{create, row};
        use crate::{Commit, TaskWrite};
        let store = MemoryStore::new();
        create(
            &store,
            row("t", "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
        )
        .await;
        let clean = Store::check_integrity(&store, true).await.map(|i| i.problems);
        assert_eq!(clean, Ok(vec![]));
        let mut ahead = row("t", "ns", "c", TaskState::Working, "2024-01-01T00:00:01.000Z");
        ahead.last_seq = 5;
        let commit = Commit {
            task: Some(TaskWrite {
                row: ahead,
                create: false,
                expected_last_seq: 1,
                expected_rank: None,
                events: vec![],
            }),
            ..Commit::default()
        };
        assert!(Store::commit(&store, commit).await.is_ok());
        let found = Store::check_integrity(&store, true).await;
        assert_eq!(found.as_ref().map(|i| i.checked_objects), Ok(1));
        assert_eq!(
            found.map(|i| i.problems),
            Ok(vec!["task t: last_seq 5 but log ends at 1".to_string()])
        );
    }

    #[test]
    fn a_store_names_its_backend() {
        let store: &dyn Store = &MemoryStore::new();
        assert_eq!(store.backend(), "memory");
    }
}
