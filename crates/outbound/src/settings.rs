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
    /// `max_attempts` applies when it is lower.
    pub retry: RelaySettings,
    /// Time allowed to connect, in milliseconds; a partnership's `timeout_ms` bounds the
    /// whole POST.
    pub connect_timeout_ms: u64,
    /// The HTTP proxy for the POSTs; none (the default): no proxy, whatever
    /// `HTTP_PROXY` says, so the hub connects only to addresses it checked.
    pub proxy: Option<String>,
}

impl Default for SenderSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            retry: RelaySettings {
                batch_size: 20,
                poll_interval_ms: 1000,
                max_attempts: 10,
                base_backoff_ms: 30_000,
                max_backoff_ms: 60 * 60 * 1000,
            },
            connect_timeout_ms: 30_000,
            proxy: None,
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
