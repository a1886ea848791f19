//! Builds a method's params object from the command line: `-f FILE`, then
//! `--params JSON` merged over it, then flags and positionals, then a check that
//! every required field is present. Every problem is a usage error, found
//! before the agent is contacted.

use super::naming::kebab;
use super::tree::{fields, Field, Kind};
use a2a::types::Role;
use a2a::MethodDescriptor;
use clap::ArgMatches;
use serde_json::{json, Map, Value};
use std::io::Read;

/// Reads `-f`'s file (`-` is stdin).
fn read_source(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        return Ok(text);
    }
    std::fs::read_to_string(path).map_err(|e| format!("cannot read `{path}`: {e}"))
}

fn parse_object(text: &str, what: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(format!("{what} must be a JSON object")),
        Err(e) => Err(format!("{what} is not valid JSON: {e}")),
    }
}

/// The params of `method` from `matches`.
pub fn build(method: &MethodDescriptor, matches: &ArgMatches) -> Result<Value, String> {
    let fields = fields(method.params_type);
    let mut params = Map::new();
    if let Some(path) = matches.get_one::<String>("file") {
        let object = parse_object(&read_source(path)?, &format!("params file `{path}`"))?;
        params = wrap_bare_object(&fields, object);
    }
    if let Some(text) = matches.get_one::<String>("params") {
        params.extend(parse_object(text, "--params")?);
    }
    for field in &fields {
        if let Some(value) = field_value(field, matches)? {
            params.insert(field.name.clone(), value);
        }
    }
    super::generation::apply(matches, &mut params);
    if let Some(missing) = fields
        .iter()
        .find(|f| f.required && !params.contains_key(&f.name))
    {
        let how = if missing.positional {
            format!(
                "<{}>",
                kebab(&missing.name).to_ascii_uppercase().replace('-', "_")
            )
        } else {
            format!(
                "--{} (or the `{}` field of --params/-f)",
                kebab(&missing.name),
                missing.name
            )
        };
        return Err(format!("missing required {how} for {}", method.name));
    }
    Ok(Value::Object(params))
}

/// `-f action.json` may hold just the spec of a method whose only required
/// object field is that spec (`registry actions add -f action.json`): such a
/// file, lacking the field itself, is wrapped in it.
fn wrap_bare_object(fields: &[Field], object: Map<String, Value>) -> Map<String, Value> {
    let objects: Vec<&Field> = fields
        .iter()
        .filter(|f| f.required && f.kind == Kind::Json)
        .collect();
    match objects.as_slice() {
        [only]
            if !object.contains_key(&only.name) && !fields.iter().any(|f| object.contains_key(&f.name)) =>
        {
            let mut wrapped = Map::new();
            wrapped.insert(only.name.clone(), Value::Object(object));
            wrapped
        }
        _ => object,
    }
}

fn field_value(field: &Field, matches: &ArgMatches) -> Result<Option<Value>, String> {
    // A field the CLI reserved a flag name for has no argument of its own.
    let Ok(present) = matches.try_contains_id(&field.name) else {
        return Ok(None);
    };
    if !present {
        return Ok(None);
    }
    let flag = kebab(&field.name);
    let one = || {
        matches
            .get_one::<String>(&field.name)
            .cloned()
            .unwrap_or_default()
    };
    Ok(match &field.kind {
        Kind::Bool => matches.get_flag(&field.name).then_some(Value::Bool(true)),
        Kind::Str => Some(Value::String(one())),
        Kind::Int => {
            let text = one();
            let n: i64 = text
                .trim()
                .parse()
                .map_err(|_| format!("--{flag} expects an integer, got `{text}`"))?;
            Some(json!(n))
        }
        Kind::Enum(names) => Some(Value::String(enum_value(names, &one(), &flag)?)),
        Kind::List(names) => {
            let values: Vec<String> = matches
                .get_many::<String>(&field.name)
                .map(|v| v.cloned().collect())
                .unwrap_or_default();
            let mut out = Vec::new();
            for value in values {
                out.push(Value::String(match names {
                    Some(names) => enum_value(names, &value, &flag)?,
                    None => value,
                }));
            }
            Some(Value::Array(out))
        }
        Kind::Json => {
            let text = one();
            let text = match text.strip_prefix('@') {
                Some(path) => read_source(path)?,
                None => text,
            };
            Some(serde_json::from_str(&text).map_err(|e| format!("--{flag} is not valid JSON: {e}"))?)
        }
        Kind::Message => {
            let words: Vec<String> = matches
                .get_many::<String>(&field.name)
                .map(|v| v.cloned().collect())
                .unwrap_or_default();
            let mut message = json!({
                "messageId": uuid::Uuid::new_v4().to_string(),
                "role": Role::User,
                "parts": [{ "text": words.join(" ") }],
            });
            // The global `--context-id` and `--task-id` say where the message goes.
            for (member, flag) in [
                ("contextId", super::settings::id::CONTEXT_ID),
                ("taskId", super::settings::id::TASK_ID),
            ] {
                if let Some(value) = matches.try_get_one::<String>(flag).ok().flatten() {
                    message[member] = Value::String(value.clone());
                }
            }
            Some(message)
        }
    })
}

/// Accepts an enum's wire name or its short form, case-insensitively
/// (`completed` or `TASK_STATE_COMPLETED`).
pub fn enum_value(names: &[String], given: &str, flag: &str) -> Result<String, String> {
    // Enums of dotted event names (`tool.invoked`) are given as they are.
    if let Some(exact) = names.iter().find(|n| n.as_str() == given.trim()) {
        return Ok(exact.clone());
    }
    let wanted = given.trim().to_ascii_uppercase().replace('-', "_");
    if let Some(exact) = names.iter().find(|n| **n == wanted) {
        return Ok(exact.clone());
    }
    let suffix = format!("_{wanted}");
    let matching: Vec<&String> = names.iter().filter(|n| n.ends_with(&suffix)).collect();
    match matching.as_slice() {
        [one] => Ok((*one).clone()),
        _ => Err(format!(
            "--{flag}: `{given}` is not one of {}",
            names
                .iter()
                .map(|n| super::tree::short_enum(n).to_ascii_lowercase())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::tree::method_command;

    fn params_for(method: &str, args: &[&str]) -> Result<Value, String> {
        let descriptor = a2a::find_method(method).ok_or("no method")?;
        let command = method_command("x".into(), descriptor).args(crate::cli::settings::args());
        let matches = command
            .try_get_matches_from(std::iter::once("x").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        build(descriptor, &matches)
    }

    #[test]
    fn positionals_and_flags() {
        assert_eq!(
            params_for("_cleveragents/plan/status", &["p1", "--namespace", "acme"]),
            Ok(json!({"planId": "p1", "namespace": "acme"}))
        );
        assert_eq!(
            params_for("ListTasks", &["--status", "completed", "--page-size", "5"]),
            Ok(json!({"status": "TASK_STATE_COMPLETED", "pageSize": 5}))
        );
        assert_eq!(
            params_for("_cleveragents/registry/actors/remove", &["bob", "3"]),
            Ok(json!({"name": "bob", "expectedVersion": 3}))
        );
        assert_eq!(
            params_for(
                "_cleveragents/plan/list",
                &["--states", "running", "--states", "PLAN_STATE_FAILED"]
            ),
            Ok(json!({"states": ["PLAN_STATE_RUNNING", "PLAN_STATE_FAILED"]}))
        );
        assert_eq!(
            params_for("GetTask", &["--params", r#"{"id":"a","historyLength":2}"#, "b"]),
            Ok(json!({"id": "b", "historyLength": 2}))
        );
        // A params member named like a global option is set through --params only.
        assert_eq!(
            params_for("ListTasks", &["--context-id", "c1"]).map(|p| p.get("contextId").cloned()),
            Ok(None)
        );
    }

    #[test]
    fn message_text() {
        let params = params_for("SendMessage", &["hello", "there", "--context-id", "c1"]).unwrap_or_default();
        assert_eq!(
            params.pointer("/message/parts/0/text"),
            Some(&json!("hello there"))
        );
        assert_eq!(params.pointer("/message/role"), Some(&json!("ROLE_USER")));
        assert_eq!(params.pointer("/message/contextId"), Some(&json!("c1")));
    }

    #[test]
    fn dotted_enum_names_and_short_flags() {
        let params = params_for(
            "_cleveragents/events/subscribe",
            &[
                "--plan",
                "p1",
                "--type",
                "tool.invoked",
                "--type",
                "plan.error",
                "--follow",
            ],
        );
        assert_eq!(
            params,
            Ok(json!({ "planId": "p1", "types": ["tool.invoked", "plan.error"], "follow": true }))
        );
    }

    #[test]
    fn usage_errors() {
        assert_eq!(
            params_for("_cleveragents/plan/status", &[]),
            Err("missing required <PLAN_ID> for _cleveragents/plan/status".into())
        );
        assert_eq!(
            params_for("ListTasks", &["--page-size", "many"]),
            Err("--page-size expects an integer, got `many`".into())
        );
        assert!(params_for("ListTasks", &["--status", "sleepy"])
            .is_err_and(|e| e.starts_with("--status: `sleepy` is not one of")));
        assert_eq!(
            params_for("ListTasks", &["--params", "[1]"]),
            Err("--params must be a JSON object".into())
        );
    }

    #[test]
    fn bare_spec_file_is_wrapped() {
        let fields = fields("ActionAddParams");
        let spec = parse_object(r#"{"name": "x"}"#, "t").unwrap_or_default();
        let wrapped = wrap_bare_object(&fields, spec.clone());
        assert_eq!(Value::Object(wrapped), json!({"action": {"name": "x"}}));
        let full = parse_object(r#"{"action": {"name": "x"}, "namespace": "n"}"#, "t").unwrap_or_default();
        assert_eq!(wrap_bare_object(&fields, full.clone()), full);
    }
}
