//! The time the flows read and wait on, behind a trait so that a test can
//! run a device flow that waits minutes in real life without waiting at all,
//! and check exactly how long each wait would have been.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant, SystemTime};

/// A source of time and of waiting.
pub trait Clock: Send + Sync {
    /// Wall-clock time: tokens' expiry is kept as a date, since it outlives
    /// the process.
    fn now(&self) -> SystemTime;

    /// Monotonic time, for deadlines within one run: a wall clock that is set
    /// back must not stretch a wait.
    fn instant(&self) -> Instant;

    /// Waits `duration`. The device flow waits only through this, so its
    /// polling pace is whatever this is asked for.
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// The real clock: the system's time, and tokio's timer for waiting.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn instant(&self) -> Instant {
        Instant::now()
    }

    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// Seconds since the Unix epoch of `time`; zero for times before it.
pub(crate) fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
