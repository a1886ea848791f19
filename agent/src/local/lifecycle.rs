//! The run directory's locks, and starting the background agent: a front
//! spawns it and waits for its `ready` line; the agent takes the store's
//! lock, binds the socket and says `ready` (or `error …`) on its stdout.
//! See the module above for why no two agents ever own one data directory.

use super::RunDir;
use std::fs::File;
use std::io::{BufRead, Read, Seek, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long a front waits for a background agent to start, and a starting
/// agent for a predecessor to let go of the store.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The log is started afresh once it grows past this.
const MAX_LOG_BYTES: u64 = 4 << 20;

/// An exclusive `flock` on a file of the run directory, released when
/// dropped (or when the process ends, however it ends).
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

fn open_lock_file(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
}

/// Takes the lock at `path` if nobody holds it.
pub fn try_lock(path: &Path) -> Result<Option<Lock>, String> {
    use rustix::fs::{flock, FlockOperation};
    let file = open_lock_file(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    match flock(&file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(Lock { _file: file })),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
        Err(e) => Err(format!("cannot lock {}: {e}", path.display())),
    }
}

/// Takes the lock at `path`, waiting at most `timeout` for its holder;
/// `None` when it was not released in time.
pub fn lock_within(path: &Path, timeout: Duration) -> Result<Option<Lock>, String> {
    if let Some(lock) = try_lock(path)? {
        return Ok(Some(lock));
    }
    let file = open_lock_file(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let (tx, rx) = mpsc::channel();
    // A blocking flock has no timeout: it waits on a thread of its own. Given
    // up on, the thread still ends when the lock comes, and drops it then.
    std::thread::spawn(move || {
        let taken = rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive);
        let _ = tx.send(taken.map(|()| file));
    });
    match rx.recv_timeout(timeout) {
        Ok(Ok(file)) => Ok(Some(Lock { _file: file })),
        Ok(Err(e)) => Err(format!("cannot lock {}: {e}", path.display())),
        Err(_) => Ok(None),
    }
}

/// Spawns the background agent (`exe` with `args`), logging to the run
/// directory, and waits until it is ready to accept sessions.
pub fn start_background(run: &RunDir, exe: &Path, args: &[std::ffi::OsString]) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let log = open_log(&run.log)?;
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        // Its own process group: a Ctrl-C meant for the client's terminal
        // does not reach the agent that outlives it.
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the background agent `{}`: {e}", exe.display()))?;
    let Some(stdout) = child.stdout.take() else {
        return Err("the background agent's stdout is unavailable".into());
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = std::io::BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(read.map(|_| line));
    });
    let said = rx.recv_timeout(START_TIMEOUT);
    match said {
        Ok(Ok(line)) if line.starts_with("ready") => Ok(()),
        Ok(Ok(line)) if line.starts_with("error ") => Err(line["error ".len()..].trim_end().to_string()),
        Ok(_) => {
            // No line: it ended during start-up; its log says why.
            let status = child.wait().map(|s| s.to_string()).unwrap_or_default();
            Err(format!(
                "the background agent exited during start-up ({status}); its log {} ends with:\n{}",
                run.log.display(),
                log_tail(&run.log, 8)
            ))
        }
        Err(_) => Err(format!(
            "the background agent did not become ready within {} s; {} holds the data directory (its log: {})",
            START_TIMEOUT.as_secs(),
            run.describe_owner(),
            run.log.display()
        )),
    }
}

fn open_log(path: &Path) -> Result<File, String> {
    let fail = |e: std::io::Error| format!("cannot open the background agent's log {}: {e}", path.display());
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .write(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
        .map_err(fail)?;
    if file.metadata().map_err(fail)?.len() > MAX_LOG_BYTES {
        file.set_len(0).map_err(fail)?;
    }
    file.seek(std::io::SeekFrom::End(0)).map_err(fail)?;
    Ok(file)
}

/// The last `lines` lines of the log, indented.
fn log_tail(path: &Path, lines: usize) -> String {
    let mut text = String::new();
    let _ = File::open(path).and_then(|mut f| f.read_to_string(&mut text));
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..]
        .iter()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Tells the front that started this agent that it is ready (or why it
/// could not start): one line on stdout, which carries nothing else.
pub fn announce(outcome: &Result<(), String>) {
    let line = match outcome {
        Ok(()) => format!("ready {}\n", std::process::id()),
        Err(message) => format!("error {}\n", message.replace('\n', " ")),
    };
    let mut out = std::io::stdout().lock();
    // The front may have given up waiting: nobody to tell then.
    let _ = out.write_all(line.as_bytes()).and_then(|()| out.flush());
}

/// Binds the run directory's socket for a process that holds its agent
/// lock: a socket file left by a predecessor that died is replaced. Returns
/// the listener and the socket file's inode (to notice its removal).
pub fn bind(run: &RunDir) -> Result<(std::os::unix::net::UnixListener, u64), String> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::remove_file(&run.socket) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(format!(
                "cannot remove the stale socket {}: {e}",
                run.socket.display()
            ))
        }
    }
    let fail = |e: std::io::Error| format!("cannot bind the local socket {}: {e}", run.socket.display());
    let listener = std::os::unix::net::UnixListener::bind(&run.socket).map_err(fail)?;
    std::fs::set_permissions(&run.socket, std::fs::Permissions::from_mode(0o600)).map_err(fail)?;
    listener.set_nonblocking(true).map_err(fail)?;
    let inode = std::fs::metadata(&run.socket).map_err(fail)?.ino();
    Ok((listener, inode))
}

/// True while the socket file is the one this process bound.
pub fn still_bound(run: &RunDir, inode: u64) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(&run.socket).is_ok_and(|m| m.ino() == inode)
}

/// Removes the socket file if it is still this process's, and the owner record.
pub fn unbind(run: &RunDir, inode: u64) {
    if still_bound(run, inode) {
        let _ = std::fs::remove_file(&run.socket);
    }
    if run.owner().is_some_and(|(pid, _)| pid == std::process::id()) {
        let _ = std::fs::remove_file(&run.pid);
    }
}
