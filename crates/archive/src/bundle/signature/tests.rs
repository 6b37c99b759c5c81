//! index.json's signature made with the fixture hub key, then checked as a bundle holds
//! it: intact, the index changed, another signer, no signature.

use super::check_index_signature;
use crate::bundle::paths;
use crate::bundle::read::Bundle;
use crate::bundle::write::BundleWriter;
use edihub_as2::crypto::sign_detached;
use edihub_as2::{Identity, MicAlg};
use uuid::Uuid;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../fixtures/as2/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn der(pem: &str) -> Vec<u8> {
    let certificates = edihub_as2::certificates_from_pem(&fixture(pem)).expect("PEM");
    certificates[0].to_der().expect("DER")
}

const INDEX: &[u8] = b"{\n  \"version\": 1,\n  \"segments\": []\n}\n";

/// A bundle of `index` and, when given, its signature; checked against `anchor` (DER).
fn checked(index: &[u8], signature: Option<&[u8]>, anchor: &[u8]) -> Option<String> {
    let mut writer = BundleWriter::new(Vec::new(), 0);
    writer.append(paths::INDEX_JSON, index).expect("append");
    if let Some(signature) = signature {
        writer
            .append(paths::INDEX_SIGNATURE, signature)
            .expect("append");
    }
    let path = std::env::temp_dir().join(format!("edihub-index-{}.tar", Uuid::new_v4()));
    std::fs::write(&path, writer.finish().expect("finish")).expect("write");
    let bundle = Bundle::open(&path).expect("open");
    let found = check_index_signature(&bundle, index, anchor).expect("read");
    let _ = std::fs::remove_file(path);
    found
}

fn signature() -> Vec<u8> {
    let hub = Identity::from_pem(&fixture("hub.crt"), &fixture("hub.key")).expect("key");
    sign_detached(&hub, MicAlg::Sha256, INDEX, 1_800_000_000).expect("sign")
}

#[test]
fn the_signed_index_verifies_against_the_sealing_certificate() {
    assert_eq!(checked(INDEX, Some(&signature()), &der("hub.crt")), None);
}

#[test]
fn an_index_changed_after_signing_is_named() {
    let forged = String::from_utf8_lossy(INDEX).replace("\"segments\": []", "\"segments\": [ ]");
    let found = checked(forged.as_bytes(), Some(&signature()), &der("hub.crt"));
    let found = found.expect("a discrepancy");
    assert!(
        found.starts_with("index.json.p7s: the signature over index.json does not verify"),
        "{found}"
    );
}

#[test]
fn another_signer_is_named() {
    let found = checked(INDEX, Some(&signature()), &der("partner-a.crt")).expect("a discrepancy");
    assert!(
        found.starts_with("index.json.p7s: not signed by the sealing certificate"),
        "{found}"
    );
}

#[test]
fn a_missing_signature_is_named() {
    let found = checked(INDEX, None, &der("hub.crt")).expect("a discrepancy");
    assert!(
        found.starts_with("index.json.p7s: missing: the index is unsigned"),
        "{found}"
    );
}
