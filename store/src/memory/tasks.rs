//! The memory store's tasks: each task with its event log, and the orders a
//! listing walks (newest first per namespace and per context) with the
//! counts per namespace and per context, so a page costs what it returns
//! plus what its filters skip, never a sort or a count of the whole store.
//!
//! The table is built to stay small per task, since everything it holds
//! stays in memory: a task's id is one shared allocation (its key, its entry
//! and both orders point at it), namespaces and states are interned (a
//! handful of values shared by every task), a context's id is shared by its
//! tasks and its order, and a task's body and events are kept as their
//! encoded JSON: several times smaller than the decoded values (a finished
//! one-message task: about 0.6 KB against 3 KB), and the body is what a read
//! of the whole task answers as it is. A resting task's events are sealed
//! against its body (see [`EventLog`]).

use super::log::{Encoded, EventLog};
use super::ranks::Ranks;
use super::sharded::Sharded;
use crate::counts::{StateCounts, StateTally};
use crate::json::{decode, encode};
use crate::lifecycle::{is_interrupted, is_terminal};
use crate::{EventRow, StoreResult, TaskPage, TaskQuery, TaskRow};
use a2a::rpc::RawJson;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// One task as stored: a [`TaskRow`] without its copies.
struct Entry {
    id: Arc<str>,
    namespace: Arc<str>,
    context: Arc<str>,
    state: Arc<str>,
    status_ts: Box<str>,
    last_seq: u64,
    rank: i64,
    /// The task, encoded.
    body: RawJson,
    events: EventLog,
}

impl Entry {
    fn row(&self) -> StoreResult<TaskRow> {
        Ok(TaskRow {
            id: self.id.to_string(),
            namespace: self.namespace.to_string(),
            context_id: self.context.to_string(),
            state: self.state.to_string(),
            status_ts: self.status_ts.to_string(),
            last_seq: self.last_seq,
            rank: self.rank,
            body: decode(self.body.get())?,
        })
    }

    /// The task's events whose sequence numbers `keep` takes, decoded.
    fn events_where(&self, keep: impl Fn(u64) -> bool) -> StoreResult<Vec<EventRow>> {
        let mut rows = Vec::new();
        self.events.each(self.body.get(), |seq, text| {
            if keep(seq) {
                rows.push(EventRow {
                    seq,
                    body: decode(text)?,
                });
            }
            Ok(())
        })?;
        Ok(rows)
    }
}

#[derive(Default)]
struct ContextTasks {
    ranks: Ranks,
    states: StateTally,
}

#[derive(Default)]
pub(super) struct TaskTable {
    /// Boxed: a hash table keeps spare slots, which should cost a pointer each.
    entries: Sharded<Arc<str>, Box<Entry>>,
    /// Per namespace: its tasks in rank order.
    by_namespace: HashMap<Arc<str>, Ranks>,
    /// Per namespace and context: its tasks in rank order, and their states.
    by_context: Sharded<(Arc<str>, Arc<str>), ContextTasks>,
    counts: StateCounts,
    /// The namespaces and states in use, each stored once.
    names: HashSet<Arc<str>>,
}

impl TaskTable {
    /// The sequence number task `id`'s log ends at and its row's rank, if it
    /// exists.
    pub(super) fn version(&self, id: &str) -> Option<(u64, i64)> {
        self.entries.get(id).map(|e| (e.last_seq, e.rank))
    }

    fn entry(&self, namespace: &str, id: &str) -> Option<&Entry> {
        self.entries
            .get(id)
            .filter(|e| &*e.namespace == namespace)
            .map(|e| &**e)
    }

    /// Task `id` of `namespace`.
    pub(super) fn get(&self, namespace: &str, id: &str) -> Option<StoreResult<TaskRow>> {
        self.entry(namespace, id).map(Entry::row)
    }

    /// Task `id` of `namespace`, encoded.
    pub(super) fn get_encoded(&self, namespace: &str, id: &str) -> Option<RawJson> {
        self.entry(namespace, id).map(|e| e.body.clone())
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Encodes events before anything changes, so a failure changes nothing.
    pub(super) fn encode(events: &[EventRow]) -> StoreResult<Vec<Encoded>> {
        events
            .iter()
            .map(|e| encode(&e.body).map(|text| (e.seq, text.into_boxed_str())))
            .collect()
    }

    fn intern(&mut self, name: &str) -> Arc<str> {
        if let Some(shared) = self.names.get(name) {
            return shared.clone();
        }
        let shared: Arc<str> = name.into();
        self.names.insert(shared.clone());
        shared
    }

    /// Stores `row` (already ranked) as `body`, its body encoded, and
    /// appends `events` to its log; the task's id, shared. Fails, changing
    /// nothing, only when the task's sealed log cannot be read back.
    pub(super) fn put(&mut self, row: TaskRow, body: RawJson, events: Vec<Encoded>) -> StoreResult<Arc<str>> {
        // The log is opened against the body it was sealed with, before that body goes.
        let mut log = match self.entries.get_mut(row.id.as_str()) {
            Some(old) => old.events.take(old.body.get())?,
            None => Vec::new(),
        };
        let previous = self.entries.remove(row.id.as_str());
        let (id, context) = match previous {
            Some(old) if *old.context == row.context_id => {
                self.unindex(&old);
                (old.id, old.context)
            }
            Some(old) => {
                self.unindex(&old);
                (old.id, row.context_id.as_str().into())
            }
            None => (row.id.as_str().into(), row.context_id.as_str().into()),
        };
        log.extend(events);
        let state = row.body.status.state;
        let events = EventLog::new(log, body.get(), is_terminal(state) || is_interrupted(state));
        let entry = Box::new(Entry {
            id,
            namespace: self.intern(&row.namespace),
            context,
            state: self.intern(&row.state),
            status_ts: row.status_ts.into_boxed_str(),
            last_seq: row.last_seq,
            rank: row.rank,
            body,
            events,
        });
        self.index(&entry);
        let id = entry.id.clone();
        self.entries.insert(id.clone(), entry);
        Ok(id)
    }

    /// Removes task `id` of `namespace` with its log; false when there is none.
    pub(super) fn remove(&mut self, namespace: &str, id: &str) -> bool {
        if self.entries.get(id).is_none_or(|e| &*e.namespace != namespace) {
            return false;
        }
        match self.entries.remove(id) {
            Some(entry) => {
                self.unindex(&entry);
                true
            }
            None => false,
        }
    }

    fn index(&mut self, entry: &Entry) {
        self.by_namespace
            .entry(entry.namespace.clone())
            .or_default()
            .insert(entry.rank, entry.id.clone());
        let context = self
            .by_context
            .get_or_default((entry.namespace.clone(), entry.context.clone()));
        context.ranks.insert(entry.rank, entry.id.clone());
        context.states.add(&entry.state, 1);
        self.counts.add(&entry.namespace, &entry.state, 1);
    }

    fn unindex(&mut self, entry: &Entry) {
        if let Some(ranks) = self.by_namespace.get_mut(&entry.namespace) {
            ranks.remove(entry.rank);
        }
        let key = (entry.namespace.clone(), entry.context.clone());
        if let Some(context) = self.by_context.get_mut(&key) {
            context.ranks.remove(entry.rank);
            context.states.remove(&entry.state);
            if context.ranks.is_empty() {
                self.by_context.remove(&key);
            }
        }
        self.counts.remove(&entry.namespace, &entry.state);
    }

    pub(super) fn events_after(&self, namespace: &str, id: &str, after: u64) -> StoreResult<Vec<EventRow>> {
        match self.entry(namespace, id) {
            Some(entry) => entry.events_where(|seq| seq > after),
            None => Ok(vec![]),
        }
    }

    /// Event `seq` of task `id` of `namespace`, with the task's context.
    pub(super) fn event(
        &self,
        namespace: &str,
        id: &str,
        seq: u64,
    ) -> StoreResult<Option<(String, EventRow)>> {
        let Some(entry) = self.entry(namespace, id) else {
            return Ok(None);
        };
        let found = entry.events_where(|at| at == seq)?.pop();
        Ok(found.map(|event| (entry.context.to_string(), event)))
    }

    pub(super) fn list(&self, query: &TaskQuery) -> StoreResult<TaskPage> {
        let empty = Ranks::default();
        let namespace: Arc<str> = query.namespace.as_str().into();
        let context = query
            .context_id
            .as_ref()
            .map(|context| self.by_context.get(&(namespace.clone(), context.as_str().into())));
        let order = match context {
            Some(context) => context.map_or(&empty, |c| &c.ranks),
            None => self.by_namespace.get(&namespace).unwrap_or(&empty),
        };
        let matches = |id: &Arc<str>| {
            self.entries.get(id).is_some_and(|e| {
                query.state.as_deref().is_none_or(|s| &*e.state == s)
                    && query.status_ts_from.as_deref().is_none_or(|t| &*e.status_ts >= t)
            })
        };
        let mut page: Vec<&Entry> = order
            .newest_below(query.before_rank.unwrap_or(i64::MAX))
            .filter(|id| matches(id))
            .take(query.limit.saturating_add(1))
            .filter_map(|id| self.entries.get(id).map(|e| &**e))
            .collect();
        let more = page.len() > query.limit;
        page.truncate(query.limit);
        let rows = page.into_iter().map(Entry::row).collect::<StoreResult<_>>()?;
        // A time filter is the one a count cannot answer: those matches are counted.
        let total = match (context, &query.status_ts_from) {
            (None, None) => self.counts.total(&query.namespace, query.state.as_deref()),
            (Some(context), None) => context.map_or(0, |c| c.states.total(query.state.as_deref())),
            (_, Some(_)) => order.newest_below(i64::MAX).filter(|id| matches(id)).count() as u64,
        };
        Ok(TaskPage { rows, total, more })
    }

    /// Every task's id, the sequence number its row names and the one its
    /// log ends at, or why its log cannot be read.
    pub(super) fn logs(&self) -> impl Iterator<Item = (&str, u64, StoreResult<u64>)> {
        self.entries.values().map(|e| {
            let mut end = 0;
            let read = e.events.each(e.body.get(), |seq, _| {
                end = seq;
                Ok(())
            });
            (&*e.id, e.last_seq, read.map(|()| end))
        })
    }

    pub(super) fn namespaces(&self) -> impl Iterator<Item = &str> {
        self.by_namespace
            .iter()
            .filter(|(_, order)| !order.is_empty())
            .map(|(namespace, _)| &**namespace)
    }
}
