//! The four services as release processes, each with its settings file and log, and
//! stopped when dropped: a panicking run leaves none behind.

use crate::hub::Hub;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The hub's processes, in the order they start.
pub const SERVICES: [&str; 4] = [
    "as2-gateway",
    "outbox-relay",
    "transform-consumer",
    "archive-consumer",
];

/// Running services; SIGTERM, then SIGKILL after a grace period, when dropped.
pub struct Services {
    children: Vec<(&'static str, Child)>,
    files: Vec<PathBuf>,
}

impl Services {
    /// Starts every service against `hub`, logging to `<logs>/<service>.log`, and waits
    /// until each answers `/ready`.
    pub async fn start(hub: &Hub, logs: &Path, concurrency: usize) -> Services {
        std::fs::create_dir_all(logs).expect("log folder");
        let mut services = Services {
            children: Vec::new(),
            files: Vec::new(),
        };
        for service in SERVICES {
            let settings = hub.settings_file(service, concurrency);
            let child = spawn(service, &settings, hub, logs);
            services.files.push(settings);
            services.children.push((service, child));
        }
        let http = edihub_tests::http_client();
        for (service, address) in &hub.ops {
            services.wait_ready(&http, service, address, logs).await;
        }
        services
    }

    /// `(service, pid)` of each process.
    pub fn pids(&self) -> Vec<(&'static str, u32)> {
        self.children
            .iter()
            .map(|(name, child)| (*name, child.id()))
            .collect()
    }

    async fn wait_ready(
        &mut self,
        http: &reqwest::Client,
        service: &str,
        address: &str,
        logs: &Path,
    ) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let url = format!("http://{address}/ready");
        loop {
            let ready = http.get(&url).send().await;
            if ready.is_ok_and(|r| r.status().is_success()) {
                return;
            }
            let exited = self
                .children
                .iter_mut()
                .find(|(name, _)| *name == service)
                .and_then(|(_, child)| child.try_wait().ok().flatten());
            let log = logs.join(format!("{service}.log"));
            if let Some(status) = exited {
                panic!(
                    "{service} exited ({status}) during start-up; see {}",
                    log.display()
                );
            }
            if Instant::now() >= deadline {
                panic!(
                    "{service} not ready at {url} after 60 s; see {}",
                    log.display()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Services {
    fn drop(&mut self) {
        for (_, child) in &self.children {
            // SAFETY: kill(2) has no memory effects; the pid is our own unreaped child.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        for (name, child) in &mut self.children {
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            if matches!(child.try_wait(), Ok(None)) {
                eprintln!("whole_path: {name} did not stop within 10 s of SIGTERM; SIGKILL");
                let _ = child.kill();
            }
            let _ = child.wait();
        }
        for file in &self.files {
            let _ = std::fs::remove_file(file);
        }
    }
}

/// Starts `service` with `settings` as its only configuration.
/// The service's release binary, or the one in `EDIHUB_BENCH_BIN_DIR` (a copy of an
/// earlier build, for runs that interleave two versions).
fn binary(service: &str) -> PathBuf {
    match std::env::var_os("EDIHUB_BENCH_BIN_DIR") {
        Some(dir) => {
            let path = Path::new(&dir).join(service);
            assert!(path.exists(), "{} is missing", path.display());
            path
        }
        None => edihub_tests::service_binary(service),
    }
}

fn spawn(service: &str, settings: &Path, hub: &Hub, logs: &Path) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(logs.join(format!("{service}.log")))
        .expect("log file");
    let mut command = Command::new(binary(service));
    // The settings file must win over the stack's environment (DATABASE_URL, ...).
    for (variable, _) in edihub_config::ENV_OVERRIDES {
        command.env_remove(variable);
    }
    if service.ends_with("consumer") {
        // Also the consumer's name in the inbox; the file holds one [consumer] for both.
        command.env("EDIHUB_CONSUMER_GROUP", format!("{service}-{}", hub.suffix));
    }
    let log_filter = std::env::var("EDIHUB_BENCH_RUST_LOG").unwrap_or("info,sqlx=warn".into());
    command
        .env("EDIHUB_CONFIG", settings)
        .env("RUST_LOG", log_filter)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::from(log.try_clone().expect("log file")))
        .stderr(Stdio::from(log));
    // SAFETY: between fork and exec only prctl(2) runs, which is async-signal-safe.
    // Should this bench die without unwinding (SIGKILL, Ctrl-C), the kernel kills the
    // services too; the guard above covers every other exit.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    command
        .spawn()
        .unwrap_or_else(|e| panic!("start {service}: {e}"))
}
