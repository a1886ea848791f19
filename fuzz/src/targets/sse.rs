//! The client's reading of a Server-Sent Events body. The first byte picks the
//! binding (JSON-RPC or HTTP+JSON) and the chunk size the body arrives in; the
//! rest is the body. Delivered events carry increasing sequence numbers, and
//! nothing after a stream-ending error is read.

use client::sse::{read_event, SseRead};
use client::HttpBinding;
use eventsource_stream::Eventsource;
use futures_util::StreamExt;

pub fn run(data: &[u8]) {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let binding = if selector & 1 == 0 {
        HttpBinding::JsonRpc
    } else {
        HttpBinding::Rest
    };
    let chunk = usize::from(selector >> 1).max(1);
    let chunks: Vec<Result<Vec<u8>, std::convert::Infallible>> =
        body.chunks(chunk).map(|c| Ok(c.to_vec())).collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let mut events = futures_util::stream::iter(chunks).eventsource();
        let mut last_seq: Option<u64> = None;
        while let Some(Ok(event)) = events.next().await {
            match read_event(binding, &event.id, &event.data, last_seq) {
                SseRead::Skip => {}
                SseRead::End(_) => break,
                SseRead::Deliver(delivered) => {
                    if let (Some(seq), Some(last)) = (delivered.seq, last_seq) {
                        assert!(seq > last, "event {seq} delivered after {last}");
                    }
                    if delivered.seq.is_some() {
                        last_seq = delivered.seq;
                    }
                }
            }
        }
    });
}
