//! How many tasks each namespace holds in each state, kept in memory so a
//! listing without a context or time filter learns its total without
//! counting rows: the one count whose cost would otherwise grow with the
//! store. Loaded once when the store opens (one scan of a covering index)
//! and moved by the writer only after a turn is durable.

use super::rows::backend;
use rusqlite::Connection;
use std::sync::Mutex;
use store::counts::StateCounts;
use store::StoreResult;

/// One task write's effect on the counts: the namespace and state it left
/// (`None` for a new task), and the ones it is in now.
pub(super) struct Delta {
    pub from: Option<(String, String)>,
    pub namespace: String,
    /// `None` when the task was deleted.
    pub to: Option<String>,
}

pub(super) struct TaskCounts {
    counts: Mutex<StateCounts>,
}

impl TaskCounts {
    pub(super) fn load(conn: &Connection) -> StoreResult<Self> {
        let mut counts = StateCounts::default();
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
            counts.add(&namespace.into(), &state.into(), n as u64);
        }
        Ok(TaskCounts {
            counts: Mutex::new(counts),
        })
    }

    /// Applies the deltas of a durable turn.
    pub(super) fn apply(&self, deltas: &[Delta]) {
        let Ok(mut counts) = self.counts.lock() else {
            return;
        };
        for delta in deltas {
            if let Some((namespace, state)) = &delta.from {
                counts.remove(namespace, state);
            }
            if let Some(to) = &delta.to {
                counts.add(&delta.namespace.as_str().into(), &to.as_str().into(), 1);
            }
        }
    }

    /// Tasks of `namespace`, in `state` when given; `None` if the counts are
    /// unavailable (a poisoned lock), so the caller counts rows instead.
    pub(super) fn total(&self, namespace: &str, state: Option<&str>) -> Option<u64> {
        Some(self.counts.lock().ok()?.total(namespace, state))
    }
}
