//! Which addresses the hub POSTs MDNs to: none of its own or its network's (loopback,
//! private, link-local with the cloud metadata address 169.254.169.254, and the other
//! special-purpose ranges of the IANA registries, RFC 6890), unless the partnership
//! allows the network. One rule for IP literals at decision time and for the addresses
//! a host name resolves to at delivery time.

use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const fn v4(a: u8, b: u8, c: u8, d: u8, prefix: u8) -> Ipv4Net {
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), prefix)
}

const fn v6(segments: [u16; 8], prefix: u8) -> Ipv6Net {
    let [a, b, c, d, e, f, g, h] = segments;
    Ipv6Net::new_assert(Ipv6Addr::new(a, b, c, d, e, f, g, h), prefix)
}

/// IPv4 ranges never POSTed to, with the name a refusal gives.
const REFUSED_V4: [(Ipv4Net, &str); 14] = [
    (v4(0, 0, 0, 0, 8), "\"this network\" (0/8, unspecified)"),
    (v4(10, 0, 0, 0, 8), "private (RFC 1918)"),
    (v4(100, 64, 0, 0, 10), "shared (CGNAT, RFC 6598)"),
    (v4(127, 0, 0, 0, 8), "loopback"),
    (v4(169, 254, 0, 0, 16), "link-local (and cloud metadata)"),
    (v4(172, 16, 0, 0, 12), "private (RFC 1918)"),
    (v4(192, 0, 0, 0, 24), "IETF protocol assignment"),
    (v4(192, 0, 2, 0, 24), "documentation"),
    (v4(192, 88, 99, 0, 24), "6to4 relay anycast"),
    (v4(192, 168, 0, 0, 16), "private (RFC 1918)"),
    (v4(198, 18, 0, 0, 15), "benchmarking"),
    (v4(198, 51, 100, 0, 24), "documentation"),
    (v4(203, 0, 113, 0, 24), "documentation"),
    // 224/4 multicast, 240/4 reserved with 255.255.255.255 (broadcast) at its end.
    (v4(224, 0, 0, 0, 3), "multicast, reserved or broadcast"),
];

/// IPv6 ranges never POSTed to. The ranges that embed an IPv4 address (mapped, NAT64,
/// 6to4) are judged by that address instead, see [`embedded_v4`].
const REFUSED_V6: [(Ipv6Net, &str); 11] = [
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 128), "unspecified"),
    (v6([0, 0, 0, 0, 0, 0, 0, 1], 128), "loopback"),
    (
        v6([0, 0, 0, 0, 0, 0, 0, 0], 96),
        "IPv4-compatible (deprecated)",
    ),
    (v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48), "local-use NAT64"),
    (v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), "discard-only"),
    (
        v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23),
        "IETF protocol assignment (Teredo and others)",
    ),
    (v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), "documentation"),
    (v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), "documentation"),
    (
        v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7),
        "unique local (private)",
    ),
    (
        v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 9),
        "link-local or site-local",
    ),
    (v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), "multicast"),
];

/// Whether the hub may POST to `address` for a partnership allowing `allowed`.
pub fn address_allowed(address: IpAddr, allowed: &[IpNet]) -> bool {
    refused_range(address, allowed).is_none()
}

/// The name of the special-purpose range `address` is in, unless it is in one of the
/// `allowed` networks (an IPv4-mapped IPv6 address also counts as its IPv4 address
/// there); `None`: the address may be used.
pub fn refused_range(address: IpAddr, allowed: &[IpNet]) -> Option<&'static str> {
    let mapped = match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4),
        IpAddr::V4(_) => None,
    };
    let permitted = allowed
        .iter()
        .any(|net| net.contains(&address) || mapped.is_some_and(|v4| net.contains(&v4)));
    if permitted {
        return None;
    }
    special_range(address)
}

fn special_range(address: IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(v4) => REFUSED_V4
            .iter()
            .find(|(net, _)| net.contains(&v4))
            .map(|(_, name)| *name),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => special_range(IpAddr::V4(v4)),
            None => REFUSED_V6
                .iter()
                .find(|(net, _)| net.contains(&v6))
                .map(|(_, name)| *name),
        },
    }
}

/// The IPv4 address that a connection to `v6` reaches: IPv4-mapped (`::ffff:a.b.c.d`),
/// NAT64 well-known prefix (`64:ff9b::a.b.c.d`, RFC 6052) or 6to4 (`2002:AABB:CCDD::`).
fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = v6.segments();
    let octets = v6.octets();
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(Ipv4Addr::new(
            octets[12], octets[13], octets[14], octets[15],
        ));
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(octets[2], octets[3], octets[4], octets[5]));
    }
    None
}

#[cfg(test)]
mod tests;
