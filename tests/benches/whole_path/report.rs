//! A phase's figures: throughput and latencies from the database's timestamps, CPU per
//! message per process, and the RSA reference they are set against.

use crate::load::Posted;
use crate::meter::Spent;
use sqlx::PgPool;
use std::collections::HashMap;
use std::process::Command;
use std::time::Duration;

/// When each message was archived and transformed, by AS2 Message-ID, as microseconds
/// since the Unix epoch: the `now()` the consumers' transactions stamped the rows with.
pub type Done = HashMap<String, (i64, i64)>;

/// Reads [`Done`] for every message of the database. Run after a phase's CPU reading,
/// so that this query is not counted in it.
pub async fn done(pool: &PgPool) -> Done {
    let rows: Vec<(String, i64, Option<i64>)> = sqlx::query_as(
        "SELECT m.as2_message_id,
                (extract(epoch FROM a.archived_at) * 1e6)::bigint,
                (SELECT (extract(epoch FROM min(c.created_at)) * 1e6)::bigint
                   FROM canonical_invoice c WHERE c.message_id = m.id)
           FROM edi_message m JOIN archive_record a ON a.message_id = m.id",
    )
    .fetch_all(pool)
    .await
    .expect("archived and transformed messages");
    rows.into_iter()
        .filter_map(|(id, archived, transformed)| Some((id, (archived, transformed?))))
        .collect()
}

/// One measured phase.
pub struct Phase {
    /// "closed loop", "open loop".
    pub name: &'static str,
    /// How it was loaded.
    pub detail: String,
    pub posted: Vec<Posted>,
    pub spent: Spent,
    pub done: Done,
    /// PostgreSQL's statements over the phase (empty without pg_stat_statements).
    pub statements: Vec<crate::statements::Statement>,
}

impl Phase {
    /// The messages the gateway accepted.
    pub fn accepted(&self) -> usize {
        self.posted.iter().filter(|p| p.failure.is_none()).count()
    }

    /// Prints throughput and latencies; returns the end-to-end rate (messages/s).
    pub fn print(&self) -> f64 {
        println!("{} ({}):", self.name, self.detail);
        let failed: Vec<&String> = self
            .posted
            .iter()
            .filter_map(|p| p.failure.as_ref())
            .collect();
        if let Some(first) = failed.first() {
            println!(
                "  NOT ACCEPTED          {} messages (first: {first})",
                failed.len()
            );
        }
        let mut mdn = Vec::new();
        let (mut archived, mut transformed) = (Vec::new(), Vec::new());
        let (mut first_sent, mut last_done) = (i64::MAX, i64::MIN);
        for posted in self.posted.iter().filter(|p| p.failure.is_none()) {
            mdn.push(posted.mdn_latency);
            first_sent = first_sent.min(posted.sent_at_us);
            if let Some(&(a, t)) = self.done.get(&posted.id) {
                archived.push(micros(a - posted.sent_at_us));
                transformed.push(micros(t - posted.sent_at_us));
                last_done = last_done.max(a).max(t);
            }
        }
        let span = micros(last_done.saturating_sub(first_sent)).as_secs_f64();
        let rate = archived.len() as f64 / span.max(f64::EPSILON);
        println!(
            "  end to end            {rate:>9.1} messages/s ({} archived and transformed, first POST to the last of them: {span:.2} s)",
            archived.len()
        );
        print_latency("POST -> MDN", &mut mdn);
        print_latency("POST -> archived", &mut archived);
        print_latency("POST -> transformed", &mut transformed);
        rate
    }
}

fn micros(us: i64) -> Duration {
    Duration::from_micros(us.max(0) as u64)
}

fn print_latency(name: &str, values: &mut [Duration]) {
    if values.is_empty() {
        println!("  {name:<21} (none)");
        return;
    }
    values.sort();
    let at = |p: f64| {
        let index = ((values.len() as f64 - 1.0) * p).round() as usize;
        values[index.min(values.len() - 1)].as_secs_f64() * 1e3
    };
    println!(
        "  {name:<21} p50 {:>7.1} ms   p99 {:>7.1} ms   max {:>7.1} ms",
        at(0.50),
        at(0.99),
        at(1.0)
    );
}

/// CPU per message of each process, one column per phase.
pub fn print_cpu(phases: &[Phase]) {
    let Some(first) = phases.first() else {
        return;
    };
    print!("CPU per message (ms)                ");
    for phase in phases {
        print!(" {:>12}", phase.name);
    }
    println!();
    for (label, _) in &first.spent.rows {
        print!("  {label:<34}");
        for phase in phases {
            let messages = phase.accepted().max(1) as f64;
            // By label: the backends' rows are those the phase saw.
            let spent = phase.spent.rows.iter().find(|(l, _)| l == label);
            match spent.and_then(|(_, t)| *t) {
                Some(t) => print!(" {:>12.2}", t.as_secs_f64() * 1e3 / messages),
                None => print!(" {:>12}", "n/a"),
            }
        }
        println!();
    }
    print!("  {:<34}", "machine busy share");
    for phase in phases {
        print!(
            " {:>10.0} %",
            phase.spent.usage.machine_busy_share() * 100.0
        );
    }
    println!();
}

/// `openssl speed rsa2048`'s (sign/s, verify/s) on one core, measured now.
fn openssl_rsa2048() -> Option<(f64, f64)> {
    let output = Command::new("openssl")
        .args(["speed", "-seconds", "3", "rsa2048"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    // "rsa 2048 bits 0.000283s 0.000018s   3536.5  55133.3": sign/s, verify/s at the end.
    let line = text
        .lines()
        .find(|line| line.starts_with("rsa") && line.contains("2048 bits"))?;
    let numbers: Vec<&str> = line.split_whitespace().collect();
    Some((numbers.get(5)?.parse().ok()?, numbers.get(6)?.parse().ok()?))
}

/// The RSA cost of one message at this machine's `openssl speed` rate, next to the
/// gateway's measured CPU per message in each phase.
pub fn print_rsa_reference(phases: &[Phase]) {
    let Some((sign, verify)) = openssl_rsa2048() else {
        println!("RSA reference: openssl speed rsa2048 not available on this machine");
        return;
    };
    // The gateway's share: decrypt the content key and sign the MDN (two private-key
    // operations), verify the partner's signature (one public-key operation).
    let rsa_ms = 2e3 / sign + 1e3 / verify;
    println!(
        "RSA reference (openssl speed rsa2048, this run): {sign:.0} sign/s, {verify:.0} verify/s per core -> {rsa_ms:.2} ms per message (2 private-key ops + 1 verification)"
    );
    for phase in phases {
        let gateway = phase
            .spent
            .rows
            .iter()
            .find(|(label, _)| label == "as2-gateway")
            .and_then(|(_, t)| *t);
        if let Some(gateway) = gateway {
            let per_message = gateway.as_secs_f64() * 1e3 / phase.accepted().max(1) as f64;
            println!(
                "  {:<21} gateway {per_message:.2} ms per message = {:.1} x the RSA work",
                phase.name,
                per_message / rsa_ms
            );
        }
    }
}
