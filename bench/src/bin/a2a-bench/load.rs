//! The load loop: N keep-alive connections on the driver's single-threaded
//! runtime, each sending a request, reading and checking its answer, and
//! starting the next, until the request budget or the time limit runs out
//! (whichever comes first).
//!
//! The budget is one shared counter: a connection takes a ticket before each
//! request, so the loop sends exactly `requests` requests however the
//! connections are scheduled. Everything is on one thread, so `Rc`/`Cell`
//! suffice.

use crate::args::Options;
use crate::http::{Answer, Conn};
use bench::reply::expect_success;
use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// How many requests a loop sends, and for how long at most.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub requests: u64,
    pub time: Duration,
}

/// The warm-up before each measured loop: the first of these.
pub const WARMUP: Bounds = Bounds {
    requests: 2_000,
    time: Duration::from_secs(1),
};

impl Bounds {
    /// The measured loop `--requests` and `--seconds` ask for.
    pub fn measured(options: &Options) -> Bounds {
        Bounds {
            requests: options.requests,
            time: options.time,
        }
    }

    /// The warm-up before it: [`WARMUP`], never more requests than the measured loop.
    pub fn warmup(options: &Options) -> Bounds {
        Bounds {
            requests: WARMUP.requests.min(options.requests),
            time: WARMUP.time,
        }
    }
}

/// What one kind of request looks like and how its answer is checked.
pub trait Workload {
    /// Writes the JSON-RPC request with id `id` into `out` (empty on entry).
    fn write_body(&self, id: u64, out: &mut Vec<u8>);
    /// Accepts or rejects the answer to request `id`: by default, HTTP 200
    /// and a JSON-RPC success answering `id`.
    fn check(&self, answer: &Answer<'_>, id: u64) -> Result<(), String> {
        expect_ok_status(answer)?;
        expect_success(answer.body, id)
    }
}

/// The count of requests and errors of one loop, and every latency.
#[derive(Debug, Default)]
pub struct Tally {
    pub done: u64,
    pub errors: u64,
    /// The first few distinct error messages, to show what went wrong.
    pub error_samples: Vec<String>,
    pub latencies_ns: Vec<u64>,
    pub elapsed: Duration,
}

const ERROR_SAMPLES: usize = 3;

impl Tally {
    pub fn record_error(&mut self, error: String) {
        self.errors += 1;
        self.keep_sample(error);
    }

    fn keep_sample(&mut self, error: String) {
        if self.error_samples.len() < ERROR_SAMPLES && !self.error_samples.contains(&error) {
            self.error_samples.push(error);
        }
    }

    fn merge(&mut self, other: Tally) {
        self.done += other.done;
        for error in other.error_samples {
            self.keep_sample(error);
        }
        self.errors += other.errors;
        self.latencies_ns.extend(other.latencies_ns);
    }
}

/// Runs one loop over `conns` (must be called inside a `LocalSet`) and hands
/// the connections back for the next loop.
pub async fn run(conns: Vec<Conn>, workload: Rc<dyn Workload>, bounds: Bounds) -> (Vec<Conn>, Tally) {
    let started = Instant::now();
    let deadline = started + bounds.time;
    let tickets = Rc::new(Cell::new(0u64));
    let handles: Vec<_> = conns
        .into_iter()
        .map(|conn| {
            let (workload, tickets) = (workload.clone(), tickets.clone());
            tokio::task::spawn_local(drive(conn, workload, tickets, bounds.requests, deadline))
        })
        .collect();
    let mut conns = Vec::with_capacity(handles.len());
    let mut tally = Tally::default();
    for handle in handles {
        match handle.await {
            Ok((conn, part)) => {
                conns.push(conn);
                tally.merge(part);
            }
            Err(e) => tally.record_error(format!("connection task failed: {e}")),
        }
    }
    tally.elapsed = started.elapsed();
    (conns, tally)
}

/// One connection's share of a loop.
async fn drive(
    mut conn: Conn,
    workload: Rc<dyn Workload>,
    tickets: Rc<Cell<u64>>,
    limit: u64,
    deadline: Instant,
) -> (Conn, Tally) {
    let mut tally = Tally::default();
    let mut body = Vec::with_capacity(512);
    loop {
        let ticket = tickets.get();
        if ticket >= limit || Instant::now() >= deadline {
            break;
        }
        tickets.set(ticket + 1);
        let id = ticket + 1;
        body.clear();
        workload.write_body(id, &mut body);
        let sent = Instant::now();
        let outcome = match conn.post(&body).await {
            Ok(answer) => workload.check(&answer, id),
            Err(error) => Err(error),
        };
        tally.latencies_ns.push(sent.elapsed().as_nanos() as u64);
        tally.done += 1;
        if let Err(error) = outcome {
            tally.record_error(error);
        }
    }
    (conn, tally)
}

/// The common first check of every answer: HTTP 200.
pub fn expect_ok_status(answer: &Answer<'_>) -> Result<(), String> {
    if answer.status == 200 {
        return Ok(());
    }
    let shown = &answer.body[..answer.body.len().min(160)];
    Err(format!(
        "HTTP {}: {}",
        answer.status,
        String::from_utf8_lossy(shown)
    ))
}
