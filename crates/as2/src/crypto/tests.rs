//! The signature rewriting (certificates cut, PSS parameters written) and reading our
//! identity, on the fixture keys in `fixtures/as2`.

use der::{Decode as _, Encode as _};
use openssl::x509::X509;

use super::pss::digest_length;
use super::raw_der::{pss_parameters, push_header, without_certificates};
use super::signed::verify_detached_as_is;
use super::*;
use crate::error::As2Error;
use crate::mic::MicAlg;

fn algorithm(oid: &str) -> spki::AlgorithmIdentifierOwned {
    spki::AlgorithmIdentifierOwned {
        oid: der::oid::ObjectIdentifier::new_unwrap(oid),
        parameters: None,
    }
}

const HUB_CRT: &[u8] = include_bytes!("../../../../fixtures/as2/hub.crt");
const HUB_KEY: &[u8] = include_bytes!("../../../../fixtures/as2/hub.key");
const A_CRT: &[u8] = include_bytes!("../../../../fixtures/as2/partner-a.crt");
const A_KEY: &[u8] = include_bytes!("../../../../fixtures/as2/partner-a.key");
const B_CRT: &[u8] = include_bytes!("../../../../fixtures/as2/partner-b.crt");

fn signed_data(der: &[u8]) -> cms::signed_data::SignedData {
    let info = cms::content_info::ContentInfo::from_der(der).unwrap();
    info.content.decode_as().unwrap()
}

#[test]
fn certificates_are_cut_out_of_a_signature_and_nothing_else_changes() {
    let hub = Identity::from_pem(HUB_CRT, HUB_KEY).unwrap();
    let signature = sign_detached(&hub, MicAlg::Sha256, b"content\r\n", 1_780_000_000).unwrap();
    let stripped = without_certificates(&signature).unwrap();
    // The hub's certificate is about 800 bytes of DER.
    assert!(stripped.len() + 500 < signature.len());
    let (before, after) = (signed_data(&signature), signed_data(&stripped));
    assert!(before.certificates.is_some());
    assert_eq!(after.certificates, None);
    assert_eq!(after.signer_infos, before.signer_infos);
    assert_eq!(after.encap_content_info, before.encap_content_info);
    assert_eq!(after.digest_algorithms, before.digest_algorithms);
    // Nothing left to cut: the caller keeps what it has.
    assert_eq!(without_certificates(&stripped), None);

    // Verification is unchanged: by the pinned certificate, and not by another.
    let partner = X509::from_pem(A_CRT).unwrap();
    let pinned = [hub.certificate.clone()];
    assert_eq!(verify_detached(&signature, b"content\r\n", &pinned), Ok(()));
    assert_eq!(
        verify_detached_as_is(&stripped, b"content\r\n", &pinned),
        Ok(())
    );
    assert!(matches!(
        verify_detached_as_is(&stripped, b"content\r\n", &[partner]),
        Err(VerifyError::UnknownSigner(_))
    ));
    assert!(matches!(
        verify_detached_as_is(&stripped, b"altered\r\n", &pinned),
        Err(VerifyError::Invalid(_))
    ));
}

#[test]
fn a_real_peers_signature_is_cut_too() {
    // The `openssl cms` CLI made this one (fixtures/as2/README.md), RSASSA-PSS with its
    // parameters; it carries the signer's certificate.
    let signature = include_bytes!("../../../../fixtures/as2/pss-signature.der");
    let stripped = without_certificates(signature).unwrap();
    assert!(signed_data(signature).certificates.is_some());
    assert_eq!(signed_data(&stripped).certificates, None);
    assert_eq!(
        signed_data(&stripped).signer_infos,
        signed_data(signature).signer_infos
    );
}

/// The same cut made with the `cms` crate (decode, drop `certificates`, encode), which
/// `docs/adr/0004-as2-mime-and-der.md` weighs against the hand-written one.
fn cut_by_the_cms_crate(signature: &[u8]) -> Vec<u8> {
    let info = cms::content_info::ContentInfo::from_der(signature).unwrap();
    let mut signed: cms::signed_data::SignedData = info.content.decode_as().unwrap();
    signed.certificates = None;
    cms::content_info::ContentInfo {
        content_type: info.content_type,
        content: der::Any::encode_from(&signed).unwrap(),
    }
    .to_der()
    .unwrap()
}

#[test]
fn the_cut_gives_the_bytes_the_cms_crate_would_encode() {
    let hub = Identity::from_pem(HUB_CRT, HUB_KEY).unwrap();
    let mut signatures: Vec<Vec<u8>> = MicAlg::ALL
        .iter()
        .map(|&alg| sign_detached(&hub, alg, b"content\r\n", 1_780_000_000).unwrap())
        .collect();
    signatures.push(include_bytes!("../../../../fixtures/as2/pss-signature.der").to_vec());
    for signature in &signatures {
        assert_eq!(
            without_certificates(signature),
            Some(cut_by_the_cms_crate(signature))
        );
    }
}

#[test]
fn signatures_that_are_not_plain_der_are_left_alone() {
    let hub = Identity::from_pem(HUB_CRT, HUB_KEY).unwrap();
    let signature = sign_detached(&hub, MicAlg::Sha256, b"x", 1_780_000_000).unwrap();
    // Every truncation, trailing bytes, and BER's indefinite length.
    for len in 0..signature.len() {
        assert_eq!(without_certificates(&signature[..len]), None, "{len}");
    }
    // Any single corrupted byte: an answer, never a panic (the input is a partner's).
    for at in 0..signature.len() {
        for value in [0x00, 0x7f, 0x80, 0x84, 0xff] {
            let mut corrupt = signature.clone();
            corrupt[at] = value;
            let _ = without_certificates(&corrupt);
        }
    }
    let mut trailing = signature.clone();
    trailing.push(0);
    assert_eq!(without_certificates(&trailing), None);
    assert_eq!(
        without_certificates(&[0x30, 0x80, 0x06, 0x00, 0x00, 0x00]),
        None
    );
    // Long lengths are written the way DER requires.
    let mut header = Vec::new();
    push_header(&mut header, 0x30, 0x7f);
    push_header(&mut header, 0x30, 0x80);
    push_header(&mut header, 0x30, 0x1234);
    assert_eq!(
        header,
        [0x30, 0x7f, 0x30, 0x81, 0x80, 0x30, 0x82, 0x12, 0x34]
    );
}

#[test]
fn a_signature_naming_an_unknown_digest_is_refused_before_openssl_reads_it() {
    let hub = Identity::from_pem(HUB_CRT, HUB_KEY).unwrap();
    let pinned = [hub.certificate.clone()];
    let content = b"content\r\n";
    let signature = sign_detached(&hub, MicAlg::Sha256, content, 1_780_000_000).unwrap();
    let sha256 = der::oid::ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.1");
    // The first SHA-256 OID of a SignedData is its digestAlgorithms entry; .127 is no
    // digest at all.
    let at = signature
        .windows(sha256.as_bytes().len())
        .position(|w| w == sha256.as_bytes())
        .unwrap();
    let mut unknown = signature.clone();
    unknown[at + sha256.as_bytes().len() - 1] = 0x7f;
    assert_eq!(
        verify_detached(&unknown, content, &pinned),
        Err(VerifyError::Invalid(
            "the signature names digest algorithm 2.16.840.1.101.3.4.2.127, which is not supported"
                .into()
        ))
    );
    // Every digest the hub accepts passes the check and still verifies.
    for alg in [
        MicAlg::Sha1,
        MicAlg::Sha224,
        MicAlg::Sha256,
        MicAlg::Sha384,
        MicAlg::Sha512,
    ] {
        let signature = sign_detached(&hub, alg, content, 1_780_000_000).unwrap();
        assert_eq!(
            verify_detached(&signature, content, &pinned),
            Ok(()),
            "{alg:?}"
        );
    }
}

#[test]
fn pss_parameters_are_der_with_defaults_left_out() {
    let sha1 = algorithm("1.3.14.3.2.26");
    assert_eq!(pss_parameters(&sha1, 20), Some(vec![0x30, 0x00]));
    // Salt 234 (2048-bit key, SHA-1, longest salt): INTEGER 00 EA.
    assert_eq!(
        pss_parameters(&sha1, 234),
        Some(vec![0x30, 0x06, 0xA2, 0x04, 0x02, 0x02, 0x00, 0xEA])
    );
    let sha256 = pss_parameters(&algorithm("2.16.840.1.101.3.4.2.1"), 32).unwrap();
    // SEQUENCE { [0] sha256, [1] mgf1(sha256), [2] 32 }
    assert_eq!(sha256[0], 0x30);
    assert_eq!(usize::from(sha256[1]), sha256.len() - 2);
    assert!(sha256.ends_with(&[0xA2, 0x03, 0x02, 0x01, 0x20]));
    assert_eq!(
        pss_parameters(&algorithm("1.2.3.4"), 20).map(|_| ()),
        Some(())
    );
    assert_eq!(digest_length(&algorithm("1.2.3.4").oid), None);
}

#[test]
fn identity_rejects_mismatched_key() {
    assert!(matches!(
        Identity::from_pem(HUB_CRT, A_KEY),
        Err(As2Error::Crypto(_))
    ));
    assert_eq!(certificates_from_pem_len(), 2);
}

fn certificates_from_pem_len() -> usize {
    let bundle = [A_CRT, B_CRT].concat();
    certificates_from_pem(&bundle).unwrap().len()
}

#[test]
fn a_signature_made_piece_by_piece_is_the_one_made_over_the_whole() {
    let hub = Identity::from_pem(HUB_CRT, HUB_KEY).unwrap();
    let content: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let whole = sign_detached(&hub, MicAlg::Sha256, &content, 1_780_000_000).unwrap();
    let mut signer = DetachedSigner::new(&hub, MicAlg::Sha256, 1_780_000_000).unwrap();
    for piece in content.chunks(4093) {
        signer.update(piece).unwrap();
    }
    let pieces = signer.finish().unwrap();
    // RSASSA-PKCS1-v1_5 is deterministic: the same content and time give the same bytes.
    assert_eq!(pieces, whole);
    let pinned = [hub.certificate.clone()];
    assert_eq!(verify_detached(&pieces, &content, &pinned), Ok(()));
    assert!(matches!(
        verify_detached(&pieces, &content[1..], &pinned),
        Err(VerifyError::Invalid(_))
    ));
    // A signer given up before the end frees what it holds (run under a leak checker).
    let mut abandoned = DetachedSigner::new(&hub, MicAlg::Sha256, 1_780_000_000).unwrap();
    abandoned.update(b"partial").unwrap();
    drop(abandoned);
}
