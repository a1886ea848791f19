//! What a front and the background agent say to each other on the local
//! socket before and after a session: one JSON object per line. The front
//! opens with [`Hello`] (carrying its stdin and stdout as `SCM_RIGHTS` when it
//! hands them over); the agent answers [`Answer`]; when the session was
//! handed over as descriptors, the agent reports its end with [`Ended`].
//! Both sides are this binary, of one build (the agent refuses another), so
//! the messages need no versioning of their own.

use serde::{Deserialize, Serialize};
use std::io::{IoSlice, IoSliceMut, Read};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

/// The longest line either side accepts.
const MAX_LINE: usize = 64 * 1024;

/// How the session travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Handover {
    /// The front's stdin and stdout come with the hello; the socket then
    /// only reports the session's end.
    Descriptors,
    /// The session's bytes travel over the socket itself.
    Stream,
}

/// The front's opening message.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Hello {
    pub build: String,
    pub settings: String,
    pub handover: Handover,
    /// The front's pid, for the agent's log.
    pub pid: u32,
}

/// The agent's answer to a [`Hello`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum Answer {
    Accepted { pid: u32 },
    Refused { reason: String },
}

/// The end of a session handed over as descriptors.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Ended {
    /// Why the session failed, if it did.
    pub error: Option<String>,
}

/// `message` as one line.
pub fn line<T: Serialize>(message: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(message).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Parses one line (without its newline).
pub fn parse<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("unreadable message from the other side: {e}"))
}

/// Sends `hello` on `socket`, with `fds` as `SCM_RIGHTS` (blocking).
pub fn send_hello(socket: BorrowedFd<'_>, hello: &Hello, fds: &[BorrowedFd<'_>]) -> std::io::Result<()> {
    use rustix::net::{sendmsg, SendAncillaryBuffer, SendAncillaryMessage, SendFlags};
    let bytes = line(hello);
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() && !control.push(SendAncillaryMessage::ScmRights(fds)) {
        return Err(std::io::Error::other("too many descriptors"));
    }
    let mut sent = sendmsg(socket, &[IoSlice::new(&bytes)], &mut control, SendFlags::empty())?;
    // The descriptors went with the first bytes; the rest of a long line
    // (it never is) follows plainly.
    while sent < bytes.len() {
        let mut none = SendAncillaryBuffer::default();
        sent += sendmsg(
            socket,
            &[IoSlice::new(&bytes[sent..])],
            &mut none,
            SendFlags::empty(),
        )?;
    }
    Ok(())
}

/// Reads one line byte by byte (blocking), so nothing after it is taken
/// from the socket; `None` at end of stream before any byte.
pub fn read_line_exact(mut socket: impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match socket.read(&mut byte)? {
            0 if line.is_empty() => return Ok(None),
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            _ if byte[0] == b'\n' => return Ok(Some(line)),
            _ if line.len() >= MAX_LINE => return Err(std::io::ErrorKind::InvalidData.into()),
            _ => line.push(byte[0]),
        }
    }
}

/// Receives the hello from `socket` with the descriptors that came with it;
/// `None` when the peer closed before a whole line.
pub async fn receive_hello(
    socket: &tokio::net::UnixStream,
) -> std::io::Result<Option<(Vec<u8>, Vec<OwnedFd>)>> {
    use rustix::net::{recvmsg, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags};
    let mut line = Vec::new();
    let mut fds = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        socket.readable().await?;
        let received = socket.try_io(tokio::io::Interest::READABLE, || {
            let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
            let mut control = RecvAncillaryBuffer::new(&mut space);
            let got = recvmsg(
                socket.as_fd(),
                &mut [IoSliceMut::new(&mut chunk)],
                &mut control,
                RecvFlags::CMSG_CLOEXEC,
            )?;
            let mut passed = Vec::new();
            for message in control.drain() {
                if let RecvAncillaryMessage::ScmRights(rights) = message {
                    passed.extend(rights);
                }
            }
            Ok((got.bytes, passed))
        });
        let (n, passed) = match received {
            Ok(got) => got,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(e) => return Err(e),
        };
        fds.extend(passed);
        if n == 0 {
            return Ok(None);
        }
        line.extend_from_slice(&chunk[..n]);
        if let Some(end) = line.iter().position(|b| *b == b'\n') {
            if end + 1 != line.len() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "bytes after the hello before it was answered",
                ));
            }
            line.truncate(end);
            return Ok(Some((line, fds)));
        }
        if line.len() > MAX_LINE {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
    }
}
