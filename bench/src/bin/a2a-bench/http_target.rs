//! One HTTP target (the floor, or the agent on one store): started pinned,
//! every selected workload run against it in turn, then stopped.

use crate::args::{Options, Store};
use crate::http::Conn;
use crate::load::{self, Bounds, Tally, Workload};
use crate::process::{free_port, wait_ready, Server};
use crate::report::Row;
use crate::workloads::{self, GetTask, ListTasks, RegistryRead, SendMessage, SendStreaming};
use a2a::methods::markers;
use a2a::rpc::Method as _;
use bench::procfs::{rss_bytes, CpuMeter};
use bench::reply::task_id_of;
use serde_json::Value;
use std::net::SocketAddr;
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

/// The servers the HTTP workloads run against.
#[derive(Clone, Copy, Debug)]
pub enum HttpTarget {
    Floor,
    Agent(Store),
}

impl HttpTarget {
    pub fn name(self) -> String {
        match self {
            HttpTarget::Floor => "floor".into(),
            HttpTarget::Agent(store) => format!("agent/{}", store.name()),
        }
    }
}

/// Contexts the seeded tasks are spread over; `list-tasks` asks for one at a time.
pub const SEED_CONTEXTS: usize = 8;
/// Seeding is bounded too, so a slow store cannot stall the run.
const SEED_TIME: Duration = Duration::from_secs(180);

/// The open-stream limit the agent is started with: above the connection
/// count, since every connection may hold one stream and the default (16 for
/// all anonymous callers together) would turn the streaming load into 429s.
pub fn agent_stream_limit(connections: usize) -> usize {
    (connections * 2).max(16)
}

/// Starts `target`, runs `workloads` against it, stops it.
pub async fn bench(options: &Options, target: HttpTarget, workloads: &[&str]) -> Result<Vec<Row>, String> {
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch dir: {e}"))?;
    let addr: SocketAddr = ([127, 0, 0, 1], free_port()?).into();
    let (program, args) = match target {
        HttpTarget::Floor => (&options.floor, vec![addr.port().to_string()]),
        HttpTarget::Agent(store) => (&options.agent, agent_args(options, store, scratch.path(), addr)?),
    };
    let mut server = Server::start(options.server_core, program, &args, scratch, false)?;
    wait_ready(&mut server, addr).await?;
    eprintln!("a2a-bench: {} is up on {addr}", target.name());
    let mut rows = Vec::new();
    for name in workloads {
        let row = run_workload(options, &server, addr, target, name).await;
        if let Err(crash) = server.check_alive() {
            return Err(report_crash(&server, target, name, crash));
        }
        let row = row?;
        eprintln!(
            "a2a-bench: {name} on {}: {:.0} req/s, {} errors",
            row.target, row.req_per_s, row.errors
        );
        rows.push(row);
    }
    for line in server.log_tail(5) {
        eprintln!("a2a-bench: {} stderr: {line}", target.name());
    }
    Ok(rows)
}

/// The agent's command line on `store`, listening on `addr`, its config file
/// and data written under `scratch`.
pub fn agent_args(
    options: &Options,
    store: Store,
    scratch: &Path,
    addr: SocketAddr,
) -> Result<Vec<String>, String> {
    let config = scratch.join("config.json");
    let limit = agent_stream_limit(options.connections);
    let text = format!(r#"{{"server":{{"limits":{{"max_streams_per_principal":{limit}}}}}}}"#);
    std::fs::write(&config, text).map_err(|e| format!("config file: {e}"))?;
    let mut args = vec!["--listen".into(), addr.to_string(), "--config".into()];
    args.push(config.display().to_string());
    match store {
        Store::Memory => args.push("--memory".into()),
        Store::Sqlite => {
            args.push("--data-dir".into());
            args.push(scratch.join("data").display().to_string());
        }
    }
    Ok(args)
}

pub fn report_crash(server: &Server, target: HttpTarget, workload: &str, crash: String) -> String {
    let log = server.log_tail(20).join("\n  ");
    format!("{} during {workload}: {crash}\n  {log}", target.name())
}

/// Prepares one workload (a task to read, seeded tasks to list), then warms
/// up and measures it.
async fn run_workload(
    options: &Options,
    server: &Server,
    addr: SocketAddr,
    target: HttpTarget,
    name: &str,
) -> Result<Row, String> {
    let mut conns = load::connect_all(addr, options.connections).await?;
    let mut seeded = None;
    let workload: Rc<dyn Workload> = match name {
        "get-task" => Rc::new(GetTask {
            task_ids: vec![create_task(&mut conns[0]).await?],
        }),
        "send-message" => Rc::new(SendMessage { contexts: Vec::new() }),
        "send-streaming" => Rc::new(SendStreaming),
        "list-tasks" => {
            let contexts: Vec<String> = (0..SEED_CONTEXTS).map(|k| format!("bench-context-{k}")).collect();
            if let HttpTarget::Agent(_) = target {
                let (back, growth) = seed(conns, server.pid(), &contexts, options.seed_tasks).await?;
                conns = back;
                seeded = Some(growth);
            }
            Rc::new(ListTasks { contexts })
        }
        "registry-read" => Rc::new(RegistryRead),
        other => return Err(format!("no HTTP workload `{other}`")),
    };
    let (_conns, mut row) = measure(conns, workload, server.pid(), options, name, target).await?;
    if let Some((tasks, bytes)) = seeded {
        row.tasks_seeded = Some(tasks);
        row.rss_per_stored_task_bytes = Some(bytes);
    }
    Ok(row)
}

/// Warm-up, then the measured loop between two readings of the server's CPU
/// time; the connections are handed back with the row.
pub async fn measure(
    conns: Vec<Conn>,
    workload: Rc<dyn Workload>,
    pid: u32,
    options: &Options,
    name: &str,
    target: HttpTarget,
) -> Result<(Vec<Conn>, Row), String> {
    let (conns, warmup) = load::run(conns, workload.clone(), Bounds::warmup(options)).await;
    let meter = CpuMeter::start(pid).map_err(|e| e.to_string())?;
    let (conns, measured) = load::run(conns, workload, Bounds::measured(options)).await;
    let (server_us, driver_us) = meter.stop().map_err(|e| e.to_string())?;
    let floor = matches!(target, HttpTarget::Floor);
    let mut row = Row::new(name, &target.name(), floor, &warmup, measured);
    row.set_cpu(server_us, driver_us);
    row.rss_bytes = rss_bytes(pid).ok();
    Ok((conns, row))
}

/// Stores `count` tasks spread over `contexts`; the tasks stored and the RSS
/// growth per task.
async fn seed(
    conns: Vec<Conn>,
    pid: u32,
    contexts: &[String],
    count: u64,
) -> Result<(Vec<Conn>, (u64, f64)), String> {
    let rss_before = rss_bytes(pid).map_err(|e| e.to_string())?;
    let workload = Rc::new(SendMessage {
        contexts: contexts.to_vec(),
    });
    let bounds = Bounds {
        requests: count,
        time: SEED_TIME,
    };
    let (conns, tally): (Vec<Conn>, Tally) = load::run(conns, workload, bounds).await;
    if tally.errors > 0 {
        return Err(format!(
            "seeding failed {} times: {:?}",
            tally.errors, tally.error_samples
        ));
    }
    let rss_after = rss_bytes(pid).map_err(|e| e.to_string())?;
    eprintln!(
        "a2a-bench: seeded {} tasks in {:.1} s",
        tally.done,
        tally.elapsed.as_secs_f64()
    );
    let growth = (rss_after as f64 - rss_before as f64) / tally.done.max(1) as f64;
    Ok((conns, (tally.done, growth)))
}

/// Sends one message and returns the id of the task it created.
async fn create_task(conn: &mut Conn) -> Result<String, String> {
    let mut body = Vec::new();
    workloads::write_send_message(&mut body, 1, markers::SendMessage::NAME, None);
    let answer = conn.post(&body).await?;
    load::expect_ok_status(&answer)?;
    let value: Value = serde_json::from_slice(answer.body).map_err(|e| format!("SendMessage answer: {e}"))?;
    task_id_of(&value["result"]).ok_or_else(|| format!("SendMessage created no task: {value}"))
}
