//! `a2a-bench`: the benchmark driver. Starts each target pinned to the server
//! core (the bare floor, the agent on each store, and for stdio the echo pipe
//! and the agent), drives every workload from this process pinned to the load
//! core, and prints one markdown table with the ratios to the floor measured
//! in the same run, then the project's performance goals beside what the
//! run measured. `scripts/bench` builds everything and runs it.

mod args;
mod deployment;
mod followers;
mod goals;
mod grpc;
mod http;
mod http_target;
mod load;
mod process;
mod report;
mod scale;
mod spin;
mod stdio;
mod stdio_target;
mod workloads;

use crate::args::Options;
use crate::deployment::{Deployment, HttpTarget};
use crate::followers::{FollowersRow, FOLLOWERS_WORKLOAD};
use crate::report::{Facts, Row};
use crate::scale::ScaleRow;
use crate::workloads::{HTTP_WORKLOADS, SCALE_WORKLOAD, STDIO_WORKLOAD};

fn facts(options: &Options) -> Facts {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')))
        .map_or_else(
            || "unknown CPU".to_string(),
            |(_, model)| model.trim().to_string(),
        );
    Facts {
        cpu_model,
        online_cores: bench::procfs::online_cores(),
        load_average: options.load_average.clone(),
        server_core: options.server_core,
        load_core: options.load_core,
        connections: options.connections,
        requests: options.requests,
        seconds: options.time.as_secs_f64(),
        seed_tasks: options.seed_tasks,
        scale_tasks: options.scale_tasks,
        warmup: format!(
            "{} requests or {} s",
            load::WARMUP.requests,
            load::WARMUP.time.as_secs()
        ),
        stdio_window: stdio_target::WINDOW,
        agent_stream_limit: deployment::agent_stream_limit(options.connections),
        clock_ticks_per_second: bench::procfs::clock_ticks_per_second(),
        driver_spins: options.spin,
    }
}

/// Every target in turn, round after round; the floor first in each round,
/// so a broken floor stops the run early; the followers and the scale run
/// once, last.
async fn run(options: &Options) -> Result<Outcome, String> {
    let mut rounds = Vec::with_capacity(options.rounds);
    for round in 1..=options.rounds {
        if options.rounds > 1 {
            eprintln!("a2a-bench: round {round} of {}", options.rounds);
        }
        rounds.push(run_round(options).await?);
    }
    let followers = if options.workloads.iter().any(|w| w == FOLLOWERS_WORKLOAD) {
        followers::bench(options).await?
    } else {
        Vec::new()
    };
    let scale = if options.workloads.iter().any(|w| w == SCALE_WORKLOAD) {
        scale::bench(options).await?
    } else {
        Vec::new()
    };
    Ok(Outcome {
        rounds,
        followers,
        scale,
    })
}

/// One round: every row's target in turn, the floor first; then each agent
/// row, each after a loop of its workload on the floor.
async fn run_round(options: &Options) -> Result<Vec<Row>, String> {
    let http: Vec<&str> = HTTP_WORKLOADS
        .iter()
        .copied()
        .filter(|w| options.workloads.iter().any(|s| s == w))
        .collect();
    let mut rows = Vec::new();
    if !http.is_empty() {
        rows.extend(http_target::bench(options, HttpTarget::Floor, &http, None).await?);
        // The floor stays up, for the loop before each agent row.
        let mut floor = Deployment::start(options, HttpTarget::Floor).await?;
        for store in &options.stores {
            let target = HttpTarget::Agent(*store);
            rows.extend(http_target::bench(options, target, &http, Some(&mut floor)).await?);
        }
    }
    if options.workloads.iter().any(|w| w == STDIO_WORKLOAD) {
        rows.extend(stdio_target::bench(options)?);
    }
    // Rows of one workload together, floor first, in the order of the workload list.
    let order = |row: &Row| {
        HTTP_WORKLOADS
            .iter()
            .position(|w| *w == row.workload)
            .unwrap_or(usize::MAX)
    };
    rows.sort_by_key(|row| (order(row), !row.is_floor));
    report::fill_ratios(&mut rows);
    Ok(rows)
}

/// Everything a run measured.
struct Outcome {
    /// The rows of each round.
    rounds: Vec<Vec<Row>>,
    followers: Vec<FollowersRow>,
    scale: Vec<ScaleRow>,
}

fn main() {
    let options = match args::parse(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{}", args::USAGE);
            return;
        }
        Err(message) => {
            eprintln!("a2a-bench: {message}");
            std::process::exit(2);
        }
    };
    if let Err(message) = process::pin_to_core(options.load_core) {
        eprintln!("a2a-bench: {message}");
        std::process::exit(2);
    }
    // One thread, pinned: the load generator gets exactly one core, like the server.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime");
    let local = tokio::task::LocalSet::new();
    let Outcome {
        rounds,
        followers,
        scale,
    } = match local.block_on(&runtime, run(&options)) {
        Ok(results) => results,
        Err(message) => {
            eprintln!("a2a-bench: {message}");
            std::process::exit(1);
        }
    };
    let facts = facts(&options);
    let goals = goals::judge(&rounds);
    if rounds.iter().any(|rows| !rows.is_empty()) {
        for (index, rows) in rounds.iter().enumerate() {
            if rounds.len() > 1 {
                println!("round {} of {}\n", index + 1, rounds.len());
            }
            println!("{}", report::render(&facts, rows));
        }
        println!("{}\n", goals::render(&goals));
    }
    if !followers.is_empty() {
        println!("{}", followers::render(&followers));
    }
    if !scale.is_empty() {
        println!("{}", report::render_scale(&scale));
    }
    if let Some(path) = &options.json {
        if let Err(e) = std::fs::write(path, report::to_json(&facts, &rounds, &goals, &followers, &scale)) {
            eprintln!("a2a-bench: cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
    }
    let scale_errors = scale.iter().map(|r| r.get_task.errors + r.list_tasks.errors);
    let errors: u64 = rounds
        .iter()
        .flatten()
        .map(|r| r.errors)
        .chain(scale_errors)
        .sum();
    if errors > 0 {
        std::process::exit(1);
    }
}
