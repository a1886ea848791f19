//! The registry's promise under faults: updates naming an expected version
//! are linearizable. Every change makes the next version (an add makes 1,
//! an update from `e` makes `e + 1`) and carries a description no other
//! write carries (its tag), so each version a client or an agent shows
//! names the one write that made it, and the versions order the writes.
//! For each entry the checker proves:
//!
//! - no version twice: two writes acknowledged with one version, or two
//!   descriptions shown at one version, is a lost update;
//! - what is shown was written: a shown description is the tag of a write
//!   that was not refused, made the version it is shown at, and was sent
//!   before the read returned;
//! - real time: a write acknowledged before another was sent has the lower
//!   version; a read sent after a write was acknowledged shows that
//!   version or a later one; the final version is no older than any
//!   acknowledged one, and every agent shows the same;
//! - a refusal for a stale version is true: an update from `e` is refused
//!   only if something other than version `e` may have been stored at
//!   some moment of the call; not found only if no add was acknowledged.

use super::{grouped, judge_each, Anomaly};
use crate::history::{Op, Request};
use crate::wire::Outcome;
use a2a::ErrorKind;
use serde_json::Value;
use std::collections::BTreeMap;

/// A version and the description shown with it.
type Shown = (u64, String);

fn shown(value: &Value) -> Option<Shown> {
    Some((
        value["version"].as_u64()?,
        value["description"].as_str()?.to_string(),
    ))
}

/// A write of the history: what it asked for and what it was told.
struct Write<'a> {
    op: &'a Op,
    /// The version the write makes if it takes effect.
    makes: u64,
    tag: &'a str,
}

impl Write<'_> {
    fn refused(&self) -> bool {
        matches!(self.op.outcome(), Some(Outcome::Fail { .. }))
    }

    /// The version and description its answer showed, when acknowledged.
    fn acknowledged(&self) -> Option<Shown> {
        match self.op.outcome() {
            Some(Outcome::Ok(result)) => shown(result),
            _ => None,
        }
    }
}

/// Checks the registry operations of `ops` against each entry as every
/// agent shows it at the end (`finals`: entry name → one answer per agent,
/// an error as a value).
pub fn check(ops: &[Op], finals: &BTreeMap<String, Vec<Value>>) -> Vec<Anomaly> {
    judge_each(finals, &grouped(ops, Op::entry), |ops, last| {
        check_entry(ops, last)
    })
}

/// The violations on one entry.
fn check_entry(ops: &[&Op], last: &[Value]) -> Vec<String> {
    let mut found = Vec::new();
    let writes: Vec<Write> = ops
        .iter()
        .filter_map(|op| match &op.request {
            Request::RegistryAdd { tag, .. } => Some(Write { op, makes: 1, tag }),
            Request::RegistryUpdate { expected, tag, .. } => Some(Write {
                op,
                makes: expected + 1,
                tag,
            }),
            _ => None,
        })
        .collect();
    let by_tag: BTreeMap<&str, &Write> = writes.iter().map(|w| (w.tag, w)).collect();
    // Every (version, description) anyone was shown, with when the read
    // was sent and returned (the final reads after everything).
    let end = u64::MAX;
    let mut reads: Vec<(Shown, u64, u64, String)> = Vec::new();
    for op in ops {
        if let Some(Outcome::Ok(result)) = op.outcome() {
            match shown(result) {
                Some(seen) => reads.push((seen, op.invoked, op.returned, op.to_string())),
                None => found.push(format!("an answer without a version and a description: {result}")),
            }
        }
    }
    let finals: Vec<Option<Shown>> = last.iter().map(shown).collect();
    for (agent, seen) in finals.iter().enumerate() {
        match seen {
            Some(seen) => reads.push((seen.clone(), end, end, format!("the final show on agent {agent}"))),
            None if writes.iter().any(|w| w.acknowledged().is_some()) => {
                found.push(format!("agent {agent} shows {} at the end", last[agent]))
            }
            None => {}
        }
    }
    if finals.iter().any(|f| *f != finals[0]) {
        found.push(format!("the agents show different entries at the end: {last:?}"));
    }
    // What is shown was written, at the version it made, before the read returned.
    let mut at_version: BTreeMap<u64, &str> = BTreeMap::new();
    for ((version, description), _, returned, read) in &reads {
        let Some(write) = by_tag.get(description.as_str()) else {
            found.push(format!("{read} shows {description}, which nobody wrote"));
            continue;
        };
        if write.refused() {
            found.push(format!("{read} shows {description}, whose write was refused"));
        }
        if write.makes != *version {
            found.push(format!(
                "{read} shows {description} at version {version}; its write makes version {}",
                write.makes
            ));
        }
        if write.op.invoked > *returned {
            found.push(format!("{read} shows {description} before it was written"));
        }
        match at_version.insert(*version, description) {
            Some(other) if other != description => found.push(format!(
                "version {version} was shown as {other} and as {description}"
            )),
            _ => {}
        }
    }
    // Real time between acknowledged writes, and from them to reads.
    let acked: Vec<(&Write, u64)> = writes
        .iter()
        .filter_map(|w| Some((w, w.acknowledged()?.0)))
        .collect();
    for (a, version_a) in &acked {
        for (b, version_b) in &acked {
            if a.op.returned < b.op.invoked && version_a >= version_b {
                found.push(format!(
                    "{} was acknowledged at version {version_a} before {} was sent, which made version {version_b}",
                    a.tag, b.tag
                ));
            }
        }
        for ((version, _), invoked, _, read) in &reads {
            if a.op.returned < *invoked && version < version_a {
                found.push(format!(
                    "{read} shows version {version}, after {} was acknowledged at version {version_a}",
                    a.tag
                ));
            }
        }
    }
    // Refusals: stale only if another version may have been stored.
    let add_acked_before = |at: u64| {
        writes.iter().any(|w| {
            matches!(w.op.request, Request::RegistryAdd { .. })
                && w.acknowledged().is_some()
                && w.op.returned < at
        })
    };
    for write in &writes {
        let Some(Outcome::Fail { code, message }) = write.op.outcome() else {
            continue;
        };
        let Request::RegistryUpdate { expected, .. } = write.op.request else {
            continue;
        };
        let op = write.op;
        if *code == ErrorKind::ExtNotFound.code() && add_acked_before(op.invoked) {
            found.push(format!(
                "{op} was refused as not found ({message}) after its add was acknowledged"
            ));
        }
        if *code == ErrorKind::ExtInvalidState.code() {
            // Version `expected` was surely stored throughout the call when the
            // write that made it was acknowledged before the call, and no write
            // that could make the next version was sent before the call returned.
            let established = acked
                .iter()
                .any(|(w, version)| *version == expected && w.op.returned < op.invoked);
            let superseded = writes.iter().any(|w| {
                !w.refused() && w.makes > expected && w.op.invoked < op.returned && !std::ptr::eq(w.op, op)
            });
            if established && !superseded {
                found.push(format!(
                    "{op} was refused as stale ({message}), yet version {expected} was stored throughout"
                ));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The checker's judgement of registry histories.
#[cfg(test)]
mod judged {
    use super::check_entry;
    use crate::history::{Op, Request};
    use crate::wire::Outcome;
    use a2a::ErrorKind;
    use serde_json::{json, Value};

    const NAME: &str = "skill-1";

    fn entry(version: u64, tag: &str) -> Value {
        json!({"name": NAME, "namespace": "default", "version": version, "description": tag})
    }

    fn op(invoked: u64, returned: u64, request: Request, outcome: Outcome) -> Op {
        Op::unary(invoked, returned, request, outcome)
    }

    fn add(invoked: u64, returned: u64, tag: &str, outcome: Outcome) -> Op {
        let request = Request::RegistryAdd {
            name: NAME.into(),
            tag: tag.into(),
        };
        op(invoked, returned, request, outcome)
    }

    fn update(invoked: u64, returned: u64, expected: u64, tag: &str, outcome: Outcome) -> Op {
        let request = Request::RegistryUpdate {
            name: NAME.into(),
            expected,
            tag: tag.into(),
        };
        op(invoked, returned, request, outcome)
    }

    fn stale() -> Outcome {
        Outcome::Fail {
            code: ErrorKind::ExtInvalidState.code(),
            message: "stale".into(),
        }
    }

    fn judge(ops: &[Op], last: Value) -> Vec<String> {
        let ops: Vec<&Op> = ops.iter().collect();
        check_entry(&ops, &[last.clone(), last])
    }

    #[test]
    fn concurrent_updates_one_of_which_wins_have_no_anomaly() {
        let ops = [
            add(1, 2, "a", Outcome::Ok(entry(1, "a"))),
            update(3, 6, 1, "b", Outcome::Ok(entry(2, "b"))),
            update(4, 7, 1, "c", stale()),
            update(5, 8, 2, "d", Outcome::Unknown("cut".into())),
        ];
        assert_eq!(judge(&ops, entry(3, "d")), Vec::<String>::new());
        assert_eq!(judge(&ops, entry(2, "b")), Vec::<String>::new());
    }

    #[test]
    fn two_writes_acknowledged_at_one_version_are_a_lost_update() {
        let ops = [
            add(1, 2, "a", Outcome::Ok(entry(1, "a"))),
            update(3, 5, 1, "b", Outcome::Ok(entry(2, "b"))),
            update(4, 6, 1, "c", Outcome::Ok(entry(2, "c"))),
        ];
        let found = judge(&ops, entry(2, "c"));
        assert!(
            found.contains(&"version 2 was shown as b and as c".to_string()),
            "{found:?}"
        );
    }

    #[test]
    fn a_version_older_than_an_acknowledged_one_is_an_anomaly() {
        let ops = [
            add(1, 2, "a", Outcome::Ok(entry(1, "a"))),
            update(3, 4, 1, "b", Outcome::Ok(entry(2, "b"))),
        ];
        let found = judge(&ops, entry(1, "a"));
        assert!(
            found
                .iter()
                .any(|a| a.contains("shows version 1, after b was acknowledged at version 2")),
            "{found:?}"
        );
    }

    #[test]
    fn a_refused_write_shown_or_a_false_stale_refusal_is_an_anomaly() {
        let ops = [
            add(1, 2, "a", Outcome::Ok(entry(1, "a"))),
            update(3, 4, 1, "b", stale()),
        ];
        let found = judge(&ops, entry(1, "a"));
        assert!(
            found
                .iter()
                .any(|a| a.contains("yet version 1 was stored throughout")),
            "{found:?}"
        );
        let found = judge(&ops, entry(2, "b"));
        assert!(
            found.iter().any(|a| a.contains("whose write was refused")),
            "{found:?}"
        );
    }
}
