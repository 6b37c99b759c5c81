//! A partnership's outbound settings: how the hub sends AS2 messages to the partner
//! (issue 16). `None` on a [`crate::Partnership`]: the hub sends nothing to it.
//!
//! Both sources write them as `edihub_config::PartnerOutboundSettings` (text and
//! numbers): the settings file's `[gateway.partners.outbound]`, and the database's
//! `partner.outbound` column, which holds that form normalised. [`parse`] reads either,
//! so they accept exactly the same spellings; [`changes`] is how `partner update`
//! changes some fields of a stored one.

pub mod changes;
mod parse;

pub use changes::OutboundChanges;
pub use parse::{normalized, parse};

use crate::options::OptionError;
use edihub_as2::{Encryption, MicAlg};
use edihub_config::PartnerOutboundSettings;

/// A partnership's outbound settings, read by [`parse`] and checked against the number
/// of its certificates (encrypting needs one).
pub fn of_partnership(
    settings: Option<&PartnerOutboundSettings>,
    certificates: usize,
) -> Result<Option<OutboundPartnership>, OptionError> {
    let Some(settings) = settings else {
        return Ok(None);
    };
    let outbound = parse(settings)?;
    outbound.check_certificates(certificates)?;
    Ok(Some(outbound))
}

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
    /// The wait before the first retry, doubling after each up to `max_backoff_ms`.
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

    /// The hub identity that sends: `hub_as2_id`, or else `main` (`gateway.hub_as2_id`).
    pub fn sending_identity<'a>(&'a self, main: &'a str) -> &'a str {
        self.hub_as2_id.as_deref().unwrap_or(main)
    }
}
