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
