//! Sealing: runs of stored entries written to S3 as signed (and timestamped) segments.

mod run;
pub(crate) mod segment;
mod store;

pub use segment::{Manifest, certificate_key, manifest_bytes, segment_prefix};

use crate::LedgerError;
use crate::chain::ParseError;
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use run::{Checked, Run, check_links, last_segment, stored_run};
use segment::Pending;
use sha2::{Digest, Sha256};
use sqlx::PgConnection;
use std::time::Duration;

/// The advisory lock key one sealer at a time holds (ASCII "edihub-s"): an operator (or a
/// test) holding it pauses sealing.
pub const SEAL_LOCK_KEY: i64 = 0x6564_6968_7562_2d73;

/// Where segments are written: the archive's locked bucket (`edihub_archive` implements
/// it for its store); a fake in unit tests.
pub trait SegmentSink: Send + Sync {
    /// Stores `bytes` under `key`, object-locked until `retain_until`; returns the
    /// version id.
    fn put_locked(
        &self,
        key: &str,
        bytes: Vec<u8>,
        content_type: &str,
        retain_until: DateTime<Utc>,
    ) -> impl Future<Output = Result<Option<String>, SinkError>> + Send;
}

/// A sink's failure, its source kept.
#[derive(Debug, thiserror::Error)]
#[error("segment store: {0}")]
pub struct SinkError(#[source] pub Box<dyn std::error::Error + Send + Sync>);

/// When to seal and with what.
#[derive(Debug, Clone)]
pub struct SealPolicy {
    /// Seal once this many stored entries wait...
    pub max_entries: usize,
    /// ...or once the oldest waiting one has waited this long.
    pub max_wait: Duration,
    /// The RFC 3161 timestamp authority, when there is one.
    pub timestamp_url: Option<url::Url>,
}

/// One segment as sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedSegment {
    pub first_seq: i64,
    pub last_seq: i64,
    pub head: [u8; 32],
    pub prefix: String,
    pub timestamped: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error(transparent)]
    Sink(#[from] SinkError),
    #[error("signing the segment failed: {0}")]
    Sign(#[source] edihub_as2::As2Error),
    #[error("timestamp authority: {0}")]
    Timestamp(String),
    /// The authority could not be reached, or its answer not read.
    #[error("timestamp authority: {0}")]
    TimestampHttp(#[source] reqwest::Error),
    /// An entry's stored canonical bytes do not read as an entry.
    #[error("ledger entry {seq}: {source}")]
    Entry {
        seq: i64,
        #[source]
        source: ParseError,
    },
    /// A segment of no entries was asked for (a bug in the caller).
    #[error("a segment needs at least one entry")]
    EmptyRun,
}

/// Seals stored entries into segments. Several may run (one per archive consumer); an
/// advisory lock lets one seal at a time.
pub struct Sealer<S> {
    pool: sqlx::PgPool,
    sink: S,
    key: edihub_as2::Identity,
    policy: SealPolicy,
}

/// A failed attempt and the positions it was sealing, for the log.
struct Failed {
    range: Option<(i64, i64)>,
    error: SealError,
}

impl<E: Into<SealError>> From<E> for Failed {
    fn from(error: E) -> Self {
        Failed {
            range: None,
            error: error.into(),
        }
    }
}

impl<S: SegmentSink> Sealer<S> {
    pub fn new(pool: sqlx::PgPool, sink: S, key: edihub_as2::Identity, policy: SealPolicy) -> Self {
        Self {
            pool,
            sink,
            key,
            policy,
        }
    }

    /// Seals the stored entries after the last segment when the policy says it is time
    /// (`now` is the caller's clock). `None`: nothing due, or another sealer holds the lock.
    pub async fn seal_due(&self, now: DateTime<Utc>) -> Result<Option<SealedSegment>, SealError> {
        self.attempt(now, false).await.map_err(|f| f.error)
    }

    /// Seals whatever stored entries wait, due or not (`edihub audit seal`, tests).
    pub async fn seal_now(&self, now: DateTime<Utc>) -> Result<Option<SealedSegment>, SealError> {
        self.attempt(now, true).await.map_err(|f| f.error)
    }

    /// Calls [`Sealer::seal_due`] every `tick` until `shutdown`; failures are logged and
    /// retried on the next tick. A seal cut short by shutdown rolls back (no row).
    pub async fn run(&self, tick: Duration, shutdown: tokio_util::sync::CancellationToken) {
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(tick) => {}
            }
            let outcome = tokio::select! {
                () = shutdown.cancelled() => return,
                outcome = self.attempt(Utc::now(), false) => outcome,
            };
            match outcome {
                Ok(Some(sealed)) => tracing::info!(
                    first_seq = sealed.first_seq,
                    last_seq = sealed.last_seq,
                    timestamped = sealed.timestamped,
                    "sealed ledger segment"
                ),
                Ok(None) => {}
                Err(Failed { range, error }) => tracing::error!(
                    first_seq = range.map(|r| r.0),
                    last_seq = range.map(|r| r.1),
                    error = %error,
                    error.debug = ?error,
                    "sealing a ledger segment failed; retrying on the next tick"
                ),
            }
        }
    }

    async fn attempt(
        &self,
        now: DateTime<Utc>,
        force: bool,
    ) -> Result<Option<SealedSegment>, Failed> {
        // PostgreSQL keeps microseconds: the row and the manifest then say the same.
        let now = now
            .duration_trunc(TimeDelta::microseconds(1))
            .unwrap_or(now);
        let mut tx = self.pool.begin().await.map_err(LedgerError::from)?;
        let outcome = self.seal_locked(&mut tx, now, force).await;
        match outcome {
            Ok(Some(sealed)) => {
                let range = Some((sealed.first_seq, sealed.last_seq));
                tx.commit().await.map_err(|e| Failed {
                    range,
                    error: LedgerError::from(e).into(),
                })?;
                Ok(Some(sealed))
            }
            // Rolled back now rather than on drop: the advisory lock goes with it at once,
            // not when the pool next uses this connection.
            Ok(None) => {
                tx.rollback().await.map_err(LedgerError::from)?;
                Ok(None)
            }
            Err(failed) => {
                // The attempt's own error is the one worth reporting; a connection whose
                // rollback fails is closed by the pool, which releases the lock too.
                let _ = tx.rollback().await;
                Err(failed)
            }
        }
    }

    /// Takes the sealing lock in `conn`'s transaction and seals the due run, if any.
    async fn seal_locked(
        &self,
        conn: &mut PgConnection,
        now: DateTime<Utc>,
        force: bool,
    ) -> Result<Option<SealedSegment>, Failed> {
        let locked: bool = sqlx::query_scalar("SELECT pg_try_advisory_xact_lock($1)")
            .bind(SEAL_LOCK_KEY)
            .fetch_one(&mut *conn)
            .await
            .map_err(LedgerError::from)?;
        if !locked {
            return Ok(None);
        }
        let (after, prev_head) = last_segment(conn).await?;
        let run = stored_run(conn, after, self.policy.max_entries.max(1)).await?;
        if run.entries.is_empty() || !(force || self.is_due(&run, now)) {
            return Ok(None);
        }
        let range = run.range();
        self.write(conn, &run.entries, prev_head, now)
            .await
            .map(Some)
            .map_err(|error| Failed {
                range: Some(range),
                error,
            })
    }

    fn is_due(&self, run: &Run, now: DateTime<Utc>) -> bool {
        let waited = run
            .oldest
            .and_then(|oldest| (now - oldest).to_std().ok())
            .unwrap_or_default();
        run.entries.len() >= self.policy.max_entries || waited >= self.policy.max_wait
    }

    async fn write(
        &self,
        conn: &mut PgConnection,
        entries: &[Checked],
        prev_head: [u8; 32],
        now: DateTime<Utc>,
    ) -> Result<SealedSegment, SealError> {
        check_links(prev_head, entries)?;
        let pending: Vec<Pending> = entries
            .iter()
            .map(|e| Pending {
                seq: e.seq,
                canonical: e.canonical.clone(),
            })
            .collect();
        let built = segment::build(&pending, prev_head, &self.key, now)?;
        let timestamp = match &self.policy.timestamp_url {
            Some(url) => Some(crate::tsa::timestamp(url, &built.manifest).await?),
            None => None,
        };
        let timestamped = timestamp.is_some();
        let (pem, fingerprint) = self.certificate()?;
        let objects = store::put_all(&self.sink, &built, timestamp, pem, &fingerprint).await?;
        store::insert(conn, &built, &objects, now).await?;
        Ok(SealedSegment {
            first_seq: built.first_seq,
            last_seq: built.last_seq,
            head: built.head,
            prefix: segment_prefix(built.first_seq, built.last_seq),
            timestamped,
        })
    }

    /// The sealing certificate as PEM, and the SHA-256 (hex) of its DER.
    fn certificate(&self) -> Result<(Vec<u8>, String), SealError> {
        let crypto = |e: openssl::error::ErrorStack| {
            SealError::Sign(edihub_as2::As2Error::Crypto(e.to_string()))
        };
        let der = self.key.certificate.to_der().map_err(crypto)?;
        let pem = self.key.certificate.to_pem().map_err(crypto)?;
        Ok((pem, hex::encode(Sha256::digest(&der))))
    }
}
