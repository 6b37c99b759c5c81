//! The hub's private key encrypted at rest: written under a passphrase, read back only
//! with it, and never by asking a terminal for one.

use edihub_as2::Identity;
use edihub_as2::crypto::is_encrypted_private_key_pem;

const CERT: &[u8] = include_bytes!("../../../fixtures/as2/hub.crt");
const KEY: &[u8] = include_bytes!("../../../fixtures/as2/hub.key");

fn hub() -> Identity {
    Identity::from_pem(CERT, KEY).expect("fixture identity")
}

#[test]
fn a_key_written_under_a_passphrase_reads_back_only_with_it() {
    let pem = hub()
        .private_key_pem(Some(b"correct horse"))
        .expect("encrypt");
    assert!(is_encrypted_private_key_pem(&pem));
    assert!(String::from_utf8_lossy(&pem).starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"));

    let back = Identity::from_pem_with_passphrase(CERT, &pem, Some(b"correct horse"))
        .expect("the right passphrase");
    assert!(back.private_key.public_eq(&hub().private_key));

    let wrong = Identity::from_pem_with_passphrase(CERT, &pem, Some(b"battery staple"))
        .expect_err("a wrong passphrase");
    assert!(wrong.to_string().contains("wrong passphrase"), "{wrong}");
}

#[test]
fn an_encrypted_key_without_a_passphrase_is_a_clear_error() {
    let pem = hub().private_key_pem(Some(b"secret")).expect("encrypt");
    let error = Identity::from_pem(CERT, &pem).expect_err("no passphrase");
    assert!(
        error.to_string().contains("encrypted and no passphrase"),
        "{error}"
    );
}

#[test]
fn an_unencrypted_key_reads_with_or_without_a_passphrase() {
    let pem = hub().private_key_pem(None).expect("plain PKCS#8");
    assert!(!is_encrypted_private_key_pem(&pem));
    assert!(!is_encrypted_private_key_pem(KEY));
    for passphrase in [None, Some(&b"unused"[..])] {
        Identity::from_pem_with_passphrase(CERT, &pem, passphrase).expect("plain key");
    }
}
