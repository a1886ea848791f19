//! The stdio rows: the agent over its stdio binding (in-memory store) and the
//! raw NDJSON echo pipe as its floor, each spawned pinned to the server core
//! and driven the same way.

use crate::args::Options;
use crate::load::Bounds;
use crate::process::Server;
use crate::report::Row;
use crate::stdio::StdioPeer;
use crate::workloads::STDIO_WORKLOAD;
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::types::Role;
use bench::procfs::{rss_bytes, CpuMeter};
use bench::reply::task_id_of;
use std::path::Path;

/// Requests outstanding at once on the pipe.
pub const WINDOW: usize = 16;

/// The SendMessage that creates the task the loop then reads.
fn create_params() -> String {
    let role = Role::User;
    format!(r#"{{"message":{{"messageId":"bench-stdio","role":"{role}","parts":[{{"text":"hello"}}]}}}}"#)
}

pub fn bench(options: &Options) -> Result<Vec<Row>, String> {
    let agent_args = ["--stdio".to_string(), "--memory".to_string()];
    let echo = run_peer(options, "echo", true, &options.echo, &[])?;
    let agent = run_peer(options, "agent/memory", false, &options.agent, &agent_args)?;
    Ok(vec![echo, agent])
}

fn run_peer(
    options: &Options,
    target: &str,
    is_floor: bool,
    program: &Path,
    args: &[String],
) -> Result<Row, String> {
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch dir: {e}"))?;
    let server = Server::start(options.server_core, program, args, scratch, true)?;
    let mut peer = StdioPeer::new(server)?;
    let prepared = peer
        .initialize()
        .and_then(|()| peer.call(markers::SendMessage::NAME, &create_params()));
    let task_id = match prepared {
        Ok(result) => task_id_of(&result).ok_or_else(|| format!("SendMessage created no task: {result}"))?,
        Err(error) => {
            let log = peer.server.log_tail(10).join("\n  ");
            return Err(format!("stdio {target}: {error}\n  {log}"));
        }
    };
    let warmup = peer.get_task_loop(&task_id, WINDOW, Bounds::warmup(options));
    let pid = peer.server.pid();
    let meter = CpuMeter::start(&[pid], None).map_err(|e| e.to_string())?;
    let measured = peer.get_task_loop(&task_id, WINDOW, Bounds::measured(options));
    let spent = meter.stop().map_err(|e| e.to_string())?;
    let mut row = Row::new(STDIO_WORKLOAD, target, is_floor, &warmup, measured);
    row.set_cpu(spent);
    row.rss_bytes = rss_bytes(pid).ok();
    peer.server.check_alive()?;
    eprintln!(
        "a2a-bench: stdio on {target}: {:.0} req/s, {} errors",
        row.req_per_s, row.errors
    );
    for line in peer.server.log_tail(5) {
        eprintln!("a2a-bench: stdio {target} stderr: {line}");
    }
    Ok(row)
}
