//! The global options (a2a-cli §7.2) and where each one's value comes from:
//! an explicit flag, else the `A2ACLI_<FLAG>` environment variable, else the
//! local `.env` (or the file `--config` names), else the global
//! `~/.config/a2a-cli/.env`, else the built-in default (§6.5, §8.3).
//!
//! clap parses the command line only: no option carries a clap `env` or
//! `default_value`, so an option present in the matches was typed by the
//! caller, and every other source is resolved here, where `config show` can
//! say which one won.

use super::dotenv::{self, PREFIX};
use clap::{Arg, ArgAction, ArgMatches};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// How an option takes its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One value (`--timeout 30s`).
    Value(&'static str),
    /// A switch (`--async`); `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off` in a file.
    Switch,
    /// Repeatable and ordered (`--transport GRPC --transport JSONRPC`);
    /// comma-separated in the environment and in files.
    List(&'static str),
}

/// One global option.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// Long flag, also the clap id.
    pub long: &'static str,
    /// Short flag.
    pub short: Option<char>,
    /// How it takes its value.
    pub shape: Shape,
    /// Built-in default, shown in help and `config show`.
    pub default: Option<&'static str>,
    /// Its value is a credential: never shown, never logged.
    pub secret: bool,
    /// Whether the environment and files may set it (`--stream` may not, §11.3).
    pub configurable: bool,
    /// Accepted alternative spellings (never with a variable of their own).
    pub aliases: &'static [&'static str],
    /// One line of help.
    pub help: &'static str,
}

impl Opt {
    /// `A2ACLI_` + the long flag in upper snake case.
    pub fn env_name(&self) -> String {
        format!("{PREFIX}{}", self.long.to_ascii_uppercase().replace('-', "_"))
    }
}

const fn opt(long: &'static str, shape: Shape, help: &'static str) -> Opt {
    Opt {
        long,
        short: None,
        shape,
        default: None,
        secret: false,
        configurable: true,
        aliases: &[],
        help,
    }
}

/// Option ids, for the code that reads them.
pub mod id {
    #![allow(missing_docs)]
    pub const AGENT_CARD: &str = "agent-card";
    pub const TRANSPORT: &str = "transport";
    pub const A2A_VERSION: &str = "a2a-version";
    pub const OUTPUT: &str = "output";
    pub const ASYNC: &str = "async";
    pub const WAIT: &str = "wait";
    pub const STREAM: &str = "stream";
    pub const POLL_INTERVAL: &str = "poll-interval";
    pub const TIMEOUT: &str = "timeout";
    pub const BEARER: &str = "bearer";
    pub const API_KEY: &str = "api-key";
    pub const SVC_PARAM: &str = "svc-param";
    pub const CONFIG: &str = "config";
    pub const CONTEXT_ID: &str = "context-id";
    pub const TASK_ID: &str = "task-id";
    pub const METADATA: &str = "metadata";
    pub const INSECURE: &str = "insecure";
    pub const DEBUG: &str = "debug";
    pub const VERBOSE: &str = "verbose";
    pub const CA_FILE: &str = "ca-file";
    pub const CLIENT_CERT: &str = "client-cert";
    pub const CLIENT_KEY: &str = "client-key";
    pub const TRUSTED_KEYS: &str = "trusted-keys";
    pub const AGENT: &str = "agent";
    pub const AGENT_ARG: &str = "agent-arg";
    pub const EXTENSION_VERSION: &str = "extension-version";
    pub const RETRIES: &str = "retries";
    pub const CALL_TIMEOUT: &str = "call-timeout";
    pub const CLIENT_ID: &str = "client-id";
    pub const CLIENT_SECRET: &str = "client-secret";
    pub const SCOPE: &str = "scope";
}

/// Every global option, in the order help and `config show` list them.
pub const OPTIONS: &[Opt] = &[
    Opt {
        short: Some('a'),
        ..opt(
            id::AGENT_CARD,
            Shape::Value("REF"),
            "The agent: a host or origin (its /.well-known/agent-card.json), a card URL, a card file (file://… or a path), or a catalog (…/ai-catalog.json#NAME). Without one, local mode: the agent executable is spawned over stdio",
        )
    },
    opt(
        id::TRANSPORT,
        Shape::List("BINDING"),
        "Preferred binding, repeatable, highest first: JSONRPC, HTTP+JSON or GRPC (any case); one the card does not offer is skipped [default: the card's first supported interface]",
    ),
    opt(
        id::A2A_VERSION,
        Shape::Value("VERSION"),
        "A2A version to speak (A2A-Version on every request) [default: the highest the tool and the card's interface share, never below 1.0]",
    ),
    Opt {
        short: Some('o'),
        default: Some("text"),
        ..opt(id::OUTPUT, Shape::Value("FORMAT"), "Output format: text (Label: value lines) or json (the protocol's own objects)")
    },
    Opt {
        aliases: &["return-immediately", "no-wait"],
        ..opt(id::ASYNC, Shape::Switch, "Do not wait: return the task's identifiers at once (send) [default: wait until the task ends or needs input]")
    },
    Opt {
        aliases: &["watch"],
        ..opt(id::WAIT, Shape::Switch, "Wait until the task ends or needs input: the default of send; makes `task get` poll")
    },
    Opt {
        configurable: false,
        ..opt(id::STREAM, Shape::Switch, "Follow the live event stream (send, task subscribe); with -o json, one JSON object per line. Only as a flag")
    },
    Opt {
        default: Some("2s"),
        ..opt(id::POLL_INTERVAL, Shape::Value("DURATION"), "Time between two reads of a task while waiting (backing off up to 5× that)")
    },
    opt(
        id::TIMEOUT,
        Shape::Value("DURATION"),
        "Give up waiting for a task after this long (exit 5, A2ACLI_ERR_TIMEOUT) [default: no limit]",
    ),
    Opt {
        secret: true,
        ..opt(id::BEARER, Shape::Value("TOKEN"), "Bearer token, sent only to an agent whose card declares a scheme that takes one. A flag's value shows in the process table and shell history: prefer A2ACLI_BEARER")
    },
    Opt {
        secret: true,
        ..opt(id::API_KEY, Shape::Value("KEY"), "API key, sent where the card's API-key scheme says (header, query or cookie). A flag's value shows in the process table and shell history: prefer A2ACLI_API_KEY")
    },
    Opt {
        secret: true,
        ..opt(id::SVC_PARAM, Shape::List("KEY:VALUE"), "A2A service parameter (an HTTP header or gRPC metadata entry), repeatable; values never shown in diagnostics")
    },
    opt(
        id::CONFIG,
        Shape::Value("PATH"),
        "Read settings from this .env file instead of the nearest .env above the working directory",
    ),
    opt(
        id::CONTEXT_ID,
        Shape::Value("ID"),
        "Send in this existing context: a new task beside the ones already in it",
    ),
    opt(
        id::TASK_ID,
        Shape::Value("ID"),
        "Continue this existing task (e.g. one that waits for input); never starts a new task when refused",
    ),
    opt(
        id::METADATA,
        Shape::Value("JSON"),
        "Metadata of the message, a JSON object (travels in the payload, unlike --svc-param)",
    ),
    opt(
        id::INSECURE,
        Shape::Switch,
        "Do not verify the server's TLS certificate (development only; warns)",
    ),
    opt(
        id::DEBUG,
        Shape::Switch,
        "Diagnostics on stderr: how the agent was reached and every message on the wire, credentials redacted",
    ),
    opt(
        id::VERBOSE,
        Shape::Switch,
        "Show everything exchanged with the agent: history, every part, metadata [default: concise]",
    ),
    opt(
        id::CA_FILE,
        Shape::Value("PEM"),
        "CAs the server's certificate must chain to, instead of the built-in roots",
    ),
    opt(
        id::CLIENT_CERT,
        Shape::Value("PEM"),
        "Client certificate for mutual TLS, with --client-key",
    ),
    Opt {
        secret: true,
        ..opt(id::CLIENT_KEY, Shape::Value("PEM"), "Private key of --client-cert")
    },
    opt(
        id::TRUSTED_KEYS,
        Shape::Value("JWKS"),
        "JWK Set of the keys the Agent Card's signatures are checked against",
    ),
    opt(
        id::AGENT,
        Shape::Value("PATH"),
        "Local mode: the agent executable [default: cleveragents-agent beside this program, else on PATH]",
    ),
    Opt {
        configurable: false,
        ..opt(id::AGENT_ARG, Shape::List("ARG"), "Local mode: an argument for the agent executable, repeatable [default: --stdio]")
    },
    opt(
        id::EXTENSION_VERSION,
        Shape::Value("MINOR"),
        "Minor version of the CleverAgents extension to speak [default: the newest]",
    ),
    Opt {
        default: Some("2"),
        ..opt(id::RETRIES, Shape::Value("N"), "Retries of a read after a transient failure")
    },
    Opt {
        default: Some("60s"),
        ..opt(id::CALL_TIMEOUT, Shape::Value("DURATION"), "Bound on each single request to the agent (a wait is bounded by --timeout)")
    },
    opt(
        id::CLIENT_ID,
        Shape::Value("ID"),
        "OAuth client id for `auth login` (the client registered with the agent's authorization server)",
    ),
    Opt {
        secret: true,
        ..opt(id::CLIENT_SECRET, Shape::Value("SECRET"), "OAuth client secret for `auth login` (client-credentials flow); prefer A2ACLI_CLIENT_SECRET")
    },
    opt(id::SCOPE, Shape::List("SCOPE"), "OAuth scope to ask for at `auth login`, repeatable"),
];

/// The option `long` names.
pub fn option(long: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.long == long)
}

/// The clap arguments of the global options.
pub fn args() -> Vec<Arg> {
    OPTIONS
        .iter()
        .map(|o| {
            let mut arg = Arg::new(o.long).long(o.long).global(true).help(help_line(o));
            if let Some(short) = o.short {
                arg = arg.short(short);
            }
            for alias in o.aliases {
                arg = arg.visible_alias(*alias);
            }
            match o.shape {
                Shape::Value(name) => arg.value_name(name).action(ArgAction::Set),
                Shape::Switch => arg.action(ArgAction::SetTrue),
                Shape::List(name) => {
                    let arg = arg.value_name(name).action(ArgAction::Append);
                    if o.long == id::AGENT_ARG {
                        arg.allow_hyphen_values(true)
                    } else {
                        arg
                    }
                }
            }
        })
        .collect()
}

fn help_line(o: &Opt) -> String {
    let mut help = o.help.to_string();
    if let Some(default) = o.default {
        help.push_str(&format!(" [default: {default}]"));
    }
    if o.configurable {
        help.push_str(&format!(" [env: {}]", o.env_name()));
    }
    help
}

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Typed on the command line.
    Flag,
    /// An environment variable.
    Env(String),
    /// A `.env` file (which, and the line).
    File(PathBuf, usize),
    /// The built-in default.
    Default,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Flag => write!(f, "flag"),
            Source::Env(name) => write!(f, "environment ({name})"),
            Source::File(path, line) => write!(f, "file {}:{line}", path.display()),
            Source::Default => write!(f, "built-in default"),
        }
    }
}

/// One option's effective value.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The values: one, or a list's items; empty when unset.
    pub values: Vec<String>,
    /// Where they came from (`None`: unset, no default).
    pub source: Option<Source>,
}

/// The configuration files in effect, highest first.
#[derive(Clone, Debug, Default)]
pub struct Files {
    /// The local `.env` or the `--config` file.
    pub local: Option<dotenv::File>,
    /// `~/.config/a2a-cli/.env`.
    pub global: Option<dotenv::File>,
}

impl Files {
    /// Reads the files: `config` (from `--config` or `A2ACLI_CONFIG`) in place
    /// of the nearest `.env`, and the global file. An explicit file that does
    /// not exist is an error; a missing implicit one is not.
    pub fn load(config: Option<&str>) -> Result<Files, String> {
        let local = match config {
            Some(path) => Some(
                dotenv::File::read(std::path::Path::new(path))?
                    .ok_or_else(|| format!("--config: no file {path}"))?,
            ),
            None => match std::env::current_dir()
                .ok()
                .and_then(|dir| dotenv::local_path(&dir))
            {
                Some(path) => dotenv::File::read(&path)?,
                None => None,
            },
        };
        let global = match dotenv::global_path() {
            Some(path) => dotenv::File::read(&path)?,
            None => None,
        };
        Ok(Files { local, global })
    }

    fn each(&self) -> impl Iterator<Item = &dotenv::File> {
        self.local.iter().chain(self.global.iter())
    }
}

/// Every global option's effective value.
#[derive(Clone, Debug)]
pub struct Settings {
    values: BTreeMap<&'static str, Resolved>,
    /// The files read.
    pub files: Files,
    /// Problems to tell the caller about (unknown keys, readable secrets).
    pub warnings: Vec<String>,
}

fn split_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .collect()
}

impl Settings {
    /// Resolves every option: `matches` (the command line) over the
    /// environment over `files` over the defaults.
    pub fn resolve(matches: Option<&ArgMatches>, files: Files) -> Settings {
        let mut values = BTreeMap::new();
        let mut warnings = Vec::new();
        for o in OPTIONS {
            let typed: Vec<String> = matches
                .map(|m| match o.shape {
                    Shape::Switch => {
                        if m.try_get_one::<bool>(o.long)
                            .ok()
                            .flatten()
                            .copied()
                            .unwrap_or(false)
                        {
                            vec!["true".to_string()]
                        } else {
                            Vec::new()
                        }
                    }
                    _ => m
                        .try_get_many::<String>(o.long)
                        .ok()
                        .flatten()
                        .map(|v| v.cloned().collect())
                        .unwrap_or_default(),
                })
                .unwrap_or_default();
            let from = |text: &str| match o.shape {
                Shape::List(_) => split_list(text),
                _ => vec![text.to_string()],
            };
            let resolved = if !typed.is_empty() {
                Resolved {
                    values: typed,
                    source: Some(Source::Flag),
                }
            } else if let Some(value) = o
                .configurable
                .then(|| std::env::var(o.env_name()).ok())
                .flatten()
                .filter(|v| !v.is_empty())
            {
                Resolved {
                    values: from(&value),
                    source: Some(Source::Env(o.env_name())),
                }
            } else if let Some((file, entry)) = o
                .configurable
                .then(|| {
                    files.each().find_map(|file| {
                        file.entries
                            .iter()
                            .rev()
                            .find(|e| e.key == o.env_name())
                            .map(|entry| (file, entry))
                    })
                })
                .flatten()
            {
                if o.secret && dotenv::readable_by_others(&file.path) {
                    warnings.push(format!(
                        "{} holds {} but others can read it: chmod 600 {}",
                        file.path.display(),
                        o.env_name(),
                        file.path.display()
                    ));
                }
                Resolved {
                    values: from(&entry.value),
                    source: Some(Source::File(file.path.clone(), entry.line)),
                }
            } else if let Some(default) = o.default {
                Resolved {
                    values: from(default),
                    source: Some(Source::Default),
                }
            } else {
                Resolved {
                    values: Vec::new(),
                    source: None,
                }
            };
            values.insert(o.long, resolved);
        }
        for file in files.each() {
            for entry in &file.entries {
                let known = OPTIONS
                    .iter()
                    .any(|o| o.configurable && o.env_name() == entry.key);
                if !known {
                    warnings.push(format!(
                        "{}:{}: {} is not a setting of this tool (see `agents config show`)",
                        file.path.display(),
                        entry.line,
                        entry.key
                    ));
                }
            }
        }
        Settings {
            values,
            files,
            warnings,
        }
    }

    /// The resolved value of a one-value option.
    pub fn get(&self, long: &str) -> Option<&str> {
        self.values
            .get(long)
            .and_then(|r| r.values.first())
            .map(String::as_str)
    }

    /// The items of a list option.
    pub fn list(&self, long: &str) -> &[String] {
        self.values.get(long).map_or(&[], |r| r.values.as_slice())
    }

    /// Where an option's value came from.
    pub fn source(&self, long: &str) -> Option<&Source> {
        self.values.get(long).and_then(|r| r.source.as_ref())
    }

    /// A switch: set by the flag, or `true`-ish in the environment or a file.
    pub fn switch(&self, long: &str) -> Result<bool, String> {
        match self.get(long) {
            None => Ok(false),
            Some(value) => parse_switch(value).ok_or_else(|| {
                let name = option(long).map(Opt::env_name).unwrap_or_default();
                format!("{name}: `{value}` is not true or false")
            }),
        }
    }

    /// A duration option.
    pub fn duration(&self, long: &str) -> Result<Option<std::time::Duration>, String> {
        self.get(long)
            .map(|text| parse_duration(text).map_err(|why| format!("--{long}: {why}")))
            .transpose()
    }

    /// The TLS settings of every HTTP client of a command (the card read,
    /// the transports, the OAuth server).
    pub fn tls_files(&self) -> crate::TlsFiles {
        let file = |long: &str| self.get(long).map(PathBuf::from);
        crate::TlsFiles {
            ca_file: file(id::CA_FILE),
            client_cert: file(id::CLIENT_CERT),
            client_key: file(id::CLIENT_KEY),
            insecure: self.switch(id::INSECURE).unwrap_or(false),
        }
    }

    /// The rows of `config show`: option, env name, shown value, source.
    pub fn rows(&self) -> Vec<(&'static Opt, String, String)> {
        OPTIONS
            .iter()
            .filter(|o| o.configurable)
            .map(|o| {
                let resolved = &self.values[o.long];
                let value = if resolved.values.is_empty() {
                    String::new()
                } else if o.secret {
                    "(set, not shown)".to_string()
                } else {
                    resolved.values.join(",")
                };
                let source = resolved
                    .source
                    .as_ref()
                    .map_or_else(|| "unset".to_string(), Source::to_string);
                (o, value, source)
            })
            .collect()
    }
}

/// A switch's value in the environment or a file.
pub fn parse_switch(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" | "" => Some(false),
        _ => None,
    }
}

/// `500ms`, `2s`, `1.5s`, `3m`, `1h`, or bare seconds.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration such as 500ms, 2s or 1m"))?;
    let seconds = match unit.trim() {
        "ms" => number / 1000.0,
        "" | "s" => number,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        other => return Err(format!("`{other}` is not a unit of time (ms, s, m, h)")),
    };
    if !seconds.is_finite() || seconds <= 0.0 || seconds > 31_536_000.0 {
        return Err(format!("`{text}` is out of range"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// Where the credentials the tool stores itself live (`auth login`).
pub fn config_dir() -> Option<PathBuf> {
    dotenv::config_dir()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn names_and_durations() {
        assert_eq!(
            option(id::AGENT_CARD).map(Opt::env_name).as_deref(),
            Some("A2ACLI_AGENT_CARD")
        );
        assert_eq!(
            option(id::ASYNC).map(Opt::env_name).as_deref(),
            Some("A2ACLI_ASYNC")
        );
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3d").is_err());
        assert_eq!(parse_switch("Yes"), Some(true));
        assert_eq!(parse_switch("maybe"), None);
        // --stream is never read from the environment or a file.
        assert!(!option(id::STREAM).is_some_and(|o| o.configurable));
    }

    #[test]
    fn precedence_file_then_default() {
        let local = dotenv::File {
            path: PathBuf::from("local.env"),
            entries: dotenv::parse("A2ACLI_POLL_INTERVAL=5s\nA2ACLI_STREAM=1\nA2ACLI_NOPE=1\n")
                .expect("parses"),
        };
        let global = dotenv::File {
            path: PathBuf::from("global.env"),
            entries: dotenv::parse("A2ACLI_POLL_INTERVAL=9s\nA2ACLI_OUTPUT=json\n").expect("parses"),
        };
        let settings = Settings::resolve(
            None,
            Files {
                local: Some(local),
                global: Some(global),
            },
        );
        assert_eq!(settings.get(id::POLL_INTERVAL), Some("5s"));
        assert_eq!(
            settings.source(id::POLL_INTERVAL),
            Some(&Source::File(PathBuf::from("local.env"), 1))
        );
        assert_eq!(settings.get(id::OUTPUT), Some("json"));
        assert_eq!(settings.get(id::RETRIES), Some("2"));
        assert_eq!(settings.source(id::RETRIES), Some(&Source::Default));
        assert_eq!(settings.switch(id::STREAM), Ok(false));
        assert_eq!(settings.warnings.len(), 2, "{:?}", settings.warnings);
    }
}
