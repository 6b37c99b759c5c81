use super::*;

#[test]
fn unfolds_crlf_and_lf() {
    assert_eq!(unfold("a\r\n b"), "a b");
    assert_eq!(unfold("a\n\tb"), "a\tb");
    assert_eq!(unfold("a\r\nb"), "a\r\nb");
    assert_eq!(unfold("a"), "a");
}

#[test]
fn content_type_params() {
    let ct = ContentType::parse(
        "Multipart/Report; Report-Type=disposition-notification;\r\n\tboundary=\"a;b\\\"c\"",
    )
    .unwrap();
    assert_eq!(ct.mime_type, "multipart/report");
    assert_eq!(ct.param("report-type"), Some("disposition-notification"));
    assert_eq!(ct.param("boundary"), Some("a;b\"c"));
    assert!(ContentType::parse("garbage").is_err());
    assert!(ContentType::parse("text/plain; charset").is_err());
}

#[test]
fn split_multipart_crlf_lf_and_padding() {
    let body = b"preamble\r\n--b\r\nA\r\n--b  \nB\n\n--b--\r\nepilogue";
    let parts = split_multipart(body, "b").unwrap();
    assert_eq!(parts, vec![&b"A"[..], &b"B\n"[..]]);
    // Missing close delimiter: the last part runs to the end.
    let parts = split_multipart(b"--b\nA\n--b\nB", "b").unwrap();
    assert_eq!(parts, vec![&b"A"[..], &b"B"[..]]);
    // "--bx" is not a delimiter for "b".
    let parts = split_multipart(b"--b\n--bx\n--b--", "b").unwrap();
    assert_eq!(parts, vec![&b"--bx"[..]]);
    assert!(split_multipart(b"no parts here", "b").is_err());
    assert!(split_multipart(b"--b--", "b").is_err());
    assert!(split_multipart(b"", "").is_err());
}

#[test]
fn transfer_decoding() {
    assert_eq!(
        decode_transfer(Some("BASE64"), b"aGVs\r\nbG8=\r\n").unwrap(),
        b"hello"
    );
    assert_eq!(
        decode_transfer(Some("quoted-printable"), b"a=3Db=\r\nc=\nd=ZZ=").unwrap(),
        b"a=bcd=ZZ"
    );
    assert!(decode_transfer(Some("x-uuencode"), b"").is_err());
}
