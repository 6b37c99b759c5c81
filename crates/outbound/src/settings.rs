//! The sender's settings (`[outbound]` in the outbox relay's settings).

use edihub_config::{AsyncMdnSettings, RelaySettings};
use serde::Deserialize;

/// How the outbox relay sends outbound AS2 messages.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct SenderSettings {
    /// Run the sender (default true). Without a partnership with outbound settings it
    /// only polls an empty channel.
    pub enabled: bool,
    /// Claim size, polling interval, attempts and backoff. A partnership's own
    /// `max_attempts` applies when it is lower, and its own backoff to its messages'
    /// retries (this one only to rows that reached no partnership).
    pub retry: RelaySettings,
    /// Time allowed to connect, in milliseconds; a partnership's `timeout_ms` bounds the
    /// whole POST.
    pub connect_timeout_ms: u64,
    /// The HTTP proxy for the POSTs; none (the default): no proxy, whatever
    /// `HTTP_PROXY` says, so the hub connects only to addresses it checked.
    pub proxy: Option<String>,
    /// How often `sent` messages are checked for an overdue asynchronous MDN (each
    /// partnership's `mdn_timeout_ms`), in milliseconds.
    pub mdn_timeout_sweep_ms: u64,
    /// Consume `OutboundRequested` events from `kafka.topics.outbound_requested` (default
    /// true), as the consumer group of `[outbound_requests]`.
    pub requests: bool,
    /// The bucket (on `[s3]`'s endpoint) that requests' claim checks may point into;
    /// none (the default): only inline documents are taken.
    pub claim_check_bucket: Option<String>,
    /// The largest document a request may carry or point to, in bytes.
    pub max_document_bytes: u64,
}

impl Default for SenderSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            retry: RelaySettings {
                batch_size: 20,
                poll_interval_ms: 1000,
                linger_ms: 0,
                max_linger_ms: 0,
                linger_rows: 0,
                max_attempts: 10,
                base_backoff_ms: 30_000,
                max_backoff_ms: 60 * 60 * 1000,
            },
            connect_timeout_ms: 30_000,
            proxy: None,
            mdn_timeout_sweep_ms: 10_000,
            requests: true,
            claim_check_bucket: None,
            max_document_bytes: 50 * 1024 * 1024,
        }
    }
}

impl SenderSettings {
    /// The same connection rules as asynchronous MDNs: the HTTP clients are theirs.
    pub(crate) fn client_settings(&self) -> AsyncMdnSettings {
        AsyncMdnSettings {
            retry: self.retry.clone(),
            timeout_ms: self.connect_timeout_ms,
            proxy: self.proxy.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_interval_is_a_setting_and_the_rest_keeps_its_defaults() {
        let read: SenderSettings =
            serde_json::from_value(serde_json::json!({ "mdn_timeout_sweep_ms": 500 }))
                .expect("settings");
        assert_eq!(read.mdn_timeout_sweep_ms, 500);
        assert_eq!(SenderSettings::default().mdn_timeout_sweep_ms, 10_000);
        assert!(read.enabled && read.proxy.is_none());
    }
}
