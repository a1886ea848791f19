//! The CLI's flags over task generations (A2A 1.1, spec §3.2.7), and the
//! refusal, before any call, of what the version the agent offers lacks:
//!
//! - `--wait` on `task get` polls until the task settles; where the agent
//!   speaks a version with a long-poll member, each read is held until the
//!   task moves (see `wait`);
//! - `--if-generation N` on `send`: the message is refused
//!   (`TaskGenerationMismatchError`) unless the task it continues is at
//!   generation N.
//!
//! `--if-generation`, and any params member the schema marks newer
//! (`x-since`) than the version in effect, is a usage error before any call.

use crate::generation::LONG_POLL_FIELD;
use crate::negotiate::{self, NewerMember};
use crate::schema;
use a2a::MethodDescriptor;
use clap::{Arg, ArgMatches};
use serde_json::{json, Map, Value};

/// `--wait` (global): on a read with a long-poll member, each poll is held
/// by the agent until the task changes.
pub const WAIT: &str = super::settings::id::WAIT;
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
        assert!(names("GetTask").is_empty());
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
