//! What an HTTP workload runs against: the floor, one agent on its in-memory
//! or SQLite store, or one or two agents sharing one PostgreSQL database.
//!
//! Every agent instance is pinned to the server core. The PostgreSQL server
//! is a throwaway cluster this process starts (the same one the tests use)
//! and inherits this process's pinning, so it runs on the load core: its CPU
//! is read apart from the agents' (the postmaster and its backends), and the
//! table shows both.

use crate::args::{Options, Store};
use crate::http::Conn;
use crate::process::{free_port, wait_ready, Server};
use std::net::SocketAddr;
use std::path::Path;
use store_postgres::cluster::TestCluster;

/// The servers the HTTP workloads run against.
#[derive(Clone, Copy, Debug)]
pub enum HttpTarget {
    Floor,
    Agent(Store),
}

impl HttpTarget {
    pub fn name(self) -> String {
        match self {
            HttpTarget::Floor => "floor".into(),
            HttpTarget::Agent(store) => format!("agent/{}", store.name()),
        }
    }

    /// The name of this target's rows over the gRPC binding.
    pub fn grpc_name(self) -> String {
        format!("{} gRPC", self.name())
    }
}

/// The open-stream limit the agent is started with: above the connection
/// count, since every connection may hold one stream and the default (16 for
/// all anonymous callers together) would turn the streaming load into 429s,
/// and above the followers run's idle streams.
pub fn agent_stream_limit(connections: usize) -> usize {
    (connections * 2).max(crate::followers::FOLLOWERS * 2)
}

/// The running processes of one target.
pub struct Deployment {
    pub target: HttpTarget,
    instances: Vec<(Server, SocketAddr)>,
    database: Option<u32>,
}

impl Deployment {
    /// Starts `target` and waits until every instance answers.
    pub async fn start(options: &Options, target: HttpTarget) -> Result<Deployment, String> {
        let (count, url) = match target {
            HttpTarget::Floor => (1, None),
            HttpTarget::Agent(store) if store.is_postgres() => {
                let cluster = TestCluster::try_shared()?;
                (store.instances(), Some((cluster, cluster.create_database()?)))
            }
            HttpTarget::Agent(store) => (store.instances(), None),
        };
        let mut instances = Vec::with_capacity(count);
        for _ in 0..count {
            let scratch = tempfile::tempdir().map_err(|e| format!("scratch dir: {e}"))?;
            let addr: SocketAddr = ([127, 0, 0, 1], free_port()?).into();
            let (program, args) = match target {
                HttpTarget::Floor => (&options.floor, vec![addr.port().to_string()]),
                HttpTarget::Agent(store) => {
                    let database = url.as_ref().map(|(_, url)| url.as_str());
                    let args = agent_args(options, store, scratch.path(), addr, database)?;
                    (&options.agent, args)
                }
            };
            let mut server = Server::start(options.server_core, program, &args, scratch, false)?;
            wait_ready(&mut server, addr).await?;
            instances.push((server, addr));
        }
        let database = match &url {
            Some((cluster, _)) => Some(
                cluster
                    .server_pid()
                    .ok_or("cannot read the PostgreSQL server's pid from its postmaster.pid")?,
            ),
            None => None,
        };
        let addrs: Vec<String> = instances.iter().map(|(_, a)| a.to_string()).collect();
        eprintln!("a2a-bench: {} is up on {}", target.name(), addrs.join(", "));
        Ok(Deployment {
            target,
            instances,
            database,
        })
    }

    /// Where the instances listen.
    pub fn addrs(&self) -> Vec<SocketAddr> {
        self.instances.iter().map(|(_, addr)| *addr).collect()
    }

    /// The agents' (or the floor's) process ids.
    pub fn pids(&self) -> Vec<u32> {
        self.instances.iter().map(|(s, _)| s.pid()).collect()
    }

    /// The PostgreSQL server's pid, when the target has one.
    pub fn database_pid(&self) -> Option<u32> {
        self.database
    }

    /// `n` keep-alive connections, dealt to the instances in turn.
    pub async fn connect(&self, n: usize) -> Result<Vec<Conn>, String> {
        let mut conns = Vec::with_capacity(n);
        for (_, addr) in self.instances.iter().cycle().take(n) {
            conns.push(
                Conn::connect(*addr)
                    .await
                    .map_err(|e| format!("connect {addr}: {e}"))?,
            );
        }
        Ok(conns)
    }

    /// `n` connections over the gRPC binding.
    pub async fn connect_grpc(&self, n: usize) -> Result<Vec<Conn>, String> {
        let mut conns = Vec::with_capacity(n);
        for (_, addr) in self.instances.iter().cycle().take(n) {
            conns.push(Conn::connect_grpc(*addr).await?);
        }
        Ok(conns)
    }

    /// The resident set of every instance together, in bytes.
    pub fn rss_bytes(&self) -> Result<u64, String> {
        let mut total = 0;
        for pid in self.pids() {
            total += bench::procfs::rss_bytes(pid).map_err(|e| e.to_string())?;
        }
        Ok(total)
    }

    /// `Err` naming the workload, the instance and its last log lines when an
    /// instance has exited.
    pub fn check_alive(&mut self, workload: &str) -> Result<(), String> {
        let name = self.target.name();
        for (server, addr) in &mut self.instances {
            if let Err(crash) = server.check_alive() {
                let log = server.log_tail(20).join("\n  ");
                return Err(format!("{name} on {addr} during {workload}: {crash}\n  {log}"));
            }
        }
        Ok(())
    }

    /// Prints each instance's last log lines.
    pub fn print_log_tails(&self) {
        for (server, addr) in &self.instances {
            for line in server.log_tail(5) {
                eprintln!("a2a-bench: {} on {addr} stderr: {line}", self.target.name());
            }
        }
    }
}

/// The agent's command line on `store`, listening on `addr`, its config file
/// (and its data, on SQLite) written under `scratch`, on the PostgreSQL
/// database `database` when the store is one.
fn agent_args(
    options: &Options,
    store: Store,
    scratch: &Path,
    addr: SocketAddr,
    database: Option<&str>,
) -> Result<Vec<String>, String> {
    let config = scratch.join("config.json");
    let limit = agent_stream_limit(options.connections);
    let text = format!(r#"{{"server":{{"limits":{{"max_streams_per_principal":{limit}}}}}}}"#);
    std::fs::write(&config, text).map_err(|e| format!("config file: {e}"))?;
    let mut args = vec!["--listen".into(), addr.to_string(), "--config".into()];
    args.push(config.display().to_string());
    match (store, database) {
        (Store::Memory, _) => args.push("--memory".into()),
        (Store::Sqlite, _) => {
            args.push("--data-dir".into());
            args.push(scratch.join("data").display().to_string());
        }
        (Store::Postgres | Store::PostgresX2, Some(url)) => {
            args.push("--database-url".into());
            args.push(url.to_string());
        }
        (Store::Postgres | Store::PostgresX2, None) => {
            return Err(format!("{} needs a database", store.name()));
        }
    }
    Ok(args)
}
