//! Keeps the driver's one thread busy while an HTTP loop is measured, so a
//! server's reply never has to wake it.
//!
//! The driver and the server share the machine. When the driver's thread
//! sleeps in `epoll_wait` and a reply arrives over loopback, the kernel
//! wakes it from within the *server's* send, and on a virtual machine that
//! wake is an interrupt to the other core, charged to the server's CPU time.
//! The floor keeps the driver saturated and seldom pays it. A slower target
//! leaves the driver idle between replies and pays it on nearly every one:
//! in a profile of the agent's in-memory SendMessage loop, the wake (under
//! `sock_def_readable`) was 15 % of the agent's CPU; in the floor's, 5.5 %.
//! That is the client's cost, not the server's, and it grew with how idle
//! the driver happened to be, so it also moved the ratios from run to run.
//!
//! So while a loop runs, a task beside the connections yields in a loop:
//! the thread never blocks, and a reply only marks a socket ready. The
//! spinning hides how busy the driver was from its CPU time, so the spinner
//! counts its turns: a turn alone costs what a calibration before the loop
//! measured, and the turns taken during the loop say how long the thread
//! had nothing else to do.
//!
//! It is not used where a database shares the driver's core (the PostgreSQL
//! targets): the spinner would take CPU the database needs. The stdio rows
//! are measured on threads of their own and do not spin either.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// How long the spinner runs alone to learn what one idle turn costs.
const CALIBRATION: Duration = Duration::from_millis(50);

/// A task yielding in a loop on the driver's `LocalSet` until dropped.
pub struct Spinner {
    turns: Rc<Cell<u64>>,
    stop: Rc<Cell<bool>>,
    /// The wall time of one turn when nothing else is ready, in seconds.
    idle_turn_s: f64,
}

impl Spinner {
    /// Starts spinning (must be called inside a `LocalSet`) and calibrates
    /// an idle turn while nothing else runs.
    pub async fn start() -> Spinner {
        let turns = Rc::new(Cell::new(0u64));
        let stop = Rc::new(Cell::new(false));
        tokio::task::spawn_local({
            let (turns, stop) = (turns.clone(), stop.clone());
            async move {
                while !stop.get() {
                    turns.set(turns.get() + 1);
                    tokio::task::yield_now().await;
                }
            }
        });
        let (before, started) = (turns.get(), Instant::now());
        tokio::time::sleep(CALIBRATION).await;
        let alone = turns.get().saturating_sub(before).max(1);
        Spinner {
            turns,
            stop,
            idle_turn_s: started.elapsed().as_secs_f64() / alone as f64,
        }
    }

    /// The turns taken so far.
    pub fn turns(&self) -> u64 {
        self.turns.get()
    }

    /// The share of `elapsed` the thread spent on other work than spinning,
    /// given the `turns` it took in that time.
    pub fn busy(&self, turns: u64, elapsed: Duration) -> f64 {
        busy_share(self.idle_turn_s, turns, elapsed)
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop.set(true);
    }
}

/// What `turns` idle turns of `idle_turn_s` seconds leave of `elapsed`, as a
/// share of it, between 0 and 1.
fn busy_share(idle_turn_s: f64, turns: u64, elapsed: Duration) -> f64 {
    let seconds = elapsed.as_secs_f64();
    if seconds <= 0.0 {
        return 0.0;
    }
    (1.0 - turns as f64 * idle_turn_s / seconds).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_share_is_what_the_idle_turns_leave() {
        let ten_ms = Duration::from_millis(10);
        // 1,000 idle turns of 1 µs: 1 ms of 10 idle.
        assert!((busy_share(1e-6, 1_000, ten_ms) - 0.9).abs() < 1e-9);
        assert_eq!(busy_share(1e-6, 0, ten_ms), 1.0);
        // More turns than the time holds (a calibration that ran slow) is idle, not negative.
        assert_eq!(busy_share(1e-6, 20_000, ten_ms), 0.0);
        assert_eq!(busy_share(1e-6, 5, Duration::ZERO), 0.0);
    }

    #[test]
    fn the_spinner_turns_while_others_sleep_and_stops_when_dropped() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let local = tokio::task::LocalSet::new();
        local.block_on(&runtime, async {
            let spinner = Spinner::start().await;
            assert!(spinner.turns() > 0 && spinner.idle_turn_s > 0.0);
            let before = spinner.turns();
            tokio::time::sleep(Duration::from_millis(5)).await;
            let during = spinner.turns() - before;
            assert!(during > 0, "no turn while the main task slept");
            let turns = spinner.turns.clone();
            drop(spinner);
            // The spinner sees the flag at its next turn and ends.
            tokio::task::yield_now().await;
            tokio::task::yield_now().await;
            let after = turns.get();
            tokio::time::sleep(Duration::from_millis(5)).await;
            assert_eq!(turns.get(), after, "the spinner turned after it was dropped");
        });
    }
}
