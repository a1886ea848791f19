//! The agents under test and the nemesis that hurts them: real agent
//! processes on one PostgreSQL database, each reaching it through its own
//! proxy (`proxy.rs`); at seeded random moments an agent is SIGKILLed and
//! restarted, or SIGSTOPped and continued, its connections to the database
//! are cut or slowed, or the database is shut down at once and restarted.

use crate::common::ServerAgent;
use crate::proxy::Proxy;
use crate::Rng;
use rustix::process::{kill_process, Pid, Signal};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use store_postgres::cluster::TestCluster;

/// One agent's process and how many times it was started.
struct Slot {
    agent: ServerAgent,
    starts: u32,
}

/// The agents of a run: their processes, and the address clients reach each at.
pub struct Agents {
    slots: Vec<Mutex<Slot>>,
    addrs: RwLock<Vec<String>>,
    /// Each agent's arguments.
    args: Vec<Vec<String>>,
    logs: PathBuf,
}

impl Agents {
    /// Starts an agent with each of `args`, each logging under `logs`.
    pub fn start(args: Vec<Vec<String>>, logs: PathBuf) -> Agents {
        let mut slots = Vec::new();
        let mut addrs = Vec::new();
        for (index, args) in args.iter().enumerate() {
            let agent = spawn(args, &logs, index, 0);
            addrs.push(agent.addr());
            slots.push(Mutex::new(Slot { agent, starts: 1 }));
        }
        Agents {
            slots,
            addrs: RwLock::new(addrs),
            args,
            logs,
        }
    }

    pub fn count(&self) -> usize {
        self.slots.len()
    }

    /// Where agent `index` listens now.
    pub fn addr(&self, index: usize) -> String {
        self.addrs.read().expect("addresses")[index].clone()
    }

    /// Kills agent `index` with SIGKILL, waits `down`, and starts it again
    /// (on a new port: clients of the old one are refused meanwhile).
    fn kill_and_restart(&self, index: usize, down: Duration) {
        let mut slot = self.slots[index].lock().expect("slot");
        slot.agent.kill();
        std::thread::sleep(down);
        let agent = spawn(&self.args[index], &self.logs, index, slot.starts);
        slot.starts += 1;
        self.addrs.write().expect("addresses")[index] = agent.addr();
        slot.agent = agent;
    }

    /// Stops agent `index` with SIGSTOP for `pause`, then continues it.
    fn pause(&self, index: usize, pause: Duration) {
        let slot = self.slots[index].lock().expect("slot");
        let pid = Pid::from_raw(slot.agent.pid() as i32).expect("a process id");
        let _ = kill_process(pid, Signal::STOP);
        std::thread::sleep(pause);
        let _ = kill_process(pid, Signal::CONT);
    }
}

fn spawn(args: &[String], logs: &std::path::Path, index: usize, start: u32) -> ServerAgent {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ServerAgent::start_logged(&args, &[], &logs.join(format!("agent-{index}-{start}.log")))
}

/// The kinds of fault, as the summary names them.
pub const KILL: &str = "sigkill+restart";
pub const STOP: &str = "sigstop+sigcont";
pub const POSTGRES: &str = "postgres immediate restart";
pub const CUT: &str = "database link cut";
pub const SLOW: &str = "database link slowed";

/// The faults injected so far, by kind (in either mode).
#[derive(Default)]
pub struct Faults(Mutex<BTreeMap<&'static str, u64>>);

impl Faults {
    pub fn count(&self, kind: &'static str) {
        *self.0.lock().expect("faults").entry(kind).or_default() += 1;
    }

    pub fn total(&self) -> u64 {
        self.0.lock().expect("faults").values().sum()
    }

    pub fn by_kind(&self) -> BTreeMap<&'static str, u64> {
        self.0.lock().expect("faults").clone()
    }
}

/// Injects faults until `stop` is set: a quiet spell, then one fault on one
/// agent or its link to the database (`links`, one per agent), chosen by
/// `rng`. Every fault has ended (the agent is up, continued or restarted,
/// its link whole) when this returns.
pub fn run(agents: Arc<Agents>, links: Vec<Proxy>, faults: Arc<Faults>, stop: Arc<AtomicBool>, mut rng: Rng) {
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(300 + rng.below(900)));
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let index = rng.below(agents.count() as u64) as usize;
        let kind = rng.below(7);
        if kind == 5 {
            links[index].cut(Duration::from_millis(rng.below(2_000)));
            faults.count(CUT);
        } else if kind == 6 {
            // Some spells outlast the run lease: the agent's renewals are late.
            let delay = Duration::from_millis(20 + rng.below(300));
            links[index].slow(delay, Duration::from_millis(500 + rng.below(2_500)));
            faults.count(SLOW);
        } else if kind < 2 {
            agents.kill_and_restart(index, Duration::from_millis(rng.below(800)));
            faults.count(KILL);
        } else if kind == 4 {
            // Every agent loses every connection at once, commits in flight included.
            TestCluster::shared()
                .restart_immediately()
                .unwrap_or_else(|e| panic!("PostgreSQL: {e}"));
            faults.count(POSTGRES);
        } else {
            // Some pauses outlast the run lease, so other agents take the
            // paused agent's runs for dead while it still holds them.
            agents.pause(index, Duration::from_millis(200 + rng.below(2_500)));
            faults.count(STOP);
        }
    }
}
