//! What the relay hands its rows to: a [`Publisher`] for each channel (Kafka for the
//! events, HTTP for asynchronous MDNs).

use crate::OutboxRecord;
use std::future::Future;

/// Why one record was not published. The publisher's own error is kept as the source;
/// its text is what the row's `last_error` shows to operators.
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct PublishError {
    #[source]
    source: Box<dyn std::error::Error + Send + Sync>,
    permanent: bool,
}

impl PublishError {
    /// A failure worth retrying (the broker or server may answer later).
    pub fn new(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self {
            source: source.into(),
            permanent: false,
        }
    }

    /// A failure no retry can cure (say, a destination the hub must never connect to):
    /// the relay marks the row FAILED at once.
    pub fn permanent(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self {
            source: source.into(),
            permanent: true,
        }
    }

    pub fn is_permanent(&self) -> bool {
        self.permanent
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
