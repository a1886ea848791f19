//! The memory store's tasks: each task with its event log, and the orders a
//! listing walks (newest first per namespace and per context) with the
//! counts per namespace and per context, so a page costs what it returns
//! plus what its filters skip, never a sort or a count of the whole store. Events are kept as their
//! encoded JSON: they are read back only to resume a stream, and the text
//! is several times smaller than the decoded value.

use crate::store::counts::{StateCounts, StateTally};
use crate::store::json::{decode, encode};
use crate::store::{EventRow, StoreResult, TaskPage, TaskQuery, TaskRow};
use std::collections::{BTreeMap, HashMap};

struct Entry {
    row: TaskRow,
    events: Vec<(u64, Box<str>)>,
}

#[derive(Default)]
pub(super) struct TaskTable {
    entries: HashMap<String, Entry>,
    /// Per namespace: rank → task id.
    by_namespace: HashMap<String, BTreeMap<i64, String>>,
    /// Per namespace and context: its tasks in rank order, and their states.
    by_context: HashMap<(String, String), ContextTasks>,
    counts: StateCounts,
}

#[derive(Default)]
struct ContextTasks {
    /// Rank → task id.
    ranks: BTreeMap<i64, String>,
    states: StateTally,
}

impl TaskTable {
    pub(super) fn get(&self, id: &str) -> Option<&TaskRow> {
        self.entries.get(id).map(|e| &e.row)
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Encodes events before anything changes, so a failure changes nothing.
    pub(super) fn encode(events: &[EventRow]) -> StoreResult<Vec<(u64, Box<str>)>> {
        events
            .iter()
            .map(|e| encode(&e.body).map(|text| (e.seq, text.into_boxed_str())))
            .collect()
    }

    /// Stores `row` (already ranked) and appends `events` to its log.
    pub(super) fn put(&mut self, row: TaskRow, events: Vec<(u64, Box<str>)>) {
        let previous = self.entries.remove(&row.id);
        let mut log = Vec::new();
        if let Some(old) = previous {
            self.unindex(&old.row);
            log = old.events;
        }
        log.extend(events);
        self.index(&row);
        self.entries.insert(row.id.clone(), Entry { row, events: log });
    }

    fn index(&mut self, row: &TaskRow) {
        self.by_namespace
            .entry(row.namespace.clone())
            .or_default()
            .insert(row.rank, row.id.clone());
        let context = self
            .by_context
            .entry((row.namespace.clone(), row.context_id.clone()))
            .or_default();
        context.ranks.insert(row.rank, row.id.clone());
        context.states.add(&row.state, 1);
        self.counts.add(&row.namespace, &row.state, 1);
    }

    fn unindex(&mut self, row: &TaskRow) {
        if let Some(ranks) = self.by_namespace.get_mut(&row.namespace) {
            ranks.remove(&row.rank);
        }
        let key = (row.namespace.clone(), row.context_id.clone());
        if let Some(context) = self.by_context.get_mut(&key) {
            context.ranks.remove(&row.rank);
            context.states.remove(&row.state);
            if context.ranks.is_empty() {
                self.by_context.remove(&key);
            }
        }
        self.counts.remove(&row.namespace, &row.state);
    }

    pub(super) fn events_after(&self, namespace: &str, id: &str, after: u64) -> StoreResult<Vec<EventRow>> {
        let Some(entry) = self.entries.get(id).filter(|e| e.row.namespace == namespace) else {
            return Ok(vec![]);
        };
        entry
            .events
            .iter()
            .filter(|(seq, _)| *seq > after)
            .map(|(seq, text)| decode(text).map(|body| EventRow { seq: *seq, body }))
            .collect()
    }

    pub(super) fn list(&self, query: &TaskQuery) -> TaskPage {
        let empty = BTreeMap::new();
        let context = query
            .context_id
            .as_ref()
            .map(|context| self.by_context.get(&(query.namespace.clone(), context.clone())));
        let order = match context {
            Some(context) => context.map_or(&empty, |c| &c.ranks),
            None => self.by_namespace.get(&query.namespace).unwrap_or(&empty),
        };
        let matches = |id: &String| {
            self.entries.get(id).is_some_and(|e| {
                query.state.as_ref().is_none_or(|s| &e.row.state == s)
                    && query
                        .status_ts_from
                        .as_ref()
                        .is_none_or(|t| &e.row.status_ts >= t)
            })
        };
        let upper = query.before_rank.unwrap_or(i64::MAX);
        let mut rows: Vec<TaskRow> = order
            .range(..upper)
            .rev()
            .map(|(_, id)| id)
            .filter(|id| matches(id))
            .take(query.limit.saturating_add(1))
            .filter_map(|id| self.entries.get(id).map(|e| e.row.clone()))
            .collect();
        let more = rows.len() > query.limit;
        rows.truncate(query.limit);
        // A time filter is the one a count cannot answer: those matches are counted.
        let total = match (context, &query.status_ts_from) {
            (None, None) => self.counts.total(&query.namespace, query.state.as_deref()),
            (Some(context), None) => context.map_or(0, |c| c.states.total(query.state.as_deref())),
            (_, Some(_)) => order.values().filter(|id| matches(id)).count() as u64,
        };
        TaskPage { rows, total, more }
    }

    /// Every task with the sequence number its log ends at.
    pub(super) fn logs(&self) -> impl Iterator<Item = (&TaskRow, u64)> {
        self.entries
            .values()
            .map(|e| (&e.row, e.events.last().map(|(seq, _)| *seq).unwrap_or(0)))
    }

    pub(super) fn namespaces(&self) -> impl Iterator<Item = &String> {
        self.entries.values().map(|e| &e.row.namespace)
    }
}
