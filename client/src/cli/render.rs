//! Output: readable text and tables by default, one JSON document per line
//! with `--json`, and stream events as ordered lines (under a spinner on a
//! terminal).

use super::tree::short_enum;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// Widest a table cell gets before it is cut.
const MAX_CELL: usize = 48;
/// Most table columns shown; the rest are in `--json`.
const MAX_COLUMNS: usize = 6;

/// A result as text: a table for a page of items, else indented `key: value`
/// lines.
pub fn result_text(value: &Value) -> String {
    if let Value::Object(map) = value {
        let lists: Vec<(&String, &Vec<Value>)> = map
            .iter()
            .filter_map(|(k, v)| match v {
                Value::Array(items) if items.iter().all(Value::is_object) => Some((k, items)),
                _ => None,
            })
            .collect();
        if let [(key, items)] = lists.as_slice() {
            let mut out = if items.is_empty() {
                format!("no {key}\n")
            } else {
                table(items)
            };
            let rest: Map<String, Value> = map
                .iter()
                .filter(|(k, v)| k != key && !matches!(v, Value::String(s) if s.is_empty()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if !rest.is_empty() {
                out.push_str(&tree_text(&Value::Object(rest), 0));
            }
            return out;
        }
    }
    tree_text(value, 0)
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(short_enum(s).to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        _ => None,
    }
}

/// The scalar cells of a row: its own scalars and those one object deep
/// (`status.state`).
fn row_cells(item: &Value) -> Vec<(String, String)> {
    let mut cells = Vec::new();
    if let Value::Object(map) = item {
        for (key, value) in map {
            if let Some(text) = scalar(value) {
                cells.push((key.clone(), text));
            } else if let Value::Object(inner) = value {
                for (sub, v) in inner {
                    if let Some(text) = scalar(v) {
                        cells.push((format!("{key}.{sub}"), text));
                    }
                }
            }
        }
    }
    cells
}

fn cut(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > MAX_CELL || line.len() < text.len() {
        let mut short: String = line.chars().take(MAX_CELL - 1).collect();
        short.push('…');
        short
    } else {
        line.to_string()
    }
}

fn table(items: &[Value]) -> String {
    let rows: Vec<Vec<(String, String)>> = items.iter().map(row_cells).collect();
    let mut columns: Vec<String> = Vec::new();
    for row in &rows {
        for (key, _) in row {
            if columns.len() < MAX_COLUMNS && !columns.contains(key) {
                columns.push(key.clone());
            }
        }
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            columns
                .iter()
                .map(|c| {
                    row.iter()
                        .find(|(k, _)| k == c)
                        .map(|(_, v)| cut(v))
                        .unwrap_or_default()
                })
                .collect()
        })
        .collect();
    let headers: Vec<String> = columns.iter().map(|c| c.to_ascii_uppercase()).collect();
    let widths: Vec<usize> = (0..columns.len())
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .chain(std::iter::once(headers[i].chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in std::iter::once(&headers).chain(cells.iter()) {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    out
}

fn tree_text(value: &Value, depth: usize) -> String {
    let pad = "  ".repeat(depth);
    let mut out = String::new();
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match v {
                    Value::Object(inner) if inner.is_empty() => {}
                    Value::Array(items) if items.is_empty() => {}
                    Value::Object(_) | Value::Array(_) => {
                        let _ = writeln!(out, "{pad}{key}:");
                        out.push_str(&tree_text(v, depth + 1));
                    }
                    _ => out.push_str(&scalar_line(&pad, key, v)),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                match scalar(item) {
                    Some(text) => {
                        let _ = writeln!(out, "{pad}- {text}");
                    }
                    None => {
                        let _ = writeln!(out, "{pad}-");
                        out.push_str(&tree_text(item, depth + 1));
                    }
                }
            }
        }
        other => {
            let _ = writeln!(out, "{pad}{}", scalar(other).unwrap_or_default());
        }
    }
    out
}

fn scalar_line(pad: &str, key: &str, value: &Value) -> String {
    let text = scalar(value).unwrap_or_default();
    if text.contains('\n') {
        let mut out = format!("{pad}{key}: |\n");
        for line in text.lines() {
            let _ = writeln!(out, "{pad}  {line}");
        }
        out
    } else {
        format!("{pad}{key}: {text}\n")
    }
}

fn parts_text(parts: Option<&Value>) -> String {
    let Some(Value::Array(parts)) = parts else {
        return String::new();
    };
    parts
        .iter()
        .map(|p| {
            if let Some(text) = p.get("text").and_then(Value::as_str) {
                text.replace('\n', " ")
            } else if let Some(url) = p.get("url").and_then(Value::as_str) {
                url.to_string()
            } else if let Some(data) = p.get("data") {
                data.to_string()
            } else {
                "[bytes]".to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The plan domain event an event's metadata names under the extension URI.
fn domain_event(update: &Value) -> Option<String> {
    let uri = crate::wire::extension_uris().into_iter().next()?;
    let entry = update.get("metadata")?.get(uri)?;
    match entry {
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => map
            .get("event")
            .or_else(|| map.get("type"))
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

/// One line for one stream event (a StreamResponse, or a namespace domain
/// event wrapping one; anything else is shown as compact JSON).
pub fn event_line(seq: Option<u64>, event: &Value) -> String {
    if let (Some(kind), Some(inner)) = (event.get("type").and_then(Value::as_str), event.get("event")) {
        let task = event.get("taskId").and_then(Value::as_str).unwrap_or("?");
        let mut line = format!("{kind} task {task}");
        if let Some(task_seq) = event.get("taskSeq").and_then(Value::as_u64) {
            let _ = write!(line, "#{task_seq}");
        }
        if let Some(plan) = event.get("planId").and_then(Value::as_str) {
            let _ = write!(line, " plan {plan}");
        }
        let _ = write!(line, ": {}", event_line(None, inner));
        return match seq {
            Some(seq) => format!("#{seq} {line}"),
            None => line,
        };
    }
    let body = if let Some(task) = event.get("task") {
        let id = task.get("id").and_then(Value::as_str).unwrap_or("?");
        let state = task
            .pointer("/status/state")
            .and_then(Value::as_str)
            .map_or("?", short_enum);
        format!("task {id} {}", state.to_ascii_lowercase())
    } else if let Some(update) = event.get("statusUpdate") {
        let state = update
            .pointer("/status/state")
            .and_then(Value::as_str)
            .map_or("?", short_enum);
        let mut line = format!("status {}", state.to_ascii_lowercase());
        if let Some(name) = domain_event(update) {
            let _ = write!(line, " [{name}]");
        }
        let text = parts_text(update.pointer("/status/message/parts"));
        if !text.is_empty() {
            let _ = write!(line, ": {text}");
        }
        line
    } else if let Some(update) = event.get("artifactUpdate") {
        let artifact = update.get("artifact").unwrap_or(&Value::Null);
        let name = artifact
            .get("name")
            .or_else(|| artifact.get("artifactId"))
            .and_then(Value::as_str)
            .unwrap_or("?");
        let mut line = format!("artifact {name}");
        if let Some(event) = domain_event(update) {
            let _ = write!(line, " [{event}]");
        }
        let text = parts_text(artifact.get("parts"));
        if !text.is_empty() {
            let _ = write!(line, ": {text}");
        }
        line
    } else if let Some(message) = event.get("message") {
        let role = message
            .get("role")
            .and_then(Value::as_str)
            .map_or("?", short_enum);
        format!(
            "message {}: {}",
            role.to_ascii_lowercase(),
            parts_text(message.get("parts"))
        )
    } else {
        event.to_string()
    };
    match seq {
        Some(seq) => format!("#{seq} {body}"),
        None => body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tables_and_trees() {
        let page = json!({"items": [{"name": "a", "version": 1, "status": {"state": "TASK_STATE_WORKING"}}, {"name": "bb", "version": 2}], "nextCursor": ""});
        assert_eq!(
            result_text(&page),
            "NAME  VERSION  STATUS.STATE\na     1        WORKING\nbb    2\n"
        );
        let nested = json!({"plan": {"id": "p", "state": "PLAN_STATE_RUNNING"}, "taskId": "t"});
        assert_eq!(
            result_text(&nested),
            "plan:\n  id: p\n  state: RUNNING\ntaskId: t\n"
        );
    }

    #[test]
    fn domain_event_lines() {
        let event = json!({"cursor": 42, "type": "tool.invoked", "sessionId": "s", "taskId": "t", "taskSeq": 3, "planId": "p",
            "event": {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"},
                      "metadata": {"urn:cleveragents:extensions:v1": {"event": "tool.invoked"}}}}});
        assert_eq!(
            event_line(Some(42), &event),
            "#42 tool.invoked task t#3 plan p: status working [tool.invoked]"
        );
    }

    #[test]
    fn event_lines() {
        let status = json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_COMPLETED"}}});
        assert_eq!(event_line(Some(3), &status), "#3 status completed");
        let artifact =
            json!({"artifactUpdate": {"artifact": {"name": "notes", "parts": [{"text": "a\nb"}]}}});
        assert_eq!(event_line(None, &artifact), "artifact notes: a b");
    }
}
