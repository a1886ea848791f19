//! The agent side of the local socket: accepts fronts (of this user, this
//! build and these settings only), serves each one's session with the stdio
//! binding, and, in a background agent, retires once nobody has been
//! connected and nothing has been running for the idle period.

use super::lifecycle;
use super::wire::{self, Answer, Ended, Handover, Hello};
use super::{Identity, RunDir};
use a2a::rpc::Dispatch;
use std::future::Future;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::UnixStream;

/// How long a front may take to say hello once connected.
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);

/// Everything the sessions of the socket are served with.
pub struct Host {
    pub run: RunDir,
    pub identity: Identity,
    pub config: Arc<server::ServerConfig>,
    pub dispatch: Arc<dyn Dispatch>,
    pub app: Arc<app::App>,
    /// Retire after this long without a session or any running work; `None`
    /// for a server-mode agent, which serves until it is stopped.
    pub idle: Option<Duration>,
}

/// Counts one open session while it lives.
struct Open(Arc<AtomicUsize>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Host {
    /// Serves the socket until `stop` resolves or, with an idle period, the
    /// agent has been idle that long (or its socket file is gone, so nobody
    /// could reach it). The socket file is removed before this returns,
    /// while this process still owns the data directory.
    pub async fn serve(
        self,
        listener: std::os::unix::net::UnixListener,
        inode: u64,
        stop: impl Future<Output = ()>,
    ) -> Result<(), String> {
        let listener = tokio::net::UnixListener::from_std(listener)
            .map_err(|e| format!("cannot serve the local socket: {e}"))?;
        let this = Arc::new(self);
        let sessions = Arc::new(AtomicUsize::new(0));
        let period = this.idle.map_or(Duration::from_secs(1), |idle| {
            (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(1))
        });
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut idle_since: Option<Instant> = None;
        tokio::pin!(stop);
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        sessions.fetch_add(1, Ordering::AcqRel);
                        let open = Open(sessions.clone());
                        let this = this.clone();
                        tokio::spawn(async move {
                            let _open = open;
                            this.admit(stream).await;
                        });
                    }
                    Err(e) => {
                        // Out of descriptors, say: paused briefly, not retried in a spin.
                        tracing::warn!("cannot accept a local connection: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
                _ = tick.tick(), if this.idle.is_some() => {
                    if sessions.load(Ordering::Acquire) > 0 || !this.app.work().await.is_idle() {
                        idle_since = None;
                        continue;
                    }
                    let since = *idle_since.get_or_insert_with(Instant::now);
                    let unreachable = !lifecycle::still_bound(&this.run, inode);
                    if unreachable || this.idle.is_some_and(|idle| since.elapsed() >= idle) {
                        tracing::info!(unreachable, "the background agent retires: idle");
                        break;
                    }
                }
                () = &mut stop => break,
            }
        }
        // Unlinked first: a front arriving from now on starts a successor,
        // which waits for this process to let go of the store.
        lifecycle::unbind(&this.run, inode);
        Ok(())
    }

    /// One connection: checks who is calling and serves their session.
    async fn admit(&self, mut stream: UnixStream) {
        let uid = rustix::process::geteuid().as_raw();
        match stream.peer_cred() {
            Ok(peer) if peer.uid() == uid => {}
            Ok(peer) => {
                let reason = format!(
                    "the local agent on {} serves its own user (uid {uid}) only; uid {} was refused",
                    self.run.dir.display(),
                    peer.uid()
                );
                tracing::warn!("{reason}");
                return refuse(&mut stream, reason).await;
            }
            Err(e) => return refuse(&mut stream, format!("cannot tell who connected: {e}")).await,
        }
        let (line, fds) = match tokio::time::timeout(HELLO_TIMEOUT, wire::receive_hello(&stream)).await {
            Ok(Ok(Some(received))) => received,
            Ok(Ok(None)) => return,
            Ok(Err(e)) => return refuse(&mut stream, format!("unreadable hello: {e}")).await,
            Err(_) => return refuse(&mut stream, "no hello within 5 s".into()).await,
        };
        let hello = match wire::parse::<Hello>(&line) {
            Ok(hello) => hello,
            Err(e) => return refuse(&mut stream, e).await,
        };
        if let Some(reason) = self.mismatch(&hello) {
            return refuse(&mut stream, reason).await;
        }
        tracing::info!(front = hello.pid, handover = ?hello.handover, "local session opened");
        match hello.handover {
            Handover::Descriptors => self.serve_descriptors(stream, fds).await,
            Handover::Stream => {
                if accept(&mut stream).await.is_err() {
                    return;
                }
                let (input, output) = stream.into_split();
                if let Err(e) = server::serve_stdio(&self.config, self.dispatch.clone(), input, output).await
                {
                    tracing::warn!("local session failed: {e}");
                }
            }
        }
        tracing::info!(front = hello.pid, "local session closed");
    }

    /// Serves a session on the client's own pipes, until it ends or its
    /// front goes away, and reports its end to the front.
    async fn serve_descriptors(&self, mut stream: UnixStream, fds: Vec<OwnedFd>) {
        let mut fds = fds.into_iter();
        let (Some(input), Some(output), None) = (fds.next(), fds.next(), fds.next()) else {
            return refuse(&mut stream, "a hello handing over descriptors carries two".into()).await;
        };
        let pipes = server::pipes::reader_from(input)
            .and_then(|input| server::pipes::writer_from(output).map(|output| (input, output)));
        let (input, output) = match pipes {
            Ok(pipes) => pipes,
            Err(e) => return refuse(&mut stream, format!("cannot serve the handed-over stdio: {e}")).await,
        };
        if accept(&mut stream).await.is_err() {
            return;
        }
        let served = tokio::select! {
            served = server::serve_stdio(&self.config, self.dispatch.clone(), input, output) => served,
            () = front_gone(&stream) => return,
        };
        let ended = Ended {
            error: served.err().map(|e| e.to_string()),
        };
        let _ = stream.write_all(&wire::line(&ended)).await;
    }

    /// Why `hello` cannot be served here, if it cannot.
    fn mismatch(&self, hello: &Hello) -> Option<String> {
        let (wanted, theirs) = if hello.build != self.identity.build {
            ("build", (&self.identity.build, &hello.build))
        } else if hello.settings != self.identity.settings {
            ("settings", (&self.identity.settings, &hello.settings))
        } else {
            return None;
        };
        let idle = self
            .idle
            .map(|idle| format!(" (it exits by itself once idle for {} s)", idle.as_secs()))
            .unwrap_or_default();
        Some(format!(
            "the agent serving {data_dir} (pid {}) runs with other {wanted}: it has [{}], this client asked for [{}]. Stop it with `cleveragents-agent --stop --data-dir {data_dir}`{idle}, or use another --data-dir",
            std::process::id(),
            theirs.0,
            theirs.1,
            data_dir = self.run.data_dir.display(),
        ))
    }
}

async fn accept(stream: &mut UnixStream) -> std::io::Result<()> {
    let answer = Answer::Accepted {
        pid: std::process::id(),
    };
    stream.write_all(&wire::line(&answer)).await
}

async fn refuse(stream: &mut UnixStream, reason: String) {
    let _ = stream.write_all(&wire::line(&Answer::Refused { reason })).await;
}

/// Resolves when the front closes its end (it exited, or was killed).
async fn front_gone(stream: &UnixStream) {
    let mut byte = [0u8; 1];
    loop {
        if stream.readable().await.is_err() {
            return;
        }
        match stream.try_read(&mut byte) {
            // Nothing is expected from a front after its hello: anything is
            // treated as its end.
            Ok(_) => return,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(_) => return,
        }
    }
}
