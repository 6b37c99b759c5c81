//! The audit evidence the gateway journals (ADR 0006): a signed and encrypted message's
//! signed entity re-verifies with the real `openssl cms` and the partner's certificate
//! alone, and contains the payload's MIME entity; an unsigned message has none.

use std::path::PathBuf;
use std::process::Command;

use edihub_as2::{Encryption, MicAlg, SecureMessageSpec, build_secure_message};
use edihub_tests::{PARTNER, TestApp, fixture, fixture_path, spawn_app_with, with_keys};
use uuid::Uuid;

use crate::smime::{hub_certificates, identity, post, spec};

/// The journaled `signed_entity` and `security` of the message with this Message-ID.
async fn journaled(app: &TestApp, as2_message_id: &str) -> (Option<Vec<u8>>, serde_json::Value) {
    sqlx::query_as("SELECT signed_entity, security FROM edi_message WHERE as2_message_id = $1")
        .bind(as2_message_id)
        .fetch_one(&app.pool)
        .await
        .expect("the message is journaled")
}

/// What `openssl cms -verify -nointern -noverify -certfile <certificate>` writes as the
/// content of `entity`, or its error output.
fn openssl_verify(entity: &[u8], certificate: PathBuf) -> Result<Vec<u8>, String> {
    let dir = std::env::temp_dir().join(format!("edihub-evidence-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let (input, out) = (dir.join("signed-entity.eml"), dir.join("content"));
    std::fs::write(&input, entity).expect("write the entity");
    let output = Command::new("openssl")
        .args(["cms", "-verify", "-nointern", "-noverify", "-in"])
        .arg(&input)
        .arg("-certfile")
        .arg(certificate)
        .arg("-out")
        .arg(&out)
        .output()
        .expect("run openssl");
    let result = if output.status.success() {
        Ok(std::fs::read(&out).expect("openssl's output"))
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The fixture invoice in canonical CRLF line ends, as S/MIME signs text.
fn crlf_invoice() -> Vec<u8> {
    let text = String::from_utf8(fixture("edifact/invoic-eancom-d96a.edi")).expect("text");
    text.replace("\r\n", "\n")
        .replace('\n', "\r\n")
        .into_bytes()
}

#[tokio::test]
async fn the_signed_entity_is_journaled_and_verifies_with_openssl() {
    let app = spawn_app_with(with_keys(false, false)).await;
    let partner = identity("partner-a");
    let hub = hub_certificates();
    let payload = crlf_invoice();
    let id = format!("{}@acme", Uuid::new_v4());
    let built = build_secure_message(&SecureMessageSpec {
        plain: spec(&id, &payload),
        compress: false,
        sign: Some((&partner, MicAlg::Sha256)),
        encrypt: Some((&hub[0], Encryption::Aes256Cbc)),
        boundary: "----=_evidence",
        now_unix: 1_800_000_000,
    })
    .expect("build");
    post(&app, &built.message.headers, built.message.body.clone()).await;

    let (entity, security) = journaled(&app, &id).await;
    let entity = entity.expect("a signed entity");
    let content = openssl_verify(&entity, fixture_path("as2/partner-a.crt"))
        .expect("openssl verifies the journaled entity with the partner certificate");
    let mut payload_entity =
        b"Content-Type: application/edifact\r\nContent-Transfer-Encoding: binary\r\n\r\n".to_vec();
    payload_entity.extend_from_slice(&payload);
    assert_eq!(content, payload_entity);
    assert_eq!(content, built.mic_content);
    assert!(
        openssl_verify(&entity, fixture_path("as2/partner-b.crt")).is_err(),
        "another certificate must not verify it"
    );

    let der = partner.certificate.to_der().expect("DER");
    let signature = &security["signature"];
    assert_eq!(signature["digest"], "sha-256");
    assert_eq!(
        signature["certificate_sha256"],
        edihub_journal::sha256_hex(&der)
    );
    use base64::Engine as _;
    assert_eq!(
        signature["certificate_der_b64"],
        base64::engine::general_purpose::STANDARD.encode(&der)
    );
    assert_eq!(
        security["encryption"]["algorithm"],
        Encryption::Aes256Cbc.as_str()
    );
    assert_eq!(security["compressed"], false);
    assert_eq!(security["mic"], built.expected_mic.header_value());
}

#[tokio::test]
async fn an_unsigned_message_has_no_signed_entity_and_a_null_signature() {
    let app = spawn_app_with(with_keys(false, false)).await;
    let id = format!("{}@acme", Uuid::new_v4());
    let response = app
        .post_as2(PARTNER, &id, &fixture("edifact/invoic-eancom-d96a.edi"))
        .await;
    assert_eq!(response.status, 200);
    let (entity, security) = journaled(&app, &id).await;
    assert_eq!(entity, None);
    assert_eq!(security["signature"], serde_json::Value::Null);
    assert_eq!(security["encryption"], serde_json::Value::Null);
    assert_eq!(security["compressed"], false);
}
