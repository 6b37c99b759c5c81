//! Interoperability with a real AS2 peer: pyas2lib (PyPI) builds the messages, the
//! gateway (started by `spawn_app_with`) receives them, and pyas2lib's `Mdn.parse` judges
//! the MDNs we answer with: it verifies their signature against the hub's certificate and
//! compares the MIC with the one it computed when it signed.
//!
//! pyas2lib runs in the venv that `bash deploy/stack.sh up` makes (`$EDIHUB_VENV`, default
//! `~/.cache/edihub/venv`); without it these tests fail, they never skip.

mod outbound;
mod receiving;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use edihub_as2::{Disposition, DispositionError, Mic};
use edihub_tests::{
    As2Response, HUB, MdnReceiver, PARTNER, TestApp, fixture, fixture_path, spawn_app_with,
};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// pyas2lib's names for the digests and ciphers of the matrix.
const SIGNING: [Option<&str>; 6] = [
    None,
    Some("sha1"),
    Some("sha224"),
    Some("sha256"),
    Some("sha384"),
    Some("sha512"),
];
const ENCRYPTION: [Option<&str>; 5] = [
    None,
    Some("tripledes_192_cbc"),
    Some("aes_128_cbc"),
    Some("aes_192_cbc"),
    Some("aes_256_cbc"),
];

/// The pyas2lib driver (`tests/interop/peer.py`), one process per test, spoken to in
/// JSON lines.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Peer {
    fn start() -> Peer {
        let python = edihub_tests::venv_python();
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("interop/peer.py");
        let mut child = Command::new(&python)
            .arg(&script)
            .arg("--fixtures")
            .arg(fixture_path("as2"))
            .args(["--hub", HUB, "--partner", PARTNER])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", python.display()));
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Peer {
            child,
            stdin,
            stdout,
        }
    }

    /// One request, one answer. Blocking, so called inside `block_in_place`.
    fn call(&mut self, request: Value) -> Value {
        tokio::task::block_in_place(|| {
            writeln!(self.stdin, "{request}").expect("write to peer.py");
            self.stdin.flush().expect("flush peer.py");
            let mut line = String::new();
            self.stdout.read_line(&mut line).expect("read peer.py");
            assert!(
                !line.is_empty(),
                "peer.py exited (is pyas2lib installed in the venv? run `bash deploy/stack.sh up`)"
            );
            let answer: Value = serde_json::from_str(&line).expect("peer.py answers JSON");
            if let Some(error) = answer.get("error") {
                panic!("peer.py failed on {request}: {error}");
            }
            answer
        })
    }

    /// pyas2lib builds a message.
    fn build(&mut self, mut options: Value, payload: &[u8]) -> Built {
        options["op"] = json!("build");
        options["payload_b64"] = json!(STANDARD.encode(payload));
        let answer = self.call(options);
        Built {
            message_id: answer["message_id"]
                .as_str()
                .expect("message_id")
                .to_owned(),
            headers: answer["headers"]
                .as_array()
                .expect("headers")
                .iter()
                .map(|pair| {
                    (
                        pair[0].as_str().expect("name").to_owned(),
                        pair[1].as_str().expect("value").to_owned(),
                    )
                })
                .collect(),
            body: STANDARD
                .decode(answer["body_b64"].as_str().expect("body"))
                .expect("base64 body"),
            mic: answer["mic"].as_str().map(str::to_owned),
        }
    }

    /// pyas2lib's `Mdn.parse` on the gateway's answer: `(status, detail)`.
    fn parse_mdn(&mut self, message_id: &str, response: &As2Response) -> (String, String) {
        let headers: Vec<(String, String)> = response
            .headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect();
        self.parse_mdn_parts(message_id, &headers, &response.body)
    }

    /// pyas2lib's `Mdn.parse` on an MDN given as HTTP headers and body.
    fn parse_mdn_parts(
        &mut self,
        message_id: &str,
        headers: &[(String, String)],
        body: &[u8],
    ) -> (String, String) {
        let answer = self.call(json!({
            "op": "parse",
            "message_id": message_id,
            "headers": headers,
            "body_b64": STANDARD.encode(body),
        }));
        (
            answer["status"].as_str().unwrap_or_default().to_owned(),
            answer["detail"].as_str().unwrap_or_default().to_owned(),
        )
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Built {
    message_id: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// The MIC pyas2lib computed (signed messages only).
    mic: Option<String>,
}

/// Text with CRLF turned into LF, for comparing payloads across MIME canonicalisation.
fn lf_text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace("\r\n", "\n")
}

fn hub_certificate() -> Vec<edihub_as2::Certificate> {
    edihub_as2::certificates_from_pem(&fixture("as2/hub.crt")).expect("hub certificate")
}

async fn stored_payload(app: &TestApp, message_id: &str) -> Option<Vec<u8>> {
    sqlx::query_scalar("SELECT payload FROM edi_message WHERE as2_message_id = $1")
        .bind(message_id)
        .fetch_optional(&app.pool)
        .await
        .expect("query edi_message")
}

/// Sends every signing x encryption x compression combination with the given MDN request
/// (`unsigned`, `signed` or `async-signed`) and checks what pyas2lib and the journal say.
async fn run_matrix(mdn: &str) {
    let receiver = MdnReceiver::start(0).await;
    let allowed = receiver.url("/pyas2/");
    let app = spawn_app_with(move |gateway| {
        edihub_tests::with_keys(false, false)(gateway);
        for partner in &mut gateway.partners {
            partner.async_mdn_urls = vec![allowed.clone()];
            // The receiver listens on loopback.
            partner.async_mdn_allowed_networks = vec!["127.0.0.0/8".into()];
        }
    })
    .await;
    let asynchronous = mdn == "async-signed";
    let mut peer = Peer::start();
    let hub_cert = hub_certificate();
    let mut sent = 0;
    for sign in SIGNING {
        for encrypt in ENCRYPTION {
            for compress in [false, true] {
                let case =
                    format!("sign={sign:?} encrypt={encrypt:?} compress={compress} mdn={mdn}");
                // A document of its own per case: the same one again would be a replay.
                let payload = edihub_tests::numbered_invoic(sent);
                let built = peer.build(
                    json!({
                        "sign": sign, "encrypt": encrypt, "compress": compress, "mdn": mdn,
                        "mdn_url": receiver.url("/pyas2/mdn"),
                    }),
                    &payload,
                );
                let response = app.post_raw(&built.headers, built.body.clone()).await;
                assert_eq!(response.status, 200, "{case}");

                // The MDN: in the response, or POSTed to the receiver afterwards.
                let (headers, body) = if asynchronous {
                    assert!(
                        response.body.is_empty(),
                        "{case}: async MDN in the response"
                    );
                    let posted = receiver.accepted(sent + 1).await.remove(sent);
                    (posted.headers, posted.body)
                } else {
                    let headers = response
                        .headers
                        .iter()
                        .map(|(n, v)| {
                            let v = String::from_utf8_lossy(v.as_bytes()).into_owned();
                            (n.as_str().to_owned(), v)
                        })
                        .collect::<Vec<_>>();
                    (headers, response.body.clone())
                };
                let content_type = headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();

                // pyas2lib's verdict: "processed" also means the MIC matched, since a
                // mismatch turns it into "processed/warning".
                let (status, detail) = peer.parse_mdn_parts(&built.message_id, &headers, &body);
                assert_eq!(status, "processed", "{case}: {detail}");

                // Our own reading agrees, and the MIC is the one pyas2lib computed.
                let read = edihub_as2::read_mdn(&content_type, &body, &hub_cert)
                    .unwrap_or_else(|e| panic!("{case}: {e}"));
                assert_eq!(read.signed, mdn != "unsigned", "{case}");
                assert_eq!(read.report.disposition, Disposition::Processed, "{case}");
                assert_eq!(read.report.original_message_id, built.message_id, "{case}");
                let mic: Mic = read.report.received_content_mic.expect("a MIC");
                if let Some(expected) = &built.mic {
                    assert_eq!(&mic.digest_base64, expected, "{case}");
                } else {
                    assert_eq!(sign, None, "{case}: pyas2lib computes a MIC when signing");
                }

                // The journal holds the unwrapped EDI payload. pyas2lib writes text parts
                // in canonical MIME form (CRLF line ends) inside compressed or signed
                // entities, so line ends are what may differ from the file it was given.
                let stored = stored_payload(&app, &built.message_id)
                    .await
                    .unwrap_or_else(|| panic!("{case}: not journaled"));
                assert_eq!(lf_text(&stored), lf_text(&payload), "{case}");
                sent += 1;
            }
        }
    }
    assert_eq!(sent, SIGNING.len() * ENCRYPTION.len() * 2);
    let outbox = app
        .count("SELECT count(*) FROM outbox WHERE channel = 'kafka'")
        .await;
    assert_eq!(outbox, sent as i64, "one Kafka event per accepted message");
    let deliveries = app
        .count("SELECT count(*) FROM outbox WHERE channel = 'as2-mdn'")
        .await;
    assert_eq!(deliveries, if asynchronous { sent as i64 } else { 0 });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyas2lib_messages_get_processed_unsigned_mdns_for_every_combination() {
    run_matrix("unsigned").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyas2lib_messages_get_processed_signed_mdns_for_every_combination() {
    run_matrix("signed").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyas2lib_messages_get_processed_async_signed_mdns_for_every_combination() {
    run_matrix("async-signed").await;
}

/// RSAES-OAEP key transport and RSASSA-PSS signatures, as pyas2lib makes them.
///
/// pyas2lib 1.4.4 writes the `rsassaPss` algorithm identifier without its parameters
/// (OpenSSL alone refuses that with "invalid pss parameters"); the gateway completes
/// them with the signer's convention (hash and MGF1 = the digest, salt = its length).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyas2lib_oaep_key_transport_and_pss_signatures_are_accepted() {
    let app = spawn_app_with(edihub_tests::with_keys(true, true)).await;
    let mut peer = Peer::start();
    let cases = [
        ("sha1", "rsassa_pkcs1v15", "rsaes_oaep"),
        ("sha256", "rsassa_pkcs1v15", "rsaes_oaep"),
        ("sha512", "rsassa_pkcs1v15", "rsaes_oaep"),
        ("sha1", "rsassa_pss", "rsaes_pkcs1v15"),
        ("sha224", "rsassa_pss", "rsaes_pkcs1v15"),
        ("sha256", "rsassa_pss", "rsaes_oaep"),
        ("sha384", "rsassa_pss", "rsaes_pkcs1v15"),
        ("sha512", "rsassa_pss", "rsaes_oaep"),
    ];
    for (number, (sign, sign_alg, key_enc_alg)) in cases.into_iter().enumerate() {
        let case = format!("{sign} {sign_alg} {key_enc_alg}");
        let payload = edihub_tests::numbered_invoic(number);
        let built = peer.build(
            json!({
                "sign": sign, "sign_alg": sign_alg,
                "encrypt": "aes_256_cbc", "key_enc_alg": key_enc_alg,
                "compress": true, "mdn": "signed",
            }),
            &payload,
        );
        let response = app.post_raw(&built.headers, built.body.clone()).await;
        let (status, detail) = peer.parse_mdn(&built.message_id, &response);
        assert_eq!(status, "processed", "{case}: {detail}");
    }
    assert_eq!(
        app.count("SELECT count(*) FROM outbox").await,
        cases.len() as i64
    );
}

/// Posts `built`, then checks the refusal from both sides and that nothing was accepted.
async fn assert_refused(
    app: &TestApp,
    peer: &mut Peer,
    built: Built,
    body: Vec<u8>,
    expected: DispositionError,
) {
    let response = app.post_raw(&built.headers, body).await;
    assert_eq!(response.status, 200, "an error MDN is still an MDN");
    let (status, detail) = peer.parse_mdn(&built.message_id, &response);
    assert_eq!(
        (status.as_str(), detail.as_str()),
        ("processed/error", expected.as_str()),
        "pyas2lib's reading"
    );
    let read = edihub_as2::read_mdn(response.content_type(), &response.body, &hub_certificate())
        .expect("our reading");
    assert!(read.signed, "the error MDN is signed as asked");
    assert_eq!(read.report.disposition, Disposition::Failed(expected));
    assert_eq!(read.report.received_content_mic, None);

    let disposition: String =
        sqlx::query_scalar("SELECT disposition FROM as2_refusal WHERE as2_message_id = $1")
            .bind(&built.message_id)
            .fetch_one(&app.pool)
            .await
            .expect("refusal recorded");
    assert_eq!(disposition, expected.as_str());
    assert_eq!(stored_payload(app, &built.message_id).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_tampered_and_misaddressed_messages_are_refused_and_never_reach_the_outbox() {
    let app = spawn_app_with(edihub_tests::with_keys(false, false)).await;
    let mut peer = Peer::start();
    let payload = fixture(INVOIC);

    // Signed by a certificate that is not the partner's (partner-b, using the partner's
    // AS2 name).
    let forged = peer.build(
        json!({ "sign": "sha256", "signer": "partner-b", "mdn": "signed" }),
        &payload,
    );
    let body = forged.body.clone();
    assert_refused(
        &app,
        &mut peer,
        forged,
        body,
        DispositionError::AuthenticationFailed,
    )
    .await;

    // Signed by the partner, then one byte of the EDI content changed on the way.
    let tampered = peer.build(json!({ "sign": "sha256", "mdn": "signed" }), &payload);
    let mut body = tampered.body.clone();
    let at = body
        .windows(4)
        .position(|w| w == b"UNB+")
        .expect("the signed payload is readable in the body");
    body[at + 2] = b'X';
    assert_refused(
        &app,
        &mut peer,
        tampered,
        body,
        DispositionError::IntegrityCheckFailed,
    )
    .await;

    // Encrypted to another certificate than the hub's.
    let misaddressed = peer.build(
        json!({ "sign": "sha256", "encrypt": "aes_256_cbc", "encrypt_to": "partner-b", "mdn": "signed" }),
        &payload,
    );
    let body = misaddressed.body.clone();
    assert_refused(
        &app,
        &mut peer,
        misaddressed,
        body,
        DispositionError::DecryptionFailed,
    )
    .await;

    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM as2_refusal").await, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsigned_or_unencrypted_messages_are_refused_when_the_partnership_requires_it() {
    let app = spawn_app_with(edihub_tests::with_keys(true, true)).await;
    let mut peer = Peer::start();
    let payload = fixture(INVOIC);

    let unsigned = peer.build(
        json!({ "encrypt": "aes_128_cbc", "mdn": "signed" }),
        &payload,
    );
    let body = unsigned.body.clone();
    assert_refused(
        &app,
        &mut peer,
        unsigned,
        body,
        DispositionError::InsufficientMessageSecurity,
    )
    .await;

    let unencrypted = peer.build(json!({ "sign": "sha256", "mdn": "signed" }), &payload);
    let body = unencrypted.body.clone();
    assert_refused(
        &app,
        &mut peer,
        unencrypted,
        body,
        DispositionError::InsufficientMessageSecurity,
    )
    .await;

    // Signed and encrypted: accepted.
    let good = peer.build(
        json!({ "sign": "sha256", "encrypt": "aes_128_cbc", "compress": true, "mdn": "signed" }),
        &payload,
    );
    let response = app.post_raw(&good.headers, good.body.clone()).await;
    let (status, detail) = peer.parse_mdn(&good.message_id, &response);
    assert_eq!(status, "processed", "{detail}");

    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 1);
}

fn identity(name: &str) -> edihub_as2::Identity {
    edihub_as2::Identity::from_pem(
        &fixture(&format!("as2/{name}.crt")),
        &fixture(&format!("as2/{name}.key")),
    )
    .expect("test identity")
}

/// The client side (`edihub send` builds with it) against pyas2lib playing the hub: for
/// every signing x encryption x compression combination pyas2lib must accept the message,
/// find the same payload and MIC, and answer with a signed MDN that we verify.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyas2lib_accepts_what_the_edihub_client_builds_and_its_signed_mdns_verify() {
    let mut peer = Peer::start();
    let payload = fixture(INVOIC);
    let partner = identity("partner-a");
    let hub_cert = hub_certificate();
    let digests = [
        None,
        Some(edihub_as2::MicAlg::Sha1),
        Some(edihub_as2::MicAlg::Sha256),
        Some(edihub_as2::MicAlg::Sha384),
        Some(edihub_as2::MicAlg::Sha512),
    ];
    let ciphers = [None]
        .into_iter()
        .chain(edihub_as2::Encryption::CBC.map(Some));
    let mut checked = 0;
    for cipher in ciphers {
        for sign in digests {
            for compress in [false, true] {
                let case = format!("sign={sign:?} encrypt={cipher:?} compress={compress}");
                let message_id = format!("{}@edihub-client", uuid::Uuid::new_v4());
                // pyas2lib signs its MDN with the digest named last in the request.
                let mdn_alg = sign.unwrap_or(edihub_as2::MicAlg::Sha256);
                let built = edihub_as2::build_secure_message(&edihub_as2::SecureMessageSpec {
                    plain: edihub_as2::PlainMessageSpec {
                        as2_from: PARTNER,
                        as2_to: HUB,
                        message_id: &message_id,
                        subject: "interop",
                        content_type: "application/EDIFACT",
                        payload: &payload,
                        request_mdn_to: Some("edihub-client"),
                        request_signed_mdn: Some(mdn_alg),
                    },
                    compress,
                    sign: sign.map(|alg| (&partner, alg)),
                    encrypt: cipher.map(|c| (&hub_cert[0], c)),
                    boundary: "----=_edihub_client_boundary",
                    now_unix: chrono::Utc::now().timestamp(),
                })
                .unwrap_or_else(|e| panic!("{case}: {e}"));

                let answer = peer.call(json!({
                    "op": "receive",
                    "headers": built.message.headers,
                    "body_b64": STANDARD.encode(&built.message.body),
                }));
                assert_eq!(answer["status"], "processed", "{case}: {answer}");
                assert_eq!(answer["signed"], sign.is_some(), "{case}");
                assert_eq!(answer["encrypted"], cipher.is_some(), "{case}");
                assert_eq!(answer["compressed"], compress, "{case}");
                let received = STANDARD
                    .decode(answer["payload_b64"].as_str().expect("payload"))
                    .expect("base64");
                assert_eq!(lf_text(&received), lf_text(&payload), "{case}");
                if sign.is_some() {
                    assert_eq!(
                        answer["mic"].as_str(),
                        Some(built.expected_mic.digest_base64.as_str()),
                        "{case}: pyas2lib's MIC"
                    );
                }

                // pyas2lib's MDN, signed with the hub's key: our client verifies it.
                let mdn = &answer["mdn"];
                let headers: Vec<(String, String)> = mdn["headers"]
                    .as_array()
                    .expect("MDN headers")
                    .iter()
                    .map(|p| {
                        (
                            p[0].as_str().unwrap().to_owned(),
                            p[1].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect();
                let content_type = headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
                    .map(|(_, v)| v.clone())
                    .expect("MDN Content-Type");
                let body = STANDARD
                    .decode(mdn["body_b64"].as_str().expect("MDN body"))
                    .expect("base64");
                let read = edihub_as2::read_mdn(&content_type, &body, &hub_cert)
                    .unwrap_or_else(|e| panic!("{case}: pyas2lib's MDN: {e}"));
                assert!(read.signed, "{case}");
                assert_eq!(read.report.disposition, Disposition::Processed, "{case}");
                assert_eq!(read.report.original_message_id, message_id, "{case}");
                if sign.is_some() {
                    let mic = read.report.received_content_mic.expect("MIC in the MDN");
                    assert_eq!(
                        mic.digest_base64, built.expected_mic.digest_base64,
                        "{case}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 50);
}
