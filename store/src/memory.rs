//! The in-memory backend: the same semantics as SQLite without durability, for
//! tests and throwaway runs.

mod log;
mod ranks;
mod sharded;
mod tasks;

use super::leases::Leases;
use super::*;
use sharded::Chunked;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use tasks::TaskTable;

type DocKey = (String, String, String);

#[derive(Default)]
struct State {
    tasks: TaskTable,
    docs: BTreeMap<DocKey, (u64, Value)>,
    rank: i64,
    /// Per namespace: (position, task id, seq) of every appended event, in
    /// position order; the bodies stay in the task table.
    /// Shares each task id's allocation with the task table.
    event_order: HashMap<String, Chunked<(u64, Arc<str>, u64)>>,
    /// The last position given.
    position: u64,
    /// The push outbox: each pending row's event, attempts and next attempt time.
    outbox: BTreeMap<DeliveryKey, (StreamResponse, u32, i64)>,
}

/// A store that lives in this process only.
#[derive(Default)]
pub struct MemoryStore {
    state: Mutex<State>,
    leases: Leases,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> StoreResult<MutexGuard<'_, State>> {
        self.state
            .lock()
            .map_err(|_| StoreError::Backend("memory store lock poisoned".into()))
    }
}

fn check_expect(expect: Expect, found: Option<u64>, index: usize) -> StoreResult<()> {
    let ok = match expect {
        Expect::Any => true,
        Expect::Absent => found.is_none(),
        Expect::Version(v) => found == Some(v),
    };
    if ok {
        Ok(())
    } else {
        Err(StoreError::Conflict {
            index: Some(index),
            found,
        })
    }
}

impl MemoryStore {
    /// Applies a commit: validated first, so a failed one changes nothing.
    fn apply(&self, commit: Commit) -> StoreResult<Committed> {
        let mut state = self.lock()?;
        // Validate everything first so a failed commit changes nothing.
        if let Some(tw) = &commit.task {
            let existing = state.tasks.version(&tw.row.id);
            match (tw.create, existing) {
                (true, Some((last_seq, _))) => {
                    return Err(StoreError::Conflict {
                        index: None,
                        found: Some(last_seq),
                    })
                }
                (false, None) => {
                    return Err(StoreError::Conflict {
                        index: None,
                        found: None,
                    })
                }
                (false, Some((last_seq, rank)))
                    if last_seq != tw.expected_last_seq
                        || tw.expected_rank.is_some_and(|expected| expected != rank) =>
                {
                    return Err(StoreError::Conflict {
                        index: None,
                        found: Some(last_seq),
                    })
                }
                _ => {}
            }
        }
        // Later writes in one commit see earlier ones (same as SQL), so track
        // the versions as they would become.
        let mut pending: HashMap<DocKey, Option<u64>> = HashMap::new();
        let mut versions = Vec::with_capacity(commit.docs.len());
        for (index, write) in commit.docs.iter().enumerate() {
            let key = (write.coll.clone(), write.namespace.clone(), write.key.clone());
            let found = match pending.get(&key) {
                Some(v) => *v,
                None => state.docs.get(&key).map(|(v, _)| *v),
            };
            check_expect(write.expect, found, index)?;
            let next = write.value.as_ref().map(|_| found.unwrap_or(0) + 1);
            versions.push(next.unwrap_or(0));
            pending.insert(key, next);
        }
        let (events, body) = match &commit.task {
            Some(tw) => (TaskTable::encode(&tw.events)?, Some(encode_body(&tw.row.body)?)),
            None => (vec![], None),
        };
        // Whether each retry comes from its row's lease holder, asked before
        // anything changes so a failure changes nothing.
        let mut holders = Vec::with_capacity(commit.deliveries.len());
        for change in &commit.deliveries {
            holders.push(match change {
                DeliveryChange::Retry { key, holder, .. } => self.leases.holds(key, holder)?,
                _ => true,
            });
        }
        let mut task_rank = None;
        // The task written and its events, for the deliveries they owe.
        let mut appended = None;
        if let (Some(tw), Some(body)) = (commit.task, body) {
            let mut row = tw.row;
            row.rank = state.rank + 1;
            if let Some(last) = tw.events.last() {
                row.last_seq = last.seq;
            }
            task_rank = Some(row.rank);
            let written = (row.namespace.clone(), row.id.clone());
            // The first change: when it fails, nothing has changed.
            let id = state.tasks.put(row, body, events)?;
            state.rank += 1;
            if !state.event_order.contains_key(&written.0) {
                state.event_order.insert(written.0.clone(), Chunked::default());
            }
            let mut position = state.position;
            if let Some(order) = state.event_order.get_mut(&written.0) {
                for event in &tw.events {
                    position += 1;
                    order.push((position, id.clone(), event.seq));
                }
            }
            state.position = position;
            appended = Some((written, tw.events));
        }
        for (write, version) in commit.docs.into_iter().zip(&versions) {
            let key = (write.coll, write.namespace, write.key);
            match write.value {
                Some(value) => {
                    state.docs.insert(key, (*version, value));
                }
                None => {
                    state.docs.remove(&key);
                }
            }
        }
        let mut deliveries_owed = 0;
        if let (Some(((namespace, task_id), events)), Some(fanout)) = (appended, &commit.fanout) {
            let start = (fanout.coll.clone(), namespace.clone(), fanout.prefix.clone());
            let targets: Vec<String> = state
                .docs
                .range(start..)
                .take_while(|((c, n, k), _)| {
                    *c == fanout.coll && *n == namespace && k.starts_with(&fanout.prefix)
                })
                .map(|((_, _, k), _)| k[fanout.prefix.len()..].to_string())
                .collect();
            for config_id in targets {
                for event in &events {
                    let key = DeliveryKey {
                        namespace: namespace.clone(),
                        task_id: task_id.clone(),
                        config_id: config_id.clone(),
                        seq: event.seq,
                    };
                    state.outbox.insert(key, (event.body.clone(), 0, 0));
                    deliveries_owed += 1;
                }
            }
        }
        let mut deleted_tasks = 0;
        for delete in &commit.delete_tasks {
            if state.tasks.remove(&delete.namespace, &delete.id) {
                deleted_tasks += 1;
                if let Some(order) = state.event_order.get_mut(&delete.namespace) {
                    order.retain(|(_, task_id, _)| **task_id != *delete.id);
                }
                state
                    .outbox
                    .retain(|key, _| !(key.namespace == delete.namespace && key.task_id == delete.id));
            }
        }
        for (change, by_holder) in commit.deliveries.iter().zip(holders) {
            match change {
                DeliveryChange::Done(key) => {
                    state.outbox.remove(key);
                }
                DeliveryChange::Retry {
                    key,
                    attempts,
                    next_attempt_ms,
                    ..
                } => {
                    if by_holder {
                        if let Some(row) = state.outbox.get_mut(key) {
                            row.1 = *attempts;
                            row.2 = *next_attempt_ms;
                        }
                    }
                }
                DeliveryChange::DropTarget {
                    namespace,
                    task_id,
                    config_id,
                } => state.outbox.retain(|key, _| {
                    !(key.namespace == *namespace
                        && key.task_id == *task_id
                        && config_id.as_ref().is_none_or(|c| *c == key.config_id))
                }),
            }
        }
        self.leases.release(&commit.deliveries);
        Ok(Committed {
            task_rank,
            doc_versions: versions,
            deleted_tasks,
            deliveries_owed,
        })
    }
}

impl InlineStore for MemoryStore {
    fn backend(&self) -> &'static str {
        "memory"
    }

    fn submit(&self, commit: Commit, done: CommitDone) {
        // Nothing to wait for: answered in line, and the commit is moved in.
        done(self.apply(commit))
    }

    fn get_task(&self, namespace: &str, id: &str) -> StoreResult<Option<TaskRow>> {
        self.lock()?.tasks.get(namespace, id).transpose()
    }

    fn get_task_encoded(&self, namespace: &str, id: &str) -> StoreResult<Option<RawJson>> {
        Ok(self.lock()?.tasks.get_encoded(namespace, id))
    }

    fn events_after(&self, namespace: &str, task_id: &str, after: u64) -> StoreResult<Vec<EventRow>> {
        self.lock()?.tasks.events_after(namespace, task_id, after)
    }

    fn namespace_events_after(
        &self,
        namespace: &str,
        after: u64,
        limit: usize,
    ) -> StoreResult<Vec<OrderedEvent>> {
        let state = self.lock()?;
        let Some(order) = state.event_order.get(namespace) else {
            return Ok(vec![]);
        };
        let mut out = Vec::new();
        for (position, task_id, seq) in order
            .starting_where_not(|(position, _, _)| *position <= after)
            .take(limit)
        {
            if let Some((context_id, event)) = state.tasks.event(namespace, task_id, *seq)? {
                out.push(OrderedEvent {
                    position: *position,
                    task_id: task_id.to_string(),
                    context_id,
                    event,
                });
            }
        }
        Ok(out)
    }

    fn list_tasks(&self, query: &TaskQuery) -> StoreResult<TaskPage> {
        self.lock()?.tasks.list(query)
    }

    fn get_doc(&self, coll: &str, namespace: &str, key: &str) -> StoreResult<Option<Doc>> {
        let state = self.lock()?;
        Ok(state
            .docs
            .get(&(coll.to_string(), namespace.to_string(), key.to_string()))
            .map(|(version, value)| Doc {
                key: key.to_string(),
                version: *version,
                value: value.clone(),
            }))
    }

    fn list_docs(
        &self,
        coll: &str,
        namespace: &str,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>> {
        let state = self.lock()?;
        let start = (coll.to_string(), namespace.to_string(), prefix.to_string());
        Ok(state
            .docs
            .range(start..)
            .take_while(|((c, n, k), _)| c == coll && n == namespace && k.starts_with(prefix))
            .filter(|((_, _, k), _)| after.is_none_or(|a| k.as_str() > a))
            .take(limit)
            .map(|((_, _, k), (version, value))| Doc {
                key: k.clone(),
                version: *version,
                value: value.clone(),
            })
            .collect())
    }

    fn list_docs_before(
        &self,
        coll: &str,
        namespace: &str,
        before: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>> {
        use std::ops::Bound;
        let state = self.lock()?;
        let lower = (coll.to_string(), namespace.to_string(), String::new());
        // Every key of this namespace sorts below the namespace followed by
        // NUL, the next namespace name there can be.
        let upper = match before {
            Some(key) => (coll.to_string(), namespace.to_string(), key.to_string()),
            None => (coll.to_string(), format!("{namespace}\0"), String::new()),
        };
        Ok(state
            .docs
            .range((Bound::Included(lower), Bound::Excluded(upper)))
            .rev()
            .take(limit)
            .map(|((_, _, k), (version, value))| Doc {
                key: k.clone(),
                version: *version,
                value: value.clone(),
            })
            .collect())
    }

    fn namespaces(&self) -> StoreResult<Vec<String>> {
        let state = self.lock()?;
        let mut set: BTreeSet<String> = state.tasks.namespaces().map(str::to_string).collect();
        set.extend(state.docs.keys().map(|(_, n, _)| n.clone()));
        Ok(set.into_iter().collect())
    }

    fn claim_deliveries(
        &self,
        holder: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>> {
        let state = self.lock()?;
        // The outbox is ordered by (namespace, task, target, seq): the first
        // row of each (task, target) is its head, the only one that may be due.
        let mut heads: Vec<(&DeliveryKey, i64)> = Vec::new();
        for (key, (_, _, next)) in &state.outbox {
            let same_target = heads.last().is_some_and(|(head, _)| {
                head.namespace == key.namespace
                    && head.task_id == key.task_id
                    && head.config_id == key.config_id
            });
            if !same_target {
                heads.push((key, *next));
            }
        }
        heads.retain(|(_, next)| *next <= now_ms);
        heads.sort_by_key(|(_, next)| *next);
        let taken = self.leases.take(
            heads.into_iter().map(|(key, _)| key.clone()),
            holder,
            now_ms,
            lease_until_ms,
            limit,
        )?;
        Ok(taken
            .into_iter()
            .filter_map(|key| {
                let (body, attempts, next) = state.outbox.get(&key)?.clone();
                Some(Delivery {
                    key,
                    body,
                    attempts,
                    next_attempt_ms: next,
                })
            })
            .collect())
    }

    fn renew_deliveries(&self, holder: &str, lease_until_ms: i64) -> StoreResult<u64> {
        self.leases.renew(holder, lease_until_ms)
    }

    fn pending_deliveries(&self, namespace: &str, task_id: &str) -> StoreResult<Vec<Delivery>> {
        let state = self.lock()?;
        Ok(state
            .outbox
            .iter()
            .filter(|(key, _)| key.namespace == namespace && key.task_id == task_id)
            .map(|(key, (body, attempts, next))| Delivery {
                key: key.clone(),
                body: body.clone(),
                attempts: *attempts,
                next_attempt_ms: *next,
            })
            .collect())
    }

    fn has_deliveries(&self) -> StoreResult<bool> {
        Ok(!self.lock()?.outbox.is_empty())
    }

    fn check_integrity(&self, _deep: bool) -> StoreResult<Integrity> {
        let state = self.lock()?;
        let mut problems = Vec::new();
        for (id, last_seq, end) in state.tasks.logs() {
            match end {
                Ok(end) if end != last_seq => {
                    problems.push(format!("task {id}: last_seq {last_seq} but log ends at {end}"))
                }
                Ok(_) => {}
                Err(e) => problems.push(format!("task {id}: {e}")),
            }
        }
        Ok(Integrity {
            checked_objects: (state.tasks.len() + state.docs.len()) as u64,
            problems,
        })
    }
}
