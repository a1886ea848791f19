//! Streaming expectations (§7): counts, the `monotonic_state` ordering rule,
//! assertions on events at a position or anywhere, on the final event and on
//! each event.
//!
//! An event is asserted through a view of its `StreamResponse`: the payload
//! member under its wire name (`statusUpdate`) and under the name ACTS gives
//! it (`status_update`), and the payload's own fields at the top — so
//! `status_update: {…}`, `task: {…}` and a generic `status: {state: …}` (the
//! state of a Task or a status update alike) all read the same event.

use super::assertion::{check_fields, Mismatch};
use super::document::{ExpectStream, Ordering, Position};
use a2a::types::TaskState;
use serde_json::{Map, Value};

/// `statusUpdate` → `status_update`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The view an event is asserted through (see the module documentation).
/// A raw step's event is a whole JSON-RPC response: its members stay, and its
/// `result` is viewed as above.
pub fn view(event: &Value) -> Value {
    let mut view = Map::new();
    let Some(object) = event.as_object() else {
        return event.clone();
    };
    let payload_holder = match object.get("result") {
        Some(Value::Object(result)) if object.contains_key("jsonrpc") => {
            view.extend(object.clone());
            result.clone()
        }
        _ => object.clone(),
    };
    for (kind, payload) in &payload_holder {
        if let Some(fields) = payload.as_object() {
            for (k, v) in fields {
                view.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        view.insert(snake_case(kind), payload.clone());
        view.insert(kind.clone(), payload.clone());
    }
    Value::Object(view)
}

/// The task state an event reports, if it reports one (a Task or a status update).
fn state_of(event: &Value) -> Option<TaskState> {
    let v = view(event);
    let state = v.get("status")?.get("state")?;
    serde_json::from_value(state.clone()).ok()
}

fn terminal(state: TaskState) -> bool {
    matches!(
        state,
        TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
    )
}

/// The `monotonic_state` rule (§7.1): no state after a terminal one, and no
/// return to SUBMITTED (a state may repeat).
pub fn monotonic(events: &[Value]) -> Result<(), Mismatch> {
    let states: Vec<(usize, TaskState)> = events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| state_of(e).map(|s| (i, s)))
        .collect();
    for pair in states.windows(2) {
        let ((_, from), (at, to)) = (pair[0], pair[1]);
        let illegal = if terminal(from) {
            Some("a terminal state is final")
        } else if to == TaskState::Submitted && from != TaskState::Submitted {
            Some("SUBMITTED is only the initial state")
        } else {
            None
        };
        if let Some(why) = illegal {
            return Err(Mismatch {
                path: format!("events[{at}]"),
                message: format!("events[{at}]: illegal transition {from} → {to} ({why}, §7.1)"),
                expected: "monotonic_state".into(),
                actual: states
                    .iter()
                    .map(|(_, s)| s.to_string())
                    .collect::<Vec<_>>()
                    .join(" → "),
            });
        }
    }
    Ok(())
}

/// Checks `events` (in order) against `expect`.
pub fn check_stream(expect: &ExpectStream, events: &[Value]) -> Result<(), Mismatch> {
    let count = |message: String, expected: String| Mismatch {
        path: "events".into(),
        message,
        expected,
        actual: format!("{} event(s)", events.len()),
    };
    if let Some(min) = expect.min_count {
        if events.len() < min {
            return Err(count(
                format!("the stream has fewer than {min} event(s)"),
                format!("at least {min}"),
            ));
        }
    }
    if let Some(max) = expect.max_count {
        if events.len() > max {
            return Err(count(
                format!("the stream has more than {max} event(s)"),
                format!("at most {max}"),
            ));
        }
    }
    if expect.ordering == Some(Ordering::MonotonicState) {
        monotonic(events)?;
    }
    let views: Vec<Value> = events.iter().map(view).collect();
    for (n, assertion) in expect.events.iter().enumerate() {
        let label = assertion
            .description
            .clone()
            .unwrap_or_else(|| format!("events[{n}]"));
        let position = assertion.position.unwrap_or(Position::ExactPosition);
        match (position, assertion.index) {
            (Position::AnyPosition, None) => {
                let mut last = None;
                for (i, v) in views.iter().enumerate() {
                    match check_fields(&assertion.assertions, Some(v), &format!("events[{i}]")) {
                        Ok(()) => {
                            last = None;
                            break;
                        }
                        Err(m) => last = Some(m),
                    }
                }
                if let Some(m) = last.or_else(|| {
                    views
                        .is_empty()
                        .then(|| count(format!("{label}: the stream has no event"), label.clone()))
                }) {
                    return Err(Mismatch {
                        message: format!("{label}: no event matches (last: {})", m.message),
                        ..m
                    });
                }
            }
            (_, index) => {
                let i = index.unwrap_or(n);
                let path = format!("events[{i}]");
                check_fields(&assertion.assertions, views.get(i), &path).map_err(|m| Mismatch {
                    message: format!("{label}: {}", m.message),
                    ..m
                })?;
            }
        }
    }
    if let Some(each) = &expect.each_event {
        for (i, v) in views.iter().enumerate() {
            check_fields(each, Some(v), &format!("events[{i}]"))?;
        }
    }
    if let Some(last) = &expect.final_event {
        let i = views.len().saturating_sub(1);
        check_fields(last, views.last(), &format!("events[{i}]")).map_err(|m| Mismatch {
            message: format!("final event: {}", m.message),
            ..m
        })?;
    }
    Ok(())
}

/// The update events (status and artifact updates) of a stream, in order:
/// what every subscriber of one task must see alike.
pub fn updates(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.get("task").is_none() && e.get("message").is_none())
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn status(state: &str) -> Value {
        json!({"statusUpdate": {"taskId": "t", "status": {"state": state}}})
    }

    #[test]
    fn the_view_reads_payload_kinds_and_fields() {
        let v = view(&status("TASK_STATE_WORKING"));
        assert_eq!(v["status_update"]["taskId"], "t");
        assert_eq!(v["statusUpdate"]["taskId"], "t");
        assert_eq!(v["status"]["state"], "TASK_STATE_WORKING");
    }

    #[test]
    fn monotonic_rejects_leaving_a_terminal_state_and_returning_to_submitted() {
        let ok = [
            json!({"task": {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
            status("TASK_STATE_WORKING"),
            status("TASK_STATE_INPUT_REQUIRED"),
            status("TASK_STATE_WORKING"),
            status("TASK_STATE_COMPLETED"),
        ];
        assert_eq!(monotonic(&ok), Ok(()));
        let after_terminal = [status("TASK_STATE_COMPLETED"), status("TASK_STATE_WORKING")];
        let m = monotonic(&after_terminal).unwrap_err();
        assert_eq!(m.path, "events[1]");
        assert!(
            m.message.contains("TASK_STATE_COMPLETED → TASK_STATE_WORKING"),
            "{}",
            m.message
        );
        let back = [status("TASK_STATE_WORKING"), status("TASK_STATE_SUBMITTED")];
        assert!(monotonic(&back)
            .unwrap_err()
            .message
            .contains("SUBMITTED is only the initial state"));
    }
}
