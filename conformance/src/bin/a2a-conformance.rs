//! `a2a-conformance`: runs the schema-derived suite against an agent and exits
//! non-zero when it does not conform.
//!
//! ```text
//! a2a-conformance (--url URL [--rest BASE | --grpc ORIGIN] [--token T] [--card URL] | --stdio 'COMMAND')
//!     [--profile spec|strict] [--contract auto|a2a|cleveragents]
//!     [--groups g1,g2] [--expected-failures FILE] [--extension-schema FILE]…
//!     [--junit FILE] [--json FILE] [--timeout SECS]
//! a2a-conformance --list-groups | --list-cases [--groups …] [--contract …]
//! a2a-conformance --acts PATH --url URL [--rest BASE] [--token T] [--profile spec|strict]
//!     [--acts-draft] [--json FILE] [--timeout SECS]
//! ```
//!
//! Exit status: 0 conformant under the profile (against the baseline), 1 a
//! failing or stale case, 2 bad usage or an unreadable baseline.

use conformance::card::Applicability;
use conformance::grpc::GrpcConnector;
use conformance::rest::RestConnector;
use conformance::transport::{CommandConnector, Connector, HttpConnector};
use conformance::{cases, junit, runner, scenarios, Baseline, ContractChoice, Profile, RunOptions};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str =
    "usage: a2a-conformance (--url URL [--rest BASE | --grpc ORIGIN] [--token T] [--card URL] | --stdio 'COMMAND')
    [--profile spec|strict] [--contract auto|a2a|cleveragents] [--groups g1,g2]
    [--expected-failures FILE] [--extension-schema FILE]... [--junit FILE] [--json FILE]
    [--timeout SECS]
  a2a-conformance --list-groups | --list-cases [--groups g1,g2] [--contract C]
  a2a-conformance --acts PATH --url URL [--rest BASE] [--token T] [--profile P] [--acts-draft]
      [--json FILE] [--timeout SECS]

  --url URL            the agent's JSON-RPC endpoint (HTTP binding)
  --rest BASE          carry every case over the HTTP+JSON (REST) binding at BASE
                       (e.g. http://127.0.0.1:7420/rest) instead; --url still
                       locates the Agent Card. Cases with no REST equivalent
                       (envelopes, fields a path or query cannot carry) are not run
  --grpc ORIGIN        carry every case over the gRPC binding at ORIGIN (the card's
                       GRPC interface, e.g. http://127.0.0.1:7420) instead; --url
                       still locates the Agent Card. Cases protobuf cannot say
                       (envelopes, missing or mistyped fields) are not run
  --token T            bearer token sent as `Authorization: Bearer T`
  --card URL           where the Agent Card is (default: /.well-known/agent-card.json
                       at the URL's origin; over stdio, the initialize result's)
  --stdio 'COMMAND'    spawn `sh -c COMMAND` and speak the stdio binding to it
  --profile P          spec (default): MUST failures fail the gate, SHOULD, MAY and
                       strict ones are warnings; strict: every failure fails
  --contract C         auto (default): A2A, plus the urn:cleveragents:extensions:v1
                       methods when the Agent Card declares the extension;
                       a2a: never call a _cleveragents/ method; cleveragents: all
  --groups LIST        comma-separated method groups (default: all; see --list-groups)
  --expected-failures FILE
                       strict baseline of case ids: an unlisted failure fails,
                       a listed case that passes fails as stale
  --extension-schema FILE
                       also gate an extension beyond the contract described by this
                       schema (x-contract, x-errors, x-methods, definitions that may
                       refer to a2a.json), when the Agent Card declares its URI;
                       repeatable
  --junit FILE         write a JUnit XML report
  --json FILE          write a JSON report
  --timeout SECS       bound on each exchange, streams included (default 30)
  --record-expected-failures FILE
                       write this run's failures as a baseline (review it before committing)
  --acts PATH          run ACTS documents (a file, or a folder: its suite.acts.yaml, else
                       every *.acts.yaml) over the JSON-RPC binding at --url (with
                       --rest BASE: over the HTTP+JSON binding at BASE); --json
                       writes the ACTS report (its §13); with --profile strict every
                       level gates, else MUST only
  --acts-draft         read the dialect of the current draft ACTS files (rewrites
                       listed in the README), instead of reporting it as errors";

#[derive(Default)]
struct Args {
    url: Option<String>,
    rest: Option<String>,
    grpc: Option<String>,
    token: Option<String>,
    card: Option<String>,
    stdio: Option<String>,
    profile: Profile,
    contract: ContractChoice,
    groups: Option<Vec<String>>,
    expected_failures: Option<PathBuf>,
    junit: Option<PathBuf>,
    json: Option<PathBuf>,
    timeout: Option<u64>,
    record: Option<PathBuf>,
    list_groups: bool,
    list_cases: bool,
    acts: Option<PathBuf>,
    acts_draft: bool,
    extensions: Vec<PathBuf>,
}

fn parse(argv: Vec<String>) -> Result<Args, String> {
    let mut args = Args::default();
    let mut it = argv.into_iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--url" => args.url = Some(value("--url")?),
            "--rest" => args.rest = Some(value("--rest")?),
            "--grpc" => args.grpc = Some(value("--grpc")?),
            "--token" => args.token = Some(value("--token")?),
            "--card" => args.card = Some(value("--card")?),
            "--stdio" => args.stdio = Some(value("--stdio")?),
            "--profile" => {
                let v = value("--profile")?;
                args.profile = Profile::from_name(&v)
                    .ok_or_else(|| format!("--profile: `{v}` is not spec or strict"))?;
            }
            "--contract" => {
                let v = value("--contract")?;
                args.contract = ContractChoice::from_name(&v)
                    .ok_or_else(|| format!("--contract: `{v}` is not auto, a2a or cleveragents"))?;
            }
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
            "--extension-schema" => args.extensions.push(value("--extension-schema")?.into()),
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
            "--acts" => args.acts = Some(value("--acts")?.into()),
            "--acts-draft" => args.acts_draft = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

/// Every case of `groups` that applies under `contract` with every capability
/// declared, with the requirement it holds an agent to.
fn list_cases(groups: &[String], contract: ContractChoice) {
    let app = Applicability::everything_under(contract);
    let mut listed: Vec<(String, conformance::Requirement)> = Vec::new();
    if groups.iter().any(|g| g == runner::card_case_group()) {
        listed.push((runner::CARD_CASE_ID.to_string(), conformance::rules::agent_card()));
    }
    listed.extend(
        cases::derive(groups, &app)
            .into_iter()
            .map(|c| (c.id, c.requirement)),
    );
    if groups.iter().any(|g| g == "scenarios") {
        listed.extend(scenarios::listing(&app));
    }
    if groups.iter().any(|g| g == cases::V0_3_GROUP) {
        listed.extend(conformance::v0_3::listing(&app));
    }
    for draft in conformance::draft::Draft::all() {
        if groups.contains(&draft.group()) {
            listed.extend(conformance::draft::listing(&draft));
        }
    }
    let width = listed.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
    for (id, requirement) in listed {
        println!("{id:width$}  {requirement}");
    }
}

/// The connector `--url` (with `--rest` or `--grpc`) or `--stdio` names
/// (`None` unless exactly one is given).
fn connector(args: &Args) -> Option<Box<dyn Connector>> {
    let timeout = Duration::from_secs(args.timeout.unwrap_or(30));
    match (&args.url, &args.stdio) {
        (Some(url), None) => {
            let http = HttpConnector {
                url: url.clone(),
                token: args.token.clone(),
                timeout,
                card_url: args.card.clone(),
            };
            Some(match (&args.rest, &args.grpc) {
                (Some(base), None) => Box::new(RestConnector {
                    card: http,
                    base: base.clone(),
                }),
                (None, Some(origin)) => Box::new(GrpcConnector {
                    card: http,
                    origin: origin.clone(),
                }),
                (None, None) => Box::new(http),
                (Some(_), Some(_)) => return None,
            })
        }
        (None, Some(command)) => Some(Box::new(CommandConnector {
            command: command.clone(),
            timeout,
        })),
        _ => None,
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("a2a-conformance: cannot start the runtime: {e}");
            ExitCode::from(2)
        })
}

/// `--acts`: runs ACTS documents against `--url`.
fn run_acts(path: &std::path::Path, args: &Args) -> ExitCode {
    let Some(url) = &args.url else {
        eprintln!(
            "a2a-conformance: --acts runs over the JSON-RPC binding of an HTTP agent: give --url\n{USAGE}"
        );
        return ExitCode::from(2);
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    let options = conformance::acts::ActsOptions {
        url: url.clone(),
        rest: args.rest.clone(),
        token: args.token.clone(),
        timeout: Duration::from_secs(args.timeout.unwrap_or(30)),
        strict: args.profile == Profile::Strict,
        draft: args.acts_draft,
    };
    let report = match runtime.block_on(conformance::acts::run(path, &options)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("a2a-conformance: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(json) = &args.json {
        if let Err(e) = std::fs::write(json, report.to_json()) {
            eprintln!("a2a-conformance: cannot write {}: {e}", json.display());
            return ExitCode::from(2);
        }
    }
    print!("{}", report.to_text());
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
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
    if let Some(path) = &args.acts {
        return run_acts(path, &args);
    }
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
        list_cases(&groups, args.contract);
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
    let Some(connector) = connector(&args) else {
        eprintln!("a2a-conformance: give exactly one of --url and --stdio\n{USAGE}");
        return ExitCode::from(2);
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    let mut extensions = Vec::new();
    for path in &args.extensions {
        let read = std::fs::read_to_string(path).map_err(|e| e.to_string());
        match read.and_then(|text| conformance::extension::Extension::parse(&text)) {
            Ok(extension) => extensions.push(std::sync::Arc::new(extension)),
            Err(e) => {
                eprintln!("a2a-conformance: --extension-schema {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    let options = RunOptions {
        groups,
        profile: args.profile,
        contract: args.contract,
        extensions,
    };
    let mut report = runtime.block_on(conformance::run(connector.as_ref(), &options));
    if let Some(path) = &args.record {
        if let Err(e) = std::fs::write(path, report.failures_as_baseline()) {
            eprintln!("a2a-conformance: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    report.apply_baseline(&baseline);
    for (path, text) in [
        (&args.junit, junit::render(&report)),
        (&args.json, report.to_json()),
    ] {
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
