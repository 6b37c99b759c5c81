//! Settings sections. Every field has a default that matches DESIGN.md's local stack.

use crate::Secret;
use serde::{Deserialize, Serialize};

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
    /// CONTRL acknowledgements the hub issues (`EdiAcknowledgementIssued`).
    pub acknowledgement_issued: String,
    /// Every message of an accepted interchange, of any type (`EdiMessageParsed`).
    pub message_parsed: String,
    /// Each state change of an outbound message (`OutboundStatusChanged`).
    pub outbound_status: String,
    /// Where downstream systems ask the hub to send a document (`OutboundRequested`);
    /// the outbox relay consumes it.
    pub outbound_requested: String,
    /// Where consumers put events they could not handle after their retries, with the
    /// error in the record headers (`edihub_error`, `edihub_consumer`, ...).
    pub dead_letter: String,
}

impl TopicSettings {
    /// Every topic the hub writes to or reads, for creating them (`edihub init`, tests).
    pub fn all(&self) -> [&str; 8] {
        [
            &self.inbound_received,
            &self.invoice_canonical,
            &self.inbound_rejected,
            &self.acknowledgement_issued,
            &self.message_parsed,
            &self.outbound_status,
            &self.outbound_requested,
            &self.dead_letter,
        ]
    }
}

impl Default for TopicSettings {
    fn default() -> Self {
        Self {
            inbound_received: "edi.inbound.received".into(),
            invoice_canonical: "edi.invoice.canonical".into(),
            inbound_rejected: "edi.inbound.rejected".into(),
            acknowledgement_issued: "edi.acknowledgement.issued".into(),
            message_parsed: "edi.message.parsed".into(),
            outbound_status: "edi.outbound.status".into(),
            outbound_requested: "edi.outbound.requested".into(),
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
    /// `None` means the provider's own endpoint (AWS's regional one). The files and the
    /// environment say so with an empty string: TOML has no null.
    #[serde(deserialize_with = "empty_is_none")]
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

/// An optional string whose empty value means none.
fn empty_is_none<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    let value = Option::<String>::deserialize(deserializer)?;
    Ok(value.filter(|value| !value.trim().is_empty()))
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
    /// signed. Default true in the settings file: say `false` to accept unsigned ones.
    /// (`PartnerSettings::default()` in Rust has false, for tests that build settings
    /// without keys.)
    #[serde(default = "required")]
    pub require_signature: bool,
    /// Refuse (insufficient-message-security) messages from this partner that are not
    /// encrypted to the hub. Default true in the settings file, which then needs the
    /// hub's key (`hub_private_key`); say `false` to accept unencrypted ones.
    #[serde(default = "required")]
    pub require_encryption: bool,
    /// Accept signatures by one of `certificates` outside its validity period. Default
    /// false: a signature by an expired certificate is refused (authentication-failed).
    #[serde(default)]
    pub allow_expired_certificates: bool,
    /// Where this partner may ask for asynchronous MDNs (its `Receipt-Delivery-Option`).
    /// An entry matches the requested URL exactly, or, when it ends with `/`, every URL
    /// below that path on the same scheme, host and port. Only `http` and `https` URLs
    /// without user info are ever used. A message asking for any other URL is refused
    /// (unexpected-processing-error, answered synchronously), so the hub never POSTs
    /// where the partnership did not say. Empty (the default): no asynchronous MDNs.
    #[serde(default)]
    pub async_mdn_urls: Vec<String>,
    /// Networks (CIDR, e.g. `10.20.0.0/16`) an async MDN URL of this partner may resolve
    /// to although they are loopback, private, link-local or otherwise not public. Empty
    /// (the default): such addresses are refused, whatever the URL's host is called.
    #[serde(default)]
    pub async_mdn_allowed_networks: Vec<String>,
    /// SHA-256 fingerprints (hex, colons optional) of the TLS client certificates this
    /// partner connects with. Not empty: a message from this AS2-From over a connection
    /// without one of them is refused (authentication-failed) before any work on it.
    #[serde(default)]
    pub tls_client_fingerprints: Vec<String>,
    /// Signatures by an RSA key shorter than this are refused. Default 2048.
    #[serde(default)]
    pub min_rsa_bits: Option<u32>,
    /// Signature digests accepted (`sha-1`, `sha-256`, ...). Empty (the default): all
    /// that edihub knows, SHA-1 with a warning.
    #[serde(default)]
    pub digests: Vec<String>,
    /// Content-encryption ciphers accepted (`3des`, `aes128`, `aes256-gcm`, ...). Empty
    /// (the default): all that edihub knows, 3DES with a warning.
    #[serde(default)]
    pub ciphers: Vec<String>,
    /// Outbound HTTPS to this partner (async MDNs): a PEM file of CA certificates
    /// trusted for its server besides the platform's roots (the host name is checked).
    /// Not with `outbound_tls_fingerprints`. Neither (the default): the platform's roots.
    #[serde(default)]
    pub outbound_tls_ca: Option<std::path::PathBuf>,
    /// SHA-256 fingerprints (hex, colons optional) of the partner server's certificate:
    /// only a server presenting one of them is trusted, whatever its issuer, host name
    /// or dates.
    #[serde(default)]
    pub outbound_tls_fingerprints: Vec<String>,
    /// The client certificate (PEM chain) and key the hub presents to this partner's
    /// server when it asks for one; both or neither. Read by the gateway, which delivers async MDNs,
    /// when it first connects.
    #[serde(default)]
    pub outbound_tls_client_certificate: Option<std::path::PathBuf>,
    #[serde(default)]
    pub outbound_tls_client_key: Option<std::path::PathBuf>,
    /// How strictly this partner's EDIFACT is held to the repertoire its UNB declares:
    /// `tolerant` (the default) reads a byte outside it that is printable in ISO 8859-1
    /// as such and warns; `strict` rejects the interchange.
    #[serde(default)]
    pub edifact_charset: Option<String>,
    /// How the hub sends AS2 messages to this partner (`[gateway.partners.outbound]`).
    /// None (the default): the hub sends it nothing.
    #[serde(default)]
    pub outbound: Option<PartnerOutboundSettings>,
}

/// A partnership's outbound settings, as text: read by `edihub_partners::outbound`, which
/// checks them (the same reader for the settings file and the database, which stores
/// this form normalised). A field left out takes the secure default: signed with
/// SHA-256, encrypted with AES-256, a signed synchronous MDN.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct PartnerOutboundSettings {
    /// The partner's AS2 URL: `http` or `https`, without user info.
    pub url: String,
    /// Which of the hub's identities sends (AS2-From, and the signing key). None: the
    /// main one (`gateway.hub_as2_id`).
    #[serde(default)]
    pub hub_as2_id: Option<String>,
    /// The signature's digest (`sha256`, `sha-512`, ...) or `none` (unsigned). Signing
    /// needs a key for the sending identity. Default `sha-256`.
    #[serde(default)]
    pub sign: Option<String>,
    /// The cipher to encrypt with (`aes256`, `aes128-gcm`, `3des`, ...) or `none`; the
    /// hub encrypts to the partner's first certificate, so one is needed. Default
    /// `aes256`.
    #[serde(default)]
    pub encrypt: Option<String>,
    /// Compress (RFC 5402) before signing. Default false.
    #[serde(default)]
    pub compress: bool,
    /// The MDN asked for: `none` (a 2xx answer delivers), `sync` (in the HTTP answer,
    /// the default) or `async` (POSTed later to `async_mdn_url`).
    #[serde(default)]
    pub mdn: Option<String>,
    /// The MDN's signature asked for: a digest (the micalg, default `sha-256`) or
    /// `none` (an unsigned MDN).
    #[serde(default)]
    pub mdn_signed: Option<String>,
    /// Where the partner is to POST asynchronous MDNs (the gateway's `/as2` as partners
    /// reach it): required with `mdn = "async"`, and only then.
    #[serde(default)]
    pub async_mdn_url: Option<String>,
    /// Time allowed for one POST (connect and answer), in milliseconds. Default 30000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// How long an asynchronous MDN may take before the message is sent again (same
    /// Message-ID), in milliseconds. Default 20 minutes.
    #[serde(default)]
    pub mdn_timeout_ms: Option<u64>,
    /// Attempts in all (POSTs and resends) before the message is FAILED. Default 10.
    #[serde(default)]
    pub max_attempts: Option<u32>,
    /// Wait before the first retry, doubling each time up to `max_backoff_ms`, in
    /// milliseconds. Defaults 30 seconds and one hour.
    #[serde(default)]
    pub base_backoff_ms: Option<u64>,
    #[serde(default)]
    pub max_backoff_ms: Option<u64>,
}

/// Secure by default: a partnership in the file requires what it does not waive.
fn required() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct GatewaySettings {
    /// Address partners connect to; port 0 picks a free port (tests).
    pub listen: String,
    /// HTTPS on `listen`: the server certificate and key. Required unless `plain_http`.
    pub tls: Option<GatewayTlsSettings>,
    /// Serve plain HTTP on `listen` instead, for a gateway behind a TLS-terminating
    /// proxy. Default false: with neither this nor `tls`, the gateway refuses to start.
    pub plain_http: bool,
    /// Address of `/metrics`, `/health` and `/ready`: loopback by default, so the
    /// partner port serves `POST /as2` only.
    pub ops_listen: String,
    /// Connections served at once; past it, a plain connection is answered 503 with
    /// `Retry-After` and closed, a TLS one is closed before its handshake.
    pub max_connections: usize,
    /// How long a connection may take to send a request's head once it is ready for
    /// one (after connecting, or after the previous answer on a kept-alive
    /// connection), in milliseconds; also bounds the TLS handshake. Then it is closed.
    pub idle_timeout_ms: u64,
    /// A request body must arrive within this many milliseconds, plus one second for
    /// every `body_min_bytes_per_second` received: a slower body gets 408 and the
    /// connection is closed.
    pub body_read_timeout_ms: u64,
    /// The least average rate, past `body_read_timeout_ms`, a body must keep.
    pub body_min_bytes_per_second: u64,
    /// The hub's own AS2 name: the AS2-To partners must address.
    pub hub_as2_id: String,
    /// Largest accepted request body, in bytes; larger gets 413.
    pub max_body_bytes: usize,
    /// Largest accepted request header section (names, values and line ends), in bytes;
    /// larger gets 431. hyper refuses heads over about 400 KiB or with more than 100
    /// headers on its own, also with 431.
    pub max_header_bytes: usize,
    /// Requests one partner may have in progress at once; more get 429 with
    /// `Retry-After`, so one partner's burst cannot take every database connection.
    /// Requests naming no configured partner share one such allowance.
    pub max_concurrent_per_partner: usize,
    /// Largest size compressed data (RFC 5402) may expand to, in bytes; beyond it the
    /// message is refused (unexpected-processing-error) instead of exhausting memory.
    pub max_decompressed_bytes: usize,
    /// Path of the PEM certificate partners know the hub by (they encrypt to it and verify
    /// our signed MDNs with it). Required, with `hub_private_key`, to receive encrypted
    /// messages and to sign MDNs; without them only unencrypted messages are accepted and
    /// MDNs are unsigned.
    pub hub_certificate: Option<std::path::PathBuf>,
    /// Path of the PEM private key (PKCS#8 or traditional RSA) of `hub_certificate`,
    /// encrypted under `hub_key_passphrase` or not. Keep the file readable by the
    /// gateway only.
    pub hub_private_key: Option<std::path::PathBuf>,
    /// Encrypts the hub's private keys at rest: `edihub identity set` stores them in the
    /// database as PKCS#8 encrypted under it (PBKDF2, AES-256-CBC), and the gateway
    /// decrypts them (and an encrypted `hub_private_key` file) with it. Give it through
    /// `EDIHUB_HUB_KEY_PASSPHRASE` rather than the settings file. Without it, keys are
    /// stored and read unencrypted.
    pub hub_key_passphrase: Option<Secret>,
    /// The partnerships: who may send, with which certificates and requirements.
    pub partners: Vec<PartnerSettings>,
    /// Delivery of asynchronous MDNs.
    pub async_mdn: AsyncMdnSettings,
    /// How often the gateway re-reads partners and identities from the database even
    /// without a change notification, in milliseconds.
    pub partner_reload_ms: u64,
    /// Accepted messages are written by this many journal writers, each committing the
    /// messages that queued up during its previous commit together (group commit).
    pub journal_writers: usize,
    /// Most messages one journal commit carries.
    pub journal_batch: usize,
    /// How long, in hours, the same signed content from the same partner counts as a
    /// replay: a copy under a new Message-ID within it is answered `processed/warning:
    /// duplicate-document` and not journaled again. 0 turns the check off.
    pub replay_window_hours: u64,
}

/// Asynchronous MDNs go through the outbox (channel `as2-mdn`): the gateway POSTs them
/// after the message's transaction committed and retries with backoff until the
/// partner's server answers 2xx, then FAILED after `retry.max_attempts` (listed and
/// requeued with `edihub outbox failed|requeue`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct AsyncMdnSettings {
    /// Claim size, polling interval, attempts and backoff of the delivery loop.
    pub retry: RelaySettings,
    /// Time allowed for one POST (connect and answer), in milliseconds.
    pub timeout_ms: u64,
    /// The HTTP proxy for the POSTs (`http://proxy:3128`). None (the default): no proxy,
    /// whatever `HTTP_PROXY` and the like say, so the hub connects only to addresses
    /// it checked itself. Through a proxy, the proxy resolves host names: it must then
    /// refuse internal addresses itself (IP literals are still checked by the hub).
    pub proxy: Option<String>,
}

impl Default for AsyncMdnSettings {
    fn default() -> Self {
        Self {
            retry: RelaySettings {
                batch_size: 20,
                poll_interval_ms: 1000,
                linger_ms: 0,
                max_linger_ms: 0,
                linger_rows: 0,
                // About a day with the backoff below: partners' receivers do go down
                // for maintenance windows.
                max_attempts: 30,
                base_backoff_ms: 5_000,
                max_backoff_ms: 60 * 60 * 1000,
            },
            timeout_ms: 30_000,
            proxy: None,
        }
    }
}

/// The gateway's TLS server certificate, re-read while it runs (certificates are
/// renewed without a restart).
#[derive(Debug, Clone, Deserialize)]
pub struct GatewayTlsSettings {
    /// PEM file: the server certificate first, then its intermediates.
    pub certificate: std::path::PathBuf,
    /// PEM file: its private key (PKCS#8, PKCS#1 or SEC1), unencrypted. Keep it
    /// readable by the gateway only.
    pub private_key: std::path::PathBuf,
    /// How often both files are checked for a change, in milliseconds. A change that
    /// does not load is logged and the previous certificate kept.
    #[serde(default = "tls_reload_ms")]
    pub reload_ms: u64,
}

fn tls_reload_ms() -> u64 {
    60_000
}

impl GatewaySettings {
    /// `hub_key_passphrase` as the bytes the key functions take.
    pub fn hub_key_passphrase_bytes(&self) -> Option<&[u8]> {
        self.hub_key_passphrase
            .as_ref()
            .map(|p| p.expose().as_bytes())
    }
}

impl Default for GatewaySettings {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".into(),
            tls: None,
            plain_http: false,
            // Beside the other services' 9101 to 9103.
            ops_listen: "127.0.0.1:9100".into(),
            max_connections: 1024,
            idle_timeout_ms: 30_000,
            body_read_timeout_ms: 30_000,
            // A 64 MiB body may take about 17 minutes, a trickle is cut after 30 s.
            body_min_bytes_per_second: 64 * 1024,
            hub_as2_id: "EDIHUB".into(),
            max_body_bytes: 64 * 1024 * 1024,
            max_header_bytes: 32 * 1024,
            max_concurrent_per_partner: 16,
            max_decompressed_bytes: 256 * 1024 * 1024,
            hub_certificate: None,
            hub_private_key: None,
            hub_key_passphrase: None,
            partners: Vec::new(),
            async_mdn: AsyncMdnSettings::default(),
            partner_reload_ms: 30_000,
            journal_writers: 2,
            journal_batch: 64,
            // A month: partners resend failed transfers within days, and an invoice
            // replayed later is caught by the ERP's own duplicate check.
            replay_window_hours: 30 * 24,
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
    /// How long the relay waits after a NOTIFY before claiming, so that commits arriving
    /// close together share a batch (0: claim at once, whatever the two below say).
    pub linger_ms: u64,
    /// When the commits announced by `linger_ms` hold fewer than `linger_rows` rows, the
    /// relay waits this long instead, without hearing NOTIFYs meanwhile, so that a low
    /// rate is still published in batches. The latency it adds is at most this (per
    /// event of an aggregate: a message's later events wait for a linger of their own,
    /// see `linger_rows`).
    pub max_linger_ms: u64,
    /// The rows that, announced by `linger_ms`, end the linger there.
    /// Fewer rows than this left waiting behind a drain's last batch (later events of
    /// its aggregates) wait for the next linger rather than go in a batch of their own.
    pub linger_rows: u64,
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
            linger_ms: 10,
            max_linger_ms: 50,
            linger_rows: 32,
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
    /// How often the consumer lag gauge (`edihub_consumer_lag`) is refreshed, at the
    /// cost of one watermark query per assigned partition; 0 turns the gauge off.
    pub lag_interval_ms: u64,
    /// Records handed to the handler together, at most: those already fetched when the
    /// first arrives (it never waits for more). The transform and archive consumers
    /// apply such a batch in one transaction; 1 hands over each record alone.
    pub batch_max: usize,
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
            lag_interval_ms: 5000,
            batch_max: 32,
        }
    }
}

/// The audit ledger's sealing (`[archive]`, docs/adr/0006-audit-evidence-and-ledger.md):
/// read by the archive consumer, which seals, and by `edihub audit`, which verifies.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ArchiveSettings {
    /// PEM certificate of the key that signs sealed segments. The archive consumer refuses
    /// to start without it; verifiers trust only this certificate for segment signatures.
    pub seal_certificate: Option<std::path::PathBuf>,
    /// PEM private key (PKCS#8, encrypted when `seal_key_passphrase` is set).
    pub seal_private_key: Option<std::path::PathBuf>,
    pub seal_key_passphrase: Option<Secret>,
    /// Seal once this many archived messages wait...
    pub seal_max_entries: usize,
    /// ...or once the oldest has waited this long.
    pub seal_interval_seconds: u64,
    /// An RFC 3161 timestamp authority; each segment's manifest is timestamped when set.
    pub timestamp_url: Option<String>,
    /// The timestamp authority's certificate (PEM), to verify its tokens.
    pub timestamp_certificate: Option<std::path::PathBuf>,
}

impl Default for ArchiveSettings {
    fn default() -> Self {
        Self {
            seal_certificate: None,
            seal_private_key: None,
            seal_key_passphrase: None,
            seal_max_entries: 1000,
            seal_interval_seconds: 60,
            timestamp_url: None,
            timestamp_certificate: None,
        }
    }
}
