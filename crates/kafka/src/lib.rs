//! Everything that talks to Kafka: the relay's producer, the consumers' loop, topic
//! administration. Domain crates never see rdkafka types; they see
//! [`edihub_events::Envelope`] and [`edihub_outbox::Publisher`].

mod admin;
mod consumer;
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
