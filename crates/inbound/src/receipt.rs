//! Where the MDN of a message goes (RFC 4130 section 7.3): in the HTTP response, or
//! POSTed later to the URL the partner named in `Receipt-Delivery-Option`, but only
//! when its partnership allows that URL, so the hub never POSTs where it was not told to.

use edihub_as2::As2Headers;
use edihub_as2::receipt_url::{self, ReceiptUrlError};
use edihub_partners::Partnership;
use url::Url;

/// Where the MDN for one message goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceiptDelivery {
    /// In the HTTP response; nowhere when the partner asked for no MDN at all.
    InResponse,
    /// POSTed to this URL, which the partnership allows.
    Async(Url),
    /// The partner asked for a URL its partnership does not allow: it is never used.
    Disallowed(ReceiptUrlError),
}

/// The partner's `Receipt-Delivery-Option`, when it asked for an MDN at all, checked
/// against its partnership (`None`: AS2-From is no partner, so no URL is allowed).
pub fn receipt_delivery(as2: &As2Headers, partner: Option<&Partnership>) -> ReceiptDelivery {
    let requested = match &as2.receipt_delivery_option {
        Some(url) if as2.mdn_requested() => url,
        _ => return ReceiptDelivery::InResponse,
    };
    let (allowed, networks) = partner
        .map(|p| {
            (
                p.async_mdn_urls.as_slice(),
                p.async_mdn_allowed_networks.as_slice(),
            )
        })
        .unwrap_or_default();
    match receipt_url::check(requested, allowed, networks) {
        Ok(url) => ReceiptDelivery::Async(url),
        Err(refused) => ReceiptDelivery::Disallowed(refused),
    }
}
