//! Reading a topic from the beginning to find one record: for operators (`edihub
//! events`) and tests. Not for consumers (they use [`crate::run_consumer`]).

use crate::KafkaError;
use rdkafka::Message;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::message::Headers;
use std::time::{Duration, Instant};

/// A record as read from a topic.
#[derive(Debug, Clone)]
pub struct RecordView {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    pub key: Option<String>,
    pub headers: Vec<(String, String)>,
    pub payload: Vec<u8>,
}

impl RecordView {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads `topic` from the earliest offset with a throw-away group until `want` says
/// enough (it receives every record read so far) or `timeout` passes. Returns the
/// records read.
pub async fn read_until(
    brokers: &str,
    topic: &str,
    timeout: Duration,
    mut want: impl FnMut(&[RecordView]) -> bool,
) -> Result<Vec<RecordView>, KafkaError> {
    let consumer: StreamConsumer = crate::client_config(brokers)
        .set(
            "group.id",
            format!("edihub-reader-{}", uuid::Uuid::new_v4()),
        )
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        .create()?;
    consumer.subscribe(&[topic])?;
    let deadline = Instant::now() + timeout;
    let mut records = Vec::new();
    while !want(&records) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let message = match tokio::time::timeout(left, consumer.recv()).await {
            Err(_elapsed) => break,
            Ok(Err(error)) => {
                tracing::debug!(%error, "reader receive error");
                continue;
            }
            Ok(Ok(message)) => message,
        };
        let headers = message
            .headers()
            .map(|h| {
                h.iter()
                    .map(|header| {
                        (
                            header.key.to_owned(),
                            String::from_utf8_lossy(header.value.unwrap_or_default()).into_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        records.push(RecordView {
            topic: message.topic().to_owned(),
            partition: message.partition(),
            offset: message.offset(),
            key: message
                .key()
                .map(|k| String::from_utf8_lossy(k).into_owned()),
            headers,
            payload: message.payload().map(<[u8]>::to_vec).unwrap_or_default(),
        });
    }
    Ok(records)
}
