//! What a draft version of A2A adds, read from the schema: the members that
//! carry `x-since: <version>` and the registry errors `since` it. The cases
//! of [`super`] are derived from these facts: a draft that adds no member to
//! the task and its update events has no generation cases, one whose
//! registry adds no error has no refusal case.
//!
//! For A2A 1.1 they are: `generation` on the task (GetTask's result) and on
//! each stream event that carries it, GetTask's `currentGeneration`
//! (long-polling), SendMessage's `configuration.ifGenerationMatch`
//! (conditional sends), and TaskGenerationMismatch.

use crate::schema::schemas;
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::{Contract, ErrorKind};
use serde_json::Value;

/// What the schema says draft `version` adds.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    /// The draft version (`1.1`).
    pub version: &'static str,
    /// The integer member the version adds to the task, GetTask's result,
    /// and the keys of the stream events whose payload carries it too.
    pub generation: Option<(String, Vec<String>)>,
    /// The integer member the version adds to GetTask's params (long-polling).
    pub long_poll: Option<String>,
    /// The integer member the version adds to SendMessage's `configuration`.
    pub conditional: Option<String>,
    /// The error the version adds to SendMessage's registry errors.
    pub refusal: Option<ErrorKind>,
}

impl Draft {
    /// The facts of `version`, read from the contract's schema.
    pub fn of(version: &'static str) -> Draft {
        let task = markers::GetTask::descriptor().result_type;
        let generation = added_integer(task, version).map(|member| {
            let events = stream_events(version, &member);
            (member, events)
        });
        let conditional = schemas()
            .definition(markers::SendMessage::descriptor().params_type)
            .and_then(|def| property_definition(def, "configuration"))
            .and_then(|name| added_integer(name, version));
        Draft {
            version,
            generation,
            long_poll: added_integer(markers::GetTask::descriptor().params_type, version),
            conditional,
            refusal: added_error(version),
        }
    }

    /// The drafts the contract declares (`x-contract.draftVersions`).
    pub fn all() -> Vec<Draft> {
        Contract::A2a
            .draft_versions()
            .iter()
            .map(|v| Draft::of(v))
            .collect()
    }

    /// The group of the draft's cases (`v1_1`).
    pub fn group(&self) -> String {
        format!("v{}", self.version.replace('.', "_"))
    }

    /// The members the draft adds to answers, which a caller of an older
    /// version never sees.
    pub fn answer_members(&self) -> Vec<&str> {
        self.generation.iter().map(|(m, _)| m.as_str()).collect()
    }
}

/// The integer member of definition `name` whose `x-since` is `version`.
fn added_integer(name: &str, version: &str) -> Option<String> {
    let s = schemas();
    let def = s.resolve(s.definition(name)?);
    def.get("properties")?
        .as_object()?
        .iter()
        .find(|(_, prop)| {
            let prop = s.resolve(prop);
            prop.get("x-since").and_then(Value::as_str) == Some(version)
                && prop.get("type").and_then(Value::as_str) == Some("integer")
        })
        .map(|(member, _)| member.clone())
}

/// The definition a `$ref` property of `def` names.
fn property_definition<'a>(def: &'a Value, property: &str) -> Option<&'a str> {
    let reference = def.pointer(&format!("/properties/{property}/$ref"))?.as_str()?;
    reference.rsplit('/').next()
}

/// The keys of the stream events (SendStreamingMessage's result, one of)
/// whose payload's definition has `member` since `version`.
fn stream_events(version: &str, member: &str) -> Vec<String> {
    let s = schemas();
    let result = markers::SendStreamingMessage::descriptor().result_type;
    let Some(def) = s.definition(result).map(|d| s.resolve(d)) else {
        return Vec::new();
    };
    let alternatives = def
        .get("oneOf")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut keys = Vec::new();
    for alternative in &alternatives {
        let Some(props) = alternative.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (key, prop) in props {
            let Some(name) = prop
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.rsplit('/').next())
            else {
                continue;
            };
            if added_integer(name, version).as_deref() == Some(member) {
                keys.push(key.clone());
            }
        }
    }
    keys
}

/// The registry error (`x-errors`) `since` `version` that SendMessage declares.
fn added_error(version: &str) -> Option<ErrorKind> {
    let document = a2a::schema::documents()
        .iter()
        .find(|d| d.pointer("/x-contract/name").and_then(Value::as_str) == Some(Contract::A2a.name()))?;
    let registry = document.get("x-errors")?.as_object()?;
    registry
        .values()
        .filter(|entry| entry.get("since").and_then(Value::as_str) == Some(version))
        .filter_map(|entry| entry.get("reason").and_then(Value::as_str))
        .filter_map(|reason| ErrorKind::from_reason(Contract::A2a.error_domain(), reason))
        .find(|kind| markers::SendMessage::descriptor().errors.contains(kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_facts_of_1_1_are_read_from_the_schema() {
        let drafts = Draft::all();
        let draft = drafts
            .iter()
            .find(|d| d.version == "1.1")
            .expect("1.1 is a draft");
        let (member, events) = draft.generation.clone().expect("a generation member");
        assert_eq!(member, "generation");
        assert_eq!(events, ["task", "statusUpdate", "artifactUpdate"]);
        assert_eq!(draft.long_poll.as_deref(), Some("currentGeneration"));
        assert_eq!(draft.conditional.as_deref(), Some("ifGenerationMatch"));
        assert_eq!(draft.refusal, Some(ErrorKind::TaskGenerationMismatch));
        assert_eq!(draft.group(), "v1_1");
        // The version the generated types say the newest task member came in.
        let since = a2a::types::Task::NEWEST_MEMBER_SINCE;
        assert_eq!(format!("{}.{}", since.major, since.minor), draft.version);
    }
}
