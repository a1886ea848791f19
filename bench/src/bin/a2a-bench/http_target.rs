//! One HTTP target (the floor, or the agent on one store): started pinned,
//! every selected workload run against it in turn, then stopped.

use crate::args::Options;
use crate::deployment::{Deployment, HttpTarget};
use crate::http::Conn;
use crate::load::{self, Bounds, Tally, Workload};
use crate::report::{FloorFigures, Row};
use crate::spin::Spinner;
use crate::workloads::{self, GetTask, ListTasks, RegistryRead, SendMessage, SendStreaming, GRPC_WORKLOADS};
use a2a::methods::markers;
use a2a::rpc::Method as _;
use bench::procfs::CpuMeter;
use bench::reply::task_id_of;
use serde_json::Value;
use std::rc::Rc;
use std::time::Duration;

/// Contexts the seeded tasks are spread over; `list-tasks` asks for one at a time.
pub const SEED_CONTEXTS: usize = 8;
/// Seeding is bounded too, so a slow store cannot stall the run.
const SEED_TIME: Duration = Duration::from_secs(180);

/// Starts `target`, runs `workloads` against it, stops it. With `floor`
/// (running), each row is preceded by a loop of its workload on the floor,
/// which its ratios divide by: a machine whose speed drifts over the
/// minutes of a round moves both alike.
pub async fn bench(
    options: &Options,
    target: HttpTarget,
    workloads: &[&str],
    mut floor: Option<&mut Deployment>,
) -> Result<Vec<Row>, String> {
    let mut deployment = Deployment::start(options, target).await?;
    let mut rows = Vec::new();
    let over_grpc = options.grpc && matches!(target, HttpTarget::Agent(_));
    for name in workloads {
        let bindings: &[bool] = if over_grpc && GRPC_WORKLOADS.contains(name) {
            &[false, true]
        } else {
            &[false]
        };
        for &grpc in bindings {
            let paired = match floor.as_deref_mut() {
                Some(floor) => Some(floor_loop(options, floor, name).await?),
                None => None,
            };
            let row = run_workload(options, &deployment, name, grpc).await;
            deployment.check_alive(name)?;
            let mut row = row?;
            row.floor = paired;
            eprintln!(
                "a2a-bench: {name} on {}: {:.0} req/s, {} errors",
                row.target, row.req_per_s, row.errors
            );
            rows.push(row);
        }
    }
    deployment.print_log_tails();
    Ok(rows)
}

/// One loop of workload `name` on the running `floor`: what the ratios of
/// the row measured next divide by.
async fn floor_loop(options: &Options, floor: &mut Deployment, name: &str) -> Result<FloorFigures, String> {
    let row = run_workload(options, floor, name, false).await;
    floor.check_alive(name)?;
    let row = row?;
    if row.errors > 0 {
        return Err(format!("{name} on the floor before a row: {} errors", row.errors));
    }
    Ok(FloorFigures::of(&row))
}

/// Prepares one workload (a task to read, seeded tasks to list), then warms
/// up and measures it, over JSON-RPC or over the gRPC binding.
async fn run_workload(
    options: &Options,
    deployment: &Deployment,
    name: &str,
    grpc: bool,
) -> Result<Row, String> {
    let mut conns = if grpc {
        deployment.connect_grpc(options.connections).await?
    } else {
        deployment.connect(options.connections).await?
    };
    let mut seeded = None;
    let workload: Rc<dyn Workload> = match name {
        "get-task" => Rc::new(GetTask {
            task_ids: vec![create_task(&mut conns[0]).await?],
        }),
        "send-message" => Rc::new(SendMessage { contexts: Vec::new() }),
        "send-streaming" => Rc::new(SendStreaming),
        "list-tasks" => {
            let contexts: Vec<String> = (0..SEED_CONTEXTS).map(|k| format!("bench-context-{k}")).collect();
            if let HttpTarget::Agent(_) = deployment.target {
                let (back, growth) = seed(conns, deployment, &contexts, options.seed_tasks).await?;
                conns = back;
                seeded = Some(growth);
            }
            Rc::new(ListTasks { contexts })
        }
        "registry-read" => Rc::new(RegistryRead),
        other => return Err(format!("no HTTP workload `{other}`")),
    };
    let (_conns, mut row) = measure(conns, workload, deployment, options, name).await?;
    if grpc {
        row.target = deployment.target.grpc_name();
    }
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
    deployment: &Deployment,
    options: &Options,
    name: &str,
) -> Result<(Vec<Conn>, Row), String> {
    // A database on the driver's core needs the CPU a spinner would take.
    let spinner = match options.spin && deployment.database_pid().is_none() {
        true => Some(Spinner::start().await),
        false => None,
    };
    let (conns, warmup) = load::run(conns, workload.clone(), Bounds::warmup(options)).await;
    let pids = deployment.pids();
    let turns = spinner.as_ref().map(Spinner::turns);
    let meter = CpuMeter::start(&pids, deployment.database_pid()).map_err(|e| e.to_string())?;
    let (conns, measured) = load::run(conns, workload, Bounds::measured(options)).await;
    let spent = meter.stop().map_err(|e| e.to_string())?;
    let target = deployment.target;
    let floor = matches!(target, HttpTarget::Floor);
    let mut row = Row::new(name, &target.name(), floor, &warmup, measured);
    row.set_cpu(spent);
    if let (Some(spinner), Some(before)) = (&spinner, turns) {
        // The driver's CPU time is all spinning now: its busy share comes
        // from the turns, and it has no CPU per request of its own to show.
        let elapsed = Duration::from_secs_f64(row.seconds);
        row.load_busy = Some(spinner.busy(spinner.turns() - before, elapsed));
        row.load_cpu_us_per_req = None;
    }
    row.rss_bytes = deployment.rss_bytes().ok();
    Ok((conns, row))
}

/// Stores `count` tasks spread over `contexts`; the tasks stored and the RSS
/// growth per task.
async fn seed(
    conns: Vec<Conn>,
    deployment: &Deployment,
    contexts: &[String],
    count: u64,
) -> Result<(Vec<Conn>, (u64, f64)), String> {
    let rss_before = deployment.rss_bytes()?;
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
    let rss_after = deployment.rss_bytes()?;
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
