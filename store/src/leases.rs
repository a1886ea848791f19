//! Outbox leases kept in memory, for the stores only one process opens
//! (SQLite, memory): the process is the only deliverer, so a lease only has
//! to keep its own concurrent deliveries from taking one row twice, and a
//! restart (which forgets them) rightly finds every row free.

use super::{DeliveryChange, DeliveryKey, StoreError, StoreResult};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// The leases held on outbox rows: holder and expiry of each.
#[derive(Default)]
pub struct Leases {
    held: Mutex<HashMap<DeliveryKey, (String, i64)>>,
}

impl Leases {
    fn lock(&self) -> StoreResult<MutexGuard<'_, HashMap<DeliveryKey, (String, i64)>>> {
        self.held
            .lock()
            .map_err(|_| StoreError::Backend("outbox lease lock poisoned".into()))
    }

    /// Leases to `holder` until `until` the first `limit` of `due` (keys of
    /// due rows, in the order to deliver them) nobody holds at `now`; the
    /// keys leased.
    pub fn take(
        &self,
        due: impl IntoIterator<Item = DeliveryKey>,
        holder: &str,
        now: i64,
        until: i64,
        limit: usize,
    ) -> StoreResult<Vec<DeliveryKey>> {
        let mut held = self.lock()?;
        held.retain(|_, (_, expiry)| *expiry > now);
        let mut taken = Vec::new();
        for key in due {
            if taken.len() >= limit {
                break;
            }
            if held.contains_key(&key) {
                continue;
            }
            held.insert(key.clone(), (holder.to_string(), until));
            taken.push(key);
        }
        Ok(taken)
    }

    /// Extends `holder`'s leases to `until`; how many.
    pub fn renew(&self, holder: &str, until: i64) -> StoreResult<u64> {
        let mut held = self.lock()?;
        let mut renewed = 0;
        for (owner, expiry) in held.values_mut() {
            if owner == holder {
                *expiry = until;
                renewed += 1;
            }
        }
        Ok(renewed)
    }

    /// True when `holder` holds the lease of `key`.
    pub fn holds(&self, key: &DeliveryKey, holder: &str) -> StoreResult<bool> {
        Ok(self.lock()?.get(key).is_some_and(|(owner, _)| owner == holder))
    }

    /// Frees the leases a committed commit's outbox changes finished: a row
    /// delivered, given up, rescheduled or dropped is no longer in flight.
    pub fn release(&self, changes: &[DeliveryChange]) {
        let Ok(mut held) = self.lock() else {
            return;
        };
        for change in changes {
            match change {
                DeliveryChange::Done(key) => {
                    held.remove(key);
                }
                DeliveryChange::Retry { key, holder, .. } => {
                    if held.get(key).is_some_and(|(owner, _)| owner == holder) {
                        held.remove(key);
                    }
                }
                DeliveryChange::DropTarget {
                    namespace,
                    task_id,
                    config_id,
                } => held.retain(|key, _| {
                    !(key.namespace == *namespace
                        && key.task_id == *task_id
                        && config_id.as_ref().is_none_or(|c| *c == key.config_id))
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Leases;
    use crate::{DeliveryChange, DeliveryKey};

    fn key(namespace: &str, task_id: &str, config_id: &str) -> DeliveryKey {
        DeliveryKey {
            namespace: namespace.into(),
            task_id: task_id.into(),
            config_id: config_id.into(),
            seq: 1,
        }
    }

    /// A dropped target frees only its own task's leases in its own namespace.
    #[test]
    fn a_dropped_target_frees_only_its_own_leases() {
        let leases = Leases::default();
        let keys = [
            key("ns", "t1", "a"),
            key("ns", "t1", "b"),
            key("ns", "t2", "a"),
            key("other", "t1", "a"),
        ];
        let taken = leases.take(keys.clone(), "me", 0, 100, 10).expect("taken");
        assert_eq!(taken.len(), 4);
        leases.release(&[DeliveryChange::DropTarget {
            namespace: "ns".into(),
            task_id: "t1".into(),
            config_id: Some("a".into()),
        }]);
        let held: Vec<bool> = keys
            .iter()
            .map(|k| leases.holds(k, "me").expect("read"))
            .collect();
        assert_eq!(held, [false, true, true, true]);
        // With no configuration named, every target of the task goes.
        leases.release(&[DeliveryChange::DropTarget {
            namespace: "ns".into(),
            task_id: "t1".into(),
            config_id: None,
        }]);
        let held: Vec<bool> = keys
            .iter()
            .map(|k| leases.holds(k, "me").expect("read"))
            .collect();
        assert_eq!(held, [false, false, true, true]);
    }
}
