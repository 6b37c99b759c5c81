//! Deterministic stand-in for a fuzz target: every parser of this crate is run over many
//! truncations and byte mutations of valid input and must return, never panic.

use edihub_as2::{
    As2Headers, Disposition, DispositionError, MdnReport, Mic, MicAlg, build_mdn, parse_mdn,
};

fn sample_mdn() -> (String, Vec<u8>) {
    let report = MdnReport {
        reporting_ua: "edihub".into(),
        original_recipient: "edihub".into(),
        final_recipient: "edihub".into(),
        original_message_id: "m-1@partner".into(),
        received_content_mic: Some(Mic::compute(MicAlg::Sha256, b"x")),
        disposition: Disposition::Failed(DispositionError::AuthenticationFailed),
        human_text: "Grüße, received".into(),
    };
    let built = build_mdn(&report, "edihub", "Partner A", "mdn-1@edihub", "b");
    (built.content_type, built.body)
}

/// Bytes worth substituting: structure characters, line breaks, and non-UTF-8.
const INTERESTING: &[u8] = b"\r\n-:;=<>\"\\ \t/\x00\xff\xc3";

#[test]
fn parse_mdn_never_panics_on_mutations() {
    let (ct, body) = sample_mdn();
    for end in 0..=body.len() {
        let _ = parse_mdn(&ct, &body[..end]);
    }
    for i in 0..body.len() {
        for &b in INTERESTING {
            let mut mutated = body.clone();
            mutated[i] = b;
            let _ = parse_mdn(&ct, &mutated);
            mutated.remove(i);
            let _ = parse_mdn(&ct, &mutated);
        }
    }
    for end in 0..=ct.len() {
        if let Some(prefix) = ct.get(..end) {
            let _ = parse_mdn(prefix, &body);
        }
    }
}

#[test]
fn header_parsers_never_panic_on_mutations() {
    let values: [&[u8]; 5] = [
        b"\"Partner \\\"A\\\"\"",
        b"<m-1@partner>",
        b"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256",
        b"application/edifact",
        "caf\u{e9}".as_bytes(),
    ];
    for value in values {
        for i in 0..=value.len() {
            for &b in INTERESTING {
                let mut mutated = value.to_vec();
                mutated.insert(i, b);
                for name in [
                    "AS2-From",
                    "AS2-To",
                    "Message-ID",
                    "Disposition-Notification-Options",
                    "Content-Type",
                ] {
                    let mut pairs: Vec<(&str, &[u8])> = vec![
                        ("AS2-From", b"a"),
                        ("AS2-To", b"b"),
                        ("Message-ID", b"m"),
                        ("Content-Type", b"application/edifact"),
                    ];
                    pairs.retain(|(n, _)| *n != name);
                    pairs.push((name, &mutated));
                    let _ = As2Headers::from_pairs(pairs);
                }
                if let Ok(s) = std::str::from_utf8(&mutated) {
                    let _ = Mic::parse(s);
                    let _ = MicAlg::parse(s);
                    let _ = Disposition::parse(s);
                }
            }
        }
    }
}
