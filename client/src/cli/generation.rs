//! The CLI's flags over task generations (A2A 1.1, spec §3.2.7), and the
//! refusal, before any call, of what the version the agent offers lacks:
//!
//! - `--wait` on a read with a long-poll member (`tasks get`): a first read
//!   gives the task's generation, then the read is held until the task moves
//!   past it (`--current-generation N` waits past N without the first read),
//!   or as the task stands when `--timeout` passes;
//! - `--if-generation N` on the sends (`send`, `send-streaming`): the message
//!   is refused (`TASK_GENERATION_MISMATCH`, exit 7) unless the task it
//!   continues is at generation N.
//!
//! Both, and any params member the schema marks newer (`x-since`) than the
//! version in effect, end the command with exit 8 (unsupported).

use super::exit;
use crate::any::AnyTransport;
use crate::generation::{generation_of, LONG_POLL_FIELD};
use crate::negotiate::{self, NewerMember};
use crate::schema;
use a2a::rpc::{CallError, Transport};
use a2a::MethodDescriptor;
use clap::{Arg, ArgAction, ArgMatches};
use serde_json::{json, Map, Value};

/// `--wait`: long-poll until the task changes.
pub const WAIT: &str = "wait";
/// `--if-generation N`: a conditional send.
pub const IF_GENERATION: &str = "if-generation";
/// The params member of the sends holding their configuration.
const CONFIGURATION: &str = "configuration";
/// The configuration member of a conditional send.
const IF_GENERATION_MATCH: &str = "ifGenerationMatch";

/// The `x-since` of the member at `path` under definition `type_name`, or
/// `Some("")` for a member without one; `None` when there is no such member.
fn member_since(type_name: &str, path: &[&str]) -> Option<&'static str> {
    let mut schema = schema::definition(type_name)?;
    let mut since = None;
    for member in path {
        let property = schema::resolve(schema).get("properties")?.get(*member)?;
        since = Some(property.get("x-since").and_then(Value::as_str).unwrap_or(""));
        schema = property;
    }
    since
}

/// The flags `method` takes for generations, from its params schema.
pub fn args(method: &MethodDescriptor) -> Vec<Arg> {
    let mut args = Vec::new();
    if let Some(since) = member_since(method.params_type, &[LONG_POLL_FIELD]).filter(|_| !method.streaming) {
        args.push(Arg::new(WAIT).long(WAIT).action(ArgAction::SetTrue).help(format!(
            "Long-poll (A2A {since}): answer once the task changes after a first read, \
             or as it stands when --timeout passes; with --current-generation N, once it passes N"
        )));
    }
    if let Some(since) = member_since(method.params_type, &[CONFIGURATION, IF_GENERATION_MATCH]) {
        args.push(
            Arg::new(IF_GENERATION)
                .long(IF_GENERATION)
                .value_name("N")
                .allow_negative_numbers(true)
                .value_parser(clap::value_parser!(i64))
                .help(format!(
                    "Send only if the task the message continues is at generation N (A2A {since}); \
                     else refused with TASK_GENERATION_MISMATCH (exit 7)"
                )),
        );
    }
    args
}

/// Puts `--if-generation` into the params' configuration.
pub fn apply(matches: &ArgMatches, params: &mut Map<String, Value>) {
    let Some(n) = matches.try_get_one::<i64>(IF_GENERATION).ok().flatten() else {
        return;
    };
    let configuration = params
        .entry(CONFIGURATION)
        .or_insert_with(|| Value::Object(Map::new()));
    if !configuration.is_object() {
        *configuration = Value::Object(Map::new());
    }
    configuration[IF_GENERATION_MATCH] = json!(n);
}

/// True when the command line asks to `--wait`.
pub fn wants_wait(matches: &ArgMatches) -> bool {
    matches
        .try_get_one::<bool>(WAIT)
        .ok()
        .flatten()
        .copied()
        .unwrap_or(false)
}

/// Why the call cannot be made in `version`: the first params member (or
/// `--wait`'s) the version lacks, named as the command line gave it.
pub fn refusal(method: &MethodDescriptor, params: &Value, wait: bool, version: &str) -> Option<String> {
    let mut newer = negotiate::newer_members(method.params_type, params, version);
    if wait && params.get(LONG_POLL_FIELD).is_none() {
        let since = member_since(method.params_type, &[LONG_POLL_FIELD]).unwrap_or("");
        if !negotiate::reaches(version, since) {
            newer.insert(
                0,
                NewerMember {
                    path: LONG_POLL_FIELD.into(),
                    since,
                },
            );
        }
    }
    let first = newer.first()?;
    let what = if first.path == LONG_POLL_FIELD && wait {
        format!("--{WAIT}")
    } else if first.path == format!("{CONFIGURATION}.{IF_GENERATION_MATCH}") {
        format!("--{IF_GENERATION}")
    } else if !first.path.contains('.') {
        format!("--{}", super::naming::kebab(&first.path))
    } else {
        format!("`{}`", first.path)
    };
    Some(format!(
        "{what} needs A2A {}, which the agent does not offer here (it speaks {version})",
        first.since
    ))
}

/// A long-poll read of `method`: from the generation a first read gives
/// unless the params name one. When the call runs out of time, the task
/// as a plain read gives it. `Err` carries the exit code and the message.
pub async fn wait(
    transport: &AnyTransport,
    method: &'static MethodDescriptor,
    mut params: Value,
) -> Result<Value, (i32, String)> {
    let failed = |error: CallError| (exit::code_of(&error), exit::message_of(&error));
    if params.get(LONG_POLL_FIELD).is_none() {
        let task = transport
            .call(method.name, params.clone())
            .await
            .map_err(failed)?;
        let Some(generation) = generation_of(&task).filter(|g| *g > 0) else {
            return Err((
                exit::UNSUPPORTED,
                "--wait: the agent keeps no generation for the task".into(),
            ));
        };
        params[LONG_POLL_FIELD] = json!(generation);
    }
    eprintln!(
        "waiting for task `{}` to pass generation {}",
        params["id"].as_str().unwrap_or(""),
        params[LONG_POLL_FIELD]
    );
    match transport.call(method.name, params.clone()).await {
        // Out of time (the server's answer did not come within --timeout):
        // the task as it stands.
        Err(CallError::Transport(_)) => {
            if let Some(members) = params.as_object_mut() {
                members.remove(LONG_POLL_FIELD);
            }
            transport.call(method.name, params).await.map_err(failed)
        }
        outcome => outcome.map_err(failed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{NEWEST_PROTOCOL_VERSION, PROTOCOL_VERSION};

    fn method(name: &str) -> &'static MethodDescriptor {
        a2a::find_method(name).expect("method")
    }

    #[test]
    fn flags_follow_the_schema() {
        let names = |name: &str| -> Vec<String> {
            args(method(name))
                .iter()
                .map(|a| a.get_id().to_string())
                .collect()
        };
        assert_eq!(names("GetTask"), [WAIT]);
        assert_eq!(names("SendMessage"), [IF_GENERATION]);
        assert_eq!(names("SendStreamingMessage"), [IF_GENERATION]);
        assert!(names("ListTasks").is_empty());
        assert_eq!(
            member_since("SendMessageRequest", &[CONFIGURATION, IF_GENERATION_MATCH]),
            Some(NEWEST_PROTOCOL_VERSION)
        );
        assert_eq!(member_since("GetTaskRequest", &["id"]), Some(""));
    }

    #[test]
    fn refused_in_a_version_without_generations() {
        let get = method("GetTask");
        let plain = json!({"id": "t"});
        assert_eq!(refusal(get, &plain, false, PROTOCOL_VERSION), None);
        let refused = refusal(get, &plain, true, PROTOCOL_VERSION).unwrap_or_default();
        assert!(refused.starts_with("--wait needs A2A"), "{refused}");
        assert_eq!(refusal(get, &plain, true, NEWEST_PROTOCOL_VERSION), None);
        let send = method("SendMessage");
        let conditional = json!({"message": {}, "configuration": {"ifGenerationMatch": 2}});
        let refused = refusal(send, &conditional, false, PROTOCOL_VERSION).unwrap_or_default();
        assert!(refused.starts_with("--if-generation needs A2A"), "{refused}");
        let polled = json!({"id": "t", "currentGeneration": 2});
        let refused = refusal(get, &polled, false, PROTOCOL_VERSION).unwrap_or_default();
        assert!(refused.starts_with("--current-generation needs A2A"), "{refused}");
    }
}
