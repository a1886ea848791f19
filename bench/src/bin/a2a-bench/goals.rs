//! The performance goals the project holds itself to, each printed beside
//! what this run measured: met, not met, or not measured (a row it needs was
//! not in the run). Every figure is a ratio between two rows of the same
//! round (to the floor, or between two targets), so a noisy machine moves
//! both sides alike; the p99 bounds are the only absolute ones. A run of
//! several rounds judges each goal on the median of its rounds' figures:
//! one slow or lucky loop does not decide it.

use crate::args::Store;
use crate::deployment::HttpTarget;
use crate::report::Row;
use crate::workloads::{GET_TASK, SEND_MESSAGE, STDIO_WORKLOAD};
use serde::Serialize;
use std::fmt::Write;

/// The target of a row a goal reads.
#[derive(Clone, Copy, Debug)]
enum Subject {
    /// The agent on `Store` over JSON-RPC.
    JsonRpc(Store),
    /// The agent on `Store` over the gRPC binding.
    Grpc(Store),
    /// The local front to the background agent, over stdio.
    Local,
}

impl Subject {
    /// The row's target name.
    fn target(self) -> String {
        match self {
            Subject::JsonRpc(store) => HttpTarget::Agent(store).name(),
            Subject::Grpc(store) => HttpTarget::Agent(store).grpc_name(),
            Subject::Local => crate::stdio_target::LOCAL.to_string(),
        }
    }
}

/// What a goal reads off the rows.
#[derive(Clone, Copy, Debug)]
enum Measure {
    /// The target's server-side CPU per request (agents and database) over the floor's.
    CpuVsFloor { workload: &'static str, target: Subject },
    /// The target's requests per second over the floor's.
    RateVsFloor { workload: &'static str, target: Subject },
    /// The target's p99 latency, in milliseconds.
    P99Ms { workload: &'static str, target: Subject },
    /// Server-side CPU per request of `target` over that of `baseline`, same
    /// workload, each first divided by the floor loop measured before it.
    CpuVsTarget {
        workload: &'static str,
        target: Subject,
        baseline: Subject,
    },
}

/// Which side of its bound a goal's figure must be on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Bound {
    AtMost(f64),
    AtLeast(f64),
}

/// One goal: its name, what it reads and the bound the figure must meet.
struct Goal {
    name: &'static str,
    measure: Measure,
    bound: Bound,
}

const fn cpu(name: &'static str, workload: &'static str, target: Subject, at_most: f64) -> Goal {
    Goal {
        name,
        measure: Measure::CpuVsFloor { workload, target },
        bound: Bound::AtMost(at_most),
    }
}

const fn p99(name: &'static str, workload: &'static str, target: Subject, at_most_ms: f64) -> Goal {
    Goal {
        name,
        measure: Measure::P99Ms { workload, target },
        bound: Bound::AtMost(at_most_ms),
    }
}

const fn cpu_vs(
    name: &'static str,
    workload: &'static str,
    target: Subject,
    baseline: Subject,
    at_most: f64,
) -> Goal {
    Goal {
        name,
        measure: Measure::CpuVsTarget {
            workload,
            target,
            baseline,
        },
        bound: Bound::AtMost(at_most),
    }
}

/// The goals, in the order they are printed.
const GOALS: &[Goal] = &[
    cpu(
        "GetTask, memory: CPU × floor",
        GET_TASK,
        Subject::JsonRpc(Store::Memory),
        1.1,
    ),
    cpu(
        "GetTask, SQLite: CPU × floor",
        GET_TASK,
        Subject::JsonRpc(Store::Sqlite),
        1.1,
    ),
    cpu(
        "SendMessage, memory: CPU × floor",
        SEND_MESSAGE,
        Subject::JsonRpc(Store::Memory),
        2.5,
    ),
    cpu(
        "SendMessage, SQLite: CPU × floor",
        SEND_MESSAGE,
        Subject::JsonRpc(Store::Sqlite),
        4.0,
    ),
    p99(
        "SendMessage, SQLite: p99 ms",
        SEND_MESSAGE,
        Subject::JsonRpc(Store::Sqlite),
        20.0,
    ),
    cpu(
        "SendMessage, PostgreSQL: CPU (agent + database) × floor",
        SEND_MESSAGE,
        Subject::JsonRpc(Store::Postgres),
        8.0,
    ),
    p99(
        "SendMessage, PostgreSQL: p99 ms",
        SEND_MESSAGE,
        Subject::JsonRpc(Store::Postgres),
        20.0,
    ),
    cpu_vs(
        "SendMessage, PostgreSQL: CPU per request, two agents over one",
        SEND_MESSAGE,
        Subject::JsonRpc(Store::PostgresX2),
        Subject::JsonRpc(Store::Postgres),
        1.1,
    ),
    cpu_vs(
        "GetTask, memory: CPU per request, gRPC over JSON-RPC",
        GET_TASK,
        Subject::Grpc(Store::Memory),
        Subject::JsonRpc(Store::Memory),
        1.3,
    ),
    cpu_vs(
        "SendMessage, memory: CPU per request, gRPC over JSON-RPC",
        SEND_MESSAGE,
        Subject::Grpc(Store::Memory),
        Subject::JsonRpc(Store::Memory),
        1.3,
    ),
    Goal {
        name: "stdio through the local front: req/s × echo pipe",
        measure: Measure::RateVsFloor {
            workload: STDIO_WORKLOAD,
            target: Subject::Local,
        },
        bound: Bound::AtLeast(0.8),
    },
];

/// A goal as this run judged it.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    pub goal: &'static str,
    bound: Bound,
    /// The median of the rounds that measured it; `None` when none did (a
    /// row the goal reads was not in the run, or had errors).
    pub measured: Option<f64>,
    /// Each round's figure, in order.
    pub rounds: Vec<Option<f64>>,
}

impl Verdict {
    /// `Some(true)` met, `Some(false)` not met, `None` not measured.
    pub fn met(&self) -> Option<bool> {
        self.measured.map(|value| match self.bound {
            Bound::AtMost(limit) => value <= limit,
            Bound::AtLeast(limit) => value >= limit,
        })
    }
}

/// The row of `workload` on `target`; a row with errors measured something
/// else than the goal means, so it counts as not measured.
fn row<'a>(rows: &'a [Row], workload: &str, target: Subject) -> Option<&'a Row> {
    let target = target.target();
    rows.iter()
        .find(|r| r.workload == workload && r.target == target && r.errors == 0)
}

fn measure(rows: &[Row], measure: Measure) -> Option<f64> {
    match measure {
        Measure::CpuVsFloor { workload, target } => row(rows, workload, target)?.cpu_vs_floor,
        Measure::RateVsFloor { workload, target } => row(rows, workload, target)?.req_per_s_vs_floor,
        Measure::P99Ms { workload, target } => {
            let row = row(rows, workload, target)?;
            (row.latency.count > 0).then(|| row.latency.p99_us / 1000.0)
        }
        Measure::CpuVsTarget {
            workload,
            target,
            baseline,
        } => {
            // Each over the floor loop measured just before it: two rows
            // measured minutes apart are compared on one machine speed.
            let ours = row(rows, workload, target)?.cpu_vs_floor?;
            let theirs = row(rows, workload, baseline)?.cpu_vs_floor?;
            (theirs > 0.0).then(|| ours / theirs)
        }
    }
}

/// Every goal judged on the rows of each round (ratios already filled).
pub fn judge(rounds: &[Vec<Row>]) -> Vec<Verdict> {
    GOALS
        .iter()
        .map(|goal| {
            let figures: Vec<Option<f64>> = rounds.iter().map(|rows| measure(rows, goal.measure)).collect();
            Verdict {
                goal: goal.name,
                bound: goal.bound,
                measured: median(figures.iter().flatten().copied().collect()),
                rounds: figures,
            }
        })
        .collect()
}

/// The middle figure (the mean of the two middle ones for an even count).
fn median(mut figures: Vec<f64>) -> Option<f64> {
    figures.sort_by(f64::total_cmp);
    let middle = figures.len() / 2;
    match figures.len() {
        0 => None,
        n if n % 2 == 1 => Some(figures[middle]),
        _ => Some((figures[middle - 1] + figures[middle]) / 2.0),
    }
}

/// The goals table, and a last line counting them. With several rounds,
/// each round's figure is shown before the median the goal is judged on.
pub fn render(verdicts: &[Verdict]) -> String {
    let rounds = verdicts.first().map_or(1, |v| v.rounds.len());
    let mut out = if rounds > 1 {
        let mut head = format!("goals: the median of {rounds} rounds, each measured in this run\n\n| goal |");
        let mut rule = String::from("| --- |");
        for round in 1..=rounds {
            let _ = write!(head, " round {round} |");
            rule.push_str(" ---: |");
        }
        format!("{head} median | goal | |\n{rule} ---: | ---: | --- |\n")
    } else {
        String::from(
            "goals: each measured in this run\n\n| goal | measured | goal | |\n| --- | ---: | ---: | --- |\n",
        )
    };
    for verdict in verdicts {
        let (unit, limit, relation) = match (verdict.bound, verdict.goal.ends_with(" ms")) {
            (Bound::AtMost(limit), true) => ("", limit, "≤"),
            (Bound::AtMost(limit), false) => ("×", limit, "≤"),
            (Bound::AtLeast(limit), _) => ("×", limit, "≥"),
        };
        let shown = |figure: Option<f64>| figure.map_or_else(|| "–".to_string(), |v| format!("{v:.2}{unit}"));
        let state = match verdict.met() {
            Some(true) => "met",
            Some(false) => "not met",
            None => "not measured",
        };
        let _ = write!(out, "| {} |", verdict.goal);
        if rounds > 1 {
            for figure in &verdict.rounds {
                let _ = write!(out, " {} |", shown(*figure));
            }
        }
        let _ = writeln!(
            out,
            " {} | {relation} {limit}{unit} | {state} |",
            shown(verdict.measured)
        );
    }
    let met = verdicts.iter().filter(|v| v.met() == Some(true)).count();
    let unmeasured = verdicts.iter().filter(|v| v.met().is_none()).count();
    let _ = write!(
        out,
        "\ngoals: {met} of {} met, {} not met, {unmeasured} not measured",
        verdicts.len(),
        verdicts.len() - met - unmeasured
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::Tally;
    use crate::report::{fill_ratios, FloorFigures};
    use bench::procfs::CpuSpent;
    use std::time::Duration;

    fn row(workload: &str, target: &str, server_us: u64, database_us: Option<u64>, errors: u64) -> Row {
        let measured = Tally {
            done: 1000,
            errors,
            error_samples: Vec::new(),
            latencies_ns: vec![5_000_000; 1000],
            elapsed: Duration::from_secs(1),
        };
        let mut row = Row::new(workload, target, target == "floor", &Tally::default(), measured);
        row.set_cpu(CpuSpent {
            servers: server_us,
            database: database_us,
            driver: 0,
        });
        row
    }

    fn verdict<'a>(verdicts: &'a [Verdict], goal: &str) -> &'a Verdict {
        verdicts
            .iter()
            .find(|v| v.goal == goal)
            .expect("a goal of that name")
    }

    #[test]
    fn one_target_over_another_compares_each_over_its_own_floor_loop() {
        let paired = |cpu_us_per_req| {
            Some(FloorFigures {
                cpu_us_per_req: Some(cpu_us_per_req),
                req_per_s: 1000.0,
            })
        };
        let json_rpc = Subject::JsonRpc(Store::Memory).target();
        let grpc = Subject::Grpc(Store::Memory).target();
        let mut rows = vec![
            row(GET_TASK, "floor", 10_000, None, 0),
            row(GET_TASK, &json_rpc, 11_000, None, 0),
            row(GET_TASK, &grpc, 15_000, None, 0),
        ];
        // The machine ran a fifth slower while the gRPC row was measured:
        // its floor loop says so, and the comparison takes it out.
        rows[1].floor = paired(10.0);
        rows[2].floor = paired(12.5);
        fill_ratios(&mut rows);
        let verdicts = judge(std::slice::from_ref(&rows));
        let over = verdict(&verdicts, "GetTask, memory: CPU per request, gRPC over JSON-RPC");
        // (15 / 12.5) over (11 / 10): 1.2 / 1.1.
        let measured = over.measured.expect("measured");
        assert!((measured - 1.2 / 1.1).abs() < 1e-12, "{measured}");
        assert_eq!(over.met(), Some(true));
    }

    #[test]
    fn goals_are_judged_from_the_rows_of_one_run() {
        let mut rows = vec![
            row(GET_TASK, "floor", 10_000, None, 0),
            row(
                GET_TASK,
                &Subject::JsonRpc(Store::Memory).target(),
                11_000,
                None,
                0,
            ),
            row(GET_TASK, &Subject::Grpc(Store::Memory).target(), 15_000, None, 0),
            row(SEND_MESSAGE, "floor", 10_000, None, 0),
            row(
                SEND_MESSAGE,
                &Subject::JsonRpc(Store::Sqlite).target(),
                41_000,
                None,
                0,
            ),
            row(
                SEND_MESSAGE,
                &Subject::JsonRpc(Store::Postgres).target(),
                40_000,
                Some(30_000),
                0,
            ),
            row(
                SEND_MESSAGE,
                &Subject::JsonRpc(Store::PostgresX2).target(),
                50_000,
                Some(27_000),
                0,
            ),
            // A row with errors measured something else: not measured.
            row(
                GET_TASK,
                &Subject::JsonRpc(Store::Sqlite).target(),
                10_000,
                None,
                3,
            ),
        ];
        fill_ratios(&mut rows);
        let verdicts = judge(std::slice::from_ref(&rows));
        let memory = verdict(&verdicts, "GetTask, memory: CPU × floor");
        assert_eq!((memory.measured, memory.met()), (Some(1.1), Some(true)));
        let sqlite = verdict(&verdicts, "SendMessage, SQLite: CPU × floor");
        assert_eq!((sqlite.measured, sqlite.met()), (Some(4.1), Some(false)));
        // The database's CPU counts: (40 + 30) µs over the floor's 10.
        let postgres = verdict(
            &verdicts,
            "SendMessage, PostgreSQL: CPU (agent + database) × floor",
        );
        assert_eq!(postgres.measured, Some(7.0));
        // (50 + 27) over (40 + 30).
        let two = verdict(
            &verdicts,
            "SendMessage, PostgreSQL: CPU per request, two agents over one",
        );
        assert_eq!((two.measured, two.met()), (Some(1.1), Some(true)));
        let grpc = verdict(&verdicts, "GetTask, memory: CPU per request, gRPC over JSON-RPC");
        assert_eq!(grpc.met(), Some(false));
        let p99 = verdict(&verdicts, "SendMessage, SQLite: p99 ms");
        assert_eq!((p99.measured, p99.met()), (Some(5.0), Some(true)));
        assert_eq!(verdict(&verdicts, "GetTask, SQLite: CPU × floor").met(), None);
        let stdio = verdict(&verdicts, "stdio through the local front: req/s × echo pipe");
        assert_eq!(stdio.measured, None);

        let table = render(&verdicts);
        assert!(
            table.contains("| SendMessage, SQLite: CPU × floor | 4.10× | ≤ 4× | not met |"),
            "{table}"
        );
        assert!(
            table.contains("| SendMessage, SQLite: p99 ms | 5.00 | ≤ 20 | met |"),
            "{table}"
        );
        assert!(
            table
                .contains("| stdio through the local front: req/s × echo pipe | – | ≥ 0.8× | not measured |"),
            "{table}"
        );
        assert!(
            table.ends_with("goals: 5 of 11 met, 2 not met, 4 not measured"),
            "{table}"
        );
    }

    /// One round of GetTask on the memory store: the floor at 10 ms of CPU,
    /// the agent at `agent_us`.
    fn get_task_round(agent_us: Option<u64>) -> Vec<Row> {
        let mut rows = vec![row(GET_TASK, "floor", 10_000, None, 0)];
        if let Some(agent_us) = agent_us {
            let target = Subject::JsonRpc(Store::Memory).target();
            rows.push(row(GET_TASK, &target, agent_us, None, 0));
        }
        fill_ratios(&mut rows);
        rows
    }

    #[test]
    fn rounds_judge_each_goal_on_the_median_of_those_that_measured_it() {
        let goal = "GetTask, memory: CPU × floor";
        // One slow round does not decide the goal; its median does.
        let rounds: Vec<Vec<Row>> = [13_000, 10_500, 10_000].map(|us| get_task_round(Some(us))).into();
        let verdicts = judge(&rounds);
        let memory = verdict(&verdicts, goal);
        assert_eq!(memory.rounds, [Some(1.3), Some(1.05), Some(1.0)]);
        assert_eq!((memory.measured, memory.met()), (Some(1.05), Some(true)));
        let table = render(&verdicts);
        assert!(
            table.starts_with("goals: the median of 3 rounds, each measured in this run\n\n| goal | round 1 | round 2 | round 3 | median | goal | |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n"),
            "{table}"
        );
        assert!(
            table.contains("| GetTask, memory: CPU × floor | 1.30× | 1.05× | 1.00× | 1.05× | ≤ 1.1× | met |"),
            "{table}"
        );
        assert!(
            table.contains("| GetTask, SQLite: CPU × floor | – | – | – | – | ≤ 1.1× | not measured |"),
            "{table}"
        );
        // A round without the row is left out of the median: of two, their mean.
        let rounds = vec![
            get_task_round(Some(12_000)),
            get_task_round(None),
            get_task_round(Some(11_000)),
        ];
        let memory = judge(&rounds)
            .into_iter()
            .find(|v| v.goal == goal)
            .expect("the goal");
        assert_eq!(memory.rounds, [Some(1.2), None, Some(1.1)]);
        assert_eq!(memory.met(), Some(false));
        assert!(memory.measured.is_some_and(|m| (m - 1.15).abs() < 1e-9));
    }
}
