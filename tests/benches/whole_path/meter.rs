//! Where the cores went during a phase: each service, PostgreSQL, the stand-ins, this
//! process and the rest of the (shared) machine.

use edihub_tests::cpu::{CpuSample, CpuUsage, process_time, processes_named};
use sqlx::PgPool;
use std::collections::HashMap;
use std::time::Duration;

/// A process group whose CPU time is read, by the label it is printed with.
struct Watched {
    label: String,
    pids: Vec<u32>,
}

/// The processes watched: the services, and the stack's broker and S3 server.
pub struct Meter {
    watched: Vec<Watched>,
}

/// Counters at one moment: per watched group, per backend of the bench's database,
/// and the PostgreSQL/machine sample.
pub struct Reading {
    groups: Vec<Option<Duration>>,
    backends: HashMap<u32, Backend>,
    sample: CpuSample,
}

/// The CPU time of one phase.
pub struct Spent {
    /// `(label, time)` per process group; `None`: not visible from here.
    pub rows: Vec<(String, Option<Duration>)>,
    pub usage: CpuUsage,
}

impl Meter {
    /// `services` as `(name, pid)`; the stand-ins are found by name: tansu by the
    /// broker address it listens on (other tests run brokers of their own), moto as
    /// every `moto_server` of the machine (there is one per stack).
    pub fn new(services: &[(&str, u32)], brokers: &str) -> Meter {
        let mut watched: Vec<Watched> = services
            .iter()
            .map(|(name, pid)| Watched {
                label: (*name).to_owned(),
                pids: vec![*pid],
            })
            .collect();
        let broker_address = brokers.split(',').next().unwrap_or(brokers);
        for (label, name, needle) in [
            ("tansu (broker stand-in)", "tansu", broker_address),
            ("moto (S3 stand-in)", "moto_server", ""),
        ] {
            let pids = processes_named(name, needle);
            let label = match pids.len() {
                1 => label.to_owned(),
                n => format!("{label} x{n}"),
            };
            watched.push(Watched { label, pids });
        }
        Meter { watched }
    }

    pub async fn read(&self, pool: &PgPool) -> Reading {
        let groups = self
            .watched
            .iter()
            .map(|w| {
                if w.pids.is_empty() {
                    return None;
                }
                w.pids.iter().map(|&pid| process_time(pid)).sum()
            })
            .collect();
        Reading {
            groups,
            backends: database_backends(pool).await,
            sample: CpuSample::take(pool).await,
        }
    }
}

/// A backend of the bench's database: whose it is (its `application_name`, the
/// program's name) and its CPU time so far.
struct Backend {
    application: String,
    time: Duration,
}

/// Each backend connected to `pool`'s database. Other tests share the server; these
/// are the hub's own (and this bench's two connections).
async fn database_backends(pool: &PgPool) -> HashMap<u32, Backend> {
    let rows: Vec<(i32, String)> = sqlx::query_as(
        "SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database()",
    )
    .fetch_all(pool)
    .await
    .unwrap_or_default();
    rows.into_iter()
        .filter_map(|(pid, application)| {
            let time = process_time(pid as u32)?;
            Some((pid as u32, Backend { application, time }))
        })
        .collect()
}

impl Reading {
    /// What was spent since `earlier`, with the rows in the meter's order, then
    /// PostgreSQL, this process, and what the rest of the machine used.
    pub fn since(&self, earlier: &Reading, meter: &Meter) -> Spent {
        let usage = self.sample.since(&earlier.sample);
        let mut rows: Vec<(String, Option<Duration>)> = meter
            .watched
            .iter()
            .zip(self.groups.iter().zip(&earlier.groups))
            .map(|(w, (now, then))| {
                let spent = now.zip(*then).map(|(n, t)| n.saturating_sub(t));
                (w.label.clone(), spent)
            })
            .collect();
        // PostgreSQL after the services: the figure to drive down, apart from the
        // stand-ins, which production replaces.
        let at = meter.watched.len().saturating_sub(2);
        rows.insert(at, ("PostgreSQL, whole server".into(), usage.postgres));
        rows.push(("load generator (this bench)".into(), Some(usage.process)));
        let accounted: Duration = rows.iter().filter_map(|(_, t)| *t).sum();
        rows.push((
            "other processes".into(),
            Some(usage.machine_busy.saturating_sub(accounted)),
        ));
        // Part of the server's figure, so not added above. A backend that exited during
        // the phase is missing from it (the services' pools keep theirs).
        let by_program = self.backends_since(earlier);
        let ours = by_program.iter().map(|(_, t)| *t).sum();
        rows.insert(
            at + 1,
            ("  of it, this database's backends".into(), Some(ours)),
        );
        for (offset, (program, spent)) in by_program.into_iter().enumerate() {
            rows.insert(at + 2 + offset, (format!("    {program}"), Some(spent)));
        }
        Spent { rows, usage }
    }

    /// The backends' CPU since `earlier`, summed per program, in name order (the
    /// services' names, then the bench's own connections).
    fn backends_since(&self, earlier: &Reading) -> Vec<(String, Duration)> {
        let mut by_program: Vec<(String, Duration)> = Vec::new();
        for (pid, now) in &self.backends {
            let before = earlier.backends.get(pid).map_or(Duration::ZERO, |b| b.time);
            let spent = now.time.saturating_sub(before);
            let program = if now.application.is_empty() {
                "(unnamed)"
            } else {
                now.application.as_str()
            };
            match by_program.iter_mut().find(|(name, _)| name == program) {
                Some((_, total)) => *total += spent,
                None => by_program.push((program.to_owned(), spent)),
            }
        }
        by_program.sort();
        by_program
    }
}
