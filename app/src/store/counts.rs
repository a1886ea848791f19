//! How many tasks each namespace holds in each state: what a listing
//! without a context or time filter answers as its total, in both backends.

use std::collections::HashMap;

#[derive(Default)]
pub(crate) struct StateCounts {
    by_namespace: HashMap<String, HashMap<String, u64>>,
}

impl StateCounts {
    /// `n` more tasks of `namespace` in `state`.
    pub(crate) fn add(&mut self, namespace: &str, state: &str, n: u64) {
        *self
            .by_namespace
            .entry(namespace.to_string())
            .or_default()
            .entry(state.to_string())
            .or_default() += n;
    }

    /// One task fewer of `namespace` in `state`.
    pub(crate) fn remove(&mut self, namespace: &str, state: &str) {
        if let Some(n) = self
            .by_namespace
            .get_mut(namespace)
            .and_then(|states| states.get_mut(state))
        {
            *n = n.saturating_sub(1);
        }
    }

    /// Tasks of `namespace`, in `state` when given.
    pub(crate) fn total(&self, namespace: &str, state: Option<&str>) -> u64 {
        let Some(states) = self.by_namespace.get(namespace) else {
            return 0;
        };
        match state {
            Some(state) => states.get(state).copied().unwrap_or(0),
            None => states.values().sum(),
        }
    }
}
