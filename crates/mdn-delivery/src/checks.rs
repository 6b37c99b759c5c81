//! What every POST the hub makes to a partner checks, before and after connecting: an
//! IP-literal host against the partnership's networks (reqwest's resolver, where host
//! names are checked, never sees one), and whether a failed send was the resolver
//! refusing every address. Shared by the async MDN poster and outbound AS2.

use crate::AddressRefused;
use edihub_as2::receipt_url;
use ipnet::IpNet;
use std::net::IpAddr;
use url::Url;

/// Why a URL is not POSTed to at all.
#[derive(Debug)]
pub enum UrlRefused {
    NotAUrl(url::ParseError),
    /// An IP-literal host in a range outside `allowed`.
    Address {
        address: IpAddr,
        range: &'static str,
    },
}

/// `url`, when the hub may connect to it: a URL whose IP-literal host, if it has one, is
/// public or in `allowed`.
pub fn checked_url(url: &str, allowed: &[IpNet]) -> Result<Url, UrlRefused> {
    let parsed = Url::parse(url).map_err(UrlRefused::NotAUrl)?;
    if let Some(address) = receipt_url::ip_literal(&parsed)
        && let Some(range) = receipt_url::refused_range(address, allowed)
    {
        return Err(UrlRefused::Address { address, range });
    }
    Ok(parsed)
}

/// What a failed send comes to.
pub enum SendFailure {
    /// The resolver found only addresses the hub does not connect to: no retry helps.
    Refused(AddressRefused),
    /// Anything else; `cause` is the innermost error's text (a refused certificate, a
    /// reset connection), since reqwest's own says only that sending failed.
    Other { cause: String },
}

pub fn send_failure(error: &reqwest::Error) -> SendFailure {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut innermost = error.to_string();
    while let Some(current) = cause {
        if let Some(refused) = current.downcast_ref::<AddressRefused>() {
            return SendFailure::Refused(refused.clone());
        }
        innermost = current.to_string();
        cause = current.source();
    }
    SendFailure::Other { cause: innermost }
}
