//! The `text` output floor (a2a-cli §11.2): one `Label: value` field per
//! line with labels that never change, content that does not fit one line as
//! a *block* (its `Label:` line, the content indented by two spaces, a blank
//! line closing it), and no terminal control sequence, whatever the agent
//! sent. Task, context and state are named for anything that touches a task.
//!
//! The block content is indented so that none of its lines, blank or not,
//! can be mistaken for a field or for the block's end.

use serde_json::Value;

/// Field labels, stable across invocations (scripts read them).
pub mod label {
    #![allow(missing_docs)]
    pub const TASK_ID: &str = "Task ID";
    pub const CONTEXT_ID: &str = "Context ID";
    pub const STATE: &str = "State";
    pub const TIMESTAMP: &str = "Timestamp";
    pub const STATUS_MESSAGE: &str = "Status Message";
    pub const EVENT: &str = "Event";
    pub const ARTIFACT_ID: &str = "Artifact ID";
    pub const ARTIFACT_NAME: &str = "Artifact Name";
    pub const APPEND: &str = "Append";
    pub const LAST_CHUNK: &str = "Last Chunk";
    pub const TEXT: &str = "Text";
    pub const DATA: &str = "Data";
    pub const FILE_NAME: &str = "File Name";
    pub const MEDIA_TYPE: &str = "Media Type";
    pub const FILE_SIZE: &str = "File Size";
    pub const FILE_URL: &str = "File URL";
    pub const METADATA: &str = "Metadata";
    pub const MESSAGE_ID: &str = "Message ID";
    pub const ROLE: &str = "Role";
    pub const NEXT_PAGE_TOKEN: &str = "Next Page Token";
    pub const TOTAL_SIZE: &str = "Total Size";
    pub const RESUME: &str = "Resume";
}

/// Text safe for a terminal and a pipe: every control character but newline
/// and tab replaced, so no escape sequence the agent sent reaches the screen.
pub fn clean(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// Output under construction.
#[derive(Default)]
pub struct Text {
    out: String,
}

impl Text {
    /// An empty output.
    pub fn new() -> Self {
        Text::default()
    }

    /// A `Label: value` field; a value on several lines becomes a block.
    pub fn field(&mut self, label: &str, value: &str) -> &mut Self {
        let value = clean(value);
        if value.contains('\n') {
            return self.block(label, &value);
        }
        self.out.push_str(label);
        self.out.push_str(": ");
        self.out.push_str(value.trim_end());
        self.out.push('\n');
        self
    }

    /// A field when there is a value.
    pub fn field_opt(&mut self, label: &str, value: Option<&str>) -> &mut Self {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            self.field(label, value);
        }
        self
    }

    /// A block: `Label:`, the content indented, a blank line.
    pub fn block(&mut self, label: &str, content: &str) -> &mut Self {
        self.out.push_str(label);
        self.out.push_str(":\n");
        for line in clean(content).lines() {
            self.out.push_str("  ");
            self.out.push_str(line.trim_end());
            self.out.push('\n');
        }
        self.out.push('\n');
        self
    }

    /// A blank line between records.
    pub fn gap(&mut self) -> &mut Self {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
        self
    }

    /// The text.
    pub fn finish(self) -> String {
        self.out
    }
}

fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

/// A task: identity and state, its status message, artifacts (every part),
/// and with `verbose` its history and metadata.
pub fn task(out: &mut Text, task: &Value, verbose: bool) {
    out.field(label::TASK_ID, str_at(task, "/id").unwrap_or(""));
    out.field(label::CONTEXT_ID, str_at(task, "/contextId").unwrap_or(""));
    out.field(label::STATE, str_at(task, "/status/state").unwrap_or(""));
    out.field_opt(label::TIMESTAMP, str_at(task, "/status/timestamp"));
    if let Some(message) = task.pointer("/status/message") {
        let text = message_text(message);
        if !text.is_empty() {
            out.block(label::STATUS_MESSAGE, &text);
        }
    }
    for artifact in task
        .get("artifacts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        self::artifact(out, artifact, verbose);
    }
    if verbose {
        for message in task
            .get("history")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self::message(out, message, verbose);
        }
        metadata(out, task.get("metadata"));
    }
}

/// An artifact: its id and name, then each part.
pub fn artifact(out: &mut Text, artifact: &Value, verbose: bool) {
    out.field(label::ARTIFACT_ID, str_at(artifact, "/artifactId").unwrap_or(""));
    out.field_opt(label::ARTIFACT_NAME, str_at(artifact, "/name"));
    parts(out, artifact.get("parts"), verbose);
    if verbose {
        metadata(out, artifact.get("metadata"));
    }
}

/// A message: id, role, ids it names, then each part.
pub fn message(out: &mut Text, message: &Value, verbose: bool) {
    out.field(label::MESSAGE_ID, str_at(message, "/messageId").unwrap_or(""));
    out.field(label::ROLE, str_at(message, "/role").unwrap_or(""));
    out.field_opt(label::TASK_ID, str_at(message, "/taskId"));
    out.field_opt(label::CONTEXT_ID, str_at(message, "/contextId"));
    parts(out, message.get("parts"), verbose);
    if verbose {
        metadata(out, message.get("metadata"));
    }
}

/// Every part, none dropped: text as text, data as formatted JSON, a file
/// by its name, media type and size (its bytes are written only by `task
/// download`).
pub fn parts(out: &mut Text, parts: Option<&Value>, verbose: bool) {
    for part in parts.and_then(Value::as_array).into_iter().flatten() {
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            out.block(label::TEXT, text);
        } else if let Some(data) = part.get("data") {
            out.block(label::DATA, &pretty(data));
        } else if part.get("raw").is_some() || part.get("url").is_some() {
            out.field(label::FILE_NAME, str_at(part, "/filename").unwrap_or("(unnamed)"));
            out.field(
                label::MEDIA_TYPE,
                str_at(part, "/mediaType").unwrap_or("application/octet-stream"),
            );
            if let Some(raw) = part.get("raw").and_then(Value::as_str) {
                let size = super::parts::decoded_len(raw)
                    .map_or_else(|| "unknown (not base64)".to_string(), |n| format!("{n} bytes"));
                out.field(label::FILE_SIZE, &size);
            }
            out.field_opt(label::FILE_URL, str_at(part, "/url"));
        } else {
            // A part of a kind this tool does not know: shown whole, never dropped.
            out.block(label::DATA, &pretty(part));
        }
        if verbose {
            metadata(out, part.get("metadata"));
        }
    }
}

fn metadata(out: &mut Text, metadata: Option<&Value>) {
    if let Some(metadata) = metadata.filter(|m| m.as_object().is_some_and(|o| !o.is_empty())) {
        out.block(label::METADATA, &pretty(metadata));
    }
}

/// JSON for a person: pretty, with object members sorted, so the same data
/// reads the same whichever binding carried it (a protobuf Struct does not
/// keep the order the agent wrote).
pub fn pretty(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&map[k]))).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_string_pretty(&sorted(value)).unwrap_or_default()
}

/// The text of a message's text parts, joined.
pub fn message_text(message: &Value) -> String {
    message
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a stream has said so far about its task, so each event can restate
/// the task, the context and the state (§11.2 "Under --stream").
#[derive(Clone, Debug, Default)]
pub struct Tracked {
    /// The task's id.
    pub task_id: Option<String>,
    /// Its context.
    pub context_id: Option<String>,
    /// Its latest state.
    pub state: Option<String>,
}

impl Tracked {
    /// Takes what `event` (a StreamResponse) says.
    pub fn observe(&mut self, event: &Value) {
        let (task_id, context_id, state) = if let Some(task) = event.get("task") {
            (
                str_at(task, "/id"),
                str_at(task, "/contextId"),
                str_at(task, "/status/state"),
            )
        } else if let Some(update) = event.get("statusUpdate") {
            (
                str_at(update, "/taskId"),
                str_at(update, "/contextId"),
                str_at(update, "/status/state"),
            )
        } else if let Some(update) = event.get("artifactUpdate") {
            (str_at(update, "/taskId"), str_at(update, "/contextId"), None)
        } else if let Some(message) = event.get("message") {
            (str_at(message, "/taskId"), str_at(message, "/contextId"), None)
        } else {
            (None, None, None)
        };
        if let Some(id) = task_id {
            self.task_id = Some(id.to_string());
        }
        if let Some(id) = context_id {
            self.context_id = Some(id.to_string());
        }
        if let Some(state) = state {
            self.state = Some(state.to_string());
        }
    }
}

/// One stream event (a StreamResponse) as a record: its kind, then what it
/// carries, then the task, context and state as known after it.
pub fn stream_event(out: &mut Text, event: &Value, tracked: &Tracked, verbose: bool) {
    if let Some(task) = event.get("task") {
        out.field(label::EVENT, "task");
        self::task(out, task, verbose);
    } else if let Some(message) = event.get("message") {
        out.field(label::EVENT, "message");
        self::message(out, message, verbose);
    } else if let Some(update) = event.get("statusUpdate") {
        out.field(label::EVENT, "status-update");
        out.field(label::TASK_ID, tracked.task_id.as_deref().unwrap_or(""));
        out.field(label::CONTEXT_ID, tracked.context_id.as_deref().unwrap_or(""));
        out.field(label::STATE, str_at(update, "/status/state").unwrap_or(""));
        out.field_opt(label::TIMESTAMP, str_at(update, "/status/timestamp"));
        if let Some(message) = update.pointer("/status/message") {
            let text = message_text(message);
            if !text.is_empty() {
                out.block(label::STATUS_MESSAGE, &text);
            }
        }
        if verbose {
            metadata(out, update.get("metadata"));
        }
    } else if let Some(update) = event.get("artifactUpdate") {
        out.field(label::EVENT, "artifact-update");
        out.field(label::TASK_ID, tracked.task_id.as_deref().unwrap_or(""));
        out.field(label::CONTEXT_ID, tracked.context_id.as_deref().unwrap_or(""));
        out.field(label::STATE, tracked.state.as_deref().unwrap_or(""));
        if update.get("append").and_then(Value::as_bool) == Some(true) {
            out.field(label::APPEND, "true");
        }
        if update.get("lastChunk").and_then(Value::as_bool) == Some(true) {
            out.field(label::LAST_CHUNK, "true");
        }
        if let Some(artifact) = update.get("artifact") {
            self::artifact(out, artifact, verbose);
        }
    } else {
        out.field(label::EVENT, "unknown");
        out.block(label::DATA, &pretty(event));
    }
}

/// A page of tasks: one record each, then the page's own fields.
pub fn task_list(out: &mut Text, page: &Value, verbose: bool) {
    for task in page.get("tasks").and_then(Value::as_array).into_iter().flatten() {
        self::task(out, task, verbose);
        out.gap();
    }
    out.field_opt(label::NEXT_PAGE_TOKEN, str_at(page, "/nextPageToken"));
    if let Some(total) = page.get("totalSize").and_then(Value::as_u64) {
        out.field(label::TOTAL_SIZE, &total.to_string());
    }
}

/// Any other result (the extension's methods, push configs): its scalars as
/// fields labelled by their path (`status.state`), nested lists and long
/// text as blocks, so the labels follow the schema's member names.
pub fn generic(out: &mut Text, value: &Value) {
    flatten(out, "", value);
}

fn flatten(out: &mut Text, path: &str, value: &Value) {
    let label = if path.is_empty() { "Result" } else { path };
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, inner) in map {
                let nested = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                flatten(out, &nested, inner);
            }
        }
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            let joined: Vec<String> = items.iter().map(scalar_text).collect();
            out.field(label, &joined.join(", "));
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                flatten(out, &format!("{path}[{index}]"), item);
            }
            if items.is_empty() {
                out.field(label, "");
            }
        }
        other => {
            out.field(label, &scalar_text(other));
        }
    }
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Object(o) if o.is_empty() => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_blocks_and_no_control_sequences() {
        let task = json!({
            "id": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_COMPLETED", "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "done\u{1b}[31m"}]}},
            "artifacts": [{"artifactId": "a1", "name": "out", "parts": [
                {"text": "line one\n\nline three"},
                {"data": {"k": 1}},
                {"raw": "dGNr", "filename": "output.txt", "mediaType": "text/plain"},
                {"url": "https://example.com/f", "filename": "f"}
            ]}]
        });
        let mut out = Text::new();
        self::task(&mut out, &task, false);
        let text = out.finish();
        assert_eq!(
            text,
            "Task ID: t1\nContext ID: c1\nState: TASK_STATE_COMPLETED\nStatus Message:\n  done\u{FFFD}[31m\n\n\
             Artifact ID: a1\nArtifact Name: out\nText:\n  line one\n  \n  line three\n\n\
             Data:\n  {\n    \"k\": 1\n  }\n\n\
             File Name: output.txt\nMedia Type: text/plain\nFile Size: 3 bytes\n\
             File Name: f\nMedia Type: application/octet-stream\nFile URL: https://example.com/f\n"
        );
        assert!(!text.contains('\u{1b}'));
    }

    #[test]
    fn stream_events_restate_the_task() {
        let mut tracked = Tracked::default();
        let first =
            json!({"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_SUBMITTED"}}});
        tracked.observe(&first);
        let artifact = json!({"artifactUpdate": {"taskId": "t", "contextId": "c", "artifact": {"artifactId": "a", "parts": [{"text": "x"}]}}});
        tracked.observe(&artifact);
        let mut out = Text::new();
        stream_event(&mut out, &artifact, &tracked, false);
        assert_eq!(
            out.finish(),
            "Event: artifact-update\nTask ID: t\nContext ID: c\nState: TASK_STATE_SUBMITTED\nArtifact ID: a\nText:\n  x\n\n"
        );
    }

    #[test]
    fn generic_paths() {
        let mut out = Text::new();
        generic(
            &mut out,
            &json!({"plan": {"id": "p", "tags": ["a", "b"]}, "steps": [{"n": 1}], "none": null}),
        );
        assert_eq!(
            out.finish(),
            "plan.id: p\nplan.tags: a, b\nsteps[0].n: 1\nnone: \n"
        );
    }
}
