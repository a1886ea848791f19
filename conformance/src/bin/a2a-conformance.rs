//! `a2a-conformance`: runs the schema-derived suite against an agent and exits
//! non-zero when it does not conform.
//!
//! ```text
//! a2a-conformance (--url URL [--token T] | --stdio 'COMMAND')
//!     [--groups g1,g2] [--expected-failures FILE]
//!     [--junit FILE] [--json FILE] [--timeout SECS]
//! a2a-conformance --list-groups | --list-cases [--groups …]
//! ```
//!
//! Exit status: 0 conformant (against the baseline), 1 a failing or stale
//! case, 2 bad usage or an unreadable baseline.

use conformance::transport::{CommandConnector, Connector, HttpConnector};
use conformance::{cases, Baseline, RunOptions};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage: a2a-conformance (--url URL [--token T] | --stdio 'COMMAND')
    [--groups g1,g2] [--expected-failures FILE] [--junit FILE] [--json FILE] [--timeout SECS]
  a2a-conformance --list-groups | --list-cases [--groups g1,g2]

  --url URL            the agent's JSON-RPC endpoint (HTTP binding)
  --token T            bearer token sent as `Authorization: Bearer T`
  --stdio 'COMMAND'    spawn `sh -c COMMAND` and speak the stdio binding to it
  --groups LIST        comma-separated method groups (default: all; see --list-groups)
  --expected-failures FILE
                       strict baseline of case ids: an unlisted failure fails,
                       a listed case that passes fails as stale
  --junit FILE         write a JUnit XML report
  --json FILE          write a JSON report
  --timeout SECS       bound on each exchange, streams included (default 30)
  --record-expected-failures FILE
                       write this run's failures as a baseline (review it before committing)";

#[derive(Default)]
struct Args {
    url: Option<String>,
    token: Option<String>,
    stdio: Option<String>,
    groups: Option<Vec<String>>,
    expected_failures: Option<PathBuf>,
    junit: Option<PathBuf>,
    json: Option<PathBuf>,
    timeout: Option<u64>,
    record: Option<PathBuf>,
    list_groups: bool,
    list_cases: bool,
}

fn parse(argv: Vec<String>) -> Result<Args, String> {
    let mut args = Args::default();
    let mut it = argv.into_iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--url" => args.url = Some(value("--url")?),
            "--token" => args.token = Some(value("--token")?),
            "--stdio" => args.stdio = Some(value("--stdio")?),
            "--groups" => {
                let list = value("--groups")?;
                args.groups = Some(
                    list.split(',')
                        .map(str::trim)
                        .filter(|g| !g.is_empty())
                        .map(String::from)
                        .collect(),
                );
            }
            "--expected-failures" => args.expected_failures = Some(value("--expected-failures")?.into()),
            "--junit" => args.junit = Some(value("--junit")?.into()),
            "--json" => args.json = Some(value("--json")?.into()),
            "--timeout" => {
                let v = value("--timeout")?;
                args.timeout = Some(
                    v.parse()
                        .map_err(|_| format!("--timeout: `{v}` is not a number of seconds"))?,
                );
            }
            "--record-expected-failures" => args.record = Some(value("--record-expected-failures")?.into()),
            "--list-groups" => args.list_groups = true,
            "--list-cases" => args.list_cases = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1).collect()) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("a2a-conformance: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let all = cases::all_groups();
    let groups = args.groups.clone().unwrap_or_else(|| all.clone());
    if let Some(unknown) = groups.iter().find(|g| !all.contains(g)) {
        eprintln!(
            "a2a-conformance: unknown group `{unknown}` (groups: {})",
            all.join(", ")
        );
        return ExitCode::from(2);
    }
    if args.list_groups {
        all.iter().for_each(|g| println!("{g}"));
        return ExitCode::SUCCESS;
    }
    if args.list_cases {
        cases::derive(&groups).iter().for_each(|c| println!("{}", c.id));
        if groups.iter().any(|g| g == "scenarios") {
            println!("(plus the scenarios/* cases)");
        }
        return ExitCode::SUCCESS;
    }
    let baseline = match &args.expected_failures {
        Some(path) => match Baseline::load(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("a2a-conformance: {e}");
                return ExitCode::from(2);
            }
        },
        None => Baseline::default(),
    };
    let timeout = Duration::from_secs(args.timeout.unwrap_or(30));
    let connector: Box<dyn Connector> = match (&args.url, &args.stdio) {
        (Some(url), None) => Box::new(HttpConnector {
            url: url.clone(),
            token: args.token.clone(),
            timeout,
        }),
        (None, Some(command)) => Box::new(CommandConnector {
            command: command.clone(),
            timeout,
        }),
        _ => {
            eprintln!("a2a-conformance: give exactly one of --url and --stdio\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("a2a-conformance: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let mut report = runtime.block_on(conformance::run(connector.as_ref(), &RunOptions { groups }));
    if let Some(path) = &args.record {
        if let Err(e) = std::fs::write(path, report.failures_as_baseline()) {
            eprintln!("a2a-conformance: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    report.apply_baseline(&baseline);
    for (path, text) in [(&args.junit, report.to_junit()), (&args.json, report.to_json())] {
        if let Some(path) = path {
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("a2a-conformance: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    print!("{}", report.to_text());
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
