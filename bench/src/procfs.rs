//! What the driver reads about a server process from `/proc`: its CPU time
//! (user + system, all threads) and its resident set size.
//!
//! The parsers take the file's text so they can be tested on fixed inputs; the
//! readers around them do the I/O.

use std::io;

/// The fields of `/proc/<pid>/stat` after `comm`, the first being field 3.
///
/// The second field (`comm`) is the executable name in parentheses and may
/// itself contain spaces and parentheses, so fields are counted from the last
/// `)`.
fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    let after_comm = &stat[stat.rfind(')')? + 1..];
    Some(after_comm.split_ascii_whitespace().collect())
}

/// Field `n` (1-based, as `proc(5)` numbers them) of a stat line, as a number.
fn stat_field(fields: &[&str], n: usize) -> Option<u64> {
    fields.get(n.checked_sub(3)?)?.parse().ok()
}

/// `utime + stime` (fields 14 and 15 of `/proc/<pid>/stat`), in clock ticks.
pub fn parse_stat_cpu_ticks(stat: &str) -> Option<u64> {
    let fields = stat_fields(stat)?;
    Some(stat_field(&fields, 14)? + stat_field(&fields, 15)?)
}

/// `cutime + cstime` (fields 16 and 17): the CPU of children the process has
/// reaped, in clock ticks.
pub fn parse_stat_reaped_children_ticks(stat: &str) -> Option<u64> {
    let fields = stat_fields(stat)?;
    Some(stat_field(&fields, 16)? + stat_field(&fields, 17)?)
}

/// The parent's pid (field 4).
pub fn parse_stat_ppid(stat: &str) -> Option<u32> {
    let fields = stat_fields(stat)?;
    u32::try_from(stat_field(&fields, 4)?).ok()
}

/// `VmRSS` of `/proc/<pid>/status`, in bytes (the file states kB, i.e. KiB).
pub fn parse_vm_rss_bytes(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let mut words = line["VmRSS:".len()..].split_ascii_whitespace();
    let kib: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") | None => Some(kib * 1024),
        Some(_) => None,
    }
}

fn invalid(what: &str, pid: u32) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("cannot parse {what} of process {pid}"),
    )
}

/// CPU time the process `pid` has used so far, in microseconds.
pub fn cpu_micros(pid: u32) -> io::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let ticks = parse_stat_cpu_ticks(&stat).ok_or_else(|| invalid("/proc/<pid>/stat", pid))?;
    Ok(ticks * 1_000_000 / clock_ticks_per_second())
}

/// CPU time, in microseconds, of the process tree rooted at `root` whose
/// members are its direct children (a PostgreSQL server: the postmaster and
/// its backends): the root's own, its reaped children's, and each living
/// child's.
pub fn tree_cpu_micros(root: u32) -> io::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{root}/stat"))?;
    let own = parse_stat_cpu_ticks(&stat).ok_or_else(|| invalid("/proc/<pid>/stat", root))?;
    let reaped = parse_stat_reaped_children_ticks(&stat).ok_or_else(|| invalid("/proc/<pid>/stat", root))?;
    let mut ticks = own + reaped;
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let name = entry.file_name();
        if !name
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        {
            continue;
        }
        // A child may end between listing and reading: it is then counted
        // in the root's reaped time at the next reading, not lost.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if parse_stat_ppid(&stat) == Some(root) {
            ticks += parse_stat_cpu_ticks(&stat).unwrap_or(0);
        }
    }
    Ok(ticks * 1_000_000 / clock_ticks_per_second())
}

/// Resident set size of the process `pid`, in bytes.
pub fn rss_bytes(pid: u32) -> io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    parse_vm_rss_bytes(&status).ok_or_else(|| invalid("VmRSS", pid))
}

/// CPU time spent over one measured loop, in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuSpent {
    /// The servers' (every agent instance together).
    pub servers: u64,
    /// The database server's process tree, when there is one.
    pub database: Option<u64>,
    /// This process's (the load generator).
    pub driver: u64,
}

/// The CPU time the servers, a database server and this process (the load
/// generator) spend over one measured loop: read right before it starts and
/// right after it ends.
pub struct CpuMeter {
    servers: Vec<u32>,
    database: Option<u32>,
    start: CpuSpent,
}

impl CpuMeter {
    pub fn start(servers: &[u32], database: Option<u32>) -> io::Result<CpuMeter> {
        let start = Self::read(servers, database)?;
        Ok(CpuMeter {
            servers: servers.to_vec(),
            database,
            start,
        })
    }

    fn read(servers: &[u32], database: Option<u32>) -> io::Result<CpuSpent> {
        let mut total = 0;
        for pid in servers {
            total += cpu_micros(*pid)?;
        }
        Ok(CpuSpent {
            servers: total,
            database: database.map(tree_cpu_micros).transpose()?,
            driver: cpu_micros(std::process::id())?,
        })
    }

    /// What was spent since `start`.
    pub fn stop(&self) -> io::Result<CpuSpent> {
        let now = Self::read(&self.servers, self.database)?;
        Ok(CpuSpent {
            servers: now.servers.saturating_sub(self.start.servers),
            database: now
                .database
                .zip(self.start.database)
                .map(|(now, then)| now.saturating_sub(then)),
            driver: now.driver.saturating_sub(self.start.driver),
        })
    }
}

/// `sysconf(_SC_CLK_TCK)`: the unit of the stat file's CPU times (100 on
/// almost every Linux, but asked rather than assumed).
pub fn clock_ticks_per_second() -> u64 {
    // SAFETY: sysconf has no preconditions; it only reads a constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|&t| t > 0).unwrap_or(100)
}

/// Cores online on the machine (not only those this process may run on,
/// which after pinning is one).
pub fn online_cores() -> usize {
    // SAFETY: as above.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_are_counted_from_the_last_parenthesis() {
        // A `comm` with spaces and a `)` inside, then fields 3..: utime=1234, stime=56.
        let stat = "4242 (bad) name) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 56 0 0 20 0 9 0 100 \
                    123456 789 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";
        assert_eq!(parse_stat_cpu_ticks(stat), Some(1290));
        assert_eq!(parse_stat_cpu_ticks("4242 (short) S 1 2"), None);
        assert_eq!(parse_stat_cpu_ticks("no parenthesis"), None);
        // Field 4 is the parent, fields 16 and 17 the reaped children's times (0 0 here).
        assert_eq!(parse_stat_ppid(stat), Some(1));
        assert_eq!(parse_stat_reaped_children_ticks(stat), Some(0));
        let parent = "7 (postgres) S 1 7 7 0 -1 0 0 0 0 0 10 20 300 400 20 0 1 0 5 0 0";
        assert_eq!(parse_stat_reaped_children_ticks(parent), Some(700));
        assert_eq!(parse_stat_ppid("4242 (short) S"), None);
    }

    #[test]
    fn vm_rss_is_read_in_kib() {
        let status = "Name:\tcleveragents-ag\nVmPeak:\t  99999 kB\nVmRSS:\t   12345 kB\nThreads:\t3\n";
        assert_eq!(parse_vm_rss_bytes(status), Some(12345 * 1024));
        assert_eq!(parse_vm_rss_bytes("Name:\tzombie\n"), None);
        assert_eq!(parse_vm_rss_bytes("VmRSS:\t12 MB\n"), None);
    }

    #[test]
    fn this_process_can_be_read() {
        let pid = std::process::id();
        assert!(rss_bytes(pid).expect("own status") > 0);
        cpu_micros(pid).expect("own stat");
        let meter = CpuMeter::start(&[pid], None).expect("own stat");
        let spin = std::time::Instant::now();
        while spin.elapsed() < std::time::Duration::from_millis(30) {}
        let spent = meter.stop().expect("own stat");
        // Both read this process; a 30 ms spin shows up in at least one tick.
        assert!(spent.servers > 0 && spent.driver > 0, "{spent:?}");
        assert_eq!(spent.database, None);
        assert!(clock_ticks_per_second() > 0);
        assert!(online_cores() >= 1);
    }
}
