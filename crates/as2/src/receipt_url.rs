//! The asynchronous MDN URL (`Receipt-Delivery-Option`, RFC 4130 section 7.3) is chosen
//! by whoever sends the message. POSTing to it unchecked would let anyone who can reach
//! the gateway make the hub send requests into its own network (SSRF), so a URL is used
//! only when the partnership lists it.

use url::Url;

/// Why a requested receipt URL is not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiptUrlError {
    #[error("Receipt-Delivery-Option {0:?} is not a URL")]
    NotAUrl(String),
    #[error("Receipt-Delivery-Option {0:?}: only http and https are used")]
    Scheme(String),
    #[error("Receipt-Delivery-Option {0:?}: URLs with user info are not used")]
    UserInfo(String),
    #[error("Receipt-Delivery-Option {0:?} is not among the partnership's async MDN URLs")]
    NotAllowed(String),
}

/// Checks `requested` against the partnership's `allowed` entries and returns the URL to
/// POST to. An entry matches the same URL exactly (after normalisation: scheme and host
/// case, default port, `.` and `..` segments), or, when its path ends with `/`, any URL on
/// the same scheme, host and port whose path starts with it and has no query.
pub fn check(requested: &str, allowed: &[String]) -> Result<Url, ReceiptUrlError> {
    let requested = requested.trim();
    let url = Url::parse(requested).map_err(|_| ReceiptUrlError::NotAUrl(requested.into()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ReceiptUrlError::Scheme(requested.into()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ReceiptUrlError::UserInfo(requested.into()));
    }
    let permitted = allowed
        .iter()
        .filter_map(|entry| Url::parse(entry.trim()).ok())
        .any(|entry| entry_matches(&entry, &url));
    if permitted {
        Ok(url)
    } else {
        Err(ReceiptUrlError::NotAllowed(requested.into()))
    }
}

fn entry_matches(entry: &Url, url: &Url) -> bool {
    if entry.fragment().is_some() || url.fragment().is_some() {
        return false;
    }
    if entry == url {
        return true;
    }
    let same_origin = entry.scheme() == url.scheme()
        && entry.host() == url.host()
        && entry.port_or_known_default() == url.port_or_known_default();
    same_origin
        && entry.query().is_none()
        && url.query().is_none()
        && entry.path().ends_with('/')
        && url.path().starts_with(entry.path())
}

#[cfg(test)]
mod tests;
