//! The asynchronous MDN URL (`Receipt-Delivery-Option`, RFC 4130 section 7.3) is chosen
//! by whoever sends the message. POSTing to it unchecked would let anyone who can reach
//! the gateway make the hub send requests into its own network (SSRF), so a URL is used
//! only when the partnership lists it, its path means the same to every server that
//! decodes it ([`path`]), and the address it names is not an internal one ([`address`])
//! unless the partnership allows that network.
//!
//! A host name is judged here by its spelling only: the addresses it resolves to are
//! judged by whoever connects, with [`address_allowed`], at delivery time.

mod address;
mod path;
mod redact;

pub use address::{address_allowed, refused_range};
pub use redact::redacted;

use ipnet::IpNet;
use std::net::IpAddr;
use url::{Host, Url};

/// Why a requested receipt URL is not used. The URLs in it are [`redacted`]: these
/// texts go into MDNs and refusal records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiptUrlError {
    #[error("Receipt-Delivery-Option {0:?} is not a URL")]
    NotAUrl(String),
    #[error("Receipt-Delivery-Option {0:?}: only http and https are used")]
    Scheme(String),
    #[error("Receipt-Delivery-Option {0:?}: URLs with user info are not used")]
    UserInfo(String),
    #[error(
        "Receipt-Delivery-Option {0:?}: its path is ambiguous once decoded \
         (an encoded '/', '\\', '%' or dot segment, or a control character)"
    )]
    Path(String),
    #[error("Receipt-Delivery-Option {0:?} is not among the partnership's async MDN URLs")]
    NotAllowed(String),
    #[error(
        "Receipt-Delivery-Option {url:?}: {address} is a {range} address, outside the \
         partnership's async MDN networks"
    )]
    Address {
        url: String,
        address: IpAddr,
        range: &'static str,
    },
}

/// Checks `requested` against the partnership's `allowed` entries and `networks`, and
/// returns the URL to POST to.
///
/// An entry matches the same URL exactly (after normalisation: scheme and host case,
/// default port, dot segments, percent-encoding), or, when its path ends with `/`, any
/// URL on the same scheme, host and port whose normalised path starts with it and has
/// no query. A host that is an IP address must pass [`address_allowed`] with `networks`.
pub fn check(
    requested: &str,
    allowed: &[String],
    networks: &[IpNet],
) -> Result<Url, ReceiptUrlError> {
    let url = check_entry(requested)?;
    let shown = || redacted(requested.trim());
    let permitted = Target::of(&url).is_some_and(|target| {
        allowed
            .iter()
            .filter_map(|entry| check_entry(entry).ok())
            .any(|entry| Target::of(&entry).is_some_and(|entry| entry.covers(&target)))
    });
    if !permitted {
        return Err(ReceiptUrlError::NotAllowed(shown()));
    }
    if let Some(address) = ip_literal(&url)
        && let Some(range) = refused_range(address, networks)
    {
        return Err(ReceiptUrlError::Address {
            url: shown(),
            address,
            range,
        });
    }
    Ok(url)
}

/// Whether `entry` can be an async MDN URL at all (an http or https URL without user
/// info whose path is unambiguous), judged by its spelling alone, as for an entry of a
/// partnership's list.
pub fn check_entry(entry: &str) -> Result<Url, ReceiptUrlError> {
    let entry = entry.trim();
    let url = Url::parse(entry).map_err(|_| ReceiptUrlError::NotAUrl(redacted(entry)))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ReceiptUrlError::Scheme(redacted(entry)));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ReceiptUrlError::UserInfo(redacted(entry)));
    }
    if path::normalised(url.path()).is_none() {
        return Err(ReceiptUrlError::Path(redacted(entry)));
    }
    Ok(url)
}

/// The address of a URL whose host is an IP literal (`http://10.0.0.1/`, `http://[::1]/`;
/// the URL parser already turned forms like `http://2130706433/` into one).
pub fn ip_literal(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
        Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
        Host::Domain(_) => None,
    }
}

/// What an entry and a requested URL are compared on.
struct Target<'a> {
    url: &'a Url,
    path: Vec<u8>,
}

impl<'a> Target<'a> {
    fn of(url: &'a Url) -> Option<Self> {
        if url.fragment().is_some() {
            return None;
        }
        Some(Self {
            url,
            path: path::normalised(url.path())?,
        })
    }

    /// Whether this entry allows `requested`.
    fn covers(&self, requested: &Target<'_>) -> bool {
        let (entry, url) = (self.url, requested.url);
        let same_origin = entry.scheme() == url.scheme()
            && entry.host() == url.host()
            && entry.port_or_known_default() == url.port_or_known_default();
        if !same_origin {
            return false;
        }
        if self.path == requested.path && entry.query() == url.query() {
            return true;
        }
        entry.query().is_none()
            && url.query().is_none()
            && self.path.ends_with(b"/")
            && requested.path.starts_with(&self.path)
    }
}

#[cfg(test)]
mod tests;
