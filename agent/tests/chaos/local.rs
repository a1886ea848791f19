//! Local mode under faults: one data directory whose background agent (on
//! SQLite) serves every client's front, and the nemesis that hurts it at
//! seeded random moments: SIGKILL of the background agent (the next front
//! starts another), SIGSTOP and SIGCONT of it, SIGKILL of one client's front
//! (the client spawns a new one), and, when this process may mount a tmpfs
//! (as root on Linux), the disk filling up: the data directory lives on a
//! small tmpfs of its own, which a ballast file fills for a while.

use crate::nemesis::Faults;
use crate::stdio::{Fronts, Launch, Local};
use crate::wire;
use crate::Rng;
use rustix::process::{kill_process, Pid, Signal};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The kinds of fault, as the summary names them.
pub const AGENT_KILL: &str = "background sigkill";
pub const AGENT_STOP: &str = "background sigstop+sigcont";
pub const FRONT_KILL: &str = "front sigkill";
pub const DISK_FULL: &str = "disk full";

/// The size of the data directory's tmpfs: far more than a long run
/// stores, so only the ballast fills it.
const DISK_MIB: u64 = 256;

/// The data directory's own tmpfs, and the ballast that fills it.
struct Disk {
    mount: PathBuf,
    ballast: PathBuf,
}

impl Disk {
    /// Mounts a tmpfs at `mount` (which must exist); why not, if it cannot.
    fn mount(mount: &Path) -> Result<Disk, String> {
        let options = format!("size={DISK_MIB}m,mode=0700");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &options, "tmpfs"])
            .arg(mount)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !mounted.status.success() {
            return Err(format!(
                "mount refused: {}",
                String::from_utf8_lossy(&mounted.stderr).trim()
            ));
        }
        Ok(Disk {
            mount: mount.to_path_buf(),
            ballast: mount.join("ballast"),
        })
    }

    /// Fills the tmpfs with the ballast, to the last block it takes.
    fn fill(&self) {
        let Ok(mut file) = std::fs::File::create(&self.ballast) else {
            return;
        };
        let zeros = vec![0u8; 1 << 20];
        // Bounded: the tmpfs takes no more than its size.
        for chunk in [1 << 20, 4 << 10] {
            for _ in 0..(DISK_MIB << 20) / chunk + 1 {
                match file.write(&zeros[..chunk as usize]) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        }
    }

    fn free(&self) {
        let _ = std::fs::remove_file(&self.ballast);
    }
}

impl Drop for Disk {
    fn drop(&mut self) {
        let unmounted = Command::new("umount")
            .arg(&self.mount)
            .stderr(std::process::Stdio::null())
            .status();
        if !unmounted.is_ok_and(|s| s.success()) {
            // Still busy (a process of the run not yet gone): detached now,
            // freed once it is.
            let _ = Command::new("umount").arg("-l").arg(&self.mount).status();
        }
    }
}

/// The data directory of a local run, and how its clients' fronts start.
pub struct DataDir {
    pub path: PathBuf,
    pub launch: Arc<Launch>,
    /// The tmpfs the data directory is on, or why it is on none.
    disk: Result<Disk, String>,
    // Dropped last, once the tmpfs is unmounted.
    _root: tempfile::TempDir,
}

impl DataDir {
    /// A fresh data directory (on a tmpfs of its own when one can be
    /// mounted), served with the TCK executor and `settings` (a config file).
    pub fn create(settings: serde_json::Value) -> DataDir {
        let root = tempfile::tempdir().expect("temp dir");
        let config = root.path().join("config.json");
        std::fs::write(&config, settings.to_string()).expect("config");
        let mount = root.path().join("disk");
        std::fs::create_dir(&mount).expect("mount point");
        let disk = Disk::mount(&mount);
        let path = mount.join("data");
        let args = ["--stdio", "--executor", "tck", "--config"]
            .map(Into::into)
            .into_iter()
            .chain([
                config.into_os_string(),
                "--data-dir".into(),
                path.clone().into_os_string(),
            ])
            .chain(wire::DRAFT_SWITCH.map(Into::into))
            .collect();
        let launch = Arc::new(Launch {
            args,
            log: root.path().join("fronts.log"),
            fronts: Arc::new(Fronts::default()),
            over: Arc::new(AtomicBool::new(false)),
        });
        DataDir {
            path,
            launch,
            disk,
            _root: root,
        }
    }

    /// Client `client`: a front of its own, spawned as calls need one.
    pub fn client(&self, client: u64) -> Local {
        Local::new(self.launch.clone(), client)
    }

    /// Where the data lives, for the summary.
    pub fn describe(&self) -> String {
        match &self.disk {
            Ok(_) => format!("data on a {DISK_MIB} MiB tmpfs"),
            Err(why) => format!("no disk-full fault ({why})"),
        }
    }

    /// The background agent running now, if one does: the pid its data
    /// directory records, checked to be a live background agent of this
    /// directory (not a dead one's pid, reaped and reused).
    fn background(&self) -> Option<Pid> {
        let text = std::fs::read_to_string(self.path.join("run/agent.pid")).ok()?;
        let mut words = text.split_whitespace();
        let pid: i32 = words.next()?.parse().ok()?;
        if words.next() != Some("background") {
            return None;
        }
        // A zombie's command line is empty.
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let data = self.path.as_os_str().as_encoded_bytes();
        (args.contains(&b"--background".as_slice()) && args.contains(&data)).then_some(())?;
        Pid::from_raw(pid)
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        // Whatever state the run left it in, the background agent goes.
        if let Some(pid) = self.background() {
            let _ = kill_process(pid, Signal::CONT);
            let _ = kill_process(pid, Signal::KILL);
        }
        // Gone (a zombie holds no file), so the tmpfs is no longer busy.
        for _ in 0..1_000 {
            if self.background().is_none() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The kinds in the order a run first injects them (each once, so even a
/// short run meets every kind), then chosen at random by weight.
fn kinds(rng: &mut Rng) -> impl Iterator<Item = &'static str> + '_ {
    let mut first = vec![AGENT_KILL, AGENT_STOP, FRONT_KILL, DISK_FULL];
    for i in (1..first.len()).rev() {
        first.swap(i, rng.below(i as u64 + 1) as usize);
    }
    const WEIGHTED: [&str; 7] = [
        AGENT_KILL, AGENT_KILL, AGENT_STOP, AGENT_STOP, FRONT_KILL, FRONT_KILL, DISK_FULL,
    ];
    first
        .into_iter()
        .map(Some)
        .chain(std::iter::repeat(None))
        .map(move |kind| kind.unwrap_or_else(|| WEIGHTED[rng.below(7) as usize]))
}

/// Injects faults until `stop` is set: a quiet spell, then one fault chosen
/// by `rng`. Every fault has ended (the agent continued, the ballast
/// freed) when this returns; a killed agent or front is replaced by the
/// next client that needs one.
pub fn nemesis(dir: Arc<DataDir>, faults: Arc<Faults>, stop: Arc<AtomicBool>, mut rng: Rng) {
    let mut draws = Rng::new(rng.below(u64::MAX), 1);
    let mut kinds = kinds(&mut draws);
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(300 + rng.below(900)));
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let kind = kinds.next().expect("endless");
        let hold = Duration::from_millis(200 + rng.below(2_500));
        let pick = rng.below(1 << 16);
        let injected = match kind {
            AGENT_KILL => dir
                .background()
                .is_some_and(|pid| kill_process(pid, Signal::KILL).is_ok()),
            AGENT_STOP => dir.background().is_some_and(|pid| {
                let stopped = kill_process(pid, Signal::STOP).is_ok();
                if stopped {
                    std::thread::sleep(hold);
                    let _ = kill_process(pid, Signal::CONT);
                }
                stopped
            }),
            FRONT_KILL => dir.launch.fronts.kill_one(pick),
            _ => dir.disk.as_ref().is_ok_and(|disk| {
                disk.fill();
                // Long enough, often, for the store to need a block it
                // cannot have (SQLite reuses its write-ahead log's).
                std::thread::sleep(Duration::from_millis(1_000) + hold * 2);
                disk.free();
                true
            }),
        };
        if injected {
            faults.count(kind);
        }
    }
}
