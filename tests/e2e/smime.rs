//! The gateway with S/MIME switched on (hub key, partner certificate), driven by the
//! client side of `edihub-as2`: resends of secured messages, and the refusals the
//! pyas2lib interop tests do not produce (garbage MIME, decompression bomb).

use edihub_as2::{
    Disposition, DispositionError, Encryption, Identity, MicAlg, PlainMessageSpec,
    SecureMessageSpec, build_secure_message,
};
use edihub_tests::{As2Response, HUB, PARTNER, TestApp, fixture, spawn_app_with, with_keys};
use uuid::Uuid;

pub(crate) fn identity(name: &str) -> Identity {
    Identity::from_pem(
        &fixture(&format!("as2/{name}.crt")),
        &fixture(&format!("as2/{name}.key")),
    )
    .expect("test identity")
}

pub(crate) fn hub_certificates() -> Vec<edihub_as2::Certificate> {
    edihub_as2::certificates_from_pem(&fixture("as2/hub.crt")).expect("hub certificate")
}

pub(crate) fn spec<'a>(message_id: &'a str, payload: &'a [u8]) -> PlainMessageSpec<'a> {
    PlainMessageSpec {
        as2_from: PARTNER,
        as2_to: HUB,
        message_id,
        subject: "test",
        content_type: "application/edifact",
        payload,
        request_mdn_to: Some("test@example.invalid"),
        request_signed_mdn: Some(MicAlg::Sha256),
    }
}

pub(crate) async fn post(
    app: &TestApp,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> As2Response {
    let response = app.post_raw(headers, body).await;
    assert_eq!(response.status, 200);
    response
}

async fn assert_refused_and_nothing_accepted(
    app: &TestApp,
    response: &As2Response,
    message_id: &str,
    expected: DispositionError,
) {
    let read = edihub_as2::read_mdn(response.content_type(), &response.body, &hub_certificates())
        .expect("a signed error MDN");
    assert!(read.signed);
    assert_eq!(read.report.disposition, Disposition::Failed(expected));
    let disposition: String =
        sqlx::query_scalar("SELECT disposition FROM as2_refusal WHERE as2_message_id = $1")
            .bind(message_id)
            .fetch_one(&app.pool)
            .await
            .expect("refusal recorded");
    assert_eq!(disposition, expected.as_str());
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 0);
}

#[tokio::test]
async fn a_resent_signed_and_encrypted_message_gets_the_original_signed_mdn() {
    let app = spawn_app_with(with_keys(true, true)).await;
    let partner = identity("partner-a");
    let hub = hub_certificates();
    let payload = fixture("edifact/invoic-eancom-d96a.edi");
    let id = format!("{}@acme", Uuid::new_v4());
    let build = || {
        // Built twice: encryption is randomised, so the bodies differ; the identity
        // (AS2-From, AS2-To, Message-ID) is what makes it a resend.
        build_secure_message(&SecureMessageSpec {
            plain: spec(&id, &payload),
            compress: true,
            sign: Some((&partner, MicAlg::Sha256)),
            encrypt: Some((&hub[0], Encryption::Aes256Cbc)),
            boundary: "----=_test_signed",
            now_unix: 1_800_000_000,
        })
        .expect("build")
    };
    let first_built = build();
    let first = post(
        &app,
        &first_built.message.headers,
        first_built.message.body.clone(),
    )
    .await;
    let read = edihub_as2::read_mdn(first.content_type(), &first.body, &hub).expect("MDN");
    assert!(read.signed);
    assert_eq!(read.report.disposition, Disposition::Processed);
    assert_eq!(
        read.report.received_content_mic,
        Some(first_built.expected_mic)
    );

    let second_built = build();
    assert_ne!(second_built.message.body, first_built.message.body);
    let second = post(
        &app,
        &second_built.message.headers,
        second_built.message.body,
    )
    .await;
    assert_eq!(second.body, first.body, "the stored MDN, byte for byte");
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 1);
    // The journal keeps the original body and the unwrapped payload.
    let (raw_body, stored): (Vec<u8>, Vec<u8>) =
        sqlx::query_as("SELECT raw_body, payload FROM edi_message")
            .fetch_one(&app.pool)
            .await
            .expect("journal row");
    assert_eq!(raw_body, first_built.message.body);
    assert_eq!(stored, payload);
}

#[tokio::test]
async fn a_decompression_bomb_gets_an_error_mdn_not_an_out_of_memory() {
    let app = spawn_app_with(|gateway| {
        with_keys(false, false)(gateway);
        gateway.max_decompressed_bytes = 64 * 1024;
    })
    .await;
    let partner = identity("partner-a");
    let bomb = vec![b'A'; 8 * 1024 * 1024];
    let id = format!("{}@acme", Uuid::new_v4());
    let built = build_secure_message(&SecureMessageSpec {
        plain: spec(&id, &bomb),
        compress: true,
        sign: Some((&partner, MicAlg::Sha256)),
        encrypt: None,
        boundary: "----=_test_bomb",
        now_unix: 1_800_000_000,
    })
    .expect("build");
    assert!(built.message.body.len() < 64 * 1024, "small on the wire");
    let response = post(&app, &built.message.headers, built.message.body).await;
    assert_refused_and_nothing_accepted(
        &app,
        &response,
        &id,
        DispositionError::UnexpectedProcessingError,
    )
    .await;
}

#[tokio::test]
async fn garbage_where_smime_is_announced_is_refused() {
    for (content_type, expected) in [
        (
            "multipart/signed; protocol=\"application/pkcs7-signature\"; micalg=sha-256; boundary=\"zz\"",
            DispositionError::IntegrityCheckFailed,
        ),
        (
            "application/pkcs7-mime; smime-type=enveloped-data",
            DispositionError::DecryptionFailed,
        ),
        (
            "application/pkcs7-mime; smime-type=compressed-data",
            DispositionError::UnexpectedProcessingError,
        ),
    ] {
        let app = spawn_app_with(with_keys(false, false)).await;
        let id = format!("{}@acme", Uuid::new_v4());
        let mut message =
            edihub_as2::build_plain_message(&spec(&id, b"\x30\x80garbage\r\n--zz\r\n"));
        for (name, value) in &mut message.headers {
            if name.eq_ignore_ascii_case("Content-Type") {
                *value = content_type.to_string();
            }
        }
        let response = post(&app, &message.headers, message.body).await;
        assert_refused_and_nothing_accepted(&app, &response, &id, expected).await;
    }
}
