//! The scale run (`--workloads scale`): each agent store is grown through
//! its own API to `--scale-tasks` tasks in three steps (a hundredth, a tenth,
//! all of it), and at each size GetTask of tasks scattered over the whole
//! store and ListTasks of one context are measured beside the RSS: whether
//! reads stay flat and memory bounded as the store grows.

use crate::args::{Options, Store};
use crate::deployment::{Deployment, HttpTarget};
use crate::http_target::{measure, SEED_CONTEXTS};
use crate::load::{self, Bounds};
use crate::report::Row;
use crate::workloads::{GetTask, ListTasks, SeedTasks, SendMessage, GET_TASK, LIST_TASKS, SCALE_WORKLOAD};
use bench::stats::{summarize, Summary};
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// One id in this many of the seeded tasks is kept for GetTask to read.
const KEEP_EVERY: u64 = 16;
/// Each seeding step is bounded, so a slow store cannot stall the run.
const STEP_TIME: Duration = Duration::from_secs(900);

/// The measurements at one store size.
#[derive(Clone, Debug, Serialize)]
pub struct ScaleRow {
    pub target: String,
    pub tasks: u64,
    /// The rate the step's seeding ran at (blocking SendMessage).
    pub seed_req_per_s: f64,
    /// The seeding's latency: the writes' tail while the store grows.
    pub seed_latency: Summary,
    pub get_task: Row,
    pub list_tasks: Row,
    pub rss_bytes: u64,
    /// RSS growth over the step, per task the step stored.
    pub rss_per_task_bytes: f64,
}

/// The store sizes measured on the way to `total`.
pub fn steps(total: u64) -> Vec<u64> {
    let mut steps: Vec<u64> = [total / 100, total / 10, total]
        .into_iter()
        .filter(|n| *n > 0)
        .collect();
    steps.dedup();
    steps
}

/// Grows each store of `options` in turn.
pub async fn bench(options: &Options) -> Result<Vec<ScaleRow>, String> {
    let mut rows = Vec::new();
    for store in &options.stores {
        rows.extend(grow(options, *store).await?);
    }
    Ok(rows)
}

async fn grow(options: &Options, store: Store) -> Result<Vec<ScaleRow>, String> {
    let target = HttpTarget::Agent(store);
    let mut deployment = Deployment::start(options, target).await?;
    let contexts: Vec<String> = (0..SEED_CONTEXTS).map(|k| format!("scale-context-{k}")).collect();
    let mut conns = deployment.connect(options.connections).await?;
    let seeder = Rc::new(SeedTasks {
        send: SendMessage {
            contexts: contexts.clone(),
        },
        keep_every: KEEP_EVERY,
        kept: RefCell::new(Vec::new()),
    });
    let (mut stored, mut rss_before) = (0u64, deployment.rss_bytes()?);
    let mut rows = Vec::new();
    for size in steps(options.scale_tasks) {
        let bounds = Bounds {
            requests: size - stored,
            time: STEP_TIME,
        };
        let (back, mut tally) = load::run(conns, seeder.clone(), bounds).await;
        conns = back;
        deployment.check_alive(SCALE_WORKLOAD)?;
        if tally.errors > 0 {
            return Err(format!(
                "seeding failed {} times: {:?}",
                tally.errors, tally.error_samples
            ));
        }
        stored += tally.done;
        let rss = deployment.rss_bytes()?;
        eprintln!(
            "a2a-bench: {} holds {stored} tasks (seeded at {:.0} req/s), RSS {:.1} MB",
            target.name(),
            tally.done as f64 / tally.elapsed.as_secs_f64().max(1e-9),
            rss as f64 / 1048576.0
        );
        let readers = Rc::new(GetTask {
            task_ids: seeder.kept.borrow().clone(),
        });
        let (back, get_task) = measure(conns, readers, &deployment, options, GET_TASK).await?;
        let lists = Rc::new(ListTasks {
            contexts: contexts.clone(),
        });
        let (back, list_tasks) = measure(back, lists, &deployment, options, LIST_TASKS).await?;
        conns = back;
        deployment.check_alive(SCALE_WORKLOAD)?;
        rows.push(ScaleRow {
            target: target.name(),
            tasks: stored,
            seed_req_per_s: tally.done as f64 / tally.elapsed.as_secs_f64().max(1e-9),
            seed_latency: summarize(&mut tally.latencies_ns),
            get_task,
            list_tasks,
            rss_bytes: rss,
            rss_per_task_bytes: (rss as f64 - rss_before as f64) / tally.done.max(1) as f64,
        });
        rss_before = rss;
    }
    Ok(rows)
}
