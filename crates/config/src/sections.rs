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
    /// Where consumers put events they could not handle after their retries, with the
    /// error in the record headers (`edihub_error`, `edihub_consumer`, ...).
    pub dead_letter: String,
}

impl Default for TopicSettings {
    fn default() -> Self {
        Self {
            inbound_received: "edi.inbound.received".into(),
            invoice_canonical: "edi.invoice.canonical".into(),
            inbound_rejected: "edi.inbound.rejected".into(),
            dead_letter: "edi.dead-letter".into(),
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

/// One trading partner (a partnership profile) the gateway accepts messages from.
///
/// In the TOML file, one `[[gateway.partners]]` table per partner:
///
/// ```toml
/// [[gateway.partners]]
/// as2_id = "ACME-SUPPLIER"
/// name = "Acme Supplier"
/// certificates = ["/etc/edihub/partners/acme-2026.crt", "/etc/edihub/partners/acme-2027.crt"]
/// require_signature = true
/// require_encryption = true
/// ```
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct PartnerSettings {
    /// The partner's AS2 name (AS2-From of its messages).
    pub as2_id: String,
    /// A human name for operators.
    #[serde(default)]
    pub name: Option<String>,
    /// Paths of PEM files with the partner's certificates (a file may hold several).
    /// A signed message must be signed by one of them: the certificates are pinned, no CA
    /// chain is consulted. Several are allowed so that a partner can roll its key over
    /// (list the old and the new one until the old expires). The first one is also the
    /// certificate used to encrypt to the partner. Empty: the partner cannot sign, and any
    /// signed message from it is refused with authentication-failed.
    #[serde(default)]
    pub certificates: Vec<std::path::PathBuf>,
    /// Refuse (insufficient-message-security) messages from this partner that are not
    /// signed. Default false.
    #[serde(default)]
    pub require_signature: bool,
    /// Refuse (insufficient-message-security) messages from this partner that are not
    /// encrypted to the hub. Default false.
    #[serde(default)]
    pub require_encryption: bool,
    /// Accept signatures by one of `certificates` outside its validity period. Default
    /// false: a signature by an expired certificate is refused (authentication-failed).
    #[serde(default)]
    pub allow_expired_certificates: bool,
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
    /// Largest size compressed data (RFC 5402) may expand to, in bytes; beyond it the
    /// message is refused (unexpected-processing-error) instead of exhausting memory.
    pub max_decompressed_bytes: usize,
    /// Path of the PEM certificate partners know the hub by (they encrypt to it and verify
    /// our signed MDNs with it). Required, with `hub_private_key`, to receive encrypted
    /// messages and to sign MDNs; without them only unencrypted messages are accepted and
    /// MDNs are unsigned.
    pub hub_certificate: Option<std::path::PathBuf>,
    /// Path of the PEM private key (PKCS#8 or traditional RSA, unencrypted) of
    /// `hub_certificate`. Keep the file readable by the gateway only.
    pub hub_private_key: Option<std::path::PathBuf>,
    /// The partnerships: who may send, with which certificates and requirements.
    pub partners: Vec<PartnerSettings>,
}

impl Default for GatewaySettings {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".into(),
            hub_as2_id: "EDIHUB".into(),
            max_body_bytes: 64 * 1024 * 1024,
            max_decompressed_bytes: 256 * 1024 * 1024,
            hub_certificate: None,
            hub_private_key: None,
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

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ConsumerSettings {
    /// Kafka consumer group; also the consumer name in the inbox table.
    pub group_id: String,
    /// Attempts at one event before it goes to the dead-letter topic.
    pub max_attempts: u32,
    /// First retry delay; doubled per attempt, capped at 30 s.
    pub retry_base_ms: u64,
    /// Kafka static membership (`group.instance.id`): a restarted process with the same
    /// id takes its predecessor's place at once instead of waiting for the broker to
    /// expire it. Unique per process within the group; empty = dynamic membership.
    pub instance_id: String,
}

impl ConsumerSettings {
    /// These settings with `group` as the group id when none is configured.
    pub fn or_default_group(mut self, group: &str) -> Self {
        if self.group_id.is_empty() {
            self.group_id = group.to_owned();
        }
        self
    }
}

impl Default for ConsumerSettings {
    fn default() -> Self {
        Self {
            group_id: String::new(),
            max_attempts: 5,
            retry_base_ms: 200,
            instance_id: String::new(),
        }
    }
}
