//! The agent binary: composes the application (on the embedded store) with
//! the server crate's transports.
//!
//! ```text
//! cleveragents-agent --stdio                      # local mode (NDJSON on stdin/stdout)
//! cleveragents-agent --listen 127.0.0.1:9999      # server mode (HTTP JSON-RPC + SSE)
//! cleveragents-agent --stop                       # stops the data directory's background agent
//!   [--data-dir DIR] [--config FILE.json] [--executor default|tck] [--memory]
//!   [--database-url postgres://USER@HOST:PORT/DB] [--listen-v0-3 ADDR]
//!   [--admin-key] [--insecure-no-auth] [--idle-timeout-ms N] [--in-process]
//!   [--tls-cert FILE --tls-key FILE] [--behind-tls-proxy] [--console]
//! ```
//!
//! `--console` (or `http.console` in the config file) serves the web console
//! at `/console` on the HTTP listener.
//!
//! In local mode the process a client spawns is a front for the data
//! directory's background agent, which it starts when none runs and which
//! serves every local client at once ([`local`]); `--in-process` serves the
//! one session in this process instead (as `--memory` always does).
//!
//! The store is SQLite in the data directory unless `--database-url` (or
//! `CLEVERAGENTS_DATABASE_URL`, or `database_url` in the config file) names a
//! PostgreSQL database, which several agents may share.
//!
//! Server mode without an authentication scheme binds loopback addresses only;
//! `--admin-key` creates (once) an admin API key in the data directory and
//! authenticates with it, `--insecure-no-auth` serves anonymous callers on any
//! address.
//!
//! `--tls-cert FILE --tls-key FILE` serve HTTPS (`http.tls`); the files are
//! re-read when they change. On an address that is not loopback, an
//! authentication scheme needs TLS, or `--behind-tls-proxy`
//! (`http.behind_tls_proxy`) when a TLS-terminating proxy is in front.
//!
//! `--listen-v0-3 ADDR` adds an address for A2A 0.3 clients: its Agent Card
//! carries the 0.3 fields, and the main address then serves the plain 1.0
//! card (server crate README, "One origin or two").
//!
//! Settings come from, in increasing precedence: defaults, the JSON config
//! file (`--config` or `CLEVERAGENTS_CONFIG`), environment variables
//! (`CLEVERAGENTS_DATA_DIR`, `CLEVERAGENTS_DATABASE_URL`, `CLEVERAGENTS_LISTEN`, `CLEVERAGENTS_LISTEN_V0_3`, `CLEVERAGENTS_EXECUTOR`,
//! `CLEVERAGENTS_TLS_CERT`, `CLEVERAGENTS_TLS_KEY`,
//! `CLEVERAGENTS_PUSH_ALLOW_LIST` comma-separated, `OTEL_EXPORTER_OTLP_ENDPOINT`),
//! then the command line.
//! Logs go to stderr (level from `CLEVERAGENTS_LOG`, e.g. `info` for one line
//! per call with method, principal, latency and outcome; default `warn`); in
//! stdio mode stdout carries protocol only. Traces: see [`telemetry`].

use a2a::rpc::{local as defaults, Access};
use app::push::PushConfig;
use app::{AppConfig, ExecutorKind};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use store::StoreConfig;

mod local;
mod modes;
mod store;
mod telemetry;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The config file: the server's settings plus the application's.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct FileConfig {
    server: server::ServerConfig,
    data_dir: Option<PathBuf>,
    /// A PostgreSQL database to keep the data in instead of SQLite.
    database_url: Option<String>,
    executor: Option<String>,
    /// Keep everything in memory (nothing survives a restart).
    memory: bool,
    push: PushFile,
    plans: PlansFile,
    /// Bounds on what one caller can make the application hold.
    task_limits: app::limits::DomainLimits,
    /// Sync remotes: name → base URL.
    sync_remotes: BTreeMap<String, String>,
    /// Traces over OTLP (`otlp_endpoint`).
    telemetry: telemetry::TelemetryFile,
    /// A2A protocol versions served beyond the released ones, and the
    /// long-poll bound.
    a2a: A2aFile,
    /// The background agent of local mode.
    local: LocalFile,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct A2aFile {
    /// Draft versions to serve (`["1.1"]`); extended by
    /// `CLEVERAGENTS_DRAFT_VERSIONS` and `--draft-version`.
    draft_versions: Vec<String>,
    /// The longest a long-polling GetTask is held (`currentGeneration`).
    long_poll_max_ms: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct LocalFile {
    /// How long the background agent stays with no client connected and
    /// nothing running before it exits.
    idle_timeout_ms: Option<u64>,
}

/// The background agent's idle period when nothing sets one.
const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct PushFile {
    allow_list: Vec<String>,
    max_attempts: Option<u32>,
    initial_backoff_ms: Option<u64>,
    /// How long a claimed delivery stays this agent's without renewal.
    lease_ms: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct PlansFile {
    /// How long a plan's run stays this agent's without renewal.
    lease_ms: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Mode {
    Stdio,
    /// The background agent a stdio front starts (not for people to type).
    Background,
    Listen(String),
    /// Stop the data directory's background agent.
    Stop,
}

fn usage() -> &'static str {
    "usage: cleveragents-agent (--stdio | --listen ADDR | --stop) [--data-dir DIR] [--config FILE] [--executor default|tck] [--memory] [--database-url postgres://USER@HOST:PORT/DB] [--listen-v0-3 ADDR] [--draft-version 1.1] [--admin-key] [--insecure-no-auth] [--idle-timeout-ms N] [--in-process] [--tls-cert FILE --tls-key FILE] [--behind-tls-proxy] [--console]"
}

fn parse_executor(name: &str) -> Result<ExecutorKind, String> {
    match name {
        "default" => Ok(ExecutorKind::Default),
        "tck" => Ok(ExecutorKind::Tck),
        other => Err(format!(
            "unknown executor `{other}` (expected `default` or `tck`)"
        )),
    }
}

/// What the environment and the command line asked for, before the config
/// file is read.
struct Args {
    mode: Option<Mode>,
    data_dir: Option<PathBuf>,
    database_url: Option<String>,
    config_path: Option<PathBuf>,
    executor: Option<String>,
    memory: bool,
    /// Authenticate with the admin API key of the data directory, creating it once.
    admin_key: bool,
    /// Serve anonymous callers on a non-loopback address.
    insecure_no_auth: bool,
    /// Serve the web console (`http.console`).
    console: bool,
    /// A second address, for A2A 0.3 clients (`http.v0_3_listen`).
    listen_v0_3: Option<String>,
    /// Draft A2A versions to serve (`a2a.draft_versions`).
    draft_versions: Vec<String>,
    /// Serve a stdio session in this process, not through the background agent.
    in_process: bool,
    /// The background agent's idle period (`local.idle_timeout_ms`).
    idle_timeout_ms: Option<u64>,
    /// The listener's certificate chain and key (`http.tls`).
    tls_cert: Option<PathBuf>,
    tls_key: Option<PathBuf>,
    /// A TLS-terminating proxy is in front (`http.behind_tls_proxy`).
    behind_tls_proxy: bool,
}

/// Everything the agent starts with, settled from every source.
struct Settings {
    mode: Mode,
    store: StoreConfig,
    executor: ExecutorKind,
    server_config: server::ServerConfig,
    app_config: AppConfig,
    /// The data directory, absolute.
    data_dir: PathBuf,
    /// What a front and its background agent must agree on.
    identity: local::Identity,
    idle_timeout: Duration,
    in_process: bool,
    telemetry_endpoint: Option<String>,
}

fn run() -> Result<(), String> {
    let Some(args) = parse_args()? else {
        return Ok(());
    };
    let file = read_config(args.config_path.as_deref())?;
    let config_text = match &args.config_path {
        Some(path) => std::fs::read(path).unwrap_or_default(),
        None => Vec::new(),
    };
    let settings = settle(args, file, &config_text)?;
    // The front and `--stop` need no runtime, no store and no telemetry.
    match settings.mode {
        Mode::Stdio if !settings.in_process && !matches!(settings.store, StoreConfig::Memory) => {
            return modes::front(&settings);
        }
        Mode::Stop => return modes::stop(&settings),
        _ => {}
    }
    // Before the runtime: the exporter's client runs on threads of its own.
    let tracing = telemetry::init(settings.telemetry_endpoint.clone())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    // The agent runs as a task on the runtime's workers, not on this thread:
    // every hand-over between a future polled by `block_on` here and a task
    // on a worker (each stdio message to its writer, say) wakes the other
    // thread, a context switch each time.
    let served = runtime
        .block_on(runtime.spawn(modes::serve(settings)))
        .unwrap_or_else(|e| Err(format!("the agent's main task failed: {e}")));
    // The transport has ended (EOF on stdio, or a graceful shutdown): the
    // last spans are exported before the process exits.
    drop(runtime);
    tracing.shutdown();
    served
}

/// The environment, overridden by the command line; `None` when only the
/// usage was asked for (and printed).
fn parse_args() -> Result<Option<Args>, String> {
    let mut args = Args {
        mode: None,
        data_dir: std::env::var_os(defaults::DATA_DIR_ENV).map(PathBuf::from),
        database_url: std::env::var("CLEVERAGENTS_DATABASE_URL")
            .ok()
            .filter(|url| !url.is_empty()),
        config_path: std::env::var_os("CLEVERAGENTS_CONFIG").map(PathBuf::from),
        executor: std::env::var("CLEVERAGENTS_EXECUTOR").ok(),
        memory: false,
        admin_key: false,
        insecure_no_auth: false,
        console: false,
        draft_versions: std::env::var("CLEVERAGENTS_DRAFT_VERSIONS")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
            .collect(),
        listen_v0_3: std::env::var("CLEVERAGENTS_LISTEN_V0_3")
            .ok()
            .filter(|a| !a.is_empty()),
        in_process: false,
        idle_timeout_ms: match std::env::var("CLEVERAGENTS_IDLE_TIMEOUT_MS") {
            Ok(ms) if !ms.is_empty() => Some(parse_millis("CLEVERAGENTS_IDLE_TIMEOUT_MS", &ms)?),
            _ => None,
        },
        tls_cert: std::env::var_os("CLEVERAGENTS_TLS_CERT")
            .filter(|f| !f.is_empty())
            .map(PathBuf::from),
        tls_key: std::env::var_os("CLEVERAGENTS_TLS_KEY")
            .filter(|f| !f.is_empty())
            .map(PathBuf::from),
        behind_tls_proxy: false,
    };
    if let Ok(listen) = std::env::var("CLEVERAGENTS_LISTEN") {
        args.mode = Some(Mode::Listen(listen));
    }
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| format!("{name} needs a value\n{}", usage()))
        };
        match arg.as_str() {
            "--stdio" => args.mode = Some(Mode::Stdio),
            "--background" => args.mode = Some(Mode::Background),
            "--stop" => args.mode = Some(Mode::Stop),
            "--in-process" => args.in_process = true,
            "--idle-timeout-ms" => {
                args.idle_timeout_ms = Some(parse_millis("--idle-timeout-ms", &value("--idle-timeout-ms")?)?)
            }
            "--listen" => args.mode = Some(Mode::Listen(value("--listen")?)),
            "--listen-v0-3" => args.listen_v0_3 = Some(value("--listen-v0-3")?),
            "--draft-version" => args.draft_versions.push(value("--draft-version")?),
            "--data-dir" => args.data_dir = Some(PathBuf::from(value("--data-dir")?)),
            "--database-url" => args.database_url = Some(value("--database-url")?),
            "--config" => args.config_path = Some(PathBuf::from(value("--config")?)),
            "--executor" => args.executor = Some(value("--executor")?),
            "--memory" => args.memory = true,
            "--admin-key" => args.admin_key = true,
            "--insecure-no-auth" => args.insecure_no_auth = true,
            "--console" => args.console = true,
            "--tls-cert" => args.tls_cert = Some(PathBuf::from(value("--tls-cert")?)),
            "--tls-key" => args.tls_key = Some(PathBuf::from(value("--tls-key")?)),
            "--behind-tls-proxy" => args.behind_tls_proxy = true,
            "-h" | "--help" => {
                println!("{}", usage());
                return Ok(None);
            }
            other => return Err(format!("unknown argument `{other}`\n{}", usage())),
        }
    }
    Ok(Some(args))
}

fn parse_millis(name: &str, text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{name} takes a number of milliseconds, not `{text}`"))
}

fn read_config(path: Option<&Path>) -> Result<FileConfig, String> {
    match path {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            serde_json::from_str(&text).map_err(|e| format!("invalid config {}: {e}", path.display()))
        }
        None => Ok(FileConfig::default()),
    }
}

/// Merges the command line and environment over the config file over the
/// defaults.
fn settle(args: Args, file: FileConfig, config_text: &[u8]) -> Result<Settings, String> {
    let mode = args.mode.ok_or_else(|| usage().to_string())?;
    let executor = parse_executor(
        args.executor
            .as_deref()
            .or(file.executor.as_deref())
            .unwrap_or("default"),
    )?;
    let push = push_config(&file.push);
    let data_dir = absolute(
        &args
            .data_dir
            .or(file.data_dir.clone())
            .unwrap_or_else(defaults::default_data_dir),
    )?;
    let database_url = args.database_url.or(file.database_url.clone());
    let store = if args.memory || file.memory {
        StoreConfig::Memory
    } else if let Some(url) = database_url {
        if !url.starts_with("postgres://") && !url.starts_with("postgresql://") {
            return Err(format!("--database-url must be a postgres:// URL\n{}", usage()));
        }
        StoreConfig::Postgres { url }
    } else {
        StoreConfig::Sqlite {
            data_dir: data_dir.clone(),
        }
    };
    // The drafts of every source, each once, checked against the schema's.
    let mut drafts = file.a2a.draft_versions.clone();
    drafts.extend(args.draft_versions.iter().cloned());
    let mut drafts: Vec<String> = server::negotiate::checked_drafts(&drafts)?
        .into_iter()
        .map(str::to_string)
        .collect();
    drafts.sort();
    drafts.dedup();
    let identity = local::Identity::current(format!(
        "store {}; executor {executor:?}; drafts {drafts:?}; config {}",
        match &store {
            StoreConfig::Memory => "memory".to_string(),
            StoreConfig::Sqlite { data_dir } => format!("sqlite in {}", data_dir.display()),
            StoreConfig::Postgres { url } => format!("postgres at {url}"),
        },
        match &args.config_path {
            Some(path) => format!(
                "{} ({} bytes, hash {:016x})",
                path.display(),
                config_text.len(),
                fnv1a(config_text)
            ),
            None => "none".to_string(),
        }
    ));
    let idle_timeout = args
        .idle_timeout_ms
        .or(file.local.idle_timeout_ms)
        .map_or(DEFAULT_IDLE_TIMEOUT, Duration::from_millis);
    let telemetry_endpoint = file.telemetry.endpoint();
    let mut server_config = file.server;
    server_config.a2a.draft_versions = drafts.clone();
    server_config.auth.insecure_no_auth |= args.insecure_no_auth;
    server_config.http.console |= args.console;
    server_config.http.behind_tls_proxy |= args.behind_tls_proxy;
    match (args.tls_cert, args.tls_key) {
        (Some(cert_file), Some(key_file)) => {
            server_config.http.tls = Some(server::TlsConfig { cert_file, key_file })
        }
        (None, None) => {}
        _ => return Err(format!("--tls-cert and --tls-key go together\n{}", usage())),
    }
    if let Some(addr) = &args.listen_v0_3 {
        server_config.http.v0_3_listen = Some(
            addr.parse()
                .map_err(|e| format!("invalid --listen-v0-3 address `{addr}`: {e}"))?,
        );
    }
    if args.admin_key {
        if let StoreConfig::Memory = store {
            return Err(
                "--admin-key keeps the key in the data directory, which --memory does not have".into(),
            );
        }
        admit_admin_key(&mut server_config.auth, &data_dir)?;
    }
    // This application delivers push notifications.
    server_config.agent.capabilities.push_notifications = true;
    let members = server_config
        .auth
        .principals
        .iter()
        .map(|p| (p.subject.clone(), p.namespaces.clone()))
        .collect();
    let app_config = AppConfig {
        executor,
        push,
        members,
        sync_remotes: file.sync_remotes,
        limits: file.task_limits,
        input_modes: app::tasks::InputModes::new(server::card::accepted_input_modes(&server_config.agent)),
        plan_lease: file.plans.lease_ms.map(Duration::from_millis),
        long_poll_max: file.a2a.long_poll_max_ms.map(Duration::from_millis),
        // One registry: the server records calls and streams, the
        // application commits and deliveries, and `/metrics` shows them all.
        metrics: server_config.metrics.clone(),
        ..Default::default()
    };
    Ok(Settings {
        mode,
        store,
        executor,
        server_config,
        app_config,
        data_dir,
        identity,
        idle_timeout,
        in_process: args.in_process,
        telemetry_endpoint,
    })
}

/// `path` made absolute against the working directory (the data directory
/// names one place whichever process reads it).
fn absolute(path: &Path) -> Result<PathBuf, String> {
    std::path::absolute(path).map_err(|e| format!("invalid data directory {}: {e}", path.display()))
}

/// A stable 64-bit digest (FNV-1a) of the config file, so a front and a
/// background agent on different config contents tell they differ.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Adds the data directory's admin API key (created on first use) to the
/// accepted keys, as a principal with the admin role in every namespace.
fn admit_admin_key(auth: &mut server::AuthConfig, data_dir: &Path) -> Result<(), String> {
    let path = defaults::admin_key_path(data_dir);
    let key = match std::fs::read_to_string(&path) {
        Ok(text) => text.trim().to_string(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => create_admin_key(&path)?,
        Err(e) => return Err(format!("cannot read the admin API key {}: {e}", path.display())),
    };
    if key.is_empty() {
        return Err(format!("the admin API key file {} is empty", path.display()));
    }
    eprintln!("cleveragents-agent: admin API key in {}", path.display());
    auth.api_keys.push(server::CredentialConfig {
        secret: server::Secret::new(key),
        subject: defaults::ADMIN_KEY_SUBJECT.into(),
    });
    if !auth
        .principals
        .iter()
        .any(|p| p.subject == defaults::ADMIN_KEY_SUBJECT)
    {
        auth.principals.push(server::PrincipalConfig {
            subject: defaults::ADMIN_KEY_SUBJECT.into(),
            namespaces: [("*".to_string(), Access::Admin)].into(),
            default_namespace: None,
        });
    }
    Ok(())
}

/// A new random key, written to `path` readable by the user only.
fn create_admin_key(path: &Path) -> Result<String, String> {
    let fail = |e: std::io::Error| format!("cannot create the admin API key {}: {e}", path.display());
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).map_err(|e| format!("no randomness for the admin API key: {e}"))?;
    let key: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(fail)?;
    std::io::Write::write_all(&mut file, format!("{key}\n").as_bytes()).map_err(fail)?;
    file.sync_all().map_err(fail)?;
    Ok(key)
}

/// The file's push settings; the allow list is extended, not replaced, by
/// `CLEVERAGENTS_PUSH_ALLOW_LIST`.
fn push_config(file: &PushFile) -> PushConfig {
    let mut allow_list = file.allow_list.clone();
    if let Ok(extra) = std::env::var("CLEVERAGENTS_PUSH_ALLOW_LIST") {
        allow_list.extend(
            extra
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
    }
    let defaults = PushConfig::default();
    PushConfig {
        allow_list,
        max_attempts: file.max_attempts.unwrap_or(defaults.max_attempts),
        initial_backoff: file
            .initial_backoff_ms
            .map(Duration::from_millis)
            .unwrap_or(defaults.initial_backoff),
        timeout: defaults.timeout,
        lease: file.lease_ms.map(Duration::from_millis).unwrap_or(defaults.lease),
    }
}

fn main() {
    // The allocator asks for huge pages on the memory it commits, so a 2 MB
    // page is faulted in where a few KB are used: with many idle streams
    // (each a few small buffers) that doubled the RSS per stream. Refused
    // for this process; a kernel without the setting changes nothing.
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    if let Err(message) = run() {
        eprintln!("cleveragents-agent: {message}");
        std::process::exit(2);
    }
}
