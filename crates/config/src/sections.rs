//! Settings sections. Every field has a default that matches DESIGN.md's local stack.

use crate::Secret;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct DatabaseSettings {
    pub url: Secret,
    pub max_connections: u32,
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            url: Secret::new("postgres://postgres:postgres@127.0.0.1:5432/edihub"),
            max_connections: 10,
        }
    }
}

/// Topic names; tests give them a unique suffix.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct TopicSettings {
    pub inbound_received: String,
    pub invoice_canonical: String,
    pub inbound_rejected: String,
}

impl Default for TopicSettings {
    fn default() -> Self {
        Self {
            inbound_received: "edi.inbound.received".into(),
            invoice_canonical: "edi.invoice.canonical".into(),
            inbound_rejected: "edi.inbound.rejected".into(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct KafkaSettings {
    pub brokers: String,
    pub topics: TopicSettings,
    /// Partitions given to topics that `edihub init` creates.
    pub partitions: i32,
}

impl Default for KafkaSettings {
    fn default() -> Self {
        Self {
            brokers: "127.0.0.1:9092".into(),
            topics: TopicSettings::default(),
            partitions: 3,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct S3Settings {
    /// `None` means the provider's own endpoint (AWS).
    pub endpoint: Option<String>,
    pub bucket: String,
    pub region: String,
    pub access_key_id: String,
    pub secret_access_key: Secret,
    /// Path-style addressing (`endpoint/bucket/key`), needed by moto and MinIO.
    pub force_path_style: bool,
    /// Object Lock retention of archived originals (fiscal audit: 10 years).
    pub retention_years: u32,
}

impl Default for S3Settings {
    fn default() -> Self {
        Self {
            endpoint: Some("http://127.0.0.1:9000".into()),
            bucket: "edihub-archive".into(),
            region: "us-east-1".into(),
            access_key_id: "testing".into(),
            secret_access_key: Secret::new("testing"),
            force_path_style: true,
            retention_years: 10,
        }
    }
}

/// One trading partner the gateway accepts messages from.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct PartnerSettings {
    /// The partner's AS2 name (AS2-From of its messages).
    pub as2_id: String,
    /// A human name for operators.
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct GatewaySettings {
    /// Address to listen on; port 0 picks a free port (tests).
    pub listen: String,
    /// The hub's own AS2 name: the AS2-To partners must address.
    pub hub_as2_id: String,
    /// Largest accepted request body, in bytes.
    pub max_body_bytes: usize,
    pub partners: Vec<PartnerSettings>,
}

impl Default for GatewaySettings {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".into(),
            hub_as2_id: "EDIHUB".into(),
            max_body_bytes: 64 * 1024 * 1024,
            partners: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct RelaySettings {
    /// Rows claimed per step.
    pub batch_size: i64,
    /// Fallback polling interval when no NOTIFY arrives.
    pub poll_interval_ms: u64,
    /// After this many failed attempts a row becomes FAILED (the dead letter).
    pub max_attempts: i32,
    /// First retry delay; doubled per attempt, capped by `max_backoff_ms`.
    pub base_backoff_ms: u64,
    pub max_backoff_ms: u64,
}

impl Default for RelaySettings {
    fn default() -> Self {
        Self {
            batch_size: 500,
            poll_interval_ms: 1000,
            max_attempts: 10,
            base_backoff_ms: 500,
            max_backoff_ms: 5 * 60 * 1000,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ConsumerSettings {
    /// Kafka consumer group; also the consumer name in the inbox table.
    pub group_id: String,
}
