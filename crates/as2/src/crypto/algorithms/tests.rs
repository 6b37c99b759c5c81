//! Reading the cipher and the digests out of DER and out of BER with indefinite lengths
//! (the form streaming senders such as BouncyCastle write).

use super::*;
use crate::crypto::{Identity, decrypt, encrypt, sign_detached};

const HUB_CRT: &[u8] = include_bytes!("../../../../../fixtures/as2/hub.crt");
const HUB_KEY: &[u8] = include_bytes!("../../../../../fixtures/as2/hub.key");

/// The length of a DER element's content and the size of its length field.
fn length(bytes: &[u8]) -> (usize, usize) {
    match bytes[0] {
        short if short < 0x80 => (usize::from(short), 1),
        long => {
            let count = usize::from(long & 0x7f);
            let len = bytes[1..=count]
                .iter()
                .fold(0, |len, &b| (len << 8) | usize::from(b));
            (len, 1 + count)
        }
    }
}

/// `der` with every constructed element re-written with an indefinite length.
fn indefinite(der: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = der;
    while !rest.is_empty() {
        let tag = rest[0];
        let (len, header) = length(&rest[1..]);
        let end = 1 + header + len;
        if tag & 0x20 != 0 {
            out.extend([tag, 0x80]);
            out.extend(indefinite(&rest[1 + header..end]));
            out.extend([0, 0]);
        } else {
            out.extend_from_slice(&rest[..end]);
        }
        rest = &rest[end..];
    }
    out
}

fn hub() -> Identity {
    Identity::from_pem(HUB_CRT, HUB_KEY).unwrap()
}

#[test]
fn the_cipher_is_read_from_der_and_from_indefinite_length_ber() {
    let hub = hub();
    for cipher in Encryption::ALL {
        let der = encrypt(&hub.certificate, cipher, b"content").unwrap();
        assert_eq!(
            content_encryption_algorithm(&der),
            Some(Algorithm::Known(cipher))
        );
        let ber = indefinite(&der);
        assert_ne!(ber, der);
        assert_eq!(
            content_encryption_algorithm(&ber),
            Some(Algorithm::Known(cipher))
        );
        if Encryption::CBC.contains(&cipher) {
            // The same structure OpenSSL decrypts: what is checked is what is used.
            assert_eq!(decrypt(&hub, &ber).unwrap(), b"content");
        }
    }
}

#[test]
fn the_signature_digests_are_read_from_der_and_from_indefinite_length_ber() {
    let hub = hub();
    for alg in MicAlg::ALL {
        let der = sign_detached(&hub, alg, b"content", 1_800_000_000).unwrap();
        let expected = Some(vec![Algorithm::Known(alg)]);
        assert_eq!(signature_digest_algorithms(&der), expected);
        assert_eq!(signature_digest_algorithms(&indefinite(&der)), expected);
    }
}

#[test]
fn what_is_not_such_cms_gives_nothing_and_no_panic() {
    let hub = hub();
    let signature = sign_detached(&hub, MicAlg::Sha256, b"content", 1_800_000_000).unwrap();
    let enveloped = encrypt(&hub.certificate, Encryption::Aes128Cbc, b"content").unwrap();
    // Each the other's kind: nothing.
    assert_eq!(content_encryption_algorithm(&signature), None);
    assert_eq!(signature_digest_algorithms(&enveloped), None);
    // Every truncation, and an unterminated indefinite length.
    for cut in 0..enveloped.len() {
        let _ = content_encryption_algorithm(&enveloped[..cut]);
    }
    for cut in 0..signature.len() {
        let _ = signature_digest_algorithms(&signature[..cut]);
    }
    assert_eq!(
        content_encryption_algorithm(&[0x30, 0x80, 0x30, 0x80]),
        None
    );
    // Nesting deeper than any CMS: refused, not a stack overflow.
    // signed-data whose version is 10 000 nested indefinite sequences.
    let mut deep = vec![0x30, 0x80, 0x06, 0x09];
    deep.extend_from_slice(OID_SIGNED_DATA.as_bytes());
    deep.extend([0xa0, 0x80, 0x30, 0x80]);
    deep.extend(std::iter::repeat_n([0x30, 0x80], 10_000).flatten());
    assert_eq!(signature_digest_algorithms(&deep), None);
}
