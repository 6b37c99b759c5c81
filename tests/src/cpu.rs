//! Where the cores went during a benchmark: CPU time of this process, of the PostgreSQL
//! server and of the machine as a whole, read from Linux's `/proc`.
//!
//! A throughput figure alone cannot say whether the machine was saturated, or how much of
//! each message's cost is the database's. Two [`CpuSample`]s around a timed run can.

use sqlx::PgPool;
use std::path::Path;
use std::time::Duration;

/// CPU time counters at one moment.
#[derive(Debug, Clone, Copy)]
pub struct CpuSample {
    process: Duration,
    /// `None` when the server's processes cannot be seen (another machine or container).
    postgres: Option<Duration>,
    machine_busy: Duration,
    machine_total: Duration,
}

/// CPU time spent between two [`CpuSample`]s.
#[derive(Debug, Clone, Copy)]
pub struct CpuUsage {
    /// This process: for the benches, the gateway and the load generator together.
    pub process: Duration,
    /// The PostgreSQL server: its postmaster, background processes and backends, including
    /// backends that exited meanwhile.
    pub postgres: Option<Duration>,
    /// Non-idle time of all CPUs (everything that ran, ours or not).
    pub machine_busy: Duration,
    /// All CPU time that passed (cores x wall time): busy, idle, I/O wait and the time
    /// the hypervisor gave to other guests (steal).
    pub machine_total: Duration,
}

impl CpuUsage {
    /// The share of the machine's CPU time that was busy, 0 to 1.
    pub fn machine_busy_share(&self) -> f64 {
        self.machine_busy.as_secs_f64() / self.machine_total.as_secs_f64().max(f64::EPSILON)
    }
}

impl CpuSample {
    /// Reads the counters now. `pool` is any connection pool to the server the
    /// benchmark uses: its backend's parent is the postmaster.
    pub async fn take(pool: &PgPool) -> CpuSample {
        let backend: Option<i32> = sqlx::query_scalar("SELECT pg_backend_pid()")
            .fetch_one(pool)
            .await
            .ok();
        let (machine_busy, machine_total) = machine_times().unwrap_or_default();
        CpuSample {
            process: read_stat(Path::new("/proc/self/stat"))
                .map(|s| s.own())
                .unwrap_or_default(),
            postgres: backend.and_then(|pid| postgres_time(pid as u32)),
            machine_busy,
            machine_total,
        }
    }

    pub fn since(&self, earlier: &CpuSample) -> CpuUsage {
        CpuUsage {
            process: self.process.saturating_sub(earlier.process),
            postgres: self
                .postgres
                .zip(earlier.postgres)
                .map(|(now, then)| now.saturating_sub(then)),
            machine_busy: self.machine_busy.saturating_sub(earlier.machine_busy),
            machine_total: self.machine_total.saturating_sub(earlier.machine_total),
        }
    }
}

/// The CPU time of the calling thread so far (`CLOCK_THREAD_CPUTIME_ID`): around a
/// synchronous call, exactly what that call cost.
pub fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec for the duration of the call.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// The CPU time (user and system, all threads) process `pid` has used so far, with that
/// of its children that exited and were reaped. `None` when it cannot be read: the
/// process is gone, or lives on another machine or in another container.
pub fn process_time(pid: u32) -> Option<Duration> {
    read_stat(Path::new(&format!("/proc/{pid}/stat"))).map(|s| s.with_reaped_children())
}

/// The PostgreSQL server's CPU time so far: its postmaster, background processes and
/// every backend, including backends that exited. `pool` is any pool to that server.
/// `None` when the server's processes cannot be seen from here.
pub async fn postgres_server_time(pool: &PgPool) -> Option<Duration> {
    let backend: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(pool)
        .await
        .ok()?;
    postgres_time(backend as u32)
}

/// The processes of this machine whose command name (`/proc/<pid>/comm`: the executable's
/// or script's file name, at most 15 bytes) is `name` and whose command line contains
/// `needle` (an empty one matches every command line), in ascending pid order: e.g. the
/// broker listening on one address among several brokers.
pub fn processes_named(name: &str, needle: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let read = |file: &str| std::fs::read(format!("/proc/{pid}/{file}")).ok();
            let comm = read("comm").map(|c| String::from_utf8_lossy(&c).trim_end().to_owned());
            comm.as_deref() == Some(name)
                && read("cmdline").is_some_and(|c| command_line(&c).contains(needle))
        })
        .collect();
    pids.sort_unstable();
    pids
}

/// `/proc/<pid>/cmdline` (arguments separated and ended by NUL) as one line.
fn command_line(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    text.trim_end_matches('\0').replace('\0', " ")
}

/// The fields of `/proc/<pid>/stat` used here, in clock ticks.
struct ProcStat {
    ppid: u32,
    utime: u64,
    stime: u64,
    /// Of children that exited and were waited for.
    cutime: u64,
    cstime: u64,
}

impl ProcStat {
    fn own(&self) -> Duration {
        ticks(self.utime + self.stime)
    }
    fn with_reaped_children(&self) -> Duration {
        ticks(self.utime + self.stime + self.cutime + self.cstime)
    }
}

fn read_stat(path: &Path) -> Option<ProcStat> {
    parse_stat(&std::fs::read_to_string(path).ok()?)
}

fn parse_stat(text: &str) -> Option<ProcStat> {
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so the fields
    // are counted from the last ')'. After it: state is field 3, ppid 4, utime 14.
    let fields: Vec<&str> = text
        .get(text.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    Some(ProcStat {
        ppid: field(4)? as u32,
        utime: field(14)?,
        stime: field(15)?,
        cutime: field(16)?,
        cstime: field(17)?,
    })
}

/// The server's CPU time: the postmaster (with the children it reaped) and every live
/// child. `None` when `backend` is not a process of this machine.
fn postgres_time(backend: u32) -> Option<Duration> {
    let postmaster = read_stat(Path::new(&format!("/proc/{backend}/stat")))?.ppid;
    let mut total =
        read_stat(Path::new(&format!("/proc/{postmaster}/stat")))?.with_reaped_children();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let is_pid = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        if !is_pid {
            continue;
        }
        if let Some(stat) = read_stat(&entry.path().join("stat"))
            && stat.ppid == postmaster
        {
            total += stat.own();
        }
    }
    Some(total)
}

/// (busy, total) over all CPUs, from the first line of `/proc/stat`.
fn machine_times() -> Option<(Duration, Duration)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().next()?.strip_prefix("cpu ")?;
    let values: Vec<u64> = line
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    let at = |i: usize| values.get(i).copied().unwrap_or(0);
    let busy = at(0) + at(1) + at(2) + at(5) + at(6);
    let total = busy + at(3) + at(4) + at(7);
    Some((ticks(busy), ticks(total)))
}

fn ticks(count: u64) -> Duration {
    // SAFETY: sysconf has no memory effects.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let per_second = if per_second > 0 {
        per_second as u64
    } else {
        100
    };
    Duration::from_nanos(count.saturating_mul(1_000_000_000) / per_second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        // A command name may hold spaces and parentheses (PostgreSQL's never do, a
        // thread's may).
        let line =
            "4242 (a) b (c) S 17 4242 4242 0 -1 4194560 90 0 0 0 1234 567 89 10 20 0 1 0 100 0 0";
        let stat = parse_stat(line).expect("parsed");
        assert_eq!(stat.ppid, 17);
        assert_eq!((stat.utime, stat.stime), (1234, 567));
        assert_eq!((stat.cutime, stat.cstime), (89, 10));
    }

    #[test]
    fn a_truncated_line_is_not_misread() {
        assert!(parse_stat("4242 (x) S 17 4242").is_none());
        assert!(parse_stat("no parenthesis at all").is_none());
    }

    #[test]
    fn a_command_line_reads_as_its_arguments_separated_by_spaces() {
        assert_eq!(
            command_line(b"/bin/tansu\0broker\0--listener-url\0tcp://127.0.0.1:9092\0"),
            "/bin/tansu broker --listener-url tcp://127.0.0.1:9092"
        );
        assert_eq!(command_line(b""), "");
    }

    #[test]
    fn this_process_is_found_by_its_name_and_its_time_read() {
        let own = std::process::id();
        let comm = std::fs::read_to_string("/proc/self/comm").expect("/proc/self/comm");
        let found = processes_named(comm.trim_end(), "");
        assert!(found.contains(&own), "{own} not in {found:?}");
        let needle = "no command line holds this: 6b1f0e";
        assert!(!processes_named(comm.trim_end(), needle).contains(&own));
        assert!(process_time(own).is_some());
        assert!(process_time(u32::MAX).is_none(), "no such pid");
    }

    #[test]
    fn this_process_and_the_machine_are_readable() {
        let own = read_stat(Path::new("/proc/self/stat")).expect("/proc/self/stat");
        assert!(own.ppid > 0);
        let (busy, total) = machine_times().expect("/proc/stat");
        assert!(total >= busy && total > Duration::ZERO);
    }
}
