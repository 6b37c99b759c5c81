//! Whether archiving keeps up with ingest, from one run: the ingest rate the sender saw
//! next to the rate the archive consumer stored messages, read from the database's own
//! timestamps (`archive_record.archived_at`: the `now()` of the consumer's
//! transaction, which spans its S3 PUTs).

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use std::time::Duration;

/// The measured messages' archive figures.
pub struct ArchiveRates {
    pub archived: i64,
    /// Archived by the time the last MDN was read.
    pub archived_during_ingest: i64,
    /// From the first POST to the last message archived.
    pub until_last_archived: Duration,
    /// Journal `received_at` to `archived_at`: p50, p99.
    pub lag_p50: Duration,
    pub lag_p99: Duration,
}

/// Reads the figures of the messages received since `started` (the warm-up's were
/// received before); `ingest_end` is when the last MDN was read.
pub async fn archive_rates(
    pool: &PgPool,
    started: DateTime<Utc>,
    ingest_end: DateTime<Utc>,
) -> ArchiveRates {
    let (archived, during, until, p50, p99): (i64, i64, f64, f64, f64) = sqlx::query_as(
        "SELECT count(*),
                count(*) FILTER (WHERE a.archived_at <= $2),
                extract(epoch FROM max(a.archived_at) - $1)::float8,
                percentile_cont(0.5) WITHIN GROUP
                    (ORDER BY extract(epoch FROM a.archived_at - m.received_at)::float8),
                percentile_cont(0.99) WITHIN GROUP
                    (ORDER BY extract(epoch FROM a.archived_at - m.received_at)::float8)
           FROM edi_message m JOIN archive_record a ON a.message_id = m.id
          WHERE m.received_at >= $1",
    )
    .bind(started)
    .bind(ingest_end)
    .fetch_one(pool)
    .await
    .expect("archive figures");
    let seconds = |s: f64| Duration::from_secs_f64(s.max(0.0));
    ArchiveRates {
        archived,
        archived_during_ingest: during,
        until_last_archived: seconds(until),
        lag_p50: seconds(p50),
        lag_p99: seconds(p99),
    }
}

/// The `received_at` of the `n`-th message (from 0) received since `started`: the
/// exclusive end of a period that holds the `n` before it.
pub async fn nth_received(pool: &PgPool, started: DateTime<Utc>, n: i64) -> DateTime<Utc> {
    sqlx::query_scalar(
        "SELECT received_at FROM edi_message WHERE received_at >= $1
          ORDER BY received_at OFFSET $2 LIMIT 1",
    )
    .bind(started)
    .bind(n)
    .fetch_one(pool)
    .await
    .expect("the n-th message's received_at")
}
