//! How many tasks each namespace holds in each state, kept in memory so a
//! listing without a context or time filter learns its total without
//! counting rows: the one count whose cost would otherwise grow with the
//! store. Loaded once when the store opens (one scan of a covering index)
//! and moved by the writer only after a turn is durable.

use super::rows::backend;
use crate::store::StoreResult;
use rusqlite::Connection;
use std::collections::HashMap;
use std::sync::Mutex;

/// One task write's effect on the counts: the namespace and state it left
/// (`None` for a new task), and the ones it is in now.
pub(super) struct Delta {
    pub from: Option<(String, String)>,
    pub namespace: String,
    pub to: String,
}

#[derive(Default)]
pub(super) struct TaskCounts {
    by_namespace: Mutex<HashMap<String, HashMap<String, u64>>>,
}

impl TaskCounts {
    pub(super) fn load(conn: &Connection) -> StoreResult<Self> {
        let mut by_namespace: HashMap<String, HashMap<String, u64>> = HashMap::new();
        let mut stmt = conn
            .prepare("SELECT namespace, state, COUNT(*) FROM tasks GROUP BY namespace, state")
            .map_err(backend)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            })
            .map_err(backend)?;
        for row in rows {
            let (namespace, state, n) = row.map_err(backend)?;
            by_namespace.entry(namespace).or_default().insert(state, n as u64);
        }
        Ok(TaskCounts {
            by_namespace: Mutex::new(by_namespace),
        })
    }

    /// Applies the deltas of a durable turn.
    pub(super) fn apply(&self, deltas: &[Delta]) {
        let Ok(mut map) = self.by_namespace.lock() else {
            return;
        };
        for delta in deltas {
            if let Some((namespace, state)) = &delta.from {
                if let Some(n) = map.get_mut(namespace).and_then(|states| states.get_mut(state)) {
                    *n = n.saturating_sub(1);
                }
            }
            let states = map.entry(delta.namespace.clone()).or_default();
            *states.entry(delta.to.clone()).or_default() += 1;
        }
    }

    /// Tasks of `namespace`, in `state` when given; `None` if the counts are
    /// unavailable (a poisoned lock), so the caller counts rows instead.
    pub(super) fn total(&self, namespace: &str, state: Option<&str>) -> Option<u64> {
        let map = self.by_namespace.lock().ok()?;
        let Some(states) = map.get(namespace) else {
            return Some(0);
        };
        Some(match state {
            Some(state) => states.get(state).copied().unwrap_or(0),
            None => states.values().sum(),
        })
    }
}
