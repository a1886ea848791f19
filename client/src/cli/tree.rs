//! The command tree, derived at run time from the generated method table and
//! the params schemas: one command per method, one flag (or positional) per
//! params field, so a method added to a schema appears without CLI code.
//!
//! Naming rules:
//! - extension methods: the path after the prefix, one word per segment
//!   (`_cleveragents/registry/actors/add` → `registry actors add`);
//! - A2A methods: the verb (first word, lowercased, with `Streaming` appended as
//!   `-streaming`, filler `To` dropped) under a group named after the noun
//!   (`GetTask` → `tasks get`, `SubscribeToTask` → `tasks subscribe`,
//!   `CreateTaskPushNotificationConfig` → `push-config create`); a few nouns
//!   have a fixed place ([`A2A_NOUNS`]); an unknown noun becomes its own
//!   kebab-case group.
//! - a group that holds exactly one method (and nothing else) also runs it, so
//!   `events --plan P` is `events subscribe --plan P` and `health` is
//!   `health check`; the longer spelling keeps working.
//!
//! Params rules: required scalar fields (string, integer, enum) are
//! positionals in schema order; every other scalar is a `--kebab-name` flag,
//! arrays of scalars are repeatable flags, objects take JSON (or `@file`); a
//! `Message` field takes its text as positionals. `-f FILE` and `--params JSON`
//! are always there.

use super::naming::kebab;
use crate::schema;
use a2a::MethodDescriptor;
use clap::{Arg, ArgAction, Command};
use serde_json::Value;

/// Where A2A nouns go: (noun without plural `s`, command group path).
/// An empty path puts the verb at the top level.
pub const A2A_NOUNS: &[(&str, &[&str])] = &[
    ("Message", &[]),
    ("Task", &["task"]),
    ("TaskPushNotificationConfig", &["task", "push-config"]),
    ("ExtendedAgentCard", &["card"]),
];

/// The methods the A2A CLI standard gives commands of their own (see
/// `standard`), with the command line that calls each: not derived.
pub fn standard_invocation(name: &str) -> Option<&'static [&'static str]> {
    use a2a::methods::markers::{
        CancelTask, GetExtendedAgentCard, GetTask, SendMessage, SendStreamingMessage, SubscribeToTask,
    };
    use a2a::rpc::Method;
    let table: [(&str, &'static [&'static str]); 6] = [
        (SendMessage::NAME, &["send"]),
        (SendStreamingMessage::NAME, &["send", "--stream"]),
        (GetTask::NAME, &["task", "get"]),
        (CancelTask::NAME, &["task", "cancel"]),
        (SubscribeToTask::NAME, &["task", "subscribe", "--stream"]),
        (GetExtendedAgentCard::NAME, &["card", "get", "--extended"]),
    ];
    table
        .iter()
        .find(|(method, _)| *method == name)
        .map(|(_, args)| *args)
}

/// The command line (words after `agents`) that calls `method`: the
/// standard's command, or the derived one.
pub fn invocation(method: &MethodDescriptor) -> Option<Vec<String>> {
    match standard_invocation(method.name) {
        Some(args) => Some(args.iter().map(|a| a.to_string()).collect()),
        None => command_path(method),
    }
}

/// Flags the CLI itself owns; a params field of the same name is settable only
/// through `--params`/`-f`.
pub fn reserved(flag: &str) -> bool {
    const OWN: &[&str] = &[
        "params",
        "file",
        "follow",
        "help",
        "version",
        super::generation::IF_GENERATION,
    ];
    OWN.contains(&flag) || super::settings::option(flag).is_some()
}

/// The command path of a method, or `None` for binding methods and
/// notifications (the transport handles those).
pub fn command_path(method: &MethodDescriptor) -> Option<Vec<String>> {
    if !method.is_dispatched() || method.notification || standard_invocation(method.name).is_some() {
        return None;
    }
    if let Some(prefix) = method.contract.method_prefix() {
        let rest = method.name.strip_prefix(prefix)?;
        return Some(
            rest.split('/')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        );
    }
    let words = pascal_words(method.name);
    let (verb, rest) = words.split_first()?;
    let mut verb = verb.to_ascii_lowercase();
    let mut noun = String::new();
    for word in rest {
        match word.as_str() {
            "To" => {}
            "Streaming" => verb.push_str("-streaming"),
            other => noun.push_str(other),
        }
    }
    let singular = noun.strip_suffix('s').unwrap_or(&noun);
    let mut path = Vec::new();
    match A2A_NOUNS.iter().find(|(n, _)| *n == singular) {
        Some((_, group)) => {
            path.extend(group.iter().map(|g| g.to_string()));
            path.push(verb);
        }
        None if singular.is_empty() => path.push(verb),
        None => {
            path.push(kebab(singular));
            path.push(verb);
        }
    }
    Some(path)
}

fn pascal_words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for c in name.chars() {
        match words.last_mut() {
            Some(word) if !c.is_ascii_uppercase() => word.push(c),
            _ => words.push(c.to_string()),
        }
    }
    words
}

/// How a params field is given on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A string, given as it is.
    Str,
    /// An integer.
    Int,
    /// A boolean flag, `true` when given.
    Bool,
    /// A string enum with its wire names.
    Enum(Vec<String>),
    /// Repeatable flag; enum names when the items are an enum.
    List(Option<Vec<String>>),
    /// JSON text or `@file`.
    Json,
    /// A message given as its text.
    Message,
}

/// One params field as the CLI sees it.
#[derive(Clone, Debug)]
pub struct Field {
    /// Wire (camelCase) name: also the clap argument id.
    pub name: String,
    /// How the value is given and turned into JSON.
    pub kind: Kind,
    /// Whether the params schema requires the field.
    pub required: bool,
    /// Given as a positional argument rather than a flag (a required scalar field).
    pub positional: bool,
    /// The help line: the first sentence of the field's schema description.
    pub help: String,
}

/// The fields of a params definition, in schema order.
pub fn fields(params_type: &str) -> Vec<Field> {
    let Some(def) = schema::definition(params_type) else {
        return Vec::new();
    };
    let required: Vec<&str> = def
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = def.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let kind = kind_of(property);
            let is_required = required.contains(&name.as_str());
            let positional =
                is_required && matches!(kind, Kind::Str | Kind::Int | Kind::Enum(_) | Kind::Message);
            Field {
                name: name.clone(),
                help: first_sentence(property.get("description").and_then(Value::as_str).unwrap_or("")),
                kind,
                required: is_required,
                positional,
            }
        })
        .collect()
}

fn kind_of(property: &'static Value) -> Kind {
    if schema::ref_name(property) == Some("Message") {
        return Kind::Message;
    }
    let resolved = schema::resolve(property);
    if let Some(names) = enum_names(resolved) {
        return Kind::Enum(names);
    }
    match resolved.get("type").and_then(Value::as_str) {
        Some("string") => Kind::Str,
        Some("integer") => Kind::Int,
        Some("boolean") => Kind::Bool,
        Some("array") => {
            let items = resolved.get("items").map(schema::resolve);
            match items {
                Some(items) if enum_names(items).is_some() => Kind::List(enum_names(items)),
                Some(items) if items.get("type").and_then(Value::as_str) == Some("string") => {
                    Kind::List(None)
                }
                _ => Kind::Json,
            }
        }
        _ => Kind::Json,
    }
}

fn enum_names(schema: &Value) -> Option<Vec<String>> {
    let names = schema.get("enum")?.as_array()?;
    Some(
        names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
    )
}

/// The first sentence of a description, for one-line help.
pub fn first_sentence(text: &str) -> String {
    let end = text.find(". ").map_or(text.len(), |i| i + 1);
    text[..end].trim().to_string()
}

/// True when a unary method's answer names a task that `--follow` can follow:
/// its result type requires `taskId`, or one of its alternatives is a `task`.
pub fn can_follow(method: &MethodDescriptor) -> bool {
    if method.streaming {
        return false;
    }
    let Some(def) = schema::definition(method.result_type) else {
        return false;
    };
    let requires = |d: &Value, key: &str| {
        d.get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|v| v.as_str() == Some(key)))
    };
    requires(def, "taskId")
        || def
            .get("oneOf")
            .and_then(Value::as_array)
            .is_some_and(|alts| alts.iter().any(|alt| requires(alt, "task")))
}

/// The clap command of one method.
pub fn method_command(name: String, method: &'static MethodDescriptor) -> Command {
    let mut about = first_sentence(method.description);
    if method.streaming {
        about.push_str(" (streams)");
    }
    let mut command = Command::new(name)
        .about(about)
        .long_about(format!("{}\n\nJSON-RPC method: {}", method.description, method.name))
        .arg(
            Arg::new("file")
                .short('f')
                .long("file")
                .value_name("FILE")
                .help("Read the params object from FILE (`-` for stdin); a bare object of the one required object field is wrapped in it"),
        )
        .arg(
            Arg::new("params")
                .long("params")
                .value_name("JSON")
                .help("Params as a JSON object (merged over -f; flags win)"),
        );
    if can_follow(method) {
        command = command.arg(
            Arg::new("follow")
                .long("follow")
                .action(ArgAction::SetTrue)
                .help("Follow the task the answer names (SubscribeToTask) until it ends"),
        );
    }
    command = command.args(super::generation::args(method));
    let mut index = 1;
    let all_fields = fields(method.params_type);
    let mut taken: Vec<String> = all_fields
        .iter()
        .map(|f| kebab(&f.name))
        .chain(super::settings::OPTIONS.iter().map(|o| o.long.to_string()))
        .collect();
    for field in all_fields {
        let flag = kebab(&field.name);
        if field.positional {
            let mut arg = Arg::new(field.name.clone())
                .value_name(flag.to_ascii_uppercase().replace('-', "_"))
                .help(field.help.clone())
                .index(index);
            index += 1;
            if field.kind == Kind::Message {
                arg = arg.value_name("TEXT").num_args(1..).help("The message text");
            }
            command = command.arg(arg);
            if field.kind == Kind::Message {
                for (sub, help) in [
                    ("contextId", "Context (session) of the message"),
                    ("taskId", "Task the message continues"),
                ] {
                    let sub_flag = kebab(sub);
                    if !reserved(&sub_flag) {
                        command = command.arg(
                            Arg::new(format!("{}.{sub}", field.name))
                                .long(sub_flag)
                                .value_name("ID")
                                .help(help),
                        );
                    }
                }
            }
            continue;
        }
        // `--follow` is the CLI's own only where it follows a task the answer names.
        let own_follow = flag == "follow" && !can_follow(method);
        if reserved(&flag) && !own_follow {
            continue;
        }
        let mut arg = Arg::new(field.name.clone())
            .long(flag.clone())
            .help(field.help.clone());
        if let Some(short) = shorter_flag(&flag, &field.kind).filter(|f| !taken.contains(f)) {
            taken.push(short.clone());
            arg = arg.visible_alias(short);
        }
        arg = match &field.kind {
            Kind::Bool => arg.action(ArgAction::SetTrue),
            Kind::List(_) => arg.action(ArgAction::Append).value_name("VALUE"),
            Kind::Json => arg.value_name("JSON|@FILE"),
            Kind::Int => arg.value_name("N"),
            _ => arg.value_name("VALUE"),
        };
        if let Kind::Enum(names) | Kind::List(Some(names)) = &field.kind {
            let shown: Vec<&str> = names.iter().map(|n| short_enum(n)).collect();
            arg = arg.help(format!("{} [values: {}]", field.help, shown.join(", ")));
        }
        command = command.arg(arg);
    }
    command
}

/// A shorter spelling accepted for a flag: `--plan` for `--plan-id`, and the
/// singular of a repeatable flag (`--type T --type U` for `--types`).
fn shorter_flag(flag: &str, kind: &Kind) -> Option<String> {
    if let Some(stem) = flag.strip_suffix("-id").filter(|s| !s.is_empty()) {
        return Some(stem.to_string());
    }
    match kind {
        Kind::List(_) => flag
            .strip_suffix('s')
            .filter(|s| s.len() > 1 && !s.ends_with('s'))
            .map(str::to_string),
        _ => None,
    }
}

/// The part of an enum name after its type prefix (`TASK_STATE_COMPLETED` →
/// `completed`), for help and output.
pub fn short_enum(name: &str) -> &str {
    // The prefix is the type's name; the value is the last segment unless the
    // value itself has several words, so strip the common known prefixes.
    const PREFIXES: &[&str] = &[
        "TASK_STATE_",
        "ROLE_",
        "PLAN_PHASE_",
        "PLAN_STATE_",
        "PLAN_STEP_STATE_",
        "PLAN_PROMPT_KIND_",
    ];
    PREFIXES.iter().find_map(|p| name.strip_prefix(p)).unwrap_or(name)
}

/// A node of the tree under construction.
struct Node {
    name: String,
    method: Option<&'static MethodDescriptor>,
    children: Vec<Node>,
}

impl Node {
    fn child(&mut self, name: &str) -> &mut Node {
        let index = match self.children.iter().position(|c| c.name == name) {
            Some(index) => index,
            None => {
                self.children.push(Node {
                    name: name.to_string(),
                    method: None,
                    children: Vec::new(),
                });
                self.children.len() - 1
            }
        };
        &mut self.children[index]
    }

    /// The one method of a group that holds nothing else.
    fn only_method(&self) -> Option<&'static MethodDescriptor> {
        match self.children.as_slice() {
            [only] if self.method.is_none() && only.children.is_empty() => only.method,
            _ => None,
        }
    }

    fn into_command(self) -> Command {
        let has_children = !self.children.is_empty();
        let runs = self.method.or_else(|| self.only_method());
        let mut command = match runs {
            Some(method) => method_command(self.name, method),
            None => Command::new(self.name.clone()).about(format!("{} commands", self.name)),
        };
        for child in self.children {
            command = command.subcommand(child.into_command());
        }
        if has_children && runs.is_none() {
            command = command.subcommand_required(true).arg_required_else_help(true);
        } else if has_children {
            // A word that names the subcommand is the subcommand, not a value.
            command = command.args_conflicts_with_subcommands(true);
        }
        command
    }
}

/// The derived method commands, to be added under the root command, with
/// `grafts` (group path, command) added to their groups: a top-level group
/// is made when no method lives in it; a nested one (`task push-config`)
/// must exist.
pub fn method_commands(grafts: Vec<(&str, Command)>) -> Vec<Command> {
    let mut root = Node {
        name: String::new(),
        method: None,
        children: Vec::new(),
    };
    for method in a2a::METHODS {
        let Some(path) = command_path(method) else {
            continue;
        };
        let mut node = &mut root;
        for segment in &path {
            node = node.child(segment);
        }
        node.method = Some(method);
    }
    for (group, _) in &grafts {
        if let Some(top) = group.split_whitespace().next() {
            root.child(top);
        }
    }
    let mut commands: Vec<Command> = root
        .children
        .into_iter()
        .map(|node| {
            let name = node.name.clone();
            let mut command = if node.children.is_empty() && node.method.is_none() {
                Command::new(name.clone())
                    .about(format!("{name} commands"))
                    .subcommand_required(true)
                    .arg_required_else_help(true)
            } else {
                node.into_command()
            };
            for (group, graft) in &grafts {
                let mut words = group.split_whitespace();
                if words.next() != Some(name.as_str()) {
                    continue;
                }
                let nested: Vec<&str> = words.collect();
                command = graft_into(command, &nested, graft.clone());
            }
            command
        })
        .collect();
    commands.push(Command::new(OPENRPC_COMMAND).about("Show the agent's OpenRPC document (rpc.discover)"));
    commands
}

/// `command` with `graft` added under the subcommand path `nested`.
fn graft_into(command: Command, nested: &[&str], graft: Command) -> Command {
    match nested.split_first() {
        None => command.subcommand(graft),
        Some((first, rest)) => command.mut_subcommand(*first, |sub| graft_into(sub, rest, graft)),
    }
}

/// The command that asks the agent for its OpenRPC document.
pub const OPENRPC_COMMAND: &str = "openrpc";

/// Finds the method whose command path is `path`, or the one method of the
/// group at `path` when the group holds nothing else.
pub fn method_at(path: &[String]) -> Option<&'static MethodDescriptor> {
    if let Some(method) = a2a::METHODS
        .iter()
        .find(|m| command_path(m).as_deref() == Some(path))
    {
        return Some(method);
    }
    let mut under = a2a::METHODS.iter().filter_map(|m| {
        let full = command_path(m)?;
        (full.len() > path.len() && full.starts_with(path)).then_some((m, full.len()))
    });
    match (under.next(), under.next()) {
        (Some((method, len)), None) if len == path.len() + 1 && !path.is_empty() => Some(method),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path_of(name: &str) -> Option<String> {
        a2a::find_method(name).and_then(command_path).map(|p| p.join(" "))
    }

    #[test]
    fn paths() {
        let invoked = |name: &str| a2a::find_method(name).and_then(invocation).map(|p| p.join(" "));
        let cases = [
            ("SendMessage", "send"),
            ("SendStreamingMessage", "send --stream"),
            ("GetTask", "task get"),
            ("ListTasks", "task list"),
            ("CancelTask", "task cancel"),
            ("SubscribeToTask", "task subscribe --stream"),
            ("CreateTaskPushNotificationConfig", "task push-config create"),
            ("ListTaskPushNotificationConfigs", "task push-config list"),
            ("GetExtendedAgentCard", "card get --extended"),
            ("_cleveragents/plan/status", "plan status"),
            (
                "_cleveragents/registry/resource-types/add",
                "registry resource-types add",
            ),
        ];
        for (method, path) in cases {
            assert_eq!(invoked(method).as_deref(), Some(path), "{method}");
        }
        // The standard's commands are not derived.
        assert_eq!(path_of("SendMessage"), None);
        assert_eq!(path_of("initialize"), None);
        // A group of one method runs it; a group of several does not.
        let at = |path: &[&str]| {
            let path: Vec<String> = path.iter().map(|s| s.to_string()).collect();
            method_at(&path).map(|m| m.name)
        };
        assert_eq!(at(&["events"]), Some("_cleveragents/events/subscribe"));
        assert_eq!(
            at(&["events", "subscribe"]),
            Some("_cleveragents/events/subscribe")
        );
        assert_eq!(at(&["health"]), Some("_cleveragents/health/check"));
        assert_eq!(at(&["send"]), None);
        assert_eq!(at(&["task", "get"]), None);
        assert_eq!(at(&["session"]), None);
        assert_eq!(at(&["registry", "actors"]), None);
        assert_eq!(at(&[]), None);
        assert_eq!(path_of("stream/event"), None);
        assert_eq!(kebab("historyLength"), "history-length");
    }

    #[test]
    fn every_method_has_a_distinct_command() {
        let mut seen = std::collections::BTreeSet::new();
        for method in a2a::METHODS.iter().filter(|m| m.is_dispatched()) {
            let words = invocation(method).map(|p| p.join(" "));
            assert!(
                words.as_ref().is_some_and(|p| seen.insert(p.clone())),
                "{}",
                method.name
            );
            if let Some(path) = command_path(method) {
                assert_eq!(method_at(&path).map(|m| m.name), Some(method.name));
            }
        }
    }

    #[test]
    fn fields_from_schema() {
        let status: Vec<(String, bool)> = fields("PlanStatusParams")
            .into_iter()
            .map(|f| (f.name, f.positional))
            .collect();
        assert_eq!(
            status,
            [("namespace".to_string(), false), ("planId".to_string(), true)]
        );
        let list = fields("ListTasksRequest");
        let state = list.iter().find(|f| f.name == "status").map(|f| &f.kind);
        assert!(
            matches!(state, Some(Kind::Enum(names)) if names.contains(&"TASK_STATE_COMPLETED".to_string()))
        );
        let send = fields("SendMessageRequest");
        assert_eq!(
            send.iter()
                .find(|f| f.name == "message")
                .map(|f| (&f.kind, f.positional)),
            Some((&Kind::Message, true))
        );
        assert!(can_follow(
            a2a::find_method("_cleveragents/plan/execute").expect("execute")
        ));
        assert!(can_follow(a2a::find_method("SendMessage").expect("send")));
        assert!(!can_follow(
            a2a::find_method("_cleveragents/plan/status").expect("status")
        ));
    }
}
