//! A command run to its end and measured: wall time and CPU time from wait4(2), and
//! peak resident memory from the child's VmHWM (/proc/PID/status). Not wait4's
//! `ru_maxrss`: Rust spawns with vfork semantics, so that figure starts at this bench's
//! own RSS (about 90 MiB with the load built) and hides anything smaller.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// What one run of a command cost, and what it printed.
pub struct Measured {
    pub wall: Duration,
    /// User plus system time.
    pub cpu: Duration,
    /// Peak resident set size (VmHWM, its last reading before the child exited), KiB.
    pub max_rss_kib: u64,
    /// Each rise of VmHWM: when it was read (since the start) and its value, KiB.
    pub rises: Vec<(Duration, u64)>,
    pub succeeded: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Measured {
    pub fn max_rss_mib(&self) -> f64 {
        self.max_rss_kib as f64 / 1024.0
    }

    /// The peak resident set size reached by `fraction` of the wall time, MiB: whether
    /// memory grows with the work done or levels off.
    pub fn max_rss_mib_by(&self, fraction: f64) -> f64 {
        let by = self.wall.mul_f64(fraction);
        let kib = self
            .rises
            .iter()
            .take_while(|(at, _)| *at <= by)
            .last()
            .map_or(0, |(_, kib)| *kib);
        kib as f64 / 1024.0
    }
}

/// Runs `command` with its output in `<dir>/<name>.out|.err` (files, not pipes: a pipe
/// nobody reads before the child ends could fill and stall it).
pub fn run_measured(mut command: Command, dir: &Path, name: &str) -> Measured {
    let out = dir.join(format!("{name}.out"));
    let err = dir.join(format!("{name}.err"));
    command
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"));
    let started = Instant::now();
    // Reaped by wait4 below, not by std (whose wait would not give the usage).
    let pid = command
        .spawn()
        .unwrap_or_else(|e| panic!("start {name}: {e}"))
        .id() as libc::pid_t;
    let high_water = watch_high_water(pid, started);
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 writes only to the two locals; `pid` is our own unreaped child
    // (std's Child, dropped above, neither waits nor kills).
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    assert_eq!(
        reaped,
        pid,
        "wait4 {name}: {}",
        std::io::Error::last_os_error()
    );
    let rises = high_water.join().unwrap_or_default();
    let max_rss_kib = rises.last().map_or(0, |(_, kib)| *kib);
    let seconds = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    Measured {
        wall,
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        max_rss_kib,
        rises,
        succeeded: libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
    }
}

/// Reads the VmHWM of `pid` every 2 ms until the process is gone (an exited child keeps
/// no memory map, so its last reading is its peak, short of the last 2 ms) and returns
/// each rise, with when it was read since `started`.
fn watch_high_water(
    pid: libc::pid_t,
    started: Instant,
) -> std::thread::JoinHandle<Vec<(Duration, u64)>> {
    let path = format!("/proc/{pid}/status");
    std::thread::spawn(move || {
        let mut rises: Vec<(Duration, u64)> = Vec::new();
        while let Ok(status) = std::fs::read_to_string(&path) {
            let Some(kib) = status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
            else {
                break; // a zombie: the memory map is gone
            };
            if rises.last().is_none_or(|(_, highest)| kib > *highest) {
                rises.push((started.elapsed(), kib));
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        rises
    })
}
