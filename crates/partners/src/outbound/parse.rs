//! The one reader of outbound settings, for the settings file and the database alike.

use super::{MdnRequest, OutboundPartnership};
use crate::options::{self, OptionError};
use edihub_as2::receipt_url::{self, ReceiptUrlError};
use edihub_as2::{Encryption, MicAlg};
use edihub_config::PartnerOutboundSettings;

/// The outbound partnership `settings` describe, every field checked; what they leave
/// out takes [`OutboundPartnership::new`]'s default. What depends on the rest of the
/// partnership (a certificate to encrypt to, a key to sign with) is checked where the
/// directory is built.
pub fn parse(settings: &PartnerOutboundSettings) -> Result<OutboundPartnership, OptionError> {
    let defaults = OutboundPartnership::new(String::new());
    let url = http_url("url", &settings.url)?;
    let hub_as2_id = match settings.hub_as2_id.as_deref() {
        None | Some("") => None,
        Some(id) if options::is_as2_id(id) => Some(id.to_owned()),
        Some(id) => return Err(OptionError::OutboundHubId { id: id.to_owned() }),
    };
    let parsed = OutboundPartnership {
        url,
        hub_as2_id,
        sign: or_default(digest("sign", settings.sign.as_deref())?, defaults.sign),
        encrypt: or_default(cipher(settings.encrypt.as_deref())?, defaults.encrypt),
        compress: settings.compress,
        mdn: mdn(settings)?,
        timeout_ms: at_least_one("timeout_ms", settings.timeout_ms, defaults.timeout_ms)?,
        mdn_timeout_ms: at_least_one(
            "mdn_timeout_ms",
            settings.mdn_timeout_ms,
            defaults.mdn_timeout_ms,
        )?,
        max_attempts: at_least_one("max_attempts", settings.max_attempts, defaults.max_attempts)?,
        base_backoff_ms: at_least_one(
            "base_backoff_ms",
            settings.base_backoff_ms,
            defaults.base_backoff_ms,
        )?,
        max_backoff_ms: settings.max_backoff_ms.unwrap_or(defaults.max_backoff_ms),
    };
    if parsed.base_backoff_ms > parsed.max_backoff_ms {
        return Err(OptionError::OutboundBackoff {
            base: parsed.base_backoff_ms,
            max: parsed.max_backoff_ms,
        });
    }
    Ok(parsed)
}

/// `settings` checked and written out in full, in the spelling the database stores
/// (every default explicit, names as edihub writes them).
pub fn normalized(
    settings: &PartnerOutboundSettings,
) -> Result<PartnerOutboundSettings, OptionError> {
    Ok(parse(settings)?.settings())
}

impl OutboundPartnership {
    /// The text form that [`parse`] reads back into `self`.
    pub fn settings(&self) -> PartnerOutboundSettings {
        let digest = |alg: Option<MicAlg>| alg.map_or("none", |a| a.as_str()).to_owned();
        let (mdn, mdn_signed, async_mdn_url) = match &self.mdn {
            MdnRequest::None => ("none", None, None),
            MdnRequest::Sync { signed } => ("sync", Some(digest(*signed)), None),
            MdnRequest::Async { signed, return_url } => {
                ("async", Some(digest(*signed)), Some(return_url.clone()))
            }
        };
        PartnerOutboundSettings {
            url: self.url.clone(),
            hub_as2_id: self.hub_as2_id.clone(),
            sign: Some(digest(self.sign)),
            encrypt: Some(self.encrypt.map_or("none", |c| c.as_str()).to_owned()),
            compress: self.compress,
            mdn: Some(mdn.to_owned()),
            mdn_signed,
            async_mdn_url,
            timeout_ms: Some(self.timeout_ms),
            mdn_timeout_ms: Some(self.mdn_timeout_ms),
            max_attempts: Some(self.max_attempts),
            base_backoff_ms: Some(self.base_backoff_ms),
            max_backoff_ms: Some(self.max_backoff_ms),
        }
    }

    /// Encrypting needs a certificate of the partner's to encrypt to.
    pub fn check_certificates(&self, certificates: usize) -> Result<(), OptionError> {
        match self.encrypt {
            Some(cipher) if certificates == 0 => Err(OptionError::OutboundNoCertificate {
                cipher: cipher.as_str(),
            }),
            _ => Ok(()),
        }
    }
}

/// A given choice (`Some(None)` is an explicit `none`) or the default.
fn or_default<T>(given: Option<Option<T>>, default: Option<T>) -> Option<T> {
    given.unwrap_or(default)
}

/// An http or https URL without user info, as the URL parser writes it.
fn http_url(option: &'static str, text: &str) -> Result<String, OptionError> {
    receipt_url::check_entry(text)
        .map(|url| url.to_string())
        .map_err(|error| {
            let (url, problem) = match error {
                ReceiptUrlError::NotAUrl(url) => (url, "is not a URL"),
                ReceiptUrlError::Scheme(url) => (url, "only http and https are used"),
                ReceiptUrlError::UserInfo(url) => (url, "user info is not allowed in it"),
                ReceiptUrlError::Path(url) => (url, "its path is ambiguous once decoded"),
                // `check_entry` gives none of the other errors.
                _ => (receipt_url::redacted(text.trim()), "is not usable"),
            };
            OptionError::OutboundUrl {
                option,
                url,
                problem,
            }
        })
}

/// `None`: not given; `Some(None)`: `none`.
fn digest(option: &'static str, name: Option<&str>) -> Result<Option<Option<MicAlg>>, OptionError> {
    match name.map(str::trim) {
        None => Ok(None),
        Some(n) if n.eq_ignore_ascii_case("none") => Ok(Some(None)),
        Some(n) => {
            MicAlg::parse(n)
                .map(|alg| Some(Some(alg)))
                .ok_or_else(|| OptionError::OutboundDigest {
                    option,
                    name: n.to_owned(),
                })
        }
    }
}

fn cipher(name: Option<&str>) -> Result<Option<Option<Encryption>>, OptionError> {
    match name.map(str::trim) {
        None => Ok(None),
        Some(n) if n.eq_ignore_ascii_case("none") => Ok(Some(None)),
        Some(n) => Encryption::parse(n)
            .map(|c| Some(Some(c)))
            .ok_or_else(|| OptionError::OutboundCipher { name: n.to_owned() }),
    }
}

fn mdn(settings: &PartnerOutboundSettings) -> Result<MdnRequest, OptionError> {
    let kind = match settings.mdn.as_deref().map(str::trim) {
        None => "sync",
        Some(name) => match name.to_ascii_lowercase().as_str() {
            "none" => "none",
            "sync" => "sync",
            "async" => "async",
            _ => {
                return Err(OptionError::OutboundMdn {
                    name: name.to_owned(),
                });
            }
        },
    };
    let signed = || {
        Ok::<_, OptionError>(or_default(
            digest("mdn_signed", settings.mdn_signed.as_deref())?,
            Some(MicAlg::Sha256),
        ))
    };
    let return_url = settings.async_mdn_url.as_deref();
    match (kind, return_url) {
        ("async", None) => Err(OptionError::OutboundAsyncMdnUrlMissing),
        ("async", Some(url)) => Ok(MdnRequest::Async {
            signed: signed()?,
            return_url: http_url("async_mdn_url", url)?,
        }),
        (mdn, Some(_)) => Err(OptionError::OutboundAsyncMdnUrlUnused { mdn }),
        ("none", None) if settings.mdn_signed.is_some() => {
            Err(OptionError::OutboundMdnSignedUnused)
        }
        ("none", None) => Ok(MdnRequest::None),
        _ => Ok(MdnRequest::Sync { signed: signed()? }),
    }
}

/// A number of milliseconds or attempts: 0 would retry without pause or never try.
fn at_least_one<T: Copy + PartialEq + From<u8>>(
    option: &'static str,
    value: Option<T>,
    default: T,
) -> Result<T, OptionError> {
    match value {
        Some(v) if v == T::from(0) => Err(OptionError::OutboundZero { option }),
        Some(v) => Ok(v),
        None => Ok(default),
    }
}

#[cfg(test)]
mod tests;
