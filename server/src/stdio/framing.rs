//! Newline-delimited framing of the stdio binding: reading one line at a time
//! within the message size limit, and the single task that owns the output, so
//! messages from concurrent requests never interleave.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

pub(super) enum LineStatus {
    Line,
    TooLong,
    Eof,
}

/// Reads one `\n`-terminated line of at most `limit` bytes into `line`; a
/// longer line is consumed and reported as `TooLong`. A last line without a
/// newline still counts.
pub(super) async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<LineStatus> {
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if too_long {
                LineStatus::TooLong
            } else if line.is_empty() {
                LineStatus::Eof
            } else {
                LineStatus::Line
            });
        }
        let (chunk, found) = match available.iter().position(|b| *b == b'\n') {
            Some(pos) => (&available[..pos], Some(pos + 1)),
            None => (available, None),
        };
        if !too_long {
            if line.len() + chunk.len() > limit {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let consumed = found.unwrap_or(available.len());
        reader.consume(consumed);
        if found.is_some() {
            return Ok(if too_long {
                LineStatus::TooLong
            } else {
                LineStatus::Line
            });
        }
    }
}

/// Writes each queued line to `output` until every sender is gone.
pub(super) async fn write_lines<W: AsyncWrite + Unpin>(mut output: W, mut rx: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = rx.recv().await {
        if let Err(error) = output.write_all(&line).await {
            tracing::warn!(%error, "stdio output closed");
            break;
        }
        // Flush per message unless more are already queued.
        if rx.is_empty() {
            if let Err(error) = output.flush().await {
                tracing::warn!(%error, "stdio output closed");
                break;
            }
        }
    }
    let _ = output.flush().await;
    // Keep draining so senders never block on a dead writer.
    while rx.recv().await.is_some() {}
}
