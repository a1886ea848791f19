//! The processes under test: started pinned to the server core with
//! `taskset`, watched through `/proc`, and always killed and reaped, on every
//! exit path, by the guard that owns them.

use crate::http::Conn;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The prefix of the agent's environment settings (see `agent/src/main.rs`);
/// the log level among them, since logging every call would be measured as
/// the agent's cost.
const ENV_PREFIX: &str = "CLEVERAGENTS_";

/// A running server (or stdio peer). Dropping it kills and reaps the process,
/// then removes its scratch directory (after the kill: the agent may still be
/// writing its store there).
pub struct Server {
    child: Child,
    log: PathBuf,
    _scratch: tempfile::TempDir,
}

impl Server {
    /// Starts `program args…` under `taskset -c core`. Its stderr goes to a
    /// log file in `scratch`; stdin/stdout are pipes when `piped` (stdio).
    pub fn start(
        core: usize,
        program: &Path,
        args: &[String],
        scratch: tempfile::TempDir,
        piped: bool,
    ) -> Result<Server, String> {
        let log = scratch.path().join("stderr.log");
        let stderr = std::fs::File::create(&log).map_err(|e| format!("log file: {e}"))?;
        let pipe = || if piped { Stdio::piped() } else { Stdio::null() };
        // taskset execs the program, so the child's pid is the server's own:
        // its /proc entries are the server's.
        let mut command = Command::new("taskset");
        // The agent reads settings from these; the benchmark's flags alone decide.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with(ENV_PREFIX) {
                command.env_remove(name);
            }
        }
        let child = command
            .arg("-c")
            .arg(core.to_string())
            .arg(program)
            .args(args)
            .stdin(pipe())
            .stdout(pipe())
            .stderr(stderr)
            .spawn()
            .map_err(|e| format!("cannot start taskset {}: {e}", program.display()))?;
        Ok(Server {
            child,
            log,
            _scratch: scratch,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// `Err` with the exit status once the process has ended.
    pub fn check_alive(&mut self) -> Result<(), String> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => Err(format!("the server exited: {status}")),
            Err(e) => Err(format!("cannot wait for the server: {e}")),
        }
    }

    /// The last `n` lines the process wrote to stderr.
    pub fn log_tail(&self, n: usize) -> Vec<String> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(n)..]
            .iter()
            .map(|l| l.to_string())
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port nothing listens on right now (bound and released; the
/// server binds it a moment later).
pub fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| format!("no free port: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// Waits until `GET /.well-known/agent-card.json` answers 200.
pub async fn wait_ready(server: &mut Server, addr: SocketAddr) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        server.check_alive()?;
        if let Ok(mut conn) = Conn::connect(addr).await {
            if let Ok(answer) = conn.get("/.well-known/agent-card.json").await {
                if answer.status == 200 {
                    return Ok(());
                }
            }
        }
        if Instant::now() >= deadline {
            return Err(format!("{addr} did not answer the agent card within 30 s"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Pins the calling thread (the driver's only runtime thread; threads
/// started later inherit it) to `core`.
pub fn pin_to_core(core: usize) -> Result<(), String> {
    // SAFETY: the set is zeroed, then filled with CPU_SET, as sched_setaffinity expects.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(format!(
                "cannot pin the driver to core {core}: {}",
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}
