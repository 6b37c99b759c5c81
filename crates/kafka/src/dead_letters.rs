//! The consumer loop's way to the dead-letter topic.
//!
//! Its producer is made at the first dead letter, not with the consumer: an rdkafka
//! producer's polling thread spins for part of every polling window even when it has
//! nothing to send, which showed in the consumers' CPU (docs/benchmarks.md, "consumer
//! batches").

use rdkafka::Message;
use rdkafka::message::{BorrowedMessage, Header, Headers, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};
use std::sync::OnceLock;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub(crate) struct DeadLetters<'a> {
    brokers: &'a str,
    topic: &'a str,
    producer: OnceLock<FutureProducer>,
}

impl<'a> DeadLetters<'a> {
    pub(crate) fn new(brokers: &'a str, topic: &'a str) -> Self {
        Self {
            brokers,
            topic,
            producer: OnceLock::new(),
        }
    }

    /// The producer, made now if this is the first dead letter.
    fn producer(&self) -> Result<&FutureProducer, rdkafka::error::KafkaError> {
        if let Some(producer) = self.producer.get() {
            return Ok(producer);
        }
        let producer: FutureProducer = crate::client_config(self.brokers)
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .create()?;
        // The loop is the only caller, one record at a time: nothing can race here.
        Ok(self.producer.get_or_init(|| producer))
    }

    /// Copies `message` to the dead-letter topic with the reason, and waits for the ack
    /// (retrying until it comes or shutdown). Returns whether the copy was acknowledged.
    pub(crate) async fn send(
        &self,
        message: &BorrowedMessage<'_>,
        consumer: &str,
        error: &str,
        attempts: u32,
        shutdown: &CancellationToken,
    ) -> bool {
        let partition = message.partition().to_string();
        let offset = message.offset().to_string();
        let attempts = attempts.to_string();
        let notes = [
            ("edihub_error", error),
            ("edihub_consumer", consumer),
            ("edihub_source_topic", message.topic()),
            ("edihub_source_partition", partition.as_str()),
            ("edihub_source_offset", offset.as_str()),
            ("edihub_attempts", attempts.as_str()),
        ];
        let topic = self.topic;
        let mut delay = Duration::from_millis(200);
        loop {
            let sent = match self.producer() {
                Ok(producer) => {
                    let record = copy_of(message, topic, &notes);
                    let sent = producer.send(record, Duration::from_secs(30)).await;
                    sent.map(|_| ()).map_err(|(error, _)| error)
                }
                Err(error) => Err(error),
            };
            match sent {
                Ok(()) => return true,
                Err(error) => {
                    tracing::error!(%error, topic, "cannot write to the dead-letter topic; retrying");
                }
            }
            tokio::select! {
                _ = shutdown.cancelled() => return false,
                _ = tokio::time::sleep(delay) => {}
            }
            delay = (delay * 2).min(Duration::from_secs(30));
        }
    }
}

/// `message` addressed to `topic`: its key, payload and headers, and `notes` as further
/// headers.
fn copy_of<'m>(
    message: &'m BorrowedMessage<'_>,
    topic: &'m str,
    notes: &[(&str, &str)],
) -> FutureRecord<'m, [u8], [u8]> {
    let mut headers = OwnedHeaders::new();
    if let Some(original) = message.headers() {
        for header in original.iter() {
            headers = headers.insert(Header {
                key: header.key,
                value: header.value,
            });
        }
    }
    for &(key, value) in notes {
        headers = headers.insert(Header {
            key,
            value: Some(value),
        });
    }
    let mut record = FutureRecord::to(topic).headers(headers);
    if let Some(key) = message.key() {
        record = record.key(key);
    }
    if let Some(payload) = message.payload() {
        record = record.payload(payload);
    }
    record
}
