//! Host names of receipt URLs are resolved here, and only addresses that pass
//! [`address_allowed`] are handed to the connector: a name the partner controls may
//! point anywhere (`localhost`, `169.254.169.254.nip.io`), and a check before the POST
//! would be undone by a second lookup at connect time (DNS rebinding).

use edihub_as2::receipt_url::{address_allowed, refused_range};
use ipnet::IpNet;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// A host name that resolved, but only to addresses the hub does not POST to. No
/// retry changes that (the partnership's networks travel with the delivery row).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{host} resolves only to addresses the hub does not POST to: {}", Refusals(.refused))]
pub struct AddressRefused {
    pub host: String,
    /// Each address with the name of its range.
    pub refused: Vec<(IpAddr, &'static str)>,
}

struct Refusals<'a>(&'a [(IpAddr, &'static str)]);

impl fmt::Display for Refusals<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (address, range)) in self.0.iter().enumerate() {
            let separator = if i == 0 { "" } else { ", " };
            write!(f, "{separator}{address} ({range})")?;
        }
        Ok(())
    }
}

/// The resolver of one partnership's client: the system's resolver (getaddrinfo on
/// the blocking pool, as reqwest's default), filtered by the partnership's networks.
pub(crate) struct CheckedResolver {
    pub allowed: Arc<[IpNet]>,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allowed = Arc::clone(&self.allowed);
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // The port is replaced by the URL's (reqwest::dns::Resolve).
            let resolved: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if resolved.is_empty() {
                // A DNS answer without addresses may change: retried like a failed lookup.
                let error = std::io::Error::new(std::io::ErrorKind::NotFound, "no addresses");
                return Err(error.into());
            }
            let kept = checked(&host, resolved, &allowed)?;
            let addrs: Addrs = Box::new(kept.into_iter());
            Ok(addrs)
        })
    }
}

/// The addresses of `resolved` the hub may connect to; none: [`AddressRefused`].
pub(crate) fn checked(
    host: &str,
    resolved: Vec<SocketAddr>,
    allowed: &[IpNet],
) -> Result<Vec<SocketAddr>, AddressRefused> {
    let (kept, refused): (Vec<SocketAddr>, Vec<SocketAddr>) = resolved
        .into_iter()
        .partition(|address| address_allowed(address.ip(), allowed));
    if !kept.is_empty() {
        if !refused.is_empty() {
            tracing::info!(host, ?refused, "resolved addresses left out");
        }
        return Ok(kept);
    }
    let refused = refused
        .iter()
        .filter_map(|a| refused_range(a.ip(), allowed).map(|range| (a.ip(), range)))
        .collect();
    Err(AddressRefused {
        host: host.to_owned(),
        refused,
    })
}

#[cfg(test)]
mod tests;
