//! The encoded bodies of the tasks written last, kept in memory by the
//! writer, so reading a task that was just created or moved (a client
//! polling `GetTask` on its own task, the common case) costs a hash lookup
//! instead of a read transaction, a B-tree descent and a JSON check.
//!
//! Only the writer fills it, after a turn is durable and before any caller
//! of the turn hears back: an entry is never older than the file, so a read
//! answered from it sees every acknowledged write. Readers never add what
//! they read (a read racing a commit could put back a body the commit just
//! replaced). The oldest entries go first once the bodies exceed a budget;
//! a task not held is read from the file as before.

use a2a::rpc::RawJson;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// The bytes of bodies held: about three thousand finished one-message
/// tasks, a bound of the agent's memory like the connections' page caches.
const BUDGET: usize = 2 << 20;

/// What a durable turn did to one task's body.
pub(super) enum BodyChange {
    Written {
        namespace: String,
        id: String,
        body: RawJson,
    },
    Deleted {
        id: String,
    },
}

#[derive(Default)]
pub(super) struct RecentBodies {
    inner: Mutex<Inner>,
}

struct Held {
    namespace: Box<str>,
    body: RawJson,
    /// The write that put it here; older marks in the queue are stale.
    stamp: u64,
}

#[derive(Default)]
struct Inner {
    held: HashMap<Arc<str>, Held>,
    /// Task ids in the order they were written, with the stamp of that write.
    order: VecDeque<(Arc<str>, u64)>,
    bytes: usize,
    stamp: u64,
}

impl RecentBodies {
    /// Task `id`'s body if it is held and the task is in `namespace`.
    pub(super) fn get(&self, namespace: &str, id: &str) -> Option<RawJson> {
        let inner = self.inner.lock().ok()?;
        inner
            .held
            .get(id)
            .filter(|held| &*held.namespace == namespace)
            .map(|held| held.body.clone())
    }

    /// Takes a durable turn's changes, in the order they were made.
    pub(super) fn apply(&self, changes: Vec<BodyChange>) {
        if changes.is_empty() {
            return;
        }
        // A poisoned map (a panic mid-update) is never read again: `get`
        // finds nothing and every read goes to the file.
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        for change in changes {
            match change {
                BodyChange::Written { namespace, id, body } => inner.put(namespace, id, body),
                BodyChange::Deleted { id } => inner.remove(&id),
            }
        }
        inner.evict();
    }
}

impl Inner {
    fn put(&mut self, namespace: String, id: String, body: RawJson) {
        self.remove(&id);
        self.stamp += 1;
        self.bytes += size(&id, &body);
        let id: Arc<str> = id.into();
        self.order.push_back((id.clone(), self.stamp));
        let held = Held {
            namespace: namespace.into_boxed_str(),
            body,
            stamp: self.stamp,
        };
        self.held.insert(id, held);
    }

    fn remove(&mut self, id: &str) {
        if let Some((id, held)) = self.held.remove_entry(id) {
            self.bytes -= size(&id, &held.body);
        }
    }

    /// Drops the oldest bodies beyond the budget, and the queue's stale
    /// marks once they outnumber the live ones (a task written again and
    /// again leaves one per write).
    fn evict(&mut self) {
        while self.bytes > BUDGET {
            let Some((id, stamp)) = self.order.pop_front() else {
                break;
            };
            if self.held.get(&id).is_some_and(|held| held.stamp == stamp) {
                self.remove(&id);
            }
        }
        if self.order.len() > 2 * self.held.len() + 64 {
            let held = &self.held;
            self.order
                .retain(|(id, stamp)| held.get(id).is_some_and(|h| h.stamp == *stamp));
        }
    }
}

/// What an entry is counted as: its id and body.
fn size(id: &str, body: &RawJson) -> usize {
    id.len() + body.get().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> RawJson {
        serde_json::value::RawValue::from_string(text.to_string()).expect("json")
    }

    fn written(namespace: &str, id: &str, text: &str) -> BodyChange {
        BodyChange::Written {
            namespace: namespace.into(),
            id: id.into(),
            body: body(text),
        }
    }

    fn got(recent: &RecentBodies, namespace: &str, id: &str) -> Option<String> {
        recent.get(namespace, id).map(|b| b.get().to_string())
    }

    #[test]
    fn the_last_write_of_a_turn_is_held_in_its_namespace_only() {
        let recent = RecentBodies::default();
        recent.apply(vec![
            written("ns", "t", r#"{"v":1}"#),
            written("ns", "t", r#"{"v":2}"#),
        ]);
        assert_eq!(got(&recent, "ns", "t").as_deref(), Some(r#"{"v":2}"#));
        assert_eq!(got(&recent, "other", "t"), None);
        recent.apply(vec![BodyChange::Deleted { id: "t".into() }]);
        assert_eq!(got(&recent, "ns", "t"), None);
        let inner = recent.inner.lock().expect("lock");
        assert_eq!(inner.bytes, 0);
    }

    #[test]
    fn the_oldest_go_first_beyond_the_budget() {
        let recent = RecentBodies::default();
        let text = format!(r#""{}""#, "x".repeat(BUDGET / 4));
        recent.apply((0..6).map(|n| written("ns", &format!("t{n}"), &text)).collect());
        // Rewritten, t1 is now the newest.
        recent.apply(vec![written("ns", "t1", &text)]);
        let kept: Vec<String> = (0..6)
            .map(|n| format!("t{n}"))
            .filter(|id| got(&recent, "ns", id).is_some())
            .collect();
        assert_eq!(kept, ["t1", "t4", "t5"]);
        let inner = recent.inner.lock().expect("lock");
        assert!(inner.bytes <= BUDGET);
    }

    /// The budget is a bound the bodies may reach: only what passes it goes.
    #[test]
    fn bodies_that_fill_the_budget_exactly_are_kept() {
        let recent = RecentBodies::default();
        // Each id of one byte and its body of BUDGET / 2 - 1: half the budget.
        let text = format!(r#""{}""#, "x".repeat(BUDGET / 2 - 3));
        recent.apply(vec![written("ns", "a", &text), written("ns", "b", &text)]);
        assert!(got(&recent, "ns", "a").is_some() && got(&recent, "ns", "b").is_some());
        assert_eq!(recent.inner.lock().expect("lock").bytes, BUDGET);
        recent.apply(vec![written("ns", "c", "1")]);
        assert_eq!(got(&recent, "ns", "a"), None);
        assert!(got(&recent, "ns", "b").is_some() && got(&recent, "ns", "c").is_some());
    }

    #[test]
    fn a_task_rewritten_often_still_goes_when_it_is_the_oldest() {
        let recent = RecentBodies::default();
        // Enough writes of one task that the queue drops its stale marks.
        for n in 0..500 {
            recent.apply(vec![written("ns", "t", &format!("{n}"))]);
        }
        let text = format!(r#""{}""#, "x".repeat(BUDGET / 4));
        recent.apply((0..4).map(|n| written("ns", &format!("big{n}"), &text)).collect());
        assert_eq!(got(&recent, "ns", "t"), None);
        let kept = (0..4)
            .filter(|n| got(&recent, "ns", &format!("big{n}")).is_some())
            .count();
        assert_eq!(kept, 3);
        let inner = recent.inner.lock().expect("lock");
        assert!(inner.bytes <= BUDGET);
    }

    /// Each turn here writes one task twice, so the queue gains two marks
    /// a turn and passes its bound by one or two: it is compacted after
    /// every turn that passes it, never left longer.
    #[test]
    fn rewriting_one_task_does_not_grow_the_queue() {
        let recent = RecentBodies::default();
        let bound = 2 + 64;
        let mut longest = 0;
        for n in 0..1_000 {
            recent.apply(vec![
                written("ns", "t", &format!("{n}")),
                written("ns", "t", &format!("{n}")),
            ]);
            let inner = recent.inner.lock().expect("lock");
            longest = longest.max(inner.order.len());
        }
        assert_eq!(longest, bound);
        assert_eq!(got(&recent, "ns", "t").as_deref(), Some("999"));
    }
}
