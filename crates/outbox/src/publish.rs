//! What the relay hands its rows to: a [`Publisher`] for each channel (Kafka for the
//! events, HTTP for asynchronous MDNs).

use crate::OutboxRecord;
use std::future::Future;

/// Why one record was not published. The publisher's own error is kept as the source;
/// its text is what the row's `last_error` shows to operators.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PublishError(#[source] Box<dyn std::error::Error + Send + Sync>);

impl PublishError {
    pub fn new(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self(source.into())
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
