//! Reading what comes back over a socket: an HTTP/1.1 response head, a
//! chunked body, and the SSE events inside a streamed body.
//!
//! Each function takes the bytes received so far and says whether they are
//! complete (`Ok(Some(..))`), need more (`Ok(None)`), or are malformed
//! (`Err`), so the load client can call it after every read without keeping
//! parser state between reads. Bodies here are small (a JSON-RPC answer, or
//! the few events of one streamed message), so rescanning is cheap.

/// How the body after the head is delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyFraming {
    Length(usize),
    Chunked,
    /// Neither header: the body runs until the server closes the connection.
    UntilClose,
}

/// The parts of a response head the load client acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResponseHead {
    pub status: u16,
    pub framing: BodyFraming,
    /// Bytes of the head, including the blank line ending it.
    pub head_len: usize,
    /// `false` when the server said `Connection: close`.
    pub keep_alive: bool,
}

/// Parses the response head at the start of `buf`.
pub fn parse_response_head(buf: &[u8]) -> Result<Option<ResponseHead>, String> {
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut response = httparse::Response::new(&mut headers);
    let head_len = match response.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(format!("malformed response head: {e}")),
    };
    let status = response.code.ok_or("response without a status")?;
    let mut framing = BodyFraming::UntilClose;
    let mut keep_alive = true;
    for header in response.headers.iter() {
        let value = std::str::from_utf8(header.value).unwrap_or("").trim();
        if header.name.eq_ignore_ascii_case("content-length") {
            let length = value
                .parse()
                .map_err(|_| format!("bad Content-Length `{value}`"))?;
            framing = BodyFraming::Length(length);
        } else if header.name.eq_ignore_ascii_case("transfer-encoding") {
            if value.eq_ignore_ascii_case("chunked") {
                framing = BodyFraming::Chunked;
            }
        } else if header.name.eq_ignore_ascii_case("connection") {
            keep_alive = !value.eq_ignore_ascii_case("close");
        }
    }
    Ok(Some(ResponseHead {
        status,
        framing,
        head_len,
        keep_alive,
    }))
}

/// Decodes the chunked body at the start of `buf` into `out` (cleared first).
/// Complete once the last (zero-size) chunk and the trailer section have
/// arrived; then the number of bytes it took from `buf`.
pub fn decode_chunked(buf: &[u8], out: &mut Vec<u8>) -> Result<Option<usize>, String> {
    out.clear();
    let mut pos = 0;
    loop {
        let (size_len, size) = match httparse::parse_chunk_size(&buf[pos..]) {
            Ok(httparse::Status::Complete(found)) => found,
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(_) => return Err("malformed chunk size".into()),
        };
        pos += size_len;
        if size == 0 {
            return Ok(skip_trailers(&buf[pos..]).map(|n| pos + n));
        }
        let size = usize::try_from(size).map_err(|_| "chunk too large")?;
        let Some(chunk) = buf.get(pos..pos + size + 2) else {
            return Ok(None);
        };
        if &chunk[size..] != b"\r\n" {
            return Err("chunk not followed by CRLF".into());
        }
        out.extend_from_slice(&chunk[..size]);
        pos += size + 2;
    }
}

/// The length of the trailer section (header lines, then an empty line), once
/// all of it is in `buf`.
fn skip_trailers(buf: &[u8]) -> Option<usize> {
    let mut pos = 0;
    loop {
        let end = buf[pos..].windows(2).position(|w| w == b"\r\n")?;
        pos += end + 2;
        if end == 0 {
            return Some(pos);
        }
    }
}

/// One server-sent event: its `id:` if any, and its `data:` lines joined by `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    pub id: Option<String>,
    pub data: String,
}

/// The events of a complete `text/event-stream` body. Comment lines (`:`),
/// other fields and blocks without data (keep-alives) are skipped.
pub fn parse_sse(body: &[u8]) -> Result<Vec<SseEvent>, String> {
    let text = std::str::from_utf8(body).map_err(|_| "event stream is not UTF-8")?;
    let mut events = Vec::new();
    let (mut id, mut data): (Option<String>, Option<String>) = (None, None);
    for line in text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)) {
        if line.is_empty() {
            if let Some(data) = data.take() {
                events.push(SseEvent { id: id.take(), data });
            }
            id = None;
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        // One optional space after the colon belongs to the syntax, not the value.
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => id = Some(value.to_string()),
            "data" => match &mut data {
                Some(joined) => {
                    joined.push('\n');
                    joined.push_str(value);
                }
                None => data = Some(value.to_string()),
            },
            _ => {}
        }
    }
    if data.is_some() {
        return Err("event stream ended inside an event".into());
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_heads_with_each_framing() {
        let head = b"HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n{\"jsonrpc\"";
        let parsed = parse_response_head(head).unwrap().unwrap();
        assert_eq!(parsed.status, 200);
        assert_eq!(parsed.framing, BodyFraming::Length(12));
        assert_eq!(&head[parsed.head_len..], b"{\"jsonrpc\"");
        assert!(parsed.keep_alive);

        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
        let parsed = parse_response_head(chunked).unwrap().unwrap();
        assert_eq!(parsed.framing, BodyFraming::Chunked);
        assert!(!parsed.keep_alive);

        assert_eq!(
            parse_response_head(b"HTTP/1.1 200 OK\r\ncontent-le").unwrap(),
            None
        );
        assert!(parse_response_head(b"garbage\r\n\r\n").is_err());
    }

    #[test]
    fn chunked_bodies_complete_only_after_the_last_chunk() {
        let body = b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\nNEXT";
        let mut out = Vec::new();
        assert_eq!(decode_chunked(body, &mut out).unwrap(), Some(body.len() - 4));
        assert_eq!(out, b"hello, world");
        // Every strict prefix of the complete body needs more bytes.
        for cut in 0..body.len() - 4 {
            assert_eq!(
                decode_chunked(&body[..cut], &mut out).unwrap(),
                None,
                "cut at {cut}"
            );
        }
        let with_trailer = b"0\r\nx-checksum: 1\r\n\r\n";
        assert_eq!(
            decode_chunked(with_trailer, &mut out).unwrap(),
            Some(with_trailer.len())
        );
        assert!(out.is_empty());
        assert!(decode_chunked(b"3\r\nabcX\r\n", &mut out).is_err());
        assert!(decode_chunked(b"zz\r\n", &mut out).is_err());
    }

    #[test]
    fn sse_events_with_ids_comments_and_multiline_data() {
        let body = b": keep-alive\n\nid: 1\ndata: {\"a\":1}\n\nid:2\r\ndata: x\r\ndata: y\r\n\r\ndata:z\n\n";
        let events = parse_sse(body).unwrap();
        assert_eq!(
            events,
            vec![
                SseEvent {
                    id: Some("1".into()),
                    data: "{\"a\":1}".into()
                },
                SseEvent {
                    id: Some("2".into()),
                    data: "x\ny".into()
                },
                SseEvent {
                    id: None,
                    data: "z".into()
                },
            ]
        );
        assert!(parse_sse(b"data: cut off").is_err());
        assert_eq!(parse_sse(b"").unwrap(), vec![]);
    }
}
