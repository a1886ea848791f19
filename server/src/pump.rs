//! What every streaming response does whatever its framing (SSE, gRPC):
//! takes the producer's events as they come, ends on the idle limit or at
//! server shutdown, and ticks for keep-alives where the framing has them. It
//! holds the caller's stream slot until it is dropped, and dropping it (the
//! client gone) drops the producer's stream.

use a2a::rpc::{Error, Event, EventStream, RawJson};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Interval, MissedTickBehavior, Sleep};
use tokio_util::sync::WaitForCancellationFutureOwned;

/// Held while a stream is open; releases the caller's stream slot on drop.
pub(crate) type SlotGuard = Box<dyn Send + Sync>;

/// What happened next on a stream.
pub(crate) enum Pumped {
    /// The producer's next event.
    Event(Event<RawJson>),
    /// The producer failed; nothing follows.
    Failed(Error),
    /// The producer ended.
    Ended,
    /// No event came within the idle limit.
    Idle,
    /// The server is shutting down.
    ShuttingDown,
    /// Time for a keep-alive (only with an interval).
    KeepAlive,
}

pub(crate) struct EventPump {
    events: EventStream<RawJson>,
    keep_alive: Option<Interval>,
    idle: Pin<Box<Sleep>>,
    idle_limit: Duration,
    shutdown: Pin<Box<WaitForCancellationFutureOwned>>,
    _slot: Option<SlotGuard>,
}

impl EventPump {
    pub(crate) fn new(
        events: EventStream<RawJson>,
        keep_alive: Option<Duration>,
        idle_limit: Duration,
        shutdown: WaitForCancellationFutureOwned,
        slot: Option<SlotGuard>,
    ) -> Self {
        let keep_alive = keep_alive.map(|every| {
            let mut interval = tokio::time::interval_at(Instant::now() + every, every);
            interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
            interval
        });
        EventPump {
            events,
            keep_alive,
            idle: Box::pin(tokio::time::sleep(idle_limit)),
            idle_limit,
            shutdown: Box::pin(shutdown),
            _slot: slot,
        }
    }

    /// The next thing to frame. Shutdown wins over a waiting event; an event
    /// restarts the idle limit and the keep-alive interval.
    pub(crate) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Pumped> {
        if self.shutdown.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Pumped::ShuttingDown);
        }
        match self.events.as_mut().poll_next(cx) {
            Poll::Ready(Some(Ok(event))) => {
                self.idle.as_mut().reset(Instant::now() + self.idle_limit);
                if let Some(keep_alive) = &mut self.keep_alive {
                    keep_alive.reset();
                }
                return Poll::Ready(Pumped::Event(event));
            }
            Poll::Ready(Some(Err(error))) => return Poll::Ready(Pumped::Failed(error)),
            Poll::Ready(None) => return Poll::Ready(Pumped::Ended),
            Poll::Pending => {}
        }
        if self.idle.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Pumped::Idle);
        }
        if let Some(keep_alive) = &mut self.keep_alive {
            if keep_alive.poll_tick(cx).is_ready() {
                return Poll::Ready(Pumped::KeepAlive);
            }
        }
        Poll::Pending
    }
}
