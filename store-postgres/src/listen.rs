//! How this agent learns of task events that other agents append: one
//! connection LISTENs on [`EVENTS_CHANNEL`] and turns each announcement into
//! an [`Appended`] notice on a broadcast channel.
//!
//! A notification is only a wake-up; the table is the truth. When the
//! connection breaks (announcements may have been missed meanwhile), the
//! listener reconnects and sends a notice for every task, so subscribers
//! catch up from the table and lose nothing.

use super::conn::backend;
use super::schema::EVENTS_CHANNEL;
use std::time::Duration;
use store::{Appended, StoreResult};
use tokio::sync::{broadcast, mpsc};
use tokio_postgres::{AsyncMessage, Config, NoTls};

/// How many notices a slow receiver may fall behind before it is told it lagged.
pub(super) const FEED_CAPACITY: usize = 4096;

/// The pause before reconnecting a broken listener.
const RECONNECT_PAUSE: Duration = Duration::from_millis(200);

/// Listens until the runtime stops, reconnecting as needed.
pub(super) async fn listen(config: Config, feed: broadcast::Sender<Appended>) {
    loop {
        // The outcome only tells why the connection ended; either way the
        // listener starts over after a pause.
        let _ = listen_once(&config, &feed).await;
        tokio::time::sleep(RECONNECT_PAUSE).await;
    }
}

/// One listening connection, until it breaks.
async fn listen_once(config: &Config, feed: &broadcast::Sender<Appended>) -> StoreResult<()> {
    let (client, mut connection) = config.connect(NoTls).await.map_err(backend)?;
    let (tx, mut rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(Ok(message)) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
            if let AsyncMessage::Notification(notification) = message {
                if tx.send(notification).is_err() {
                    break;
                }
            }
        }
    });
    client
        .batch_execute(&format!("LISTEN {EVENTS_CHANNEL}"))
        .await
        .map_err(backend)?;
    // Whatever was announced while nobody listened is read from the table.
    let _ = feed.send(Appended::everything());
    while let Some(notification) = rx.recv().await {
        if let Some((task_id, last_seq)) = parse_announcement(notification.payload()) {
            let _ = feed.send(Appended {
                task_id: Some(task_id),
                last_seq,
            });
        }
    }
    Ok(())
}

/// The payload announcing that task `task_id`'s log now ends at `last_seq`.
pub(super) fn announcement(task_id: &str, last_seq: u64) -> String {
    format!("{last_seq} {task_id}")
}

/// The task and sequence number of an announcement.
pub(super) fn parse_announcement(payload: &str) -> Option<(String, u64)> {
    let (seq, task_id) = payload.split_once(' ')?;
    Some((task_id.to_string(), seq.parse().ok()?))
}
