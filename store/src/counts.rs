//! How many tasks are in each state, per namespace and per context: what a
//! listing without a time filter answers as its total, in both backends,
//! without counting rows (a count whose cost would grow with the store).

use std::collections::HashMap;
use std::sync::Arc;

/// Tasks per state: a handful of states, so a short list. States are
/// shared strings: a store that interns them stores each once.
#[derive(Default)]
pub struct StateTally(Vec<(Arc<str>, u64)>);

impl StateTally {
    /// `n` more tasks in `state`.
    pub fn add(&mut self, state: &Arc<str>, n: u64) {
        match self.0.iter_mut().find(|(s, _)| s == state) {
            Some((_, count)) => *count += n,
            None => {
                // Most tallies hold one or two states: no room reserved beyond that.
                self.0.reserve_exact(1);
                self.0.push((state.clone(), n));
            }
        }
    }

    /// One task fewer in `state`; a state no task is in any more is dropped.
    pub fn remove(&mut self, state: &str) {
        if let Some(at) = self.0.iter().position(|(s, _)| &**s == state) {
            let count = &mut self.0[at].1;
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.0.swap_remove(at);
            }
        }
    }

    /// Tasks in `state` when given, else in any state.
    pub fn total(&self, state: Option<&str>) -> u64 {
        match state {
            Some(state) => self.0.iter().find(|(s, _)| &**s == state).map_or(0, |(_, n)| *n),
            None => self.0.iter().map(|(_, n)| n).sum(),
        }
    }
}

/// A [`StateTally`] per namespace.
#[derive(Default)]
pub struct StateCounts {
    by_namespace: HashMap<Arc<str>, StateTally>,
}

impl StateCounts {
    /// `n` more tasks of `namespace` in `state`.
    pub fn add(&mut self, namespace: &Arc<str>, state: &Arc<str>, n: u64) {
        match self.by_namespace.get_mut(namespace) {
            Some(tally) => tally.add(state, n),
            None => self
                .by_namespace
                .entry(namespace.clone())
                .or_default()
                .add(state, n),
        }
    }

    /// One task fewer of `namespace` in `state`.
    pub fn remove(&mut self, namespace: &str, state: &str) {
        if let Some(tally) = self.by_namespace.get_mut(namespace) {
            tally.remove(state);
        }
    }

    /// Tasks of `namespace`, in `state` when given.
    pub fn total(&self, namespace: &str, state: Option<&str>) -> u64 {
        self.by_namespace
            .get(namespace)
            .map_or(0, |tally| tally.total(state))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_follow_moves_between_states() {
        let mut tally = StateTally::default();
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        tally.add(&a, 2);
        tally.add(&b, 1);
        tally.remove("a");
        assert_eq!(
            (tally.total(Some("a")), tally.total(Some("b")), tally.total(None)),
            (1, 1, 2)
        );
        tally.remove("a");
        tally.remove("a");
        assert_eq!((tally.total(Some("a")), tally.total(None)), (0, 1));
        assert_eq!(tally.0.len(), 1, "a state no task is in is dropped");
    }
}
