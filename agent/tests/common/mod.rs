//! The real agent binary for the live tests: its path, and an agent in server
//! mode on an ephemeral loopback port.

#[allow(dead_code)] // not every test binary speaks raw HTTP
pub mod http;
#[allow(dead_code)] // nor makes certificates
pub mod pki;
#[allow(dead_code)] // nor runs seeded
pub mod seeded;
#[allow(dead_code)] // nor receives webhooks
pub mod webhook;

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
    /// On the in-memory store.
    #[allow(dead_code)] // not every test binary uses every harness
    pub fn start() -> ServerAgent {
        Self::start_with(&["--memory"])
    }

    /// With further agent arguments (e.g. a data directory).
    pub fn start_with(args: &[&str]) -> ServerAgent {
        let mut child = Command::new(AGENT)
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
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

impl ServerAgent {
    /// With its whole stderr written to `log`, so a test can read what it logged.
    #[allow(dead_code)]
    pub fn start_logged(args: &[&str], envs: &[(&str, &str)], log: &std::path::Path) -> ServerAgent {
        let file = std::fs::File::create(log).expect("log file");
        let child = Command::new(AGENT)
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .envs(envs.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("agent starts");
        let mut agent = ServerAgent {
            child,
            endpoint: String::new(),
        };
        // A generous bound on start-up, so a broken agent fails the test instead of hanging it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while agent.endpoint.is_empty() {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            if let Some(url) = text
                .lines()
                .find_map(|line| line.strip_prefix("cleveragents-agent: listening on "))
            {
                agent.endpoint = url.trim().to_string();
            } else if let Ok(Some(status)) = agent.child.try_wait() {
                panic!("the agent exited ({status}) before listening: {text}");
            } else {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the agent never listened: {text}"
                );
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        agent
    }

    /// The `host:port` the agent listens on.
    #[allow(dead_code)]
    pub fn addr(&self) -> String {
        self.endpoint
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string()
    }

    /// Stops the agent with SIGTERM (a graceful shutdown) and waits until it
    /// has exited.
    #[allow(dead_code)]
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "SIGTERM sent");
        self.child.wait().expect("the agent exits")
    }

    /// The agent's process id.
    #[allow(dead_code)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the agent with SIGKILL and reaps it.
    #[allow(dead_code)]
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
