//! The relay: claim a batch of due PENDING rows, publish them, mark the outcome — one
//! transaction per step. [`Relay::step`] is what tests call; [`Relay::drain`] steps two
//! batches at a time until a claim finds nothing, and [`Relay::run`] loops the drain.
//!
//! Claimed rows stay locked (`FOR UPDATE SKIP LOCKED`) until the step's transaction
//! ends, so a second relay skips them, and a relay that dies mid-step releases them by
//! rollback: they are published again later (at-least-once; consumers dedupe).
//! Order per aggregate across any number of relays: see [`CLAIM`].

use crate::{OutboxRecord, Publisher};
use edihub_config::RelaySettings;
use rand::Rng;
use sqlx::postgres::PgListener;
use sqlx::{PgPool, Postgres, Transaction};
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

/// The channel the `outbox_notify` trigger signals on commit.
pub const NOTIFY_CHANNEL: &str = "outbox_pending";

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
    publisher: P,
    settings: RelaySettings,
    channel: &'static str,
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
            pool,
            publisher,
            settings,
            channel,
        }
    }

    /// Claims up to `batch_size` due rows, publishes them and records each outcome.
    pub async fn step(&self) -> Result<StepReport, sqlx::Error> {
        let claimed = self.claim().await?;
        self.finish(claimed).await
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
        self.drain_until(&CancellationToken::new()).await
    }

    async fn drain_until(&self, shutdown: &CancellationToken) -> Result<StepReport, sqlx::Error> {
        let mut total = StepReport::default();
        let mut current = self.claim().await?;
        // Whether a batch committed after `current` was claimed and had rows waiting
        // behind it: `current`'s claim could not see them as heads.
        let mut followers_unclaimed = false;
        loop {
            if current.records.is_empty() {
                current.tx.commit().await?;
                if !followers_unclaimed || shutdown.is_cancelled() {
                    return Ok(total);
                }
                current = self.claim().await?;
                followers_unclaimed = false;
                continue;
            }
            if shutdown.is_cancelled() {
                // Finish what is claimed, claim nothing more.
                total.add(self.finish(current).await?);
                return Ok(total);
            }
            let has_followers = current.has_followers;
            if current.records.len() as i64 >= self.settings.batch_size {
                let (finished, following) = tokio::join!(self.finish(current), self.claim());
                // An error in either rolls its own transaction back (dropped): those rows
                // are claimed again later.
                total.add(finished?);
                current = following?;
                followers_unclaimed = has_followers;
            } else {
                total.add(self.finish(current).await?);
                if !(has_followers || followers_unclaimed) {
                    return Ok(total);
                }
                current = self.claim().await?;
                followers_unclaimed = false;
            }
        }
    }

    /// Opens the step's transaction and claims the batch; the rows stay locked by it.
    async fn claim(&self) -> Result<Claimed, sqlx::Error> {
        let started = Instant::now();
        // The step's outcome marks promise nothing to anyone: if a database crash loses
        // a committed-but-unflushed SENT, the row is simply published again, as after a
        // relay crash (at-least-once). So the commit need not wait for the WAL flush.
        // The claim is planned for the rows there are now, never from a cached generic
        // plan: one cached while the outbox was empty scans it once per row (ADR 0002).
        let mut tx = self
            .pool
            .begin_with(
                "BEGIN; SET LOCAL synchronous_commit = off; \
                 SET LOCAL plan_cache_mode = force_custom_plan",
            )
            .await?;
        let rows: Vec<ClaimedRow> = sqlx::query_as(CLAIM)
            .bind(self.settings.batch_size)
            .bind(self.channel)
            .fetch_all(&mut *tx)
            .await?;
        tracing::trace!(rows = rows.len(), elapsed = ?started.elapsed(), "claimed");
        let has_followers = rows.iter().any(|row| row.has_follower);
        let records = rows.into_iter().map(|row| row.record).collect();
        Ok(Claimed {
            tx,
            records,
            has_followers,
        })
    }

    /// Publishes a claimed batch, records each outcome and commits.
    async fn finish(&self, claimed: Claimed) -> Result<StepReport, sqlx::Error> {
        let Claimed {
            mut tx, records, ..
        } = claimed;
        let mut report = StepReport {
            claimed: records.len(),
            ..StepReport::default()
        };
        if records.is_empty() {
            tx.commit().await?;
            return Ok(report);
        }

        edihub_metrics::OUTBOX_BATCH_SIZE.observe(records.len() as f64);
        let started = Instant::now();
        let publish_timer = edihub_metrics::OUTBOX_PUBLISH_SECONDS.start_timer();
        let outcomes = self.publisher.publish(&records).await;
        publish_timer.observe_duration();
        let published_after = started.elapsed();
        let mut sent: Vec<i64> = Vec::with_capacity(records.len());
        for (record, outcome) in records.iter().zip(outcomes) {
            match outcome {
                Ok(()) => sent.push(record.seq),
                Err(error) => {
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
                    .execute(&mut *tx)
                    .await?;
                    if dead {
                        report.failed += 1;
                    } else {
                        report.retried += 1;
                    }
                }
            }
        }
        // A row is SENT only now that the broker acknowledged it. By `seq`: its index
        // is in insertion order, so a batch touches few of its pages.
        sqlx::query(
            "UPDATE outbox SET status = 'SENT', sent_at = now(), attempts = attempts + 1,
                    last_error = NULL
             WHERE seq = ANY($1)",
        )
        .bind(&sent)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        tracing::trace!(
            rows = records.len(), publish = ?published_after, total = ?started.elapsed(),
            "batch finished"
        );
        report.sent = sent.len();
        let published = &edihub_metrics::OUTBOX_PUBLISHED;
        published
            .with_label_values(&["sent"])
            .inc_by(report.sent as u64);
        published
            .with_label_values(&["retried"])
            .inc_by(report.retried as u64);
        published
            .with_label_values(&["failed"])
            .inc_by(report.failed as u64);
        Ok(report)
    }

    /// Drains ([`Relay::drain`]) until `shutdown`: after each drain, waits for a
    /// NOTIFY or the polling interval, whichever comes first. After a NOTIFY it lingers
    /// `linger_ms` (or until `batch_size` more arrive) so that a steady low rate is
    /// published in batches rather than one row at a time, each at a batch's full cost.
    /// The batch in flight is finished before returning.
    pub async fn run(&self, shutdown: CancellationToken) -> Result<(), sqlx::Error> {
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener.listen(NOTIFY_CHANNEL).await?;
        let poll = Duration::from_millis(self.settings.poll_interval_ms);
        while !shutdown.is_cancelled() {
            match self.drain_until(&shutdown).await {
                Ok(report) if report.claimed > 0 => tracing::debug!(?report, "relay drain"),
                Ok(_) => {}
                Err(error) => tracing::error!(%error, "relay step failed"),
            }
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = self.notified(&mut listener) => {}
                _ = tokio::time::sleep(poll) => continue,
            }
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = self.linger(&mut listener) => {}
            }
        }
        tracing::info!("relay stopped");
        Ok(())
    }
}

impl<P> Relay<P> {
    /// Lets more commits gather after a NOTIFY: returns after `linger_ms`, or once
    /// `batch_size` further NOTIFYs (one per committing transaction) arrived.
    async fn linger(&self, listener: &mut PgListener) {
        if self.settings.linger_ms == 0 {
            return;
        }
        let deadline = tokio::time::sleep(Duration::from_millis(self.settings.linger_ms));
        tokio::pin!(deadline);
        let mut gathered = 0;
        while gathered < self.settings.batch_size {
            tokio::select! {
                _ = &mut deadline => return,
                _ = self.notified(listener) => gathered += 1,
            }
        }
    }

    /// Waits for a NOTIFY about this relay's channel (the payload names the channel of
    /// the rows committed; an empty one, from before migration 0008, counts for all).
    /// A listener error (connection lost) returns at once: PgListener reconnects on the
    /// next `recv`, and the polling interval keeps the relay moving meanwhile.
    async fn notified(&self, listener: &mut PgListener) {
        loop {
            match listener.recv().await {
                Ok(notification) => {
                    let payload = notification.payload();
                    if payload.is_empty() || payload == self.channel {
                        return;
                    }
                }
                Err(_) => return,
            }
        }
    }
}

/// A claimed batch: its rows stay locked by `tx` until the batch is finished.
struct Claimed {
    tx: Transaction<'static, Postgres>,
    records: Vec<OutboxRecord>,
    /// Whether a later PENDING row of one of its aggregates waits behind it.
    has_followers: bool,
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
