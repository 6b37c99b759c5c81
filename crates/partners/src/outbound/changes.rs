//! Changing some fields of a stored outbound setting (`edihub partner update
//! --outbound-...`), the rest kept.

use super::normalized;
use crate::options::OptionError;
use edihub_config::PartnerOutboundSettings;

/// The fields to change, as text like [`PartnerOutboundSettings`]'s; `None` keeps a
/// field (or, with no current setting, takes its default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutboundChanges {
    pub url: Option<String>,
    /// Empty: the main identity again.
    pub hub_as2_id: Option<String>,
    pub sign: Option<String>,
    pub encrypt: Option<String>,
    pub compress: Option<bool>,
    pub mdn: Option<String>,
    pub mdn_signed: Option<String>,
    pub async_mdn_url: Option<String>,
    pub timeout_ms: Option<u64>,
    pub mdn_timeout_ms: Option<u64>,
    pub max_attempts: Option<u32>,
    pub base_backoff_ms: Option<u64>,
    pub max_backoff_ms: Option<u64>,
}

impl OutboundChanges {
    /// Whether any field is to change.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// `current` with these changes, checked and normalised. Without a current setting
    /// a url must be given. Changing `mdn` drops what the new kind does not use
    /// (`async_mdn_url` unless async, `mdn_signed` when none) unless also given.
    pub fn apply(
        &self,
        current: Option<&PartnerOutboundSettings>,
    ) -> Result<PartnerOutboundSettings, OptionError> {
        let mut next = match (current, &self.url) {
            (Some(current), _) => current.clone(),
            (None, Some(url)) => PartnerOutboundSettings {
                url: url.clone(),
                ..PartnerOutboundSettings::default()
            },
            (None, None) => return Err(OptionError::OutboundNoUrl),
        };
        if let Some(mdn) = &self.mdn {
            let kind = mdn.trim().to_ascii_lowercase();
            if kind != "async" {
                next.async_mdn_url = None;
            }
            if kind == "none" {
                next.mdn_signed = None;
            }
        }
        let text = |field: &mut Option<String>, change: &Option<String>| {
            if change.is_some() {
                field.clone_from(change);
            }
        };
        if let Some(url) = &self.url {
            next.url.clone_from(url);
        }
        text(&mut next.hub_as2_id, &self.hub_as2_id);
        text(&mut next.sign, &self.sign);
        text(&mut next.encrypt, &self.encrypt);
        text(&mut next.mdn, &self.mdn);
        text(&mut next.mdn_signed, &self.mdn_signed);
        text(&mut next.async_mdn_url, &self.async_mdn_url);
        next.compress = self.compress.unwrap_or(next.compress);
        next.timeout_ms = self.timeout_ms.or(next.timeout_ms);
        next.mdn_timeout_ms = self.mdn_timeout_ms.or(next.mdn_timeout_ms);
        next.max_attempts = self.max_attempts.or(next.max_attempts);
        next.base_backoff_ms = self.base_backoff_ms.or(next.base_backoff_ms);
        next.max_backoff_ms = self.max_backoff_ms.or(next.max_backoff_ms);
        normalized(&next)
    }
}
