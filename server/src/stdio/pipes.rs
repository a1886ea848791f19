//! The process's own stdin and stdout as async streams. When they are pipes
//! (the usual case: the agent spawned by a client) they are driven by the
//! reactor like sockets, so a line in or out costs one syscall on the
//! worker that handles it. Tokio's `stdin()`/`stdout()` run every read and
//! write on the blocking pool instead: a thread hop per message. Anything
//! else (a terminal, a file) falls back to those.

use std::os::fd::AsFd;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::pipe;

/// The process's stdin, as an async reader.
pub fn stdin() -> Box<dyn AsyncRead + Unpin + Send> {
    let pipe = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|fd| pipe::Receiver::from_file(std::fs::File::from(fd)));
    match pipe {
        Ok(receiver) => Box::new(receiver),
        Err(_) => Box::new(tokio::io::stdin()),
    }
}

/// The process's stdout, as an async writer.
pub fn stdout() -> Box<dyn AsyncWrite + Unpin + Send> {
    let pipe = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|fd| pipe::Sender::from_file(std::fs::File::from(fd)));
    match pipe {
        Ok(sender) => Box::new(sender),
        Err(_) => Box::new(tokio::io::stdout()),
    }
}

/// A descriptor handed over by another process (its stdin) as an async
/// reader driven by the reactor: a pipe, or a Unix socket (what some
/// runtimes, Node.js among them, give a child as its stdio). Anything else
/// is refused with `InvalidInput`, since it cannot be polled.
pub fn reader_from(fd: std::os::fd::OwnedFd) -> std::io::Result<Box<dyn AsyncRead + Unpin + Send>> {
    match pollable(&fd)? {
        Pollable::Pipe => Ok(Box::new(pipe::Receiver::from_owned_fd(fd)?)),
        Pollable::Socket => Ok(Box::new(unix_stream(fd)?)),
    }
}

/// A descriptor handed over by another process (its stdout) as an async
/// writer; the same kinds as [`reader_from`].
pub fn writer_from(fd: std::os::fd::OwnedFd) -> std::io::Result<Box<dyn AsyncWrite + Unpin + Send>> {
    match pollable(&fd)? {
        Pollable::Pipe => Ok(Box::new(pipe::Sender::from_owned_fd(fd)?)),
        Pollable::Socket => Ok(Box::new(unix_stream(fd)?)),
    }
}

/// The kinds of descriptor the reactor can drive.
enum Pollable {
    Pipe,
    Socket,
}

fn pollable(fd: &std::os::fd::OwnedFd) -> std::io::Result<Pollable> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::File::from(fd.try_clone()?).metadata()?.file_type();
    if kind.is_fifo() {
        Ok(Pollable::Pipe)
    } else if kind.is_socket() {
        Ok(Pollable::Socket)
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "neither a pipe nor a socket",
        ))
    }
}

fn unix_stream(fd: std::os::fd::OwnedFd) -> std::io::Result<tokio::net::UnixStream> {
    let stream = std::os::unix::net::UnixStream::from(fd);
    stream.set_nonblocking(true)?;
    tokio::net::UnixStream::from_std(stream)
}
