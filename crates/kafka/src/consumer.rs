//! The consumer loop shared by the transform and archive consumers.
//!
//! Offset rule: an offset is stored only after the handler's effect committed; librdkafka
//! then commits stored offsets in the background (and once more on shutdown). A crash
//! between the effect and the offset commit only causes a redelivery, which the
//! handler's inbox absorbs.

use crate::KafkaError;
use edihub_config::KafkaSettings;
use edihub_events::{Envelope, EventHandler, headers};
use rdkafka::ClientConfig;
use rdkafka::Message;
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::message::{BorrowedMessage, Headers};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;
use uuid::Uuid;

/// Consumes `topic` as `group_id` until `shutdown`, handing each event to `handler`.
/// A failing event is retried with backoff (and blocks its partition meanwhile), so
/// nothing is skipped; the shutdown signal interrupts the retries without storing the
/// offset, so the event is delivered again after a restart.
pub async fn run_consumer<H: EventHandler>(
    settings: &KafkaSettings,
    group_id: &str,
    topic: &str,
    handler: H,
    shutdown: CancellationToken,
) -> Result<(), KafkaError> {
    let consumer: StreamConsumer = ClientConfig::new()
        .set("bootstrap.servers", &settings.brokers)
        .set("group.id", group_id)
        .set("enable.auto.commit", "true")
        .set("auto.commit.interval.ms", "1000")
        .set("enable.auto.offset.store", "false")
        .set("auto.offset.reset", "earliest")
        .set("session.timeout.ms", "10000")
        .create()?;
    consumer.subscribe(&[topic])?;
    tracing::info!(topic, group_id, "consumer started");

    loop {
        let message = tokio::select! {
            _ = shutdown.cancelled() => break,
            received = consumer.recv() => received,
        };
        let message = match message {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(%error, "kafka receive error");
                continue;
            }
        };
        let envelope = match decode(&message) {
            Ok(envelope) => envelope,
            Err(reason) => {
                // Not a hub event: retrying cannot help. Logged with its coordinates so
                // an operator can find it; the dead-letter topic is future work.
                tracing::error!(
                    topic = message.topic(), partition = message.partition(),
                    offset = message.offset(), %reason, "skipping undecodable record"
                );
                consumer.store_offset_from_message(&message)?;
                continue;
            }
        };
        let span = tracing::info_span!(
            "event",
            event_id = %envelope.id,
            event_type = %envelope.event_type,
            message_id = envelope.key.as_deref().unwrap_or(""),
            correlation_id = envelope.correlation_id.as_deref().unwrap_or(""),
        );
        let handled = handle_with_retry(&handler, &envelope, &shutdown)
            .instrument(span)
            .await;
        if !handled {
            break; // shutdown during retries: leave the offset for the next run
        }
        consumer.store_offset_from_message(&message)?;
    }
    // Commit what was stored; on an empty assignment there is nothing to commit.
    if let Err(error) = consumer.commit_consumer_state(CommitMode::Sync) {
        tracing::debug!(%error, "final offset commit");
    }
    tracing::info!(topic, group_id, "consumer stopped");
    Ok(())
}

async fn handle_with_retry<H: EventHandler>(
    handler: &H,
    envelope: &Envelope,
    shutdown: &CancellationToken,
) -> bool {
    let mut delay = Duration::from_millis(200);
    loop {
        match handler.handle(envelope).await {
            Ok(()) => return true,
            Err(error) => {
                tracing::error!(%error, retry_in_ms = delay.as_millis() as u64, "handler failed");
            }
        }
        tokio::select! {
            _ = shutdown.cancelled() => return false,
            _ = tokio::time::sleep(delay) => {}
        }
        delay = (delay * 2).min(Duration::from_secs(30));
    }
}

/// Reads the CloudEvents binary-mode attributes from the record headers.
pub(crate) fn decode(message: &BorrowedMessage<'_>) -> Result<Envelope, String> {
    let mut id = None;
    let mut event_type = None;
    let mut source = None;
    let mut time = None;
    let mut correlation_id = None;
    if let Some(record_headers) = message.headers() {
        for header in record_headers.iter() {
            let Some(value) = header.value.and_then(|v| std::str::from_utf8(v).ok()) else {
                continue;
            };
            match header.key {
                headers::ID => id = Uuid::parse_str(value).ok(),
                headers::TYPE => event_type = Some(value.to_owned()),
                headers::SOURCE => source = Some(value.to_owned()),
                headers::TIME => {
                    time = chrono::DateTime::parse_from_rfc3339(value)
                        .ok()
                        .map(|t| t.to_utc())
                }
                headers::CORRELATION_ID => correlation_id = Some(value.to_owned()),
                _ => {}
            }
        }
    }
    Ok(Envelope {
        id: id.ok_or("missing or invalid ce_id header")?,
        event_type: event_type.ok_or("missing ce_type header")?,
        source: source.unwrap_or_default(),
        time,
        correlation_id,
        key: message
            .key()
            .and_then(|k| std::str::from_utf8(k).ok())
            .map(str::to_owned),
        data: message.payload().map(<[u8]>::to_vec).unwrap_or_default(),
    })
}
