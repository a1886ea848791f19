//! The connection of an HTTP/2 client, declared unfit for vectored writes so
//! that the HTTP/2 codec copies each small DATA frame into its write buffer.
//!
//! The codec writes a DATA payload of 256 bytes or more by reference, as a
//! buffer of its own in a vectored write, and encodes no further frame until
//! that write is done. A unary gRPC answer (a task of a few hundred bytes,
//! then the trailers with `grpc-status`) then went out in two writes, and
//! woke its client twice. Told the connection takes one buffer at a time,
//! the codec copies payloads under 1 KiB into its buffer instead, and the
//! headers, the message and the trailers of such an answer leave in one
//! write. Larger payloads are still written by reference.

use hyper::rt::{Read, ReadBufCursor, Write};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

/// `T`, with every write taken as one buffer.
pub(super) struct CopiedWrites<T>(pub(super) T);

impl<T: Read + Unpin> Read for CopiedWrites<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: ReadBufCursor<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_read(cx, buf)
    }
}

impl<T: Write + Unpin> Write for CopiedWrites<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        false
    }
}
