use crate::KafkaError;
use crate::acked::AckedProducer;
use edihub_config::KafkaSettings;
use edihub_events::headers;
use edihub_outbox::{OutboxRecord, PublishError, Publisher};
use rdkafka::message::{Header, OwnedHeaders};
use std::sync::Arc;
use std::time::Duration;

/// Publishes outbox records as CloudEvents (binary mode) with an idempotent producer:
/// `acks=all` so an ack means the record is replicated, idempotence so a retry inside
/// librdkafka cannot duplicate or reorder records of one partition.
#[derive(Clone)]
pub struct KafkaPublisher {
    producer: Arc<AckedProducer>,
}

impl KafkaPublisher {
    pub fn new(settings: &KafkaSettings) -> Result<Self, KafkaError> {
        let mut config = crate::client_config(&settings.brokers);
        config
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("linger.ms", "1")
            .set("message.timeout.ms", "30000");
        Ok(Self {
            producer: Arc::new(AckedProducer::new(&config)?),
        })
    }

    /// Waits for outstanding records (used on shutdown).
    pub fn flush(&self, timeout: Duration) {
        let _ = self.producer.flush(timeout);
    }
}

fn record_headers(record: &OutboxRecord, time: &str) -> OwnedHeaders {
    let id = record.id.to_string();
    let mut out = OwnedHeaders::new_with_capacity(9)
        .insert(Header {
            key: headers::ID,
            value: Some(id.as_str()),
        })
        .insert(Header {
            key: headers::TYPE,
            value: Some(record.event_type.as_str()),
        })
        .insert(Header {
            key: headers::SOURCE,
            value: Some(edihub_events::SOURCE),
        })
        .insert(Header {
            key: headers::TIME,
            value: Some(time),
        })
        .insert(Header {
            key: headers::SPEC_VERSION,
            value: Some(headers::SPEC_VERSION_VALUE),
        })
        .insert(Header {
            key: headers::SUBJECT,
            value: Some(record.aggregate_id.as_str()),
        })
        .insert(Header {
            key: headers::CONTENT_TYPE,
            value: Some("application/json"),
        });
    // Carried over from the outbox row as written, so the consumers continue the trace.
    for name in [
        headers::CORRELATION_ID,
        headers::TRACEPARENT,
        headers::TRACESTATE,
    ] {
        if let Some(value) = record.header(name) {
            out = out.insert(Header {
                key: name,
                value: Some(value),
            });
        }
    }
    out
}

/// librdkafka dropped a record's delivery report without an outcome (the producer was
/// torn down): it may or may not have been written, so the row is retried.
#[derive(Debug, thiserror::Error)]
#[error("delivery cancelled")]
struct DeliveryCancelled;

impl Publisher for KafkaPublisher {
    async fn publish(&self, records: &[OutboxRecord]) -> Vec<Result<(), PublishError>> {
        // Enqueue every record first, then await the acks: the batch travels together and
        // librdkafka keeps per-partition order.
        let mut pending = Vec::with_capacity(records.len());
        for record in records {
            let time = record.created_at.to_rfc3339();
            let headers = record_headers(record, &time);
            let payload = record.payload.get();
            let ack = self
                .producer
                .send(&record.topic, &record.aggregate_id, payload, headers);
            pending.push(ack);
        }
        let mut outcomes = Vec::with_capacity(records.len());
        for delivery in pending {
            let outcome = match delivery {
                Err(error) => Err(PublishError::new(error)),
                Ok(ack) => match ack.await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(error)) => Err(PublishError::new(error)),
                    Err(_dropped) => Err(PublishError::new(DeliveryCancelled)),
                },
            };
            outcomes.push(outcome);
        }
        outcomes
    }
}
