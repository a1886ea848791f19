//! ACTS documents: loading (YAML 1.2 or JSON, a file or a folder, `include`s
//! followed) and the structure of a test, validated against the grammar of the
//! specification (its Appendix A) one test at a time.
//!
//! A document that cannot be read, or whose top level is not an ACTS document,
//! stops the run (the runner cannot know what it would have tested). A test
//! whose structure departs from the grammar is not executed: it is reported
//! as an `error` naming the rule it breaks, and the other tests still run —
//! a draft suite with one malformed test stays usable.

use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The major version of the ACTS format this runner executes (§17).
pub const SUPPORTED_MAJOR: &str = "1";
/// The file names a folder is scanned for.
const ACTS_SUFFIXES: [&str; 3] = [".acts.yaml", ".acts.yml", ".acts.json"];
/// The master file of a folder: when present, its includes define the suite.
const MASTER_FILE: &str = "suite.acts.yaml";

/// One loaded document, its suites with their tests still unvalidated.
#[derive(Debug)]
pub struct Document {
    pub path: PathBuf,
    pub acts_version: String,
    pub spec_version: String,
    pub variables: BTreeMap<String, String>,
    pub suites: Vec<Suite>,
}

/// A suite; each test is kept as written and validated when it is run.
#[derive(Debug)]
pub struct Suite {
    pub id: String,
    pub name: String,
    pub tags: Vec<String>,
    pub tests: Vec<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDocument {
    acts_version: String,
    spec_version: String,
    #[serde(default)]
    spec_ref: Option<String>,
    #[serde(default)]
    metadata: Option<Value>,
    #[serde(default)]
    variables: BTreeMap<String, String>,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    suites: Vec<RawSuite>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    id: String,
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    tests: Vec<Value>,
}

/// Loads `path` (a document, or a folder: its `suite.acts.yaml` if it has one,
/// else every `*.acts.yaml`/`*.acts.json` in name order), following includes.
/// Each document appears once, in the order first reached.
pub fn load(path: &Path) -> Result<Vec<Document>, String> {
    let mut loaded = Vec::new();
    let mut seen = BTreeSet::new();
    if path.is_dir() {
        let master = path.join(MASTER_FILE);
        if master.is_file() {
            load_file(&master, &mut seen, &mut loaded)?;
        } else {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("cannot read the folder {}: {e}", path.display()))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| is_acts_file(p))
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(format!(
                    "{} holds no *.acts.yaml or *.acts.json file",
                    path.display()
                ));
            }
            for file in files {
                load_file(&file, &mut seen, &mut loaded)?;
            }
        }
    } else {
        load_file(path, &mut seen, &mut loaded)?;
    }
    Ok(loaded)
}

fn is_acts_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    ACTS_SUFFIXES.iter().any(|s| name.ends_with(s))
}

fn load_file(path: &Path, seen: &mut BTreeSet<PathBuf>, out: &mut Vec<Document>) -> Result<(), String> {
    let canonical = path
        .canonicalize()
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    if !seen.insert(canonical.clone()) {
        return Ok(());
    }
    let text =
        std::fs::read_to_string(&canonical).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value = parse_text(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let raw: RawDocument = serde_json::from_value(value)
        .map_err(|e| format!("{}: not an ACTS document (§2): {e}", path.display()))?;
    let major = raw.acts_version.split('.').next().unwrap_or_default();
    if major != SUPPORTED_MAJOR {
        return Err(format!(
            "{}: acts_version {} is not supported (this runner executes {SUPPORTED_MAJOR}.x, §17)",
            path.display(),
            raw.acts_version
        ));
    }
    if raw.include.is_empty() && raw.suites.is_empty() {
        return Err(format!(
            "{}: an ACTS document needs `suites` or `include` (§2)",
            path.display()
        ));
    }
    let _ = (&raw.spec_ref, &raw.metadata);
    let base = canonical.parent().map(Path::to_path_buf).unwrap_or_default();
    let suites = raw
        .suites
        .into_iter()
        .map(|s| {
            let _ = &s.description;
            Suite {
                id: s.id,
                name: s.name,
                tags: s.tags,
                tests: s.tests,
            }
        })
        .collect();
    out.push(Document {
        path: canonical,
        acts_version: raw.acts_version,
        spec_version: raw.spec_version,
        variables: raw.variables,
        suites,
    });
    for include in raw.include {
        load_file(&base.join(&include), seen, out)?;
    }
    Ok(())
}

/// Parses YAML 1.2 (of which JSON is a subset) into a JSON value.
pub fn parse_text(text: &str) -> Result<Value, String> {
    let docs = yaml_rust2::YamlLoader::load_from_str(text).map_err(|e| format!("not YAML: {e}"))?;
    match docs.as_slice() {
        [one] => yaml_to_json(one),
        [] => Err("the file is empty".into()),
        _ => Err("the file holds more than one YAML document".into()),
    }
}

fn yaml_to_json(yaml: &yaml_rust2::Yaml) -> Result<Value, String> {
    use yaml_rust2::Yaml;
    Ok(match yaml {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Real(text) => {
            let f: f64 = text
                .parse()
                .map_err(|_| format!("`{text}` is not a number JSON can carry"))?;
            serde_json::Number::from_f64(f)
                .map(Value::Number)
                .ok_or_else(|| format!("`{text}` is not a number JSON can carry"))?
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(items) => Value::Array(items.iter().map(yaml_to_json).collect::<Result<_, _>>()?),
        Yaml::Hash(entries) => {
            let mut map = Map::new();
            for (key, value) in entries {
                let key = match key {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    other => return Err(format!("a map key must be a string, found {other:?}")),
                };
                map.insert(key, yaml_to_json(value)?);
            }
            Value::Object(map)
        }
        Yaml::Alias(_) | Yaml::BadValue => {
            return Err("an unresolvable YAML value (alias or bad value)".into())
        }
    })
}

// ---------------------------------------------------------------------------
// The structure of a test (§3–§9, Appendix A)
// ---------------------------------------------------------------------------

/// The conformance level of a test (§3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TestLevel {
    Must,
    Should,
    May,
}

impl TestLevel {
    pub const ALL: [TestLevel; 3] = [TestLevel::Must, TestLevel::Should, TestLevel::May];

    /// The level a test as written declares; MUST when it declares none it
    /// could be counted at (the test is then an error of that level).
    pub fn written(test: &Value) -> TestLevel {
        test.get("level")
            .cloned()
            .and_then(|l| serde_json::from_value(l).ok())
            .unwrap_or(TestLevel::Must)
    }

    /// The name reports use (`must`, `should`, `may`).
    pub fn name(self) -> &'static str {
        match self {
            TestLevel::Must => "must",
            TestLevel::Should => "should",
            TestLevel::May => "may",
        }
    }
}

/// A transport binding (§3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Binding {
    Jsonrpc,
    Grpc,
    Rest,
}

impl Binding {
    pub fn name(self) -> &'static str {
        match self {
            Binding::Jsonrpc => "jsonrpc",
            Binding::Grpc => "grpc",
            Binding::Rest => "rest",
        }
    }
}

/// What a test needs the runner to provide (§3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunnerRequirement {
    WebhookEndpoint,
    ConcurrentStreams,
    StreamDisconnect,
    AuthCredentials,
    HeaderInspection,
}

/// A test, validated.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Test {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub spec_ref: Option<String>,
    pub level: TestLevel,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub transport: Option<Vec<Binding>>,
    #[serde(default)]
    pub preconditions: Option<Preconditions>,
    #[serde(default)]
    pub requires_behaviors: Vec<String>,
    #[serde(default)]
    pub origin: Option<String>,
    #[serde(default)]
    pub runner_requirements: Vec<RunnerRequirement>,
    /// Kept as written; each is validated by [`Step::parse`].
    pub steps: Vec<Value>,
    #[serde(default)]
    pub assertions: Vec<NamedAssertion>,
}

/// What the agent must advertise for a test to apply (§3.3).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preconditions {
    #[serde(default)]
    pub capabilities: Map<String, Value>,
    #[serde(default)]
    pub skills: Vec<SkillRef>,
    #[serde(default)]
    pub transport: Option<Vec<Binding>>,
    #[serde(default)]
    pub extensions: Vec<String>,
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillRef {
    pub id: String,
}

/// An abstract A2A operation (§4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    SendMessage,
    SendStreamingMessage,
    GetTask,
    ListTasks,
    CancelTask,
    SubscribeToTask,
    GetAgentCard,
    GetExtendedAgentCard,
    CreatePushConfig,
    GetPushConfig,
    ListPushConfigs,
    DeletePushConfig,
}

/// One step of a test (§4).
#[derive(Debug)]
pub enum Step {
    Server(Box<ServerStep>),
    Raw(Box<RawStep>),
    Client(ClientStep),
    Assertion(AssertionStep),
}

impl Step {
    /// Validates one step: its kind is told by the member that only it has.
    pub fn parse(value: &Value) -> Result<Step, String> {
        let Some(map) = value.as_object() else {
            return Err("a step must be a map (§4)".into());
        };
        let id = map.get("id").and_then(Value::as_str).unwrap_or("?");
        let kinds = [
            ("operation", "server-step (§4)"),
            ("raw", "raw-step (§4.4)"),
            ("client_response", "client-step (§4, §10)"),
            ("assertion", "assertion-step (§4, §5.5)"),
        ];
        let Some((key, rule)) = kinds.iter().find(|(key, _)| map.contains_key(*key)) else {
            return Err(format!(
                "step `{id}` has none of operation, raw, client_response, assertion (§4)"
            ));
        };
        let why = |e: serde_json::Error| format!("step `{id}` is not a valid {rule}: {e}");
        let value = value.clone();
        Ok(match *key {
            "operation" => Step::Server(Box::new(serde_json::from_value(value).map_err(why)?)),
            "raw" => Step::Raw(Box::new(serde_json::from_value(value).map_err(why)?)),
            "client_response" => Step::Client(serde_json::from_value(value).map_err(why)?),
            _ => Step::Assertion(serde_json::from_value(value).map_err(why)?),
        })
    }

    pub fn id(&self) -> &str {
        match self {
            Step::Server(s) => &s.id,
            Step::Raw(s) => &s.id,
            Step::Client(s) => &s.id,
            Step::Assertion(s) => &s.id,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerStep {
    pub id: String,
    #[serde(default)]
    pub description: Option<String>,
    pub operation: Operation,
    pub params: Map<String, Value>,
    #[serde(default)]
    pub expect: Option<ExpectBlock>,
    #[serde(default)]
    pub expect_error: Option<ExpectError>,
    #[serde(default)]
    pub expect_stream: Option<ExpectStream>,
    #[serde(default)]
    pub capture: BTreeMap<String, String>,
    #[serde(default)]
    pub assertions: Vec<NamedAssertion>,
    #[serde(default)]
    pub repeat: Option<Repeat>,
    #[serde(default)]
    pub delay_ms: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    pub id: String,
    #[serde(default)]
    pub description: Option<String>,
    pub raw: RawRequest,
    #[serde(default)]
    pub expect: Option<ExpectBlock>,
    /// Not in the grammar of a raw step; read only in the draft dialect.
    #[serde(default)]
    pub expect_stream: Option<ExpectStream>,
    #[serde(default)]
    pub expect_error: Option<ExpectError>,
    #[serde(default)]
    pub capture: BTreeMap<String, String>,
    #[serde(default)]
    pub assertions: Vec<NamedAssertion>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRequest {
    pub method: HttpMethod,
    pub path: String,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub body: Option<Value>,
    #[serde(default)]
    pub body_raw: Option<String>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
pub enum HttpMethod {
    #[serde(rename = "GET")]
    Get,
    #[serde(rename = "POST")]
    Post,
    #[serde(rename = "PUT")]
    Put,
    #[serde(rename = "DELETE")]
    Delete,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientStep {
    pub id: String,
    #[serde(default)]
    pub description: Option<String>,
    pub client_response: ClientResponse,
    pub expect_parsed: Map<String, Value>,
    #[serde(default)]
    pub assertions: Vec<NamedAssertion>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientResponse {
    pub operation: Operation,
    pub wire_payload: Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssertionStep {
    pub id: String,
    #[serde(default)]
    pub description: Option<String>,
    pub assertion: InlineAssertion,
}

/// A standard expectation (§6.1).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectBlock {
    #[serde(default)]
    pub status: Option<Value>,
    #[serde(default)]
    pub body: Option<Map<String, Value>>,
}

/// An expected error (§6.2).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectError {
    /// Required by the grammar; `None` (any error) only from the draft
    /// dialect (see [`super::draft`]).
    #[serde(default)]
    pub error_type: Option<ErrorType>,
    /// Several accepted types: only from the draft dialect.
    #[serde(default, rename = "x-draft-error-types")]
    pub error_types: Vec<ErrorType>,
    #[serde(default)]
    pub message: Option<Value>,
    #[serde(default)]
    pub details: Option<Map<String, Value>>,
}

/// The abstract A2A errors (§6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ErrorType {
    TaskNotFoundError,
    TaskNotCancelableError,
    UnsupportedOperationError,
    ContentTypeNotSupportedError,
    InvalidParamsError,
    VersionNotSupportedError,
    PushNotificationNotSupportedError,
    StreamingNotSupportedError,
    ExtensionSupportRequiredError,
    ExtendedCardNotSupportedError,
    #[serde(rename = "JSONParseError")]
    JsonParseError,
    MethodNotFoundError,
    InternalError,
}

/// Expectations on a stream (§7).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectStream {
    #[serde(default)]
    pub min_count: Option<usize>,
    #[serde(default)]
    pub max_count: Option<usize>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub ordering: Option<Ordering>,
    #[serde(default)]
    pub events: Vec<EventAssertion>,
    #[serde(default)]
    pub final_event: Option<Map<String, Value>>,
    #[serde(default)]
    pub each_event: Option<Map<String, Value>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ordering {
    MonotonicState,
}

/// An assertion on one event (§7): its position rule, and the rest of the
/// map as assertions on the event (payload kinds or fields).
#[derive(Debug, Deserialize)]
pub struct EventAssertion {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default, rename = "match")]
    pub position: Option<Position>,
    #[serde(default)]
    pub index: Option<usize>,
    #[serde(flatten)]
    pub assertions: Map<String, Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Position {
    ExactPosition,
    AnyPosition,
}

/// An assertion over a prior result (§5.5).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedAssertion {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    pub source: String,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default, rename = "match")]
    pub matches: Option<Value>,
    #[serde(default)]
    pub any: Option<CollectionMatch>,
    #[serde(default)]
    pub all: Option<CollectionMatch>,
    #[serde(default)]
    pub none: Option<CollectionMatch>,
}

/// The inline form of an assertion step (§5.5).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InlineAssertion {
    pub source: String,
    #[serde(default)]
    pub any: Option<CollectionMatch>,
    #[serde(default)]
    pub all: Option<CollectionMatch>,
    #[serde(default)]
    pub none: Option<CollectionMatch>,
}

impl From<&InlineAssertion> for NamedAssertion {
    fn from(a: &InlineAssertion) -> NamedAssertion {
        let copy = |c: &Option<CollectionMatch>| {
            c.as_ref().map(|c| CollectionMatch {
                path: c.path.clone(),
                matches: c.matches.clone(),
            })
        };
        NamedAssertion {
            id: None,
            description: None,
            source: a.source.clone(),
            path: None,
            matches: None,
            any: copy(&a.any),
            all: copy(&a.all),
            none: copy(&a.none),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectionMatch {
    pub path: String,
    #[serde(rename = "match")]
    pub matches: Map<String, Value>,
}

/// Polling (§9).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    pub until: String,
    #[serde(default)]
    pub max_attempts: Option<u32>,
    #[serde(default)]
    pub delay_ms: Option<u64>,
    #[serde(default)]
    pub backoff: Option<Backoff>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backoff {
    None,
    Linear,
    Exponential,
}

impl Test {
    /// Validates one test as written, with every step (§12.1). Rules the
    /// grammar states in prose are checked too: a step's `expect` and
    /// `expect_error` are exclusive (§4), and a test of raw steps only names
    /// its transport (§4.4).
    pub fn parse(value: &Value) -> Result<(Test, Vec<Step>), String> {
        let test: Test =
            serde_json::from_value(value.clone()).map_err(|e| format!("not a valid test (§3.2): {e}"))?;
        if test.steps.is_empty() {
            return Err("a test needs at least one step (§3.2)".into());
        }
        let steps = test
            .steps
            .iter()
            .map(Step::parse)
            .collect::<Result<Vec<_>, _>>()?;
        for step in &steps {
            let (expect, error) = match step {
                Step::Server(s) => (s.expect.is_some(), s.expect_error.is_some()),
                Step::Raw(s) => (s.expect.is_some(), s.expect_error.is_some()),
                _ => (false, false),
            };
            if expect && error {
                return Err(format!(
                    "step `{}` has both expect and expect_error, which are mutually exclusive (§4)",
                    step.id()
                ));
            }
        }
        let mut ids = BTreeSet::new();
        if let Some(dup) = steps.iter().find(|s| !ids.insert(s.id())) {
            return Err(format!(
                "step id `{}` is not unique within the test (§4)",
                dup.id()
            ));
        }
        if test.transport.is_none() && steps.iter().all(|s| matches!(s, Step::Raw(_))) {
            return Err("a test of raw steps only must specify `transport` (§4.4)".into());
        }
        Ok((test, steps))
    }
}
