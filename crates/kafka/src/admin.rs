use crate::KafkaError;
use edihub_config::KafkaSettings;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::types::RDKafkaErrorCode;
use std::time::Duration;

/// Creates the given topics if they do not exist (idempotent).
pub async fn ensure_topics(settings: &KafkaSettings, topics: &[&str]) -> Result<(), KafkaError> {
    let admin: AdminClient<DefaultClientContext> =
        crate::client_config(&settings.brokers).create()?;
    let new_topics: Vec<NewTopic<'_>> = topics
        .iter()
        .map(|name| NewTopic::new(name, settings.partitions, TopicReplication::Fixed(1)))
        .collect();
    let options = AdminOptions::new().operation_timeout(Some(Duration::from_secs(10)));
    for result in admin.create_topics(&new_topics, &options).await? {
        match result {
            Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((topic, code)) => {
                tracing::error!(%topic, ?code, "cannot create topic");
                return Err(KafkaError::Client(rdkafka::error::KafkaError::AdminOp(
                    code,
                )));
            }
        }
    }
    Ok(())
}
