//! What the driver reads about a server process from `/proc`: its CPU time
//! (user + system, all threads) and its resident set size.
//!
//! The parsers take the file's text so they can be tested on fixed inputs; the
//! readers around them do the I/O.

use std::io;

/// `utime + stime` (fields 14 and 15 of `/proc/<pid>/stat`), in clock ticks.
///
/// The second field (`comm`) is the executable name in parentheses and may
/// itself contain spaces and parentheses, so fields are counted from the last
/// `)`: the field after it is field 3.
pub fn parse_stat_cpu_ticks(stat: &str) -> Option<u64> {
    let after_comm = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_comm.split_ascii_whitespace();
    // Field 3 is the first after `comm`, so field 14 is the 12th: skip 11.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
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

/// Resident set size of the process `pid`, in bytes.
pub fn rss_bytes(pid: u32) -> io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    parse_vm_rss_bytes(&status).ok_or_else(|| invalid("VmRSS", pid))
}

/// The CPU time a server and this process (the load generator) spend over
/// one measured loop: read right before it starts and right after it ends.
pub struct CpuMeter {
    server: u32,
    server_start: u64,
    own_start: u64,
}

impl CpuMeter {
    pub fn start(server: u32) -> io::Result<CpuMeter> {
        Ok(CpuMeter {
            server,
            server_start: cpu_micros(server)?,
            own_start: cpu_micros(std::process::id())?,
        })
    }

    /// Microseconds of CPU since `start`: (the server's, this process's).
    pub fn stop(&self) -> io::Result<(u64, u64)> {
        let server = cpu_micros(self.server)?.saturating_sub(self.server_start);
        let own = cpu_micros(std::process::id())?.saturating_sub(self.own_start);
        Ok((server, own))
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
        let meter = CpuMeter::start(pid).expect("own stat");
        let spin = std::time::Instant::now();
        while spin.elapsed() < std::time::Duration::from_millis(30) {}
        let (server, own) = meter.stop().expect("own stat");
        // Both read this process; a 30 ms spin shows up in at least one tick.
        assert!(server > 0 && own > 0, "{server} {own}");
        assert!(clock_ticks_per_second() > 0);
        assert!(online_cores() >= 1);
    }
}
