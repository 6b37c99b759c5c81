use super::*;

fn socket(text: &str) -> SocketAddr {
    SocketAddr::new(text.parse().expect("an address"), 0)
}

#[test]
fn refused_addresses_are_left_out_and_the_rest_kept() {
    let resolved = vec![socket("127.0.0.1"), socket("93.184.216.34"), socket("::1")];
    let kept = checked("mixed.example", resolved, &[]).expect("one public address");
    assert_eq!(kept, vec![socket("93.184.216.34")]);
}

#[test]
fn only_refused_addresses_is_an_error_naming_them() {
    let resolved = vec![socket("127.0.0.1"), socket("::1")];
    let refused = checked("localhost", resolved, &[]).expect_err("nothing left");
    assert_eq!(refused.refused.len(), 2);
    let text = refused.to_string();
    assert!(text.starts_with("localhost resolves only to"), "{text}");
    assert!(
        text.contains("127.0.0.1 (loopback), ::1 (loopback)"),
        "{text}"
    );
}

#[test]
fn allowed_networks_keep_their_addresses() {
    let allowed: Vec<IpNet> = vec!["127.0.0.0/8".parse().expect("a network")];
    let resolved = vec![socket("127.0.0.1"), socket("::1")];
    let kept = checked("localhost", resolved, &allowed).expect("127.0.0.1 is allowed");
    assert_eq!(kept, vec![socket("127.0.0.1")]);
}
