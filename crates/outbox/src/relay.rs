//! The relay: claim a batch of due PENDING rows, publish them, mark the outcome — one
//! transaction per step. [`Relay::step`] is what tests call; [`Relay::drain`] steps two
//! batches at a time until a claim finds nothing, and [`Relay::run`] loops the drain.
//! A step costs two round trips to the database: the claim, then the marks with the
//! commit (see [`session`]).
//!
//! Claimed rows stay locked (`FOR UPDATE SKIP LOCKED`) until the step's transaction
//! ends, so a second relay skips them, and a relay that dies mid-step releases them by
//! rollback: they are published again later (at-least-once; consumers dedupe).
//! Order per aggregate across any number of relays: see [`CLAIM`].

mod announcements;
mod linger;
mod session;

use crate::{OutboxRecord, Publisher};
use announcements::Announcements;
use edihub_config::RelaySettings;
use rand::Rng;
use session::{Session, Sessions};
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgPool};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Claims due PENDING rows that are the *head* of their aggregate: no earlier PENDING
/// row of the same aggregate exists (claimed by another relay, waiting for a retry, or
/// not yet due). Hence at most one event per aggregate is in flight across all relays,
/// and an event is never published before an earlier event of its aggregate that is
/// still pending. A row that commits late is simply pending when it becomes visible —
/// there is no high-water mark to skip it. A FAILED (dead-lettered) row no longer blocks
/// its aggregate; replaying it is an operator's decision.
///
/// `has_follower` says whether another PENDING row of the aggregate waits behind the
/// claimed one: it becomes a head only once this batch commits, so whoever holds the
/// batch must claim again then (no NOTIFY will come for it). It is asked by equality
/// only (`id <>`, not `seq >`, and on any channel): given a range on `seq`, a planner
/// without statistics chose to walk the whole pending index once per claimed row, and
/// a backlog of 90,000 rows took 62 s per claim (ADR 0002). A follower on another
/// channel costs one extra, empty claim.
pub const CLAIM: &str = "
    WITH claimed AS (
        SELECT o.id, o.seq, o.aggregate_type, o.aggregate_id, o.event_type, o.topic,
               o.payload, o.headers, o.created_at, o.attempts
        FROM outbox o
        WHERE o.status = 'PENDING' AND o.next_attempt_at <= now() AND o.channel = $2
          AND NOT EXISTS (
              SELECT 1 FROM outbox earlier
              WHERE earlier.aggregate_id = o.aggregate_id
                AND earlier.status = 'PENDING'
                AND earlier.seq < o.seq)
        ORDER BY o.seq
        LIMIT $1
        FOR UPDATE SKIP LOCKED)
    SELECT c.*, EXISTS (
               SELECT 1 FROM outbox later
               WHERE later.aggregate_id = c.aggregate_id
                 AND later.status = 'PENDING'
                 AND later.id <> c.id) AS has_follower
    FROM claimed c
    ORDER BY c.seq";

/// The NOTIFY channel the `outbox_notify` trigger signals when rows of the outbox
/// channel `channel` commit; the payload is how many.
pub fn notify_channel(channel: &str) -> String {
    format!("outbox_pending:{channel}")
}

/// What one step did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StepReport {
    pub claimed: usize,
    pub sent: usize,
    pub retried: usize,
    pub failed: usize,
}

pub struct Relay<P> {
    pool: PgPool,
    sessions: Sessions,
    publisher: P,
    settings: RelaySettings,
    channel: &'static str,
    /// [`CLAIM`] for this relay's batch size and channel, in its own transaction.
    claim_statements: String,
}

impl<P: Publisher> Relay<P> {
    /// The Kafka relay.
    pub fn new(pool: PgPool, publisher: P, settings: RelaySettings) -> Self {
        Self::for_channel(pool, publisher, settings, crate::channels::KAFKA)
    }

    /// A relay for the rows of another channel (see [`crate::channels`]).
    pub fn for_channel(
        pool: PgPool,
        publisher: P,
        settings: RelaySettings,
        channel: &'static str,
    ) -> Self {
        Self {
            sessions: Sessions::new(pool.clone()),
            pool,
            publisher,
            claim_statements: claim_statements(settings.batch_size, channel),
            settings,
            channel,
        }
    }

    /// Claims up to `batch_size` due rows, publishes them and records each outcome.
    pub async fn step(&self) -> Result<StepReport, sqlx::Error> {
        let claimed = self.claim().await?;
        let (report, _) = self.finish(claimed, false).await?;
        Ok(report)
    }

    /// Steps until nothing due is left that this relay must claim, and returns the sum
    /// of the steps. A full batch is followed at once, and batch N+1 is claimed while
    /// batch N is published and marked, on a second connection. A short batch took every
    /// claimable row there was: the drain then claims again only for the rows waiting
    /// behind it (`has_follower`, see [`CLAIM`]), which no NOTIFY will announce; rows
    /// committed after its claim announce themselves.
    ///
    /// Claiming N+1 during N is exactly two relays stepping at once (ADR 0002): batch
    /// N's rows stay locked and PENDING until its transaction commits, so the claim of
    /// N+1 skips them (`SKIP LOCKED`) and also every later row of their aggregates (not
    /// heads). N+1 therefore holds only aggregates whose earlier events are already
    /// SENT, which is what makes it safe to publish it once N is done.
    pub async fn drain(&self) -> Result<StepReport, sqlx::Error> {
        let drained = self.drain_until(&CancellationToken::new(), false).await?;
        Ok(drained.report)
    }

    /// [`Relay::drain`], except that with `defer_followers`, the few rows waiting behind
    /// a short batch ([`linger::defer_followers`]) are left for the next linger to
    /// gather with the rows committed meanwhile: the drain returns how many.
    async fn drain_until(
        &self,
        shutdown: &CancellationToken,
        defer_followers: bool,
    ) -> Result<Drained, sqlx::Error> {
        let mut total = StepReport::default();
        let mut current = self.claim().await?;
        // Whether a batch committed after `current` was claimed and had rows waiting
        // behind it: `current`'s claim could not see them as heads.
        let mut followers_unclaimed = false;
        loop {
            let followers = current.followers;
            let full = current.records.len() as i64 >= self.settings.batch_size;
            if shutdown.is_cancelled() {
                // Finish what is claimed, claim nothing more.
                total.add(self.finish(current, false).await?.0);
                return Ok(Drained::all(total));
            }
            if full {
                let (finished, following) = tokio::join!(self.finish(current, false), self.claim());
                // An error in either closes its own session, which rolls its transaction
                // back: those rows are claimed again later.
                total.add(finished?.0);
                current = following?;
                followers_unclaimed = followers > 0;
                continue;
            }
            // Rows behind a batch that overlapped this claim are of unknown number: they
            // are claimed at once, as are followers when there is no linger to wait for.
            let deferred = if defer_followers
                && !followers_unclaimed
                && linger::defer_followers(followers, &self.settings)
            {
                followers
            } else {
                0
            };
            // A short batch took every claimable row there was: claim again only for the
            // rows that wait behind it or behind the batch before, in the commit's message.
            let claim_next = deferred == 0 && (followers > 0 || followers_unclaimed);
            let (report, next) = self.finish(current, claim_next).await?;
            total.add(report);
            followers_unclaimed = false;
            match next {
                Some(next) => current = next,
                None => {
                    return Ok(Drained {
                        report: total,
                        deferred,
                    });
                }
            }
        }
    }

    /// Opens a transaction and claims a batch in it (one round trip); the rows stay
    /// locked until the batch is finished.
    /// A kept connection found lost (the server restarted, say) is replaced and the
    /// claim made again: nothing had been claimed on it.
    async fn claim(&self) -> Result<Claimed, sqlx::Error> {
        let mut session = self.sessions.take().await?;
        let rows = match session.run(self.claim_statements.clone(), true).await {
            Err(error) if session.kept && is_connection_lost(&error) => {
                tracing::info!(%error, "a kept database connection was lost; claiming on a new one");
                drop(session);
                session = self.sessions.fresh().await?;
                session.run(self.claim_statements.clone(), true).await?
            }
            result => result?,
        };
        Claimed::from_rows(session, &rows)
    }

    /// Publishes a claimed batch, records each outcome and commits. With `claim_next`,
    /// the next batch is claimed in the commit's round trip and returned.
    async fn finish(
        &self,
        claimed: Claimed,
        claim_next: bool,
    ) -> Result<(StepReport, Option<Claimed>), sqlx::Error> {
        let Claimed {
            mut session,
            records,
            ..
        } = claimed;
        let mut report = StepReport {
            claimed: records.len(),
            ..StepReport::default()
        };
        let started = Instant::now();
        let mut sent: Vec<i64> = Vec::with_capacity(records.len());
        if !records.is_empty() {
            edihub_metrics::OUTBOX_BATCH_SIZE.observe(records.len() as f64);
            let publish_timer = edihub_metrics::OUTBOX_PUBLISH_SECONDS.start_timer();
            let outcomes = self.publisher.publish(&records).await;
            publish_timer.observe_duration();
            for (record, outcome) in records.iter().zip(outcomes) {
                match outcome {
                    Ok(()) => sent.push(record.seq),
                    Err(error) => {
                        let dead = self.mark_failed(&mut session, record, &error).await?;
                        if dead {
                            report.failed += 1;
                        } else {
                            report.retried += 1;
                        }
                    }
                }
            }
        }
        let published_after = started.elapsed();
        // A row is SENT only now that the broker acknowledged it.
        let mut statements = mark_sent_and_commit(&sent);
        if claim_next {
            statements.push_str("; ");
            statements.push_str(&self.claim_statements);
        }
        let rows = session.run(statements, claim_next).await?;
        report.sent = sent.len();
        if !records.is_empty() {
            tracing::trace!(
                rows = records.len(), publish = ?published_after, total = ?started.elapsed(),
                "batch finished"
            );
            count_outcomes(&report);
        }
        let next = match claim_next {
            true => Some(Claimed::from_rows(session, &rows)?),
            false => {
                self.sessions.keep(session);
                None
            }
        };
        Ok((report, next))
    }

    /// Schedules a retry of a row the publisher refused, or dead-letters it; returns
    /// whether it is dead.
    async fn mark_failed(
        &self,
        session: &mut Session,
        record: &OutboxRecord,
        error: &crate::PublishError,
    ) -> Result<bool, sqlx::Error> {
        let attempts = record.attempts + 1;
        let dead = error.is_permanent() || attempts >= self.settings.max_attempts;
        let delay = error
            .retry_delay()
            .unwrap_or_else(|| backoff(&self.settings, attempts));
        tracing::warn!(
            outbox_id = %record.id, aggregate_id = %record.aggregate_id,
            attempts, dead, error = %error, "publish failed"
        );
        sqlx::query(
            "UPDATE outbox SET attempts = $2, last_error = $3,
                    status = CASE WHEN $4 THEN 'FAILED' ELSE 'PENDING' END,
                    next_attempt_at = now() + make_interval(secs => $5)
             WHERE id = $1",
        )
        .bind(record.id)
        .bind(attempts)
        .bind(error.to_string())
        .bind(dead)
        .bind(delay.as_secs_f64())
        .execute(session.conn())
        .await?;
        Ok(dead)
    }

    /// Drains ([`Relay::drain`]) until `shutdown`: after each drain, waits for a
    /// NOTIFY or the polling interval, whichever comes first. After a NOTIFY it lingers
    /// ([`linger`]) so that a steady low rate is published in batches rather than one
    /// row at a time, each at a batch's full cost. A drain that left a few followers
    /// behind its last batch lingers at once, for them and whatever commits meanwhile,
    /// rather than publish them in a small batch of their own. The batch in flight is
    /// finished before returning.
    pub async fn run(&self, shutdown: CancellationToken) -> Result<(), sqlx::Error> {
        let mut announcements =
            Announcements::connect(&self.pool, notify_channel(self.channel)).await?;
        let poll = Duration::from_millis(self.settings.poll_interval_ms);
        while !shutdown.is_cancelled() {
            let deferred = match self.drain_until(&shutdown, true).await {
                Ok(drained) => {
                    if drained.report.claimed > 0 {
                        tracing::debug!(report = ?drained.report, drained.deferred, "relay drain");
                    }
                    drained.deferred
                }
                Err(error) => {
                    tracing::error!(%error, "relay step failed");
                    0
                }
            };
            // Deferred followers linger as if a NOTIFY had announced them: no NOTIFY will.
            let rows = match deferred {
                0 => tokio::select! {
                    _ = shutdown.cancelled() => break,
                    rows = announcements.next() => rows,
                    _ = tokio::time::sleep(poll) => continue,
                },
                deferred => deferred,
            };
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = self.linger(&mut announcements, rows) => {}
            }
        }
        // Whoever closes the pool next would otherwise wait for the kept connections.
        self.sessions.release();
        tracing::info!("relay stopped");
        Ok(())
    }
}

/// The statements that open a step's transaction and claim its batch.
///
/// The step's outcome marks promise nothing to anyone: if a database crash loses a
/// committed-but-unflushed SENT, the row is simply published again, as after a relay
/// crash (at-least-once). So the commit need not wait for the WAL flush. Sent in the
/// simple protocol, the claim is planned for the rows there are at each run, never from
/// a cached generic plan: one cached while the outbox was empty scans it once per row
/// (ADR 0002). The batch size is a number and the channel one of [`crate::channels`]:
/// written in, they cannot change the statement.
fn claim_statements(batch_size: i64, channel: &str) -> String {
    let channel = format!("'{}'", channel.replace('\'', "''"));
    let claim = CLAIM
        .replace("$1", &batch_size.to_string())
        .replace("$2", &channel);
    format!("BEGIN; SET LOCAL synchronous_commit = off; {claim}")
}

/// Marks the published rows SENT and commits. By `seq`: its index is in insertion
/// order, so a batch touches few of its pages.
fn mark_sent_and_commit(sent: &[i64]) -> String {
    if sent.is_empty() {
        return "COMMIT".to_owned();
    }
    let seqs: Vec<String> = sent.iter().map(i64::to_string).collect();
    format!(
        "UPDATE outbox SET status = 'SENT', sent_at = now(), attempts = attempts + 1,
                last_error = NULL
         WHERE seq = ANY('{{{}}}'::bigint[]); COMMIT",
        seqs.join(",")
    )
}

/// Whether `error` says the connection is gone rather than that a statement failed:
/// an I/O error, or the server's "terminating connection" (class 57P) and
/// "connection exception" (class 08) codes.
fn is_connection_lost(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_) => true,
        sqlx::Error::Database(error) => error
            .code()
            .is_some_and(|code| code.starts_with("57P") || code.starts_with("08")),
        _ => false,
    }
}

fn count_outcomes(report: &StepReport) {
    let published = &edihub_metrics::OUTBOX_PUBLISHED;
    for (outcome, count) in [
        ("sent", report.sent),
        ("retried", report.retried),
        ("failed", report.failed),
    ] {
        published.with_label_values(&[outcome]).inc_by(count as u64);
    }
}

/// A claimed batch: its rows stay locked by the session's transaction until the batch
/// is finished.
struct Claimed {
    session: Session,
    records: Vec<OutboxRecord>,
    /// How many of its rows have a later PENDING row of their aggregate waiting behind
    /// them: at least that many rows become heads when the batch commits.
    followers: u64,
}

impl Claimed {
    fn from_rows(session: Session, rows: &[PgRow]) -> Result<Self, sqlx::Error> {
        let mut records = Vec::with_capacity(rows.len());
        let mut followers = 0;
        for row in rows {
            let row = ClaimedRow::from_row(row)?;
            followers += u64::from(row.has_follower);
            records.push(row.record);
        }
        tracing::trace!(rows = records.len(), "claimed");
        Ok(Self {
            session,
            records,
            followers,
        })
    }
}

/// What a drain published, and the followers it left for the next linger.
struct Drained {
    report: StepReport,
    deferred: u64,
}

impl Drained {
    /// A drain that left nothing claimable behind.
    fn all(report: StepReport) -> Self {
        Self {
            report,
            deferred: 0,
        }
    }
}

#[derive(sqlx::FromRow)]
struct ClaimedRow {
    #[sqlx(flatten)]
    record: OutboxRecord,
    has_follower: bool,
}

impl StepReport {
    fn add(&mut self, other: StepReport) {
        self.claimed += other.claimed;
        self.sent += other.sent;
        self.retried += other.retried;
        self.failed += other.failed;
    }
}

/// Exponential backoff with jitter: the n-th retry waits between half and all of
/// `base * 2^(n-1)`, capped at `max_backoff_ms`, so failed rows from one outage do not
/// all come back at the same instant.
pub(crate) fn backoff(settings: &RelaySettings, attempts: i32) -> Duration {
    backoff_delay(settings.base_backoff_ms, settings.max_backoff_ms, attempts)
}

/// [`backoff`] for any base and cap (ms), for publishers that schedule their own
/// retries ([`PublishError::retry_after`](crate::PublishError::retry_after)).
pub fn backoff_delay(base_ms: u64, max_ms: u64, attempts: i32) -> Duration {
    let exponent = attempts.saturating_sub(1).clamp(0, 30) as u32;
    let full = base_ms.saturating_mul(1u64 << exponent).min(max_ms);
    let jittered = rand::rng().random_range(full / 2..=full);
    Duration::from_millis(jittered)
}

#[cfg(test)]
mod tests;
