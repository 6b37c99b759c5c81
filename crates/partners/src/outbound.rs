//! A partnership's outbound settings: how the hub sends AS2 messages to the partner
//! (issue 16). `None` on a [`crate::Partnership`]: the hub sends nothing to it.

use edihub_as2::{Encryption, MicAlg};

/// How documents (and CONTRLs) are sent to one partner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboundPartnership {
    /// The partner's AS2 endpoint (`https://...`; `http` only where the partnership says
    /// so in its URL).
    pub url: String,
    /// Which of the hub's identities sends (AS2-From, and the signing key); `None`: the
    /// main one (`gateway.hub_as2_id`).
    pub hub_as2_id: Option<String>,
    /// Sign with this digest; `None`: unsigned.
    pub sign: Option<MicAlg>,
    /// Encrypt to the partner's first certificate with this cipher; `None`: unencrypted.
    pub encrypt: Option<Encryption>,
    /// Compress (RFC 5402) before signing.
    pub compress: bool,
    /// The MDN the hub asks for.
    pub mdn: MdnRequest,
    /// Time allowed for one POST (connect and answer), in milliseconds.
    pub timeout_ms: u64,
    /// How long an asynchronous MDN may take before the message is sent again (same
    /// Message-ID), in milliseconds.
    pub mdn_timeout_ms: u64,
    /// Attempts in all (POSTs and resends) before the message is FAILED.
    pub max_attempts: u32,
    pub base_backoff_ms: u64,
    pub max_backoff_ms: u64,
}

/// The MDN asked for in `Disposition-Notification-To` / `-Options`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MdnRequest {
    /// No MDN: a 2xx answer delivers the message.
    None,
    /// In the HTTP response; signed with `signed`'s digest as micalg when set.
    Sync { signed: Option<MicAlg> },
    /// POSTed later to `return_url` (the gateway's `/as2`), which the hub advertises in
    /// `Receipt-Delivery-Option`.
    Async {
        signed: Option<MicAlg>,
        return_url: String,
    },
}

impl OutboundPartnership {
    /// Defaults for what the settings do not say: 30 s per POST, 20 minutes for an
    /// asynchronous MDN, 10 attempts, backoff from 30 s doubling to an hour.
    pub fn new(url: String) -> Self {
        Self {
            url,
            hub_as2_id: None,
            sign: Some(MicAlg::Sha256),
            encrypt: Some(Encryption::Aes256Cbc),
            compress: false,
            mdn: MdnRequest::Sync {
                signed: Some(MicAlg::Sha256),
            },
            timeout_ms: 30_000,
            mdn_timeout_ms: 20 * 60 * 1000,
            max_attempts: 10,
            base_backoff_ms: 30_000,
            max_backoff_ms: 60 * 60 * 1000,
        }
    }
}
