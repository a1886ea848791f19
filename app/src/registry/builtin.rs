//! Tools' own rule: every namespace has the built-in tools, deterministic and
//! safe. They are listed and shown like stored tools but cannot be added,
//! updated or removed. Their argument conventions (the `inputSchema`s) are
//! what the plan runner's tools implement.

use a2a::registry::RegistryOperation;
use a2a::rpc::Error;
use a2a::types::{RegistryKind, Tool, ToolKind};
use a2a::ErrorKind;
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

/// Refuses a write of `operation` to the built-in entity `name` of `kind`
/// (only tools have built-in entities): they cannot be added again, changed
/// or removed.
pub fn refuse_builtin(
    kind: RegistryKind,
    namespace: &str,
    name: &str,
    operation: RegistryOperation,
) -> Result<(), Error> {
    if kind != RegistryKind::Tool || builtin_tool(namespace, name).is_none() {
        return Ok(());
    }
    let (error, why) = match operation {
        RegistryOperation::Add => (ErrorKind::ExtAlreadyExists, "is built in"),
        RegistryOperation::Remove => (ErrorKind::ExtInvalidState, "is built in and cannot be removed"),
        _ => (ErrorKind::ExtInvalidState, "is built in and cannot change"),
    };
    Err(Error::new(error, format!("Tool `{name}` {why}")))
}
