//! The results: one row per (workload, target), the ratios to the floor of the
//! same workload in the same run, the markdown table and the JSON file.

use bench::procfs::CpuSpent;
use bench::stats::{summarize, Summary};
use serde::Serialize;
use std::fmt::Write;

use crate::followers::FollowersRow;
use crate::goals::Verdict;
use crate::load::Tally;
use crate::scale::ScaleRow;

/// The machine facts a run was measured under, printed above the table.
#[derive(Debug, Serialize)]
pub struct Facts {
    pub cpu_model: String,
    pub online_cores: usize,
    /// `/proc/loadavg` when the run started: other work on the machine shares the pinned cores.
    pub load_average: String,
    pub server_core: usize,
    pub load_core: usize,
    pub connections: usize,
    pub requests: u64,
    pub seconds: f64,
    pub seed_tasks: u64,
    pub scale_tasks: u64,
    pub warmup: String,
    pub stdio_window: usize,
    pub agent_stream_limit: usize,
    /// The unit of the CPU times read from `/proc/<pid>/stat`.
    pub clock_ticks_per_second: u64,
    /// Whether the driver spun during the HTTP loops (see `spin`).
    pub driver_spins: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub workload: String,
    pub target: String,
    /// The baseline of its workload (the bare HTTP server, or the echo pipe).
    pub is_floor: bool,
    pub requests: u64,
    pub errors: u64,
    pub error_samples: Vec<String>,
    pub seconds: f64,
    pub req_per_s: f64,
    pub latency: Summary,
    /// The servers' CPU per request (every agent instance together).
    pub cpu_us_per_req: Option<f64>,
    /// The PostgreSQL server's CPU per request, on the PostgreSQL stores.
    pub database_cpu_us_per_req: Option<f64>,
    /// The driver's own CPU per request, and the share of the measured wall
    /// time it was busy: near 1, the load generator, not the server, set the pace.
    pub load_cpu_us_per_req: Option<f64>,
    pub load_busy: Option<f64>,
    pub rss_bytes: Option<u64>,
    /// The servers' and the database's CPU per request together, over the floor's.
    pub cpu_vs_floor: Option<f64>,
    pub req_per_s_vs_floor: Option<f64>,
    /// Set on the row after which tasks were seeded: how many and the RSS growth per task.
    pub tasks_seeded: Option<u64>,
    pub rss_per_stored_task_bytes: Option<f64>,
    /// The floor's figures in a loop of the same workload measured just
    /// before this row's, which its ratios divide by; `None` for the floor's
    /// own rows (and a row without one is divided by its round's floor row).
    pub floor: Option<FloorFigures>,
}

/// What a row's ratios divide by: the floor's CPU per request and rate.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FloorFigures {
    pub cpu_us_per_req: Option<f64>,
    pub req_per_s: f64,
}

impl FloorFigures {
    /// The figures of `row`, a floor's.
    pub fn of(row: &Row) -> FloorFigures {
        FloorFigures {
            cpu_us_per_req: row.cpu_us_per_req,
            req_per_s: row.req_per_s,
        }
    }
}

impl Row {
    /// A row from the warm-up's and the measured loop's tallies: errors of
    /// both count (every answer was checked), speed from the measured one.
    pub fn new(workload: &str, target: &str, is_floor: bool, warmup: &Tally, mut measured: Tally) -> Row {
        let latency = summarize(&mut measured.latencies_ns);
        let seconds = measured.elapsed.as_secs_f64();
        let mut error_samples = warmup.error_samples.clone();
        for sample in measured.error_samples {
            if !error_samples.contains(&sample) {
                error_samples.push(sample);
            }
        }
        Row {
            workload: workload.to_string(),
            target: target.to_string(),
            is_floor,
            requests: measured.done,
            errors: warmup.errors + measured.errors,
            error_samples,
            seconds,
            req_per_s: if seconds > 0.0 {
                measured.done as f64 / seconds
            } else {
                0.0
            },
            latency,
            cpu_us_per_req: None,
            database_cpu_us_per_req: None,
            load_cpu_us_per_req: None,
            load_busy: None,
            rss_bytes: None,
            cpu_vs_floor: None,
            req_per_s_vs_floor: None,
            tasks_seeded: None,
            rss_per_stored_task_bytes: None,
            floor: None,
        }
    }
}

/// A threshold above which the driver's core counts as saturated.
const SATURATED: f64 = 0.9;

impl Row {
    /// Sets the CPU figures from the CPU time spent over the measured loop.
    pub fn set_cpu(&mut self, spent: CpuSpent) {
        if self.requests == 0 {
            return;
        }
        let n = self.requests as f64;
        self.cpu_us_per_req = Some(spent.servers as f64 / n);
        self.database_cpu_us_per_req = spent.database.map(|us| us as f64 / n);
        self.load_cpu_us_per_req = Some(spent.driver as f64 / n);
        if self.seconds > 0.0 {
            self.load_busy = Some(spent.driver as f64 / 1e6 / self.seconds);
        }
    }

    /// Everything the request cost the server side: the servers' CPU and the database's.
    pub fn total_cpu_us_per_req(&self) -> Option<f64> {
        self.cpu_us_per_req
            .map(|us| us + self.database_cpu_us_per_req.unwrap_or(0.0))
    }

    fn load_saturated(&self) -> bool {
        self.load_busy.is_some_and(|busy| busy >= SATURATED)
    }
}

/// Fills each non-floor row's ratios: to the floor loop measured just before
/// it, or else to its round's floor row of the same workload.
pub fn fill_ratios(rows: &mut [Row]) {
    let floors: Vec<Row> = rows.iter().filter(|r| r.is_floor).cloned().collect();
    for row in rows.iter_mut().filter(|r| !r.is_floor) {
        let round_floor = || {
            floors
                .iter()
                .find(|f| f.workload == row.workload)
                .map(FloorFigures::of)
        };
        let Some(floor) = row.floor.clone().or_else(round_floor) else {
            continue;
        };
        row.cpu_vs_floor = match (row.total_cpu_us_per_req(), floor.cpu_us_per_req) {
            (Some(ours), Some(theirs)) if theirs > 0.0 => Some(ours / theirs),
            _ => None,
        };
        row.req_per_s_vs_floor = (floor.req_per_s > 0.0).then(|| row.req_per_s / floor.req_per_s);
    }
}

fn opt(value: Option<f64>, digits: usize, suffix: &str) -> String {
    value.map_or_else(|| "–".to_string(), |v| format!("{v:.digits$}{suffix}"))
}

/// The facts, then the table, then what went wrong (if anything).
pub fn render(facts: &Facts, rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "machine: {} ({} cores online, load average {} at start); server pinned to core {}, load generator to core {}",
        facts.cpu_model, facts.online_cores, facts.load_average, facts.server_core, facts.load_core
    );
    let _ = writeln!(
        out,
        "load: {} keep-alive HTTP/1.1 connections (gRPC rows: as many HTTP/2 connections, one call at a time on each; stdio: {} outstanding); per workload and target the first of {} requests or {} s, after a warm-up of {}; {} tasks seeded before list-tasks; agent stream limit {}; server CPU from /proc/<pid>/stat in ticks of {} ms",
        facts.connections,
        facts.stdio_window,
        facts.requests,
        facts.seconds,
        facts.warmup,
        facts.seed_tasks,
        facts.agent_stream_limit,
        1000 / facts.clock_ticks_per_second.max(1)
    );
    let _ = writeln!(
        out,
        "driver: {}",
        match facts.driver_spins {
            true => "spins while an HTTP loop runs, so no reply wakes it from the server's send (not beside PostgreSQL, nor for stdio); its busy share (†) is counted from the spinner's turns",
            false => "sleeps between replies (--spin off): a slow target's CPU includes waking it",
        }
    );
    if rows.iter().any(|r| r.floor.is_some()) {
        let _ = writeln!(
            out,
            "floor: each agent row's × floor divides by a loop of its workload on the floor measured just before it (the floor rows below are the round's first loops)"
        );
    }
    if rows.iter().any(|r| r.database_cpu_us_per_req.is_some()) {
        let _ = writeln!(
            out,
            "postgres: one agent, postgres-x2: two agents (connections dealt alternately), both on core {} and one database of a PostgreSQL server on core {} (fsync on); CPU µs/req and RSS are the agents' together, DB µs/req the PostgreSQL server's (postmaster and backends), CPU × floor counts both",
            facts.server_core, facts.load_core
        );
    }
    out.push('\n');
    out.push_str("| workload | target | req/s | p50 µs | p99 µs | CPU µs/req | DB µs/req | CPU × floor | req/s × floor | RSS MB | RSS/stored task |\n");
    out.push_str("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for row in rows {
        let workload = if row.errors > 0 {
            format!("{} ⚠ {} errors", row.workload, row.errors)
        } else {
            row.workload.clone()
        };
        let per_task = match (row.rss_per_stored_task_bytes, row.tasks_seeded) {
            (Some(bytes), Some(n)) => format!("{:.2} KB ({n} tasks)", bytes / 1024.0),
            _ => "–".into(),
        };
        let _ = writeln!(
            out,
            "| {workload} | {} | {:.0}{} | {:.0} | {:.0} | {} | {} | {} | {} | {} | {per_task} |",
            row.target,
            row.req_per_s,
            if row.load_saturated() { " †" } else { "" },
            row.latency.p50_us,
            row.latency.p99_us,
            opt(row.cpu_us_per_req, 1, ""),
            opt(row.database_cpu_us_per_req, 1, ""),
            opt(row.cpu_vs_floor, 2, "×"),
            opt(row.req_per_s_vs_floor, 2, "×"),
            opt(row.rss_bytes.map(|b| b as f64 / (1024.0 * 1024.0)), 1, ""),
        );
    }
    if rows.iter().any(Row::load_saturated) {
        let _ = writeln!(
            out,
            "\n† the load generator's core was at least {:.0} % busy: that rate is bounded by the load, not the server (compare CPU µs/req)",
            SATURATED * 100.0
        );
    }
    for row in rows.iter().filter(|r| r.errors > 0) {
        let _ = writeln!(
            out,
            "\nerrors in {} / {}: {}",
            row.workload,
            row.target,
            row.error_samples.join(" | ")
        );
    }
    out
}

/// The scale table: per store and size, the reads' latency and the RSS.
pub fn render_scale(rows: &[ScaleRow]) -> String {
    let mut out = String::from(
        "scale: each store grown through blocking SendMessage; GetTask reads tasks scattered over the whole store, ListTasks one context (COMPLETED, 20 a page)\n\n",
    );
    out.push_str("| target | tasks | seeding req/s | seeding p50 µs | seeding p99 µs | GetTask req/s | GetTask p50 µs | GetTask p99 µs | GetTask CPU µs/req | ListTasks req/s | ListTasks p50 µs | ListTasks p99 µs | ListTasks CPU µs/req | RSS MB | RSS growth/task |\n");
    out.push_str(
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for row in rows {
        let (get, list) = (&row.get_task, &row.list_tasks);
        let _ = writeln!(
            out,
            "| {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {} | {:.0} | {:.0} | {:.0} | {} | {:.1} | {:.2} KB |",
            row.target,
            row.tasks,
            row.seed_req_per_s,
            row.seed_latency.p50_us,
            row.seed_latency.p99_us,
            get.req_per_s,
            get.latency.p50_us,
            get.latency.p99_us,
            opt(get.cpu_us_per_req, 1, ""),
            list.req_per_s,
            list.latency.p50_us,
            list.latency.p99_us,
            opt(list.cpu_us_per_req, 1, ""),
            row.rss_bytes as f64 / (1024.0 * 1024.0),
            row.rss_per_task_bytes / 1024.0,
        );
    }
    for row in rows
        .iter()
        .flat_map(|r| [&r.get_task, &r.list_tasks])
        .filter(|r| r.errors > 0)
    {
        let _ = writeln!(
            out,
            "\nerrors in scale {} / {}: {}",
            row.workload,
            row.target,
            row.error_samples.join(" | ")
        );
    }
    out
}

/// The JSON file: the facts, every round's rows and the goals, for comparing two runs.
pub fn to_json(
    facts: &Facts,
    rounds: &[Vec<Row>],
    goals: &[Verdict],
    followers: &[FollowersRow],
    scale: &[ScaleRow],
) -> String {
    let report = serde_json::json!({ "facts": facts, "rounds": rounds, "goals": goals, "followers": followers, "scale": scale });
    serde_json::to_string_pretty(&report).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn row(workload: &str, target: &str, is_floor: bool, done: u64, errors: u64, server_us: u64) -> Row {
        let measured = Tally {
            done,
            errors,
            error_samples: (errors > 0)
                .then(|| "HTTP 429: busy".to_string())
                .into_iter()
                .collect(),
            latencies_ns: vec![1_000; done as usize],
            elapsed: Duration::from_secs(1),
        };
        let mut row = Row::new(workload, target, is_floor, &Tally::default(), measured);
        row.set_cpu(CpuSpent {
            servers: server_us,
            database: None,
            driver: 950_000,
        });
        row
    }

    #[test]
    fn ratios_are_to_the_floor_of_the_same_workload() {
        let mut rows = vec![
            row("get-task", "floor", true, 1000, 0, 10_000),
            row("get-task", "agent/memory", false, 500, 0, 50_000),
            row("list-tasks", "agent/memory", false, 100, 0, 100_000),
        ];
        let mut on_postgres = row("get-task", "agent/postgres", false, 500, 0, 50_000);
        on_postgres.set_cpu(CpuSpent {
            servers: 50_000,
            database: Some(25_000),
            driver: 950_000,
        });
        rows.push(on_postgres);
        fill_ratios(&mut rows);
        assert_eq!(rows[1].cpu_vs_floor, Some(10.0));
        // The database's CPU counts: (100 + 50) µs over the floor's 10.
        assert_eq!(rows[3].database_cpu_us_per_req, Some(50.0));
        assert_eq!(rows[3].cpu_vs_floor, Some(15.0));
        assert_eq!(rows[1].req_per_s_vs_floor, Some(0.5));
        // No floor row for list-tasks: no ratio rather than a wrong one.
        assert_eq!(rows[2].cpu_vs_floor, None);
        assert_eq!(rows[0].load_busy, Some(0.95));
    }

    #[test]
    fn a_row_divides_by_the_floor_loop_just_before_it() {
        let mut rows = vec![
            row("get-task", "floor", true, 1000, 0, 10_000),
            row("get-task", "agent/memory", false, 500, 0, 50_000),
            row("get-task", "agent/sqlite", false, 500, 0, 50_000),
        ];
        rows[1].floor = Some(FloorFigures {
            cpu_us_per_req: Some(20.0),
            req_per_s: 2000.0,
        });
        fill_ratios(&mut rows);
        // 100 µs a request over the paired floor's 20 µs; its rate 500 over 2,000.
        assert_eq!(rows[1].cpu_vs_floor, Some(5.0));
        assert_eq!(rows[1].req_per_s_vs_floor, Some(0.25));
        // Without a paired loop, the round's floor row (10 µs, 1,000 req/s).
        assert_eq!(rows[2].cpu_vs_floor, Some(10.0));
        assert_eq!(rows[2].req_per_s_vs_floor, Some(0.5));
    }

    #[test]
    fn errors_and_a_saturated_load_are_flagged() {
        let rows = vec![row("send-streaming", "agent/memory", false, 10, 2, 1_000)];
        let facts = Facts {
            cpu_model: "test".into(),
            online_cores: 2,
            load_average: "0.00".into(),
            server_core: 0,
            load_core: 1,
            connections: 1,
            requests: 10,
            seconds: 1.0,
            seed_tasks: 0,
            scale_tasks: 0,
            warmup: "none".into(),
            stdio_window: 1,
            agent_stream_limit: 16,
            clock_ticks_per_second: 100,
            driver_spins: true,
        };
        let table = render(&facts, &rows);
        assert!(
            table.contains("| send-streaming ⚠ 2 errors | agent/memory | 10 † |"),
            "{table}"
        );
        assert!(
            table.contains("errors in send-streaming / agent/memory: HTTP 429: busy"),
            "{table}"
        );
    }
}
