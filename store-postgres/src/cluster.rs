//! A throwaway PostgreSQL cluster for tests: `initdb` and `postgres` in a
//! temporary directory, listening on a free loopback port (and a unix socket
//! in that directory), with `fsync` on as in production. One cluster serves
//! a whole test process; each test takes a fresh database of its own.
//!
//! The server runs under a small shell that holds a pipe from this process:
//! when the process ends, however it ends (a panic, a kill), the pipe closes
//! and the shell shuts the server down and removes the directory, so no
//! cluster outlives its tests.
//!
//! The binaries are looked up under `/usr/lib/postgresql/*/bin` (Debian's
//! layout; `scripts/postgres` installs them). Missing binaries are an error,
//! never a skipped test. As root the cluster runs as the `postgres` user,
//! because PostgreSQL refuses to run as root.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long the server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A running throwaway cluster.
pub struct TestCluster {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    // Held open for the life of the process: closing it stops the cluster.
    watchdog: Mutex<(Child, ChildStdin)>,
}

/// The process's one cluster, started on first use.
static CLUSTER: OnceLock<Result<TestCluster, String>> = OnceLock::new();

/// Databases handed out so far, to name the next one.
static DATABASES: AtomicU32 = AtomicU32::new(0);

impl TestCluster {
    /// The process's cluster, started on first use; panics (failing the
    /// test) when PostgreSQL is not installed or does not start.
    pub fn shared() -> &'static TestCluster {
        Self::try_shared().unwrap_or_else(|e| panic!("{e}"))
    }

    /// The process's cluster, started on first use, or why there is none.
    pub fn try_shared() -> Result<&'static TestCluster, String> {
        CLUSTER.get_or_init(TestCluster::start).as_ref().map_err(|e| {
            format!("no throwaway PostgreSQL cluster: {e} (./scripts/postgres installs PostgreSQL)")
        })
    }

    /// A new, empty database on the shared cluster: its connection URL.
    pub fn fresh_database() -> String {
        Self::shared().create_database().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Creates a new, empty database on this cluster: its connection URL.
    pub fn create_database(&self) -> Result<String, String> {
        self.create_named_database().map(|name| self.url(&name))
    }

    /// Creates a new, empty database on this cluster: its name.
    pub fn create_named_database(&self) -> Result<String, String> {
        let name = format!(
            "t{}_{}",
            std::process::id(),
            DATABASES.fetch_add(1, Ordering::Relaxed)
        );
        self.psql(&format!("CREATE DATABASE {name}"))
            .map_err(|e| format!("cannot create database {name}: {e}"))?;
        Ok(name)
    }

    /// The URL of database `name` on this cluster.
    pub fn url(&self, name: &str) -> String {
        self.url_through(self.port, name)
    }

    /// The URL of database `name` reached through loopback port `port`
    /// (a proxy in front of this cluster).
    pub fn url_through(&self, port: u16, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{port}/{name}")
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The process id of the server (the postmaster, parent of every backend),
    /// as its `postmaster.pid` file states it: for reading its CPU time.
    pub fn server_pid(&self) -> Option<u32> {
        let text = std::fs::read_to_string(self.data.join("postmaster.pid")).ok()?;
        text.lines().next()?.trim().parse().ok()
    }

    /// Shuts the server down at once (an immediate shutdown: no checkpoint,
    /// every connection cut, as in a crash) and starts it again on the same
    /// data, which recovers from its write-ahead log; returns once the new
    /// server accepts connections. For tests of what clients of the
    /// database survive.
    pub fn restart_immediately(&self) -> Result<(), String> {
        use std::io::Write;
        let before = self.server_pid();
        {
            let mut watchdog = self
                .watchdog
                .lock()
                .map_err(|_| "the cluster's shell is poisoned")?;
            let stdin = &mut watchdog.1;
            stdin
                .write_all(b"restart\n")
                .and_then(|()| stdin.flush())
                .map_err(|e| format!("cannot reach the cluster's shell: {e}"))?;
        }
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            match self.server_pid() {
                Some(pid) if Some(pid) != before => break,
                _ if Instant::now() > deadline => {
                    return Err(format!("the server did not start again within {START_TIMEOUT:?}"))
                }
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        self.wait_ready()
    }

    /// Runs one SQL command with `psql` on the `postgres` database.
    pub fn psql(&self, sql: &str) -> Result<(), String> {
        let out = Command::new(self.bin.join("psql"))
            .args([
                "-X",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
                "-U",
                "postgres",
            ])
            .args(["-p", &self.port.to_string(), "-d", "postgres", "-c", sql])
            .output()
            .map_err(|e| format!("cannot run psql: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// Runs the SQL script `sql` (a plain `pg_dump`, say) with `psql` on
    /// database `name`, stopping at the first error.
    pub fn psql_script(&self, name: &str, sql: &str) -> Result<(), String> {
        use std::io::Write;
        let mut child = Command::new(self.bin.join("psql"))
            .args([
                "-X",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
                "-U",
                "postgres",
            ])
            .args(["-p", &self.port.to_string(), "-d", name, "-f", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run psql: {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(sql.as_bytes())
                .map_err(|e| format!("cannot feed psql: {e}"))?;
        }
        let out = child.wait_with_output().map_err(|e| format!("psql: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// A plain `pg_dump` of database `name`, without owners or privileges
    /// (which name this cluster's roles, not the schema's).
    pub fn pg_dump(&self, name: &str) -> Result<String, String> {
        let out = Command::new(self.bin.join("pg_dump"))
            .args([
                "--no-owner",
                "--no-privileges",
                "-h",
                "127.0.0.1",
                "-U",
                "postgres",
            ])
            .args(["-p", &self.port.to_string(), "-d", name])
            .output()
            .map_err(|e| format!("cannot run pg_dump: {e}"))?;
        if out.status.success() {
            String::from_utf8(out.stdout).map_err(|e| format!("pg_dump: {e}"))
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    fn start() -> Result<TestCluster, String> {
        let bin = server_binaries()?;
        let owner = cluster_owner()?;
        remove_orphans();
        let dir = std::env::temp_dir().join(format!("{DIR_PREFIX}{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
                .map_err(|e| format!("cannot hand {} to the postgres user: {e}", dir.display()))?;
        }
        let data = dir.join("data");
        let mut initdb = Command::new(bin.join("initdb"));
        initdb
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--locale=C",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        as_owner(&mut initdb, owner);
        let out = initdb.output().map_err(|e| format!("cannot run initdb: {e}"))?;
        if !out.status.success() {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!("initdb failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        let port = free_port()?;
        let watchdog = watchdog(&bin, &dir, &data, port, owner)?;
        let cluster = TestCluster {
            bin,
            data,
            port,
            watchdog: Mutex::new(watchdog),
        };
        cluster.wait_ready()?;
        Ok(cluster)
    }

    /// Waits until the server answers queries.
    fn wait_ready(&self) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let ready = Command::new(self.bin.join("pg_isready"))
                .args([
                    "-q",
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &self.port.to_string(),
                    "-U",
                    "postgres",
                ])
                .status()
                .map_err(|e| format!("cannot run pg_isready: {e}"))?;
            if ready.success() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("the server did not start within {START_TIMEOUT:?}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The cluster directory's name, before the id of the process it serves.
const DIR_PREFIX: &str = "cleveragents-pg-";

/// Removes the directories of clusters whose test process is gone and whose
/// shell was killed with it before it could clean up.
fn remove_orphans() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(DIR_PREFIX)) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The newest installed server's binary directory.
fn server_binaries() -> Result<PathBuf, String> {
    let root = Path::new("/usr/lib/postgresql");
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .map_err(|e| format!("{} is not readable: {e}", root.display()))?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("postgres").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, bin)| bin)
        .ok_or_else(|| format!("no server binaries under {}/*/bin", root.display()))
}

/// The user the cluster runs as when this process is root: `postgres`.
fn cluster_owner() -> Result<Option<(u32, u32)>, String> {
    let out = Command::new("id")
        .arg("-u")
        .output()
        .map_err(|e| format!("cannot run id: {e}"))?;
    if String::from_utf8_lossy(&out.stdout).trim() != "0" {
        return Ok(None);
    }
    let passwd =
        std::fs::read_to_string("/etc/passwd").map_err(|e| format!("cannot read /etc/passwd: {e}"))?;
    passwd
        .lines()
        .find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            match fields.as_slice() {
                ["postgres", _, uid, gid, ..] => Some((uid.parse().ok()?, gid.parse().ok()?)),
                _ => None,
            }
        })
        .map(Some)
        .ok_or_else(|| "running as root, and there is no postgres user to run the cluster as".to_string())
}

fn as_owner(command: &mut Command, owner: Option<(u32, u32)>) {
    if let Some((uid, gid)) = owner {
        command.uid(uid).gid(gid).env("HOME", "/tmp");
    }
}

/// A loopback port nobody listens on right now.
fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|e| format!("no free loopback port: {e}"))
}

/// Starts the server under a shell that stops it and removes `dir` once its
/// standard input closes (this process ended), or when it is told to stop.
fn watchdog(
    bin: &Path,
    dir: &Path,
    data: &Path,
    port: u16,
    owner: Option<(u32, u32)>,
) -> Result<(Child, ChildStdin), String> {
    let script = r#"
        bin=$1 data=$2 dir=$3 port=$4
        start() {
            "$bin/postgres" -D "$data" -p "$port" -k "$dir" -c listen_addresses=127.0.0.1 \
                -c fsync=on -c synchronous_commit=on -c max_connections=200 \
                -c shared_buffers=32MB -c log_min_messages=fatal >> "$dir/server.log" 2>&1 &
            server=$!
        }
        stop() { kill -QUIT "$server" 2> /dev/null; wait "$server" 2> /dev/null; rm -rf "$dir"; exit 0; }
        trap stop TERM INT HUP
        start
        echo started
        # Each line asks for an immediate shutdown (SIGQUIT: no checkpoint,
        # as in a crash) and a start on the same data, which recovers.
        while read -r _; do
            kill -QUIT "$server" 2> /dev/null
            wait "$server" 2> /dev/null
            start
        done
        stop
    "#;
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(script)
        .arg("sh")
        .arg(bin)
        .arg(data)
        .arg(dir)
        .arg(port.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    as_owner(&mut command, owner);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start postgres: {e}"))?;
    let stdin = child.stdin.take().ok_or("no pipe to the cluster's shell")?;
    let stdout = child.stdout.take().ok_or("no pipe from the cluster's shell")?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| format!("the cluster's shell did not start: {e}"))?;
    Ok((child, stdin))
}
