use super::*;

#[test]
fn encoded_unreserved_bytes_compare_as_themselves() {
    assert_eq!(
        normalised("/%6Ddn/a%20b").as_deref(),
        Some(&b"/mdn/a b"[..])
    );
    assert_eq!(normalised("/mdn/").as_deref(), Some(&b"/mdn/"[..]));
}

#[test]
fn decodings_that_could_change_the_prefix_are_refused() {
    for ambiguous in [
        "/mdn/..%2f..%2fadmin",
        "/mdn/..%2Fadmin",
        "/mdn/%2e%2e",
        "/mdn/.%2E",
        "/mdn/..%5cadmin",
        "/mdn/%5c..%5c",
        "/mdn/%252e%252e/admin",
        "/mdn/..;/admin",
        "/mdn/.;x/admin",
        "/mdn/a%00b",
        "/mdn/a%0d%0aHost:%20x",
        "/mdn/100%",
    ] {
        assert_eq!(normalised(ambiguous), None, "{ambiguous}");
    }
}

#[test]
fn dots_inside_a_segment_are_not_dot_segments() {
    assert!(normalised("/mdn/a..b/.well-known/x.y").is_some());
    assert!(normalised("/mdn/...").is_some());
}
