//! What the relay hands its rows to: a [`Publisher`] for each channel (Kafka for the
//! events, HTTP for asynchronous MDNs).

use crate::OutboxRecord;
use std::future::Future;
use std::time::Duration;

/// Why one record was not published. The publisher's own error is kept as the source;
/// its text is what the row's `last_error` shows to operators.
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct PublishError {
    #[source]
    source: Box<dyn std::error::Error + Send + Sync>,
    permanent: bool,
    retry_after: Option<Duration>,
}

impl PublishError {
    /// A failure worth retrying (the broker or server may answer later).
    pub fn new(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self {
            source: source.into(),
            permanent: false,
            retry_after: None,
        }
    }

    /// A failure no retry can cure (say, a destination the hub must never connect to):
    /// the relay marks the row FAILED at once.
    pub fn permanent(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self {
            source: source.into(),
            permanent: true,
            retry_after: None,
        }
    }

    pub fn is_permanent(&self) -> bool {
        self.permanent
    }

    /// Retry after `delay` instead of the relay's own backoff (a publisher that knows
    /// better, e.g. the partnership's backoff for an outbound AS2 message).
    pub fn retry_after(mut self, delay: Duration) -> Self {
        self.retry_after = Some(delay);
        self
    }

    /// The delay asked for by [`PublishError::retry_after`], if any.
    pub fn retry_delay(&self) -> Option<Duration> {
        self.retry_after
    }
}

/// Sends records to the broker. Returns one result per record, in order; `Ok` means the
/// broker acknowledged the record (for Kafka: written to all in-sync replicas).
pub trait Publisher: Send + Sync {
    fn publish(
        &self,
        records: &[OutboxRecord],
    ) -> impl Future<Output = Vec<Result<(), PublishError>>> + Send;
}
