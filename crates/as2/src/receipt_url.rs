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
mod tests {
    use super::*;

    fn allowed() -> Vec<String> {
        vec![
            "https://as2.partner.example/mdn".into(),
            "http://10.0.0.5:8080/receipts/".into(),
        ]
    }

    #[test]
    fn listed_urls_are_used_exactly_or_below_a_trailing_slash_entry() {
        assert!(check("https://as2.partner.example/mdn", &allowed()).is_ok());
        assert!(check("HTTPS://AS2.Partner.Example:443/mdn", &allowed()).is_ok());
        assert!(check("http://10.0.0.5:8080/receipts/acme/1", &allowed()).is_ok());
    }

    #[test]
    fn anything_else_is_refused() {
        for refused in [
            "https://as2.partner.example/mdn2",
            "https://as2.partner.example/mdn?x=1",
            "https://as2.partner.example:8443/mdn",
            "http://as2.partner.example/mdn",
            "https://as2.partner.example.evil.test/mdn",
            "http://10.0.0.5:8080/receipts",
            "http://10.0.0.5:8080/receipts/../admin",
            "http://10.0.0.5:8081/receipts/a",
            "http://10.0.0.5:8080/receipts/a?next=http://169.254.169.254/",
            "http://169.254.169.254/latest/meta-data/",
        ] {
            assert_eq!(
                check(refused, &allowed()),
                Err(ReceiptUrlError::NotAllowed(refused.into())),
                "{refused}"
            );
        }
    }

    #[test]
    fn schemes_user_info_and_garbage_are_refused_before_the_list_is_consulted() {
        let everything = vec!["file:///".to_string(), "http://u:p@h/".to_string()];
        assert!(matches!(
            check("file:///etc/passwd", &everything),
            Err(ReceiptUrlError::Scheme(_))
        ));
        assert!(matches!(
            check("http://u:p@h/x", &everything),
            Err(ReceiptUrlError::UserInfo(_))
        ));
        assert!(matches!(
            check("mailto:as2@partner.example", &everything),
            Err(ReceiptUrlError::Scheme(_))
        ));
        assert!(matches!(
            check("not a url", &everything),
            Err(ReceiptUrlError::NotAUrl(_))
        ));
    }

    #[test]
    fn no_entries_means_no_async_mdns() {
        assert!(matches!(
            check("https://as2.partner.example/mdn", &[]),
            Err(ReceiptUrlError::NotAllowed(_))
        ));
    }
}
