use super::*;

fn ip(text: &str) -> IpAddr {
    text.parse().expect("an IP address")
}

fn net(text: &str) -> IpNet {
    text.parse().expect("a network")
}

#[test]
fn special_purpose_ipv4_ranges_are_refused() {
    for (address, range) in [
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "this network"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.255", "private"),
        ("192.168.1.1", "private"),
        ("100.64.0.1", "CGNAT"),
        ("100.127.255.254", "CGNAT"),
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("169.254.169.254", "metadata"),
        ("169.254.0.1", "link-local"),
        ("192.0.0.8", "IETF"),
        ("192.0.2.10", "documentation"),
        ("198.51.100.7", "documentation"),
        ("203.0.113.99", "documentation"),
        ("198.18.0.1", "benchmarking"),
        ("224.0.0.251", "multicast"),
        ("239.255.255.250", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "broadcast"),
    ] {
        let refused = refused_range(ip(address), &[]);
        assert!(
            refused.is_some_and(|name| name.contains(range)),
            "{address}: {refused:?}"
        );
    }
}

#[test]
fn special_purpose_ipv6_ranges_are_refused() {
    for (address, range) in [
        ("::", "unspecified"),
        ("::1", "loopback"),
        ("::7f00:1", "IPv4-compatible"),
        ("fc00::1", "unique local"),
        ("fd12:3456::1", "unique local"),
        ("fe80::1", "link-local"),
        ("febf::1", "link-local"),
        ("fec0::1", "site-local"),
        ("ff02::1", "multicast"),
        ("2001:db8::1", "documentation"),
        ("3fff::1", "documentation"),
        ("100::1", "discard"),
        ("2001::1", "Teredo"),
        ("64:ff9b:1::1", "NAT64"),
    ] {
        let refused = refused_range(ip(address), &[]);
        assert!(
            refused.is_some_and(|name| name.contains(range)),
            "{address}: {refused:?}"
        );
    }
}

#[test]
fn ipv6_forms_of_internal_ipv4_addresses_are_judged_as_those() {
    for (address, range) in [
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:7f00:1", "loopback"),
        ("::ffff:169.254.169.254", "metadata"),
        ("::ffff:10.0.0.1", "private"),
        ("64:ff9b::a9fe:a9fe", "metadata"),
        ("64:ff9b::192.168.0.1", "private"),
        ("2002:7f00:1::", "loopback"),
        ("2002:a00:1::1", "private"),
    ] {
        let refused = refused_range(ip(address), &[]);
        assert!(
            refused.is_some_and(|name| name.contains(range)),
            "{address}: {refused:?}"
        );
    }
    // Their public counterparts are fine.
    for public in [
        "::ffff:93.184.216.34",
        "64:ff9b::93.184.216.34",
        "2002:5db8:d822::1",
    ] {
        assert_eq!(refused_range(ip(public), &[]), None, "{public}");
    }
}

#[test]
fn public_addresses_are_allowed() {
    for public in [
        "93.184.216.34",
        "8.8.8.8",
        "100.63.255.255",
        "100.128.0.0",
        "172.15.255.255",
        "172.32.0.0",
        "169.253.255.255",
        "223.255.255.255",
        "2a00:1450:4001:82b::200e",
        "2001:4860:4860::8888",
    ] {
        assert!(address_allowed(ip(public), &[]), "{public}");
    }
}

#[test]
fn an_allowed_network_lets_its_addresses_through_and_no_others() {
    let allowed = [net("127.0.0.0/8"), net("10.20.0.0/16"), net("fd00:1::/32")];
    for permitted in ["127.0.0.1", "10.20.3.4", "::ffff:127.0.0.1", "fd00:1::5"] {
        assert!(address_allowed(ip(permitted), &allowed), "{permitted}");
    }
    for refused in [
        "::1",
        "10.21.0.1",
        "169.254.169.254",
        "192.168.0.1",
        "fd00:2::5",
    ] {
        assert!(!address_allowed(ip(refused), &allowed), "{refused}");
    }
}
