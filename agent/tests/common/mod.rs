//! The real agent binary for the live tests: its path, and an agent in server
//! mode on an ephemeral loopback port.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The agent binary cargo built for these tests.
pub const AGENT: &str = env!("CARGO_BIN_EXE_cleveragents-agent");

/// An agent in server mode on an ephemeral loopback port; killed on drop.
pub struct ServerAgent {
    child: Child,
    pub endpoint: String,
}

impl ServerAgent {
    pub fn start() -> ServerAgent {
        let mut child = Command::new(AGENT)
            .args(["--listen", "127.0.0.1:0", "--memory"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("agent starts");
        let stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut endpoint = None;
        for line in stderr.lines().take(20) {
            let line = line.expect("agent log line");
            if let Some(url) = line.strip_prefix("cleveragents-agent: listening on ") {
                endpoint = Some(url.trim().to_string());
                break;
            }
        }
        let endpoint = endpoint.expect("the agent reports its address");
        ServerAgent { child, endpoint }
    }
}

impl Drop for ServerAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
