use super::*;
use crate::headers::As2Headers;
use crate::mic::{Mic, mic_for_unsigned};

fn spec<'a>() -> PlainMessageSpec<'a> {
    PlainMessageSpec {
        as2_from: "Partner A",
        as2_to: "edihub",
        message_id: "msg-1@partner.example",
        subject: "INVOIC 4711",
        content_type: "application/edifact",
        payload: b"UNA:+.? 'UNB+UNOC:3+A+B+240101:1200+1'",
        request_mdn_to: Some("mailto:as2@partner.example"),
        request_signed_mdn: Some(MicAlg::Sha256),
    }
}

fn header<'a>(m: &'a OutgoingMessage, name: &str) -> Option<&'a str> {
    m.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[test]
fn plain_message_headers() {
    let m = build_plain_message(&spec());
    assert_eq!(header(&m, "AS2-Version"), Some("1.2"));
    assert_eq!(header(&m, "AS2-From"), Some("\"Partner A\""));
    assert_eq!(header(&m, "AS2-To"), Some("edihub"));
    assert_eq!(header(&m, "Message-ID"), Some("<msg-1@partner.example>"));
    assert_eq!(header(&m, "Subject"), Some("INVOIC 4711"));
    assert_eq!(header(&m, "Content-Type"), Some("application/edifact"));
    assert_eq!(
        header(&m, "Disposition-Notification-To"),
        Some("mailto:as2@partner.example")
    );
    assert_eq!(
        header(&m, "Disposition-Notification-Options"),
        Some(
            "signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256"
        )
    );
    assert_eq!(m.body, spec().payload);
}

#[test]
fn no_mdn_requested_and_bracketed_id() {
    let mut s = spec();
    s.request_mdn_to = None;
    s.message_id = "<already@bracketed>";
    s.subject = "two\r\nX-Injected: 1";
    let m = build_plain_message(&s);
    assert_eq!(header(&m, "Message-ID"), Some("<already@bracketed>"));
    assert_eq!(header(&m, "Disposition-Notification-To"), None);
    assert_eq!(header(&m, "Disposition-Notification-Options"), None);
    assert_eq!(header(&m, "Subject"), Some("two  X-Injected: 1"));
    assert_eq!(header(&m, "X-Injected"), None);
}

/// What the client builds, the server side of this crate reads back identically.
#[test]
fn built_message_parses_as_request() {
    let mut s = spec();
    s.request_signed_mdn = Some(MicAlg::Sha384);
    let m = build_plain_message(&s);
    let h =
        As2Headers::from_pairs(m.headers.iter().map(|(n, v)| (n.as_str(), v.as_bytes()))).unwrap();
    assert_eq!(h.as2_from, "Partner A");
    assert_eq!(h.as2_to, "edihub");
    assert_eq!(h.message_id, "msg-1@partner.example");
    assert!(h.mdn_requested());
    assert_eq!(
        mic_for_unsigned(&h, &m.body),
        Mic::compute(MicAlg::Sha384, s.payload)
    );
    // Unsigned MDN requested: default sha-256.
    s.request_signed_mdn = None;
    let m = build_plain_message(&s);
    let h =
        As2Headers::from_pairs(m.headers.iter().map(|(n, v)| (n.as_str(), v.as_bytes()))).unwrap();
    assert_eq!(h.mdn_options, None);
    assert_eq!(mic_for_unsigned(&h, &m.body).alg, MicAlg::Sha256);
}
