//! Local mode for every client at once: one background agent per data
//! directory, reached by any number of short-lived stdio fronts.
//!
//! A client (the `agents` CLI, a TUI, an IDE plugin) spawns
//! `cleveragents-agent --stdio` and speaks the stdio binding on its pipes, as
//! it always has. That process is only a *front* ([`front`]): it connects to
//! the data directory's *background agent* over a private Unix socket,
//! starting it first if none runs, and hands it the session. The background
//! agent ([`host`]) owns the store, serves every session at once (each with
//! its own `initialize`, so each client negotiates its own versions), and
//! keeps running the work they started after they exit: tasks, plans and
//! push deliveries finish exactly as in server mode. It exits once no
//! client has been connected and nothing has been running for the idle
//! period (`local.idle_timeout_ms`, ten minutes by default).
//!
//! A server-mode agent on the same SQLite data directory (`--listen`) hosts
//! the same socket: local clients then reach that process, which owns the
//! store, and no background agent is started. A server cannot start while a
//! background agent runs on its data directory; it says so and how to stop
//! it (`cleveragents-agent --stop`).
//!
//! # Handing the session over
//!
//! The front sends its stdin and stdout to the background agent with the
//! opening message (`SCM_RIGHTS`), when both are pipes or Unix sockets (what
//! a client that spawns the agent gives it): the agent then reads and writes
//! the client's pipes itself, so a request costs exactly what it costs an
//! agent in the client's own process, and the front only waits for the end of
//! the session to exit with its status. Otherwise (a terminal, a file) the
//! session travels over the socket and the front copies bytes both ways.
//!
//! # Starting without races ([`lifecycle`])
//!
//! Everything lives in `DATA_DIR/run/` (mode 0700): `agent.sock` (mode 0600),
//! `agent.lock`, held by the process that owns the store and the socket for
//! as long as it lives, `start.lock`, held by a front while it starts a
//! background agent, `agent.pid` and the background agent's log,
//! `agent.log`. A front that cannot connect takes `start.lock`, tries again
//! (another front may just have started one), and only then spawns the
//! background agent, which takes `agent.lock` (waiting for a predecessor
//! that is still exiting), opens the store, picks up the work a crashed
//! predecessor left, binds the socket and says `ready` on its stdout; the
//! front releases `start.lock` and connects. An agent that retires unlinks
//! its socket first, while it still holds `agent.lock`, so a front arriving
//! meanwhile starts its successor, which waits for the lock. Connections are
//! accepted from the agent's own user only (the peer's uid, checked on each
//! connection), and a front of another build or other settings is refused
//! with a message saying what differs.

pub mod front;
pub mod host;
pub mod lifecycle;
mod wire;

use std::path::{Path, PathBuf};

/// Where the background agent of one data directory is found.
#[derive(Clone, Debug)]
pub struct RunDir {
    /// The data directory the run directory belongs to.
    pub data_dir: PathBuf,
    pub dir: PathBuf,
    pub socket: PathBuf,
    /// Held by the process that owns the store and the socket.
    pub agent_lock: PathBuf,
    /// Held by a front while it starts the background agent.
    pub start_lock: PathBuf,
    pub pid: PathBuf,
    pub log: PathBuf,
}

/// The longest socket path the platform takes (`sun_path` less its NUL).
const MAX_SOCKET_PATH: usize = 107;

impl RunDir {
    /// The run directory of `data_dir`, which must be absolute.
    pub fn of(data_dir: &Path) -> RunDir {
        let dir = data_dir.join("run");
        RunDir {
            socket: dir.join("agent.sock"),
            agent_lock: dir.join("agent.lock"),
            start_lock: dir.join("start.lock"),
            pid: dir.join("agent.pid"),
            log: dir.join("agent.log"),
            dir,
            data_dir: data_dir.to_path_buf(),
        }
    }

    /// Creates the directory (and the data directory) readable by the user
    /// only, and checks that the socket's path is short enough to bind.
    pub fn prepare(&self) -> Result<(), String> {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
        // Another user's data directory is refused before anything is
        // touched in it: local mode serves each user's own data only.
        let uid = rustix::process::geteuid().as_raw();
        if let Ok(meta) = std::fs::metadata(&self.data_dir) {
            if meta.uid() != uid {
                return Err(format!(
                    "the data directory {} belongs to uid {}, not to this user (uid {uid}): local mode serves each user's own data only",
                    self.data_dir.display(),
                    meta.uid()
                ));
            }
        }
        let fail = |e: std::io::Error| format!("cannot create {}: {e}", self.dir.display());
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(fail)?;
        std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700)).map_err(fail)?;
        let length = self.socket.as_os_str().len();
        if length > MAX_SOCKET_PATH {
            return Err(format!(
                "the local socket {} would be {length} bytes long, more than the {MAX_SOCKET_PATH} a Unix socket path may have: choose a shorter --data-dir",
                self.socket.display()
            ));
        }
        Ok(())
    }

    /// The pid and role the owner of the data directory recorded, for
    /// messages (`None` when it left none).
    pub fn owner(&self) -> Option<(u32, String)> {
        let text = std::fs::read_to_string(&self.pid).ok()?;
        let mut words = text.split_whitespace();
        let pid = words.next()?.parse().ok()?;
        Some((pid, words.next().unwrap_or("agent").to_string()))
    }

    /// Records this process as the owner, in `role` (`background`,
    /// `server`, `in-process`).
    pub fn record_owner(&self, role: &str) -> Result<(), String> {
        std::fs::write(&self.pid, format!("{} {role}\n", std::process::id()))
            .map_err(|e| format!("cannot write {}: {e}", self.pid.display()))
    }

    /// The owner described for a message: "a background agent (pid 12)".
    pub fn describe_owner(&self) -> String {
        match self.owner() {
            Some((pid, role)) if role == "server" => format!("a server-mode agent (pid {pid})"),
            Some((pid, role)) if role == "in-process" => {
                format!("an agent serving one stdio session in its own process (pid {pid})")
            }
            Some((pid, _)) => format!("a background agent (pid {pid})"),
            None => "another agent".to_string(),
        }
    }
}

/// What a front and the agent it reaches must agree on: the same build of
/// the binary, and the same settings for the store and the executor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The version and the executable's size and modification time.
    pub build: String,
    /// The store, the executor and the config file (path and content).
    pub settings: String,
}

impl Identity {
    /// This process's identity under `settings`.
    pub fn current(settings: String) -> Identity {
        Identity {
            build: build_id(),
            settings,
        }
    }
}

fn build_id() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let exe = std::env::current_exe().and_then(std::fs::metadata);
    match exe {
        Ok(meta) => {
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{version} ({} bytes, modified {modified})", meta.len())
        }
        Err(_) => version.to_string(),
    }
}
