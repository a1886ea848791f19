//! What each mode of the binary runs once its settings are settled: the
//! stdio front, the background agent, an in-process stdio session, server
//! mode, and `--stop`. The process that opens a data directory's SQLite
//! store owns the directory (its agent lock) and, but for an in-process
//! session, serves local clients on its socket ([`crate::local`]).

use crate::local::front::Front;
use crate::local::host::Host;
use crate::local::lifecycle::{self, Lock, START_TIMEOUT};
use crate::local::RunDir;
use crate::store::StoreConfig;
use crate::{Mode, Settings};
use app::App;
use std::sync::Arc;
use std::time::Duration;

/// The front of a client's stdio session (see [`crate::local`]).
pub fn front(settings: &Settings) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    // The background agent takes this front's settings: its arguments,
    // with the data directory made absolute (the environment is inherited).
    let mut background_args: Vec<std::ffi::OsString> = std::env::args_os()
        .skip(1)
        .filter(|arg| arg != "--stdio")
        .collect();
    background_args.push("--background".into());
    background_args.push("--data-dir".into());
    background_args.push(settings.data_dir.clone().into_os_string());
    Front {
        run: RunDir::of(&settings.data_dir),
        identity: settings.identity.clone(),
        exe,
        background_args,
    }
    .run()
}

/// Stops the data directory's background agent and waits until it has let
/// go of the store.
pub fn stop(settings: &Settings) -> Result<(), String> {
    let run = RunDir::of(&settings.data_dir);
    let dir = settings.data_dir.display();
    if !run.dir.exists() || lifecycle::try_lock(&run.agent_lock)?.is_some() {
        println!("no agent runs on {dir}");
        return Ok(());
    }
    let Some((pid, role)) = run.owner() else {
        return Err(format!(
            "an agent holds {dir} but left no pid in {}",
            run.pid.display()
        ));
    };
    if role != "background" {
        return Err(format!(
            "{} holds {dir}: stop it the way it was started",
            run.describe_owner()
        ));
    }
    let target = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap_or(0))
        .ok_or_else(|| format!("invalid pid {pid} in {}", run.pid.display()))?;
    rustix::process::kill_process(target, rustix::process::Signal::TERM)
        .map_err(|e| format!("cannot stop the background agent (pid {pid}): {e}"))?;
    match lifecycle::lock_within(&run.agent_lock, START_TIMEOUT)? {
        Some(_) => {
            println!("stopped the background agent (pid {pid}) of {dir}");
            Ok(())
        }
        None => Err(format!(
            "the background agent (pid {pid}) did not stop within {} s",
            START_TIMEOUT.as_secs()
        )),
    }
}

/// Takes the data directory for this process, if its mode and store need
/// it: the background agent waits for a predecessor that is still exiting;
/// a server or an in-process session refuses to start beside another owner.
fn own(settings: &Settings) -> Result<Option<(RunDir, Lock)>, String> {
    let role = match (&settings.mode, &settings.store) {
        (Mode::Background, _) => "background",
        (Mode::Listen(_), StoreConfig::Sqlite { .. }) => "server",
        (Mode::Stdio, StoreConfig::Sqlite { .. }) => "in-process",
        _ => return Ok(None),
    };
    let run = RunDir::of(&settings.data_dir);
    run.prepare()?;
    let dir = settings.data_dir.display();
    let lock = if settings.mode == Mode::Background {
        lifecycle::lock_within(&run.agent_lock, START_TIMEOUT)?.ok_or_else(|| {
            format!(
                "{} has held {dir} for {} s and serves no local clients",
                run.describe_owner(),
                START_TIMEOUT.as_secs()
            )
        })?
    } else {
        lifecycle::try_lock(&run.agent_lock)?.ok_or_else(|| {
            let owner = run.describe_owner();
            if role == "server" {
                format!(
                    "{owner} already serves {dir}. A server-mode agent serves local clients too, so stop that one first (`cleveragents-agent --stop --data-dir {dir}` stops a background agent), or give this server another --data-dir"
                )
            } else {
                format!("{owner} already serves {dir}; without --in-process this session would go through it")
            }
        })?
    };
    run.record_owner(role)?;
    Ok(Some((run, lock)))
}

/// Opens the application and serves it in this process's mode until the
/// transport ends.
pub async fn serve(settings: Settings) -> Result<(), String> {
    let background = settings.mode == Mode::Background;
    let started = start(&settings).await;
    if background {
        lifecycle::announce(&started.as_ref().map(|_| ()).map_err(Clone::clone));
    }
    let (app, owned) = started?;
    let Settings {
        mode,
        store,
        executor,
        server_config,
        identity,
        idle_timeout,
        ..
    } = settings;
    tracing::info!(?store, ?executor, "agent started");
    let dispatch: Arc<dyn a2a::rpc::Dispatch> = Arc::new(a2a::Router::new(app.clone()));
    let config = Arc::new(server_config);
    let host = |run: RunDir, idle: Option<Duration>| Host {
        run,
        identity: identity.clone(),
        config: config.clone(),
        dispatch: dispatch.clone(),
        app: app.clone(),
        idle,
    };
    match (mode, owned) {
        (Mode::Background, Some(Owned { run, lock, socket })) => {
            let (listener, inode) = socket.ok_or("the background agent has no socket")?;
            let served = host(run, Some(idle_timeout))
                .serve(listener, inode, server::shutdown_signal())
                .await;
            drop(lock);
            served
        }
        (Mode::Stdio, owned) => {
            let served =
                server::serve_stdio(&config, dispatch, server::pipes::stdin(), server::pipes::stdout())
                    .await
                    .map_err(|e| e.to_string());
            drop(owned);
            served
        }
        (Mode::Listen(addr), owned) => {
            // A server on SQLite owns its data directory: local clients reach it too.
            let (lock, local) = match owned {
                Some(Owned {
                    run,
                    lock,
                    socket: Some((listener, inode)),
                }) => {
                    tokio::spawn(host(run.clone(), None).serve(listener, inode, std::future::pending()));
                    (Some(lock), Some((run, inode)))
                }
                Some(Owned { lock, .. }) => (Some(lock), None),
                None => (None, None),
            };
            let served = listen(addr, &config, dispatch).await;
            if let Some((run, inode)) = local {
                lifecycle::unbind(&run, inode);
            }
            drop(lock);
            served
        }
        (mode, _) => Err(format!("nothing to serve in mode {mode:?}")),
    }
}

/// What a process that owns its data directory holds while it serves.
struct Owned {
    run: RunDir,
    lock: Lock,
    /// The local socket, for every owner but an in-process session.
    socket: Option<(std::os::unix::net::UnixListener, u64)>,
}

/// Owns the data directory (if this mode does), opens the application,
/// picks up what a previous process left under way, and binds the local
/// socket (if this mode serves one).
async fn start(settings: &Settings) -> Result<(Arc<App>, Option<Owned>), String> {
    let owned = own(settings)?;
    let store = crate::store::open(settings.store.clone()).await?;
    let app = App::with_store(store, settings.app_config.clone());
    match app.resume_work().await {
        Ok(resumed) => {
            if resumed.plans > 0 {
                eprintln!("cleveragents-agent: resumed {} running plan(s)", resumed.plans);
            }
            if resumed.failed_tasks > 0 {
                eprintln!(
                    "cleveragents-agent: failed {} task(s) whose run ended with the previous process",
                    resumed.failed_tasks
                );
            }
        }
        Err(e) => eprintln!(
            "cleveragents-agent: cannot resume the work left running: {}",
            e.message
        ),
    }
    let owned = match owned {
        Some((run, lock)) => {
            let socket = if settings.mode == Mode::Stdio {
                None
            } else {
                Some(lifecycle::bind(&run)?)
            };
            Some(Owned { run, lock, socket })
        }
        None => None,
    };
    Ok((app, owned))
}

/// Serves HTTP on `addr` until Ctrl-C or SIGTERM.
async fn listen(
    addr: String,
    config: &server::ServerConfig,
    dispatch: Arc<dyn a2a::rpc::Dispatch>,
) -> Result<(), String> {
    let mut server_config = config.clone();
    server_config.http.listen = addr
        .parse()
        .map_err(|e| format!("invalid --listen address `{addr}`: {e}"))?;
    let scheme = server_config.http.scheme();
    let server = server::HttpServer::bind(server_config, dispatch)
        .await
        .map_err(|e| match e {
            server::ServerError::AnonymousOnNetwork { .. } => {
                format!("{e} (command line: --admin-key to create an admin API key, or --insecure-no-auth)")
            }
            server::ServerError::ClearTextCredentials { .. } => {
                format!("{e} (command line: --tls-cert FILE --tls-key FILE, or --behind-tls-proxy)")
            }
            e => e.to_string(),
        })?;
    // The bound address, so `--listen 127.0.0.1:0` is usable by scripts and tests.
    let bound = server.local_addr().map_err(|e| e.to_string())?;
    eprintln!("cleveragents-agent: listening on {scheme}://{bound}/");
    if let Some(v0_3) = server.v0_3_local_addr().map_err(|e| e.to_string())? {
        eprintln!("cleveragents-agent: serving A2A 0.3 clients' Agent Card on {scheme}://{v0_3}/");
    }
    server
        .serve(server::shutdown_signal())
        .await
        .map_err(|e| e.to_string())
}
