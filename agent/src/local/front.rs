//! The stdio front: what `cleveragents-agent --stdio` runs for a client. It
//! reaches the data directory's background agent (starting it if need be),
//! hands it the session, and exits with the session's end. Plain threads and
//! blocking calls: the front opens no store and starts no runtime, so a
//! client's spawn costs little more than the process itself.

use super::lifecycle::{self, START_TIMEOUT};
use super::wire::{self, Answer, Ended, Handover, Hello};
use super::{Identity, RunDir};
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Instant;

/// What a front needs to reach, or start, its background agent.
pub struct Front {
    pub run: RunDir,
    pub identity: Identity,
    /// The agent binary, and its arguments for a background agent with this
    /// front's settings.
    pub exe: PathBuf,
    pub background_args: Vec<OsString>,
}

/// Where a connection attempt got to.
enum Reach {
    Session(UnixStream, Handover),
    /// No agent listens (no socket, or a dead one's).
    Absent,
    /// An agent closed the connection before answering: it is retiring.
    Retiring,
}

impl Front {
    /// Serves the client's session through the background agent until it
    /// ends.
    pub fn run(&self) -> Result<(), String> {
        self.run.prepare()?;
        let begun = Instant::now();
        loop {
            match self.connect()? {
                Reach::Session(stream, handover) => return self.serve(stream, handover),
                Reach::Absent | Reach::Retiring => {}
            }
            let left = START_TIMEOUT.saturating_sub(begun.elapsed());
            let Some(starting) = lifecycle::lock_within(&self.run.start_lock, left)? else {
                return Err(format!(
                    "no background agent became reachable on {} within {} s (another client is starting one)",
                    self.run.socket.display(),
                    START_TIMEOUT.as_secs()
                ));
            };
            // Another front may have started one while this one waited.
            match self.connect()? {
                Reach::Session(stream, handover) => {
                    // The lock guards starting an agent, not a session: the
                    // fronts waiting behind this one connect now too.
                    drop(starting);
                    return self.serve(stream, handover);
                }
                Reach::Absent => {
                    lifecycle::start_background(&self.run, &self.exe, &self.background_args).map_err(
                        |e| {
                            format!(
                                "cannot start the background agent of {}: {e}",
                                self.run.data_dir.display()
                            )
                        },
                    )?;
                }
                Reach::Retiring => {}
            }
            if begun.elapsed() > START_TIMEOUT {
                return Err(format!(
                    "could not reach the background agent on {} within {} s",
                    self.run.socket.display(),
                    START_TIMEOUT.as_secs()
                ));
            }
        }
    }

    fn connect(&self) -> Result<Reach, String> {
        use std::io::ErrorKind;
        let stream = match UnixStream::connect(&self.run.socket) {
            Ok(stream) => stream,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused) => {
                return Ok(Reach::Absent)
            }
            Err(e) => {
                return Err(format!(
                    "cannot connect to the background agent at {}: {e}",
                    self.run.socket.display()
                ))
            }
        };
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        let (stdin, stdout) = (stdin.as_fd(), stdout.as_fd());
        let handover = if pollable(stdin) && pollable(stdout) {
            Handover::Descriptors
        } else {
            Handover::Stream
        };
        let hello = Hello {
            build: self.identity.build.clone(),
            settings: self.identity.settings.clone(),
            handover,
            pid: std::process::id(),
        };
        let fds: &[BorrowedFd<'_>] = match handover {
            Handover::Descriptors => &[stdin, stdout],
            Handover::Stream => &[],
        };
        if let Err(e) = wire::send_hello(stream.as_fd(), &hello, fds) {
            return retiring_or(e);
        }
        let line = match wire::read_line_exact(&stream) {
            Ok(Some(line)) => line,
            Ok(None) => return Ok(Reach::Retiring),
            Err(e) => return retiring_or(e),
        };
        match wire::parse::<Answer>(&line)? {
            Answer::Accepted { .. } => Ok(Reach::Session(stream, handover)),
            Answer::Refused { reason } => Err(reason),
        }
    }

    fn serve(&self, stream: UnixStream, handover: Handover) -> Result<(), String> {
        match handover {
            Handover::Descriptors => self.await_end(&stream),
            Handover::Stream => relay(stream),
        }
    }

    /// Waits for the agent to report the end of a session it serves on the
    /// client's own pipes.
    fn await_end(&self, stream: &UnixStream) -> Result<(), String> {
        match wire::read_line_exact(stream) {
            Ok(Some(line)) => match wire::parse::<Ended>(&line)?.error {
                None => Ok(()),
                Some(error) => Err(error),
            },
            Ok(None) | Err(_) => Err(format!(
                "the background agent ended this session without a word: it stopped or crashed (its log: {})",
                self.run.log.display()
            )),
        }
    }
}

/// A connection the agent dropped while it was being opened means the agent
/// is retiring; any other failure is reported.
fn retiring_or(error: std::io::Error) -> Result<Reach, String> {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::BrokenPipe | ErrorKind::ConnectionReset | ErrorKind::UnexpectedEof => Ok(Reach::Retiring),
        _ => Err(format!(
            "cannot open a session with the background agent: {error}"
        )),
    }
}

/// True for a pipe or a socket: what the agent's reactor can drive.
fn pollable(fd: BorrowedFd<'_>) -> bool {
    fd.try_clone_to_owned()
        .map(std::fs::File::from)
        .and_then(|file| file.metadata())
        .is_ok_and(|meta| meta.file_type().is_fifo() || meta.file_type().is_socket())
}

/// Copies stdin to the agent and the agent's output to stdout until the
/// agent closes the session (it does once stdin has ended and every request
/// is answered).
fn relay(stream: UnixStream) -> Result<(), String> {
    let mut upstream = stream
        .try_clone()
        .map_err(|e| format!("cannot relay the session: {e}"))?;
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let _ = std::io::copy(&mut stdin, &mut upstream);
        let _ = upstream.shutdown(std::net::Shutdown::Write);
    });
    let mut downstream = stream;
    let mut stdout = std::io::stdout().lock();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = match downstream.read(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("the session with the background agent broke: {e}")),
        };
        if stdout
            .write_all(&buffer[..n])
            .and_then(|()| stdout.flush())
            .is_err()
        {
            // The client stopped reading: the session is over for it.
            return Ok(());
        }
    }
}
