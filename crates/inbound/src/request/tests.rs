use super::*;

const HEADERS: [(&str, &[u8]); 4] = [
    ("as2-from", b"A"),
    ("as2-to", b"HUB"),
    ("message-id", b"<m1@a>"),
    ("content-type", b"application/edifact"),
];

fn section_size() -> usize {
    HEADERS.iter().map(|(n, v)| n.len() + v.len() + 4).sum()
}

#[test]
fn headers_within_the_limit_are_read() {
    let as2 = read_headers(&HEADERS, section_size()).expect("readable");
    assert_eq!(as2.as2_from, "A");
    assert_eq!(as2.message_id, "m1@a");
}

#[test]
fn a_header_section_over_the_limit_is_refused_before_it_is_parsed() {
    let limit = section_size() - 1;
    // No AS2-From either: the size is what is reported, so nothing else was looked at.
    match read_headers(&HEADERS[1..], limit - 20) {
        Err(RequestError::HeadersTooLarge { size, limit: l }) => {
            assert_eq!(l, limit - 20);
            assert!(size > l);
        }
        other => panic!("expected HeadersTooLarge, got {other:?}"),
    }
}

#[test]
fn a_request_without_as2_from_is_not_as2() {
    let error = read_headers(&HEADERS[1..], 8192).expect_err("no AS2-From");
    assert!(matches!(
        error,
        RequestError::NotAs2(As2Error::MissingHeader("AS2-From"))
    ));
    assert!(std::error::Error::source(&error).is_some(), "source kept");
}
