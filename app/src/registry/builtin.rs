//! Tools' own rule: every namespace has the built-in tools, deterministic and
//! safe. They are listed and shown like stored tools but cannot be added,
//! updated or removed. Their argument conventions (the `inputSchema`s) are
//! what the plan runner's tools implement.

use a2a::types::{Tool, ToolKind};
use serde_json::{json, Map, Value};

/// When the built-in tools were "created": the epoch, so they sort first in time.
const BUILT_IN_AT: &str = "1970-01-01T00:00:00.000Z";

/// The built-in tools of `namespace`, ordered by name.
pub fn builtin_tools(namespace: &str) -> Vec<Tool> {
    let string = json!({ "type": "string" });
    let tool = |name: &str, kind: ToolKind, description: &str, schema: Value| Tool {
        name: name.into(),
        namespace: namespace.into(),
        version: 1,
        created_at: BUILT_IN_AT.into(),
        updated_at: BUILT_IN_AT.into(),
        description: Some(description.into()),
        kind,
        builtin: true,
        input_schema: schema.as_object().cloned().map(Map::from_iter),
        config: None,
        origin: None,
    };
    vec![
        tool(
            "approval",
            ToolKind::Approval,
            "Asks the user to approve before continuing.",
            json!({ "type": "object", "properties": { "question": string }, "additionalProperties": false }),
        ),
        tool(
            "run-validation",
            ToolKind::RunValidation,
            "Runs the plan's declared validations on its workspace.",
            json!({ "type": "object", "properties": { "validations": { "type": "array", "items": string } },
                    "additionalProperties": false }),
        ),
        tool(
            "template",
            ToolKind::Template,
            "Renders a text template with the plan inputs.",
            json!({ "type": "object", "required": ["template"],
                    "properties": { "template": string, "name": string }, "additionalProperties": false }),
        ),
        tool(
            "write-file",
            ToolKind::WriteFile,
            "Writes a file into the plan's virtual workspace.",
            json!({ "type": "object", "required": ["path"],
                    "properties": { "path": { "type": "string", "minLength": 1 }, "content": string,
                                    "fromStep": string, "mediaType": string },
                    "additionalProperties": false }),
        ),
    ]
}

/// The built-in tool `name` of `namespace`, if there is one.
pub fn builtin_tool(namespace: &str, name: &str) -> Option<Tool> {
    builtin_tools(namespace).into_iter().find(|t| t.name == name)
}
