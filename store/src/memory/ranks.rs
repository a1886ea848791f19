//! A rank order of tasks (rank → task id, walked newest first) that stays
//! small in the common case: most contexts hold a few tasks, and a sorted
//! vector of a few entries costs a fraction of a B-tree node. An order that
//! grows past [`FEW`] entries moves to a B-tree, so a large one keeps
//! logarithmic updates.

use std::collections::BTreeMap;
use std::sync::Arc;

/// The most entries kept in the sorted vector.
const FEW: usize = 16;

pub(super) enum Ranks {
    Few(Vec<(i64, Arc<str>)>),
    Many(BTreeMap<i64, Arc<str>>),
}

impl Default for Ranks {
    fn default() -> Self {
        Ranks::Few(Vec::new())
    }
}

impl Ranks {
    pub(super) fn insert(&mut self, rank: i64, id: Arc<str>) {
        match self {
            Ranks::Few(few) => match few.binary_search_by_key(&rank, |(r, _)| *r) {
                Ok(at) => few[at].1 = id,
                Err(_) if few.len() >= FEW => {
                    let mut many: BTreeMap<i64, Arc<str>> = std::mem::take(few).into_iter().collect();
                    many.insert(rank, id);
                    *self = Ranks::Many(many);
                }
                Err(at) => {
                    few.reserve_exact(1);
                    few.insert(at, (rank, id));
                }
            },
            Ranks::Many(many) => {
                many.insert(rank, id);
            }
        }
    }

    pub(super) fn remove(&mut self, rank: i64) {
        match self {
            Ranks::Few(few) => {
                if let Ok(at) = few.binary_search_by_key(&rank, |(r, _)| *r) {
                    few.remove(at);
                }
            }
            Ranks::Many(many) => {
                many.remove(&rank);
            }
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        match self {
            Ranks::Few(few) => few.is_empty(),
            Ranks::Many(many) => many.is_empty(),
        }
    }

    /// The ids of ranks below `upper`, newest first.
    pub(super) fn newest_below(&self, upper: i64) -> Box<dyn Iterator<Item = &Arc<str>> + '_> {
        match self {
            Ranks::Few(few) => {
                let end = few.partition_point(|(r, _)| *r < upper);
                Box::new(few[..end].iter().rev().map(|(_, id)| id))
            }
            Ranks::Many(many) => Box::new(many.range(..upper).rev().map(|(_, id)| id)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(ranks: &Ranks, upper: i64) -> Vec<String> {
        ranks.newest_below(upper).map(|id| id.to_string()).collect()
    }

    #[test]
    fn both_shapes_walk_newest_first_below_the_cursor() {
        let mut ranks = Ranks::default();
        for rank in [3, 1, 2] {
            ranks.insert(rank, rank.to_string().into());
        }
        assert!(matches!(ranks, Ranks::Few(_)));
        assert_eq!(walk(&ranks, i64::MAX), ["3", "2", "1"]);
        assert_eq!(walk(&ranks, 3), ["2", "1"]);
        for rank in 4..=(FEW as i64 + 1) {
            ranks.insert(rank, rank.to_string().into());
        }
        assert!(
            matches!(ranks, Ranks::Many(_)),
            "past {FEW} entries the order is a B-tree"
        );
        assert_eq!(walk(&ranks, 4), ["3", "2", "1"]);
        ranks.remove(2);
        assert_eq!(walk(&ranks, 4), ["3", "1"]);
        let mut few = Ranks::default();
        few.insert(5, "a".into());
        few.remove(5);
        assert!(few.is_empty());
    }
}
