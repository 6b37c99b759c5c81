//! Everything that talks to Kafka: the relay's producer, the consumers' loop, topic
//! administration. Domain crates never see rdkafka types; they see
//! [`edihub_events::Envelope`] and [`edihub_outbox::Publisher`].

mod acked;
mod admin;
mod consumer;
mod continuity;
mod dead_letters;
mod lag;
mod producer;
pub mod reader;

pub use admin::ensure_topics;
pub use consumer::run_consumer;
pub use producer::KafkaPublisher;

#[derive(Debug, thiserror::Error)]
pub enum KafkaError {
    #[error("kafka: {0}")]
    Client(#[from] rdkafka::error::KafkaError),
}

/// A client configuration with the settings every edihub Kafka client shares.
/// `EDIHUB_KAFKA_DEBUG` (e.g. `cgrp,topic`) turns on librdkafka's debug contexts; its
/// logs reach the service log through the `log` bridge.
pub(crate) fn client_config(brokers: &str) -> rdkafka::ClientConfig {
    let mut config = rdkafka::ClientConfig::new();
    config.set("bootstrap.servers", brokers);
    if let Ok(contexts) = std::env::var("EDIHUB_KAFKA_DEBUG") {
        config.set("debug", contexts);
    }
    config
}
