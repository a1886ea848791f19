//! gRPC's message framing over HTTP/2 (the "Length-Prefixed-Message" of the
//! gRPC over HTTP/2 protocol): a compressed flag byte, a four-byte big-endian
//! length, the message.

use bytes::{Buf, Bytes, BytesMut};

/// The bytes before each message.
pub const PREFIX_LEN: usize = 5;

/// Why a request body is not exactly one acceptable message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The body ends inside a prefix or a message.
    #[error("the request ends inside a message: {0} bytes of a length-prefixed message are missing")]
    Truncated(usize),
    /// No message at all.
    #[error("the request carries no message")]
    Empty,
    /// More than one message for a method that takes one.
    #[error("the request carries more than one message; the method takes one")]
    TooMany,
    /// The compressed flag is set: this peer compresses nothing and accepts only `identity`.
    #[error("the message is compressed; this peer accepts uncompressed messages only (grpc-accept-encoding: identity)")]
    Compressed,
    /// The declared length is over the limit.
    #[error("the message of {len} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// The declared length.
        len: usize,
        /// The limit.
        limit: usize,
    },
}

/// One message framed.
pub fn encode(message: &[u8]) -> Bytes {
    let mut out = BytesMut::with_capacity(PREFIX_LEN + message.len());
    out.extend_from_slice(&[0]);
    out.extend_from_slice(&(message.len() as u32).to_be_bytes());
    out.extend_from_slice(message);
    out.freeze()
}

/// The one message of a whole request body (unary and server-streaming
/// methods take exactly one), if its length is within `limit`.
pub fn single(body: &[u8], limit: usize) -> Result<&[u8], FrameError> {
    if body.is_empty() {
        return Err(FrameError::Empty);
    }
    if body.len() < PREFIX_LEN {
        return Err(FrameError::Truncated(PREFIX_LEN - body.len()));
    }
    let len = declared_len(&body[..PREFIX_LEN], limit)?;
    let rest = &body[PREFIX_LEN..];
    match rest.len().cmp(&len) {
        std::cmp::Ordering::Less => Err(FrameError::Truncated(len - rest.len())),
        std::cmp::Ordering::Greater => Err(FrameError::TooMany),
        std::cmp::Ordering::Equal => Ok(rest),
    }
}

/// The declared length of the message `prefix` starts, if acceptable.
fn declared_len(prefix: &[u8], limit: usize) -> Result<usize, FrameError> {
    if prefix[0] != 0 {
        return Err(FrameError::Compressed);
    }
    let len = u32::from_be_bytes([prefix[1], prefix[2], prefix[3], prefix[4]]) as usize;
    if len > limit {
        return Err(FrameError::TooLarge { len, limit });
    }
    Ok(len)
}

/// Splits messages off a byte stream as it arrives (a response stream's
/// DATA frames cut messages anywhere).
#[derive(Debug)]
pub struct Decoder {
    buffer: BytesMut,
    limit: usize,
}

impl Decoder {
    /// A decoder refusing messages longer than `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Decoder {
            buffer: BytesMut::new(),
            limit,
        }
    }

    /// Takes in `chunk` of the stream.
    pub fn push(&mut self, chunk: &[u8]) {
        self.buffer.extend_from_slice(chunk);
    }

    /// The next whole message taken in, if any.
    pub fn next_message(&mut self) -> Result<Option<Bytes>, FrameError> {
        if self.buffer.len() < PREFIX_LEN {
            return Ok(None);
        }
        let len = declared_len(&self.buffer[..PREFIX_LEN], self.limit)?;
        if self.buffer.len() < PREFIX_LEN + len {
            return Ok(None);
        }
        self.buffer.advance(PREFIX_LEN);
        Ok(Some(self.buffer.split_to(len).freeze()))
    }

    /// Bytes taken in that are not yet a whole message (a stream that ends
    /// with some is truncated).
    pub fn pending(&self) -> usize {
        self.buffer.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_message_round_trips() {
        let framed = encode(b"hello");
        assert_eq!(&framed[..], b"\0\0\0\0\x05hello");
        assert_eq!(single(&framed, 16), Ok(&b"hello"[..]));
        assert_eq!(single(&encode(b""), 16), Ok(&b""[..]));
    }

    #[test]
    fn a_body_that_is_not_one_message_is_refused() {
        assert_eq!(single(b"", 16), Err(FrameError::Empty));
        assert_eq!(single(b"\0\0\0", 16), Err(FrameError::Truncated(2)));
        assert_eq!(single(b"\0\0\0\0\x05hel", 16), Err(FrameError::Truncated(2)));
        let mut two = encode(b"a").to_vec();
        two.extend_from_slice(&encode(b"b"));
        assert_eq!(single(&two, 16), Err(FrameError::TooMany));
        assert_eq!(single(b"\x01\0\0\0\x01a", 16), Err(FrameError::Compressed));
        assert_eq!(
            single(b"\0\0\0\x01\0", 16),
            Err(FrameError::TooLarge { len: 256, limit: 16 })
        );
    }

    #[test]
    fn the_decoder_reassembles_messages_cut_anywhere() {
        let mut stream = encode(b"first").to_vec();
        stream.extend_from_slice(&encode(b"second"));
        let mut decoder = Decoder::new(64);
        let mut seen = Vec::new();
        for byte in &stream {
            decoder.push(std::slice::from_ref(byte));
            while let Some(message) = decoder.next_message().unwrap() {
                seen.push(message);
            }
        }
        assert_eq!(seen, [&b"first"[..], &b"second"[..]]);
        assert_eq!(decoder.pending(), 0);
    }
}
