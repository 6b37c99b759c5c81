//! The evidence the unwrapping keeps: the signed entity re-verifies with the real
//! `openssl cms` and with [`verify_signed_entity`], and names its signer and algorithms.

use std::path::PathBuf;
use std::process::Command;

use super::*;

/// A scratch directory of this test's own.
fn scratch(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("edihub-as2-{label}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What `openssl cms -verify -nointern -noverify` writes as the content of `entity`
/// signed by `certificate_pem`, or its error output.
fn openssl_verify(label: &str, entity: &[u8], certificate_pem: &[u8]) -> Result<Vec<u8>, String> {
    openssl_cms(label, entity, certificate_pem, &[])
}

/// `openssl cms -verify` with `extra` arguments (`-binary`: the content is digested as
/// it is, not in canonical CRLF form, as the hub itself verifies).
fn openssl_cms(
    label: &str,
    entity: &[u8],
    certificate_pem: &[u8],
    extra: &[&str],
) -> Result<Vec<u8>, String> {
    let dir = scratch(label);
    let (input, cert, out) = (
        dir.join("signed.eml"),
        dir.join("cert.pem"),
        dir.join("out"),
    );
    std::fs::write(&input, entity).unwrap();
    std::fs::write(&cert, certificate_pem).unwrap();
    let output = Command::new("openssl")
        .args(["cms", "-verify", "-nointern", "-noverify"])
        .args(extra)
        .arg("-in")
        .arg(&input)
        .arg("-certfile")
        .arg(&cert)
        .arg("-out")
        .arg(&out)
        .output()
        .expect("run openssl");
    let result = if output.status.success() {
        Ok(std::fs::read(&out).unwrap())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn signature_of(got: &Unwrapped) -> &SignatureEvidence {
    got.signature.as_ref().expect("signature evidence")
}

/// The signed content openssl wrote, its line ends as the entity had them.
fn first_part(entity: &[u8]) -> Vec<u8> {
    verify_signed_entity(entity, &[partner_a().certificate])
        .unwrap()
        .content
}

#[test]
fn the_signed_entity_of_an_encrypted_compressed_message_verifies_with_openssl() {
    let a = partner_a();
    let m = secure(
        true,
        Some((&a, MicAlg::Sha384)),
        Some((&hub().certificate, Encryption::Aes256Cbc)),
    );
    let got = receive(&m, std::slice::from_ref(&a.certificate), (true, true)).unwrap();
    let signature = signature_of(&got);
    let content = openssl_verify("enc", &signature.entity, A_CRT).expect("openssl verifies");
    assert_eq!(content, first_part(&signature.entity));
    assert!(
        signature
            .entity
            .starts_with(b"Content-Type: multipart/signed")
    );
    assert_eq!(signature.certificate_der, a.certificate.to_der().unwrap());
    assert_eq!(signature.digest, MicAlg::Sha384);
    assert_eq!(got.encryption, Some(Encryption::Aes256Cbc));
    assert!(got.compressed);
}

#[test]
fn the_signed_entity_of_a_plain_signed_message_is_its_http_headers_and_body() {
    let a = partner_a();
    let crlf_payload = b"UNA:+.? 'UNB+UNOC:3+A+B+240101:1200+1'\r\nUNZ+0+1'\r\n";
    let m = build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            payload: crlf_payload,
            ..plain(None)
        },
        compress: false,
        sign: Some((&a, MicAlg::Sha256)),
        encrypt: None,
        boundary: "b-test",
        now_unix: NOW,
    })
    .unwrap()
    .message;
    let got = receive(&m, std::slice::from_ref(&a.certificate), (true, false)).unwrap();
    let signature = signature_of(&got);
    assert!(
        signature
            .entity
            .starts_with(b"Content-Type: multipart/signed")
    );
    assert!(signature.entity.ends_with(&m.body));
    let content = openssl_verify("plain", &signature.entity, A_CRT).expect("openssl verifies");
    assert_eq!(content, first_part(&signature.entity));
    assert_eq!(signature.digest, MicAlg::Sha256);
    assert_eq!(got.encryption, None);
}

/// A sender that signed bare LF line ends as they are (binary content) is verified by
/// the hub as it is. openssl's S/MIME reader rejoins the first part's lines with one kind
/// of line end, so such an entity verifies with openssl only from its parts
/// (`signed_entity_parts`): the first part as the `-content`, with `-binary`.
#[test]
fn a_binary_signed_entity_verifies_with_openssl_from_its_parts() {
    let a = partner_a();
    let m = secure(false, Some((&a, MicAlg::Sha256)), None);
    let got = receive(&m, std::slice::from_ref(&a.certificate), (true, false)).unwrap();
    let entity = &signature_of(&got).entity;
    assert!(openssl_verify("lf", entity, A_CRT).is_err());
    let (content, der) = signed_entity_parts(entity).unwrap();
    let dir = scratch("parts");
    let (part, sig) = (dir.join("content"), dir.join("signature.der"));
    std::fs::write(&part, content).unwrap();
    std::fs::write(&sig, &der).unwrap();
    let extra = [
        "-binary",
        "-inform",
        "DER",
        "-content",
        part.to_str().unwrap(),
    ];
    let verified = openssl_cms("parts-run", &std::fs::read(&sig).unwrap(), A_CRT, &extra);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        verified.expect("openssl verifies the parts"),
        first_part(entity)
    );
}

#[test]
fn openssl_refuses_the_signed_entity_with_another_certificate() {
    let a = partner_a();
    let m = secure(false, Some((&a, MicAlg::Sha256)), None);
    let got = receive(&m, std::slice::from_ref(&a.certificate), (false, false)).unwrap();
    assert!(openssl_verify("other", &signature_of(&got).entity, B_CRT).is_err());
}

#[test]
fn an_unsigned_message_has_no_signature_evidence() {
    let m = secure(
        true,
        None,
        Some((&hub().certificate, Encryption::Aes128Cbc)),
    );
    let got = receive(&m, &[], (false, false)).unwrap();
    assert_eq!(got.signature, None);
    assert_eq!(got.encryption, Some(Encryption::Aes128Cbc));
}

#[test]
fn the_signer_is_the_rollover_certificate_that_made_the_signature() {
    let (a, b) = (partner_a(), partner_b());
    let m = secure(false, Some((&a, MicAlg::Sha256)), None);
    let certs = [b.certificate.clone(), a.certificate.clone()];
    let got = receive(&m, &certs, (false, false)).unwrap();
    assert_eq!(
        signature_of(&got).certificate_der,
        a.certificate.to_der().unwrap()
    );
    let verified = verify_signed_entity(&signature_of(&got).entity, &certs).unwrap();
    assert_eq!(verified.certificate, 1);
}

#[test]
fn a_stored_entity_verifies_and_gives_the_mic_the_mdn_returned() {
    let a = partner_a();
    let m = secure(
        false,
        Some((&a, MicAlg::Sha256)),
        Some((&hub().certificate, Encryption::Aes128Cbc)),
    );
    let got = receive(&m, std::slice::from_ref(&a.certificate), (false, false)).unwrap();
    let verified = verify_signed_entity(&signature_of(&got).entity, &[a.certificate]).unwrap();
    assert_eq!(verified.digest, MicAlg::Sha256);
    assert_eq!(verified.mic(got.mic.alg), got.mic);
}

#[test]
fn a_flipped_byte_of_the_signed_content_fails() {
    let a = partner_a();
    let m = secure(false, Some((&a, MicAlg::Sha256)), None);
    let got = receive(&m, std::slice::from_ref(&a.certificate), (false, false)).unwrap();
    let mut entity = signature_of(&got).entity.clone();
    let at = entity
        .windows(4)
        .position(|w| w == b"UNB+")
        .expect("the payload is in the entity");
    entity[at] ^= 0x01;
    let error = verify_signed_entity(&entity, &[a.certificate]).unwrap_err();
    assert!(matches!(error, EntityError::Invalid(_)), "{error}");
}

#[test]
fn another_certificate_fails_and_embedded_ones_are_not_trusted() {
    let a = partner_a();
    let m = secure(false, Some((&a, MicAlg::Sha256)), None);
    let got = receive(&m, std::slice::from_ref(&a.certificate), (false, false)).unwrap();
    let error =
        verify_signed_entity(&signature_of(&got).entity, &[partner_b().certificate]).unwrap_err();
    assert!(matches!(error, EntityError::UnknownSigner(_)), "{error}");
    let error = verify_signed_entity(&signature_of(&got).entity, &[]).unwrap_err();
    assert!(matches!(error, EntityError::UnknownSigner(_)), "{error}");
}

#[test]
fn what_is_not_a_signed_entity_is_malformed() {
    let error = verify_signed_entity(b"Content-Type: text/plain\r\n\r\nhello", &[]).unwrap_err();
    assert!(matches!(error, EntityError::Malformed(_)), "{error}");
}
