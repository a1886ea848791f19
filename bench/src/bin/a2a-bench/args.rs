//! The driver's command line.

use crate::followers::FOLLOWERS_WORKLOAD;
use crate::workloads::{HTTP_WORKLOADS, SCALE_WORKLOAD, STDIO_WORKLOAD};
use std::path::PathBuf;
use std::time::Duration;

pub const USAGE: &str = "\
usage: a2a-bench [options]
  --agent PATH         the agent binary (default: cleveragents-agent next to a2a-bench)
  --floor PATH         the HTTP floor (default: bench-floor next to a2a-bench)
  --echo PATH          the stdio floor (default: bench-echo next to a2a-bench)
  --stores LIST        agent stores, of memory,sqlite,postgres,postgres-x2 (default: all); postgres runs one
                       agent and postgres-x2 two agents (both on the server core, the connections dealt
                       alternately) on one database of a throwaway PostgreSQL cluster on the load core
  --workloads LIST     of get-task,send-message,send-streaming,list-tasks,registry-read,stdio, followers (2,000
                       idle domain-event streams per agent store, the RSS each costs) (default: all of
                       these), and scale: each agent store grown to --scale-tasks in three steps, GetTask
                       and ListTasks p50/p99 and RSS at each size (minutes; only when listed)
  --grpc on|off        also run get-task and send-message over the gRPC binding on every agent store,
                       rows `agent/<store> gRPC` against the same floor (default on)
  --spin on|off        the driver spins while an HTTP loop runs, so no reply has to wake it from the server's
                       send (a wake the server's CPU time would count); never beside PostgreSQL, whose
                       database shares the driver's core; stdio rows never spin (default on)
  --connections N      keep-alive HTTP connections (default 64)
  --requests N         requests per workload and target (default 200000: short loops misread the floor)
  --seconds S          time limit per workload and target; the first of count and time ends a loop (default 10)
  --rounds N           measure every row N times in turn, each round with its floor; each goal is judged
                       on the median of its rounds' figures, printed beside them (default 1)
  --seed-tasks N       tasks stored before list-tasks (default 10000)
  --scale-tasks N      the size the scale run grows each store to (default 1000000)
  --server-core N      the core the servers are pinned to (default 0)
  --load-core N        the core the driver is pinned to (default 1)
  --json FILE          also write the results as JSON";

/// The agent's stores, as the table names them; the PostgreSQL ones with
/// how many agent instances share the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    Memory,
    Sqlite,
    Postgres,
    PostgresX2,
}

impl Store {
    pub const ALL: [Store; 4] = [Store::Memory, Store::Sqlite, Store::Postgres, Store::PostgresX2];

    pub fn name(self) -> &'static str {
        match self {
            Store::Memory => "memory",
            Store::Sqlite => "sqlite",
            Store::Postgres => "postgres",
            Store::PostgresX2 => "postgres-x2",
        }
    }

    /// Agent instances of one target.
    pub fn instances(self) -> usize {
        match self {
            Store::PostgresX2 => 2,
            _ => 1,
        }
    }

    /// Whether the store is a PostgreSQL database the driver provides.
    pub fn is_postgres(self) -> bool {
        matches!(self, Store::Postgres | Store::PostgresX2)
    }
}

#[derive(Debug)]
pub struct Options {
    pub agent: PathBuf,
    pub floor: PathBuf,
    pub echo: PathBuf,
    pub stores: Vec<Store>,
    pub workloads: Vec<String>,
    /// Also run get-task and send-message over the gRPC binding on every agent.
    pub grpc: bool,
    /// The driver spins instead of sleeping while an HTTP loop runs (see `spin`).
    pub spin: bool,
    pub connections: usize,
    pub requests: u64,
    pub time: Duration,
    /// How many times every row is measured; goals read the median.
    pub rounds: usize,
    pub seed_tasks: u64,
    pub scale_tasks: u64,
    pub server_core: usize,
    pub load_core: usize,
    pub json: Option<PathBuf>,
    /// The first three fields of `/proc/loadavg`, read when the options are.
    pub load_average: String,
}

/// A binary next to the driver's own (they are built into one target dir).
fn sibling(name: &str) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(name)))
        .unwrap_or_else(|| PathBuf::from("target/release").join(name))
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{flag}: `{value}` is not a valid number"))
}

fn on_off(flag: &str, value: &str) -> Result<bool, String> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(format!("{flag} takes on or off, not `{other}`\n{USAGE}")),
    }
}

fn list(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// Parses `args` (without the program name); `Ok(None)` when help was asked for.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        agent: sibling("cleveragents-agent"),
        floor: sibling("bench-floor"),
        echo: sibling("bench-echo"),
        stores: Store::ALL.to_vec(),
        workloads: all_workloads(),
        grpc: true,
        spin: true,
        connections: 64,
        requests: 200_000,
        time: Duration::from_secs(10),
        rounds: 1,
        seed_tasks: 10_000,
        scale_tasks: 1_000_000,
        server_core: 0,
        load_core: 1,
        json: None,
        load_average: load_average(),
    };
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        if flag == "-h" || flag == "--help" {
            return Ok(None);
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        match flag.as_str() {
            "--agent" => options.agent = value.into(),
            "--floor" => options.floor = value.into(),
            "--echo" => options.echo = value.into(),
            "--stores" => options.stores = list(&value).map(store).collect::<Result<_, _>>()?,
            "--workloads" => options.workloads = list(&value).map(workload).collect::<Result<_, _>>()?,
            "--connections" => options.connections = number(&flag, &value)?,
            "--requests" => options.requests = number(&flag, &value)?,
            "--seconds" => options.time = Duration::from_secs_f64(number(&flag, &value)?),
            "--rounds" => options.rounds = number(&flag, &value)?,
            "--seed-tasks" => options.seed_tasks = number(&flag, &value)?,
            "--scale-tasks" => options.scale_tasks = number(&flag, &value)?,
            "--server-core" => options.server_core = number(&flag, &value)?,
            "--load-core" => options.load_core = number(&flag, &value)?,
            "--json" => options.json = Some(value.into()),
            "--grpc" => options.grpc = on_off(&flag, &value)?,
            "--spin" => options.spin = on_off(&flag, &value)?,
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    if options.connections == 0 || options.requests == 0 || options.rounds == 0 {
        return Err("--connections, --requests and --rounds must be at least 1".into());
    }
    Ok(Some(options))
}

fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

fn all_workloads() -> Vec<String> {
    HTTP_WORKLOADS
        .iter()
        .chain([&STDIO_WORKLOAD, &FOLLOWERS_WORKLOAD])
        .map(|w| w.to_string())
        .collect()
}

fn store(name: &str) -> Result<Store, String> {
    Store::ALL.into_iter().find(|s| s.name() == name).ok_or_else(|| {
        let names: Vec<&str> = Store::ALL.iter().map(|s| s.name()).collect();
        format!("unknown store `{name}` ({})", names.join(", "))
    })
}

fn workload(name: &str) -> Result<String, String> {
    if HTTP_WORKLOADS.contains(&name) || [STDIO_WORKLOAD, FOLLOWERS_WORKLOAD, SCALE_WORKLOAD].contains(&name)
    {
        Ok(name.to_string())
    } else {
        Err(format!("unknown workload `{name}`\n{USAGE}"))
    }
}
