//! Sealing: runs of stored entries written to S3 as signed (and timestamped) segments.

use crate::LedgerError;
use chrono::{DateTime, Utc};
use std::time::Duration;

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
}

/// Seals stored entries into segments. Several may run (one per archive consumer); an
/// advisory lock lets one seal at a time.
pub struct Sealer<S> {
    pool: sqlx::PgPool,
    sink: S,
    key: edihub_as2::Identity,
    policy: SealPolicy,
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
        let _ = (&self.pool, &self.sink, &self.key, &self.policy, now);
        unimplemented!("interface stub: the ledger helper writes this")
    }

    /// Seals whatever stored entries wait, due or not (`edihub audit seal`, tests).
    pub async fn seal_now(&self, now: DateTime<Utc>) -> Result<Option<SealedSegment>, SealError> {
        let _ = now;
        unimplemented!("interface stub: the ledger helper writes this")
    }

    /// Calls [`Sealer::seal_due`] every `tick` until `shutdown`; failures are logged and
    /// retried on the next tick.
    pub async fn run(&self, tick: Duration, shutdown: tokio_util::sync::CancellationToken) {
        let _ = (tick, shutdown);
        unimplemented!("interface stub: the ledger helper writes this")
    }
}
