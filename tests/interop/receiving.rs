//! pyas2lib as the receiving partner: `tests/interop/receiving_peer.py` is a small HTTP
//! server where pyas2lib's `Message.parse` decrypts, verifies and decompresses what the
//! hub sends (with the partner's key `fixtures/as2/partner-a.*` and the hub's certificate)
//! and answers with the MDN pyas2lib builds, sync or async; started with a fault, it
//! answers wrongly on purpose.
//!
//! The API ([`ReceivingPeer`], [`ReceiverOptions`], [`Received`]) is for any test that
//! sends: `edihub send` (below) and the hub's outbound sender (`outbound.rs`). Like the rest of
//! tests/interop it needs the pyas2lib venv and fails loudly without it.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use edihub_tests::{HUB, MdnReceiver, PARTNER, fixture, fixture_path, wait_for};
use serde_json::Value;
use std::io::{BufRead as _, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the receiving partner gets its MDN wrong.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum MdnFault {
    /// The MDN pyas2lib builds, as it builds it.
    #[default]
    None,
    /// `processed/Error: unexpected-processing-error` for a message it read fine.
    Error,
    /// A Received-Content-MIC that is not the content's.
    WrongMic,
    /// Signed with partner-b's key instead of partner-a's.
    WrongKey,
    /// Unsigned, even when a signed MDN was asked for.
    Unsigned,
}

impl MdnFault {
    /// The script's `--mdn-fault` value.
    fn arg(self) -> &'static str {
        match self {
            MdnFault::None => "none",
            MdnFault::Error => "error",
            MdnFault::WrongMic => "wrong-mic",
            MdnFault::WrongKey => "wrong-key",
            MdnFault::Unsigned => "unsigned",
        }
    }
}

/// How often the receiving partner POSTs an asynchronous MDN.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum AsyncMdn {
    #[default]
    Once,
    Never,
    Twice,
    /// Once, before the message's POST is answered.
    First,
}

impl AsyncMdn {
    /// The script's `--async-mdn` value.
    fn arg(self) -> &'static str {
        match self {
            AsyncMdn::Once => "once",
            AsyncMdn::Never => "never",
            AsyncMdn::Twice => "twice",
            AsyncMdn::First => "first",
        }
    }
}

/// What the receiving partner is and how it misbehaves.
#[derive(Debug, Clone)]
pub(crate) struct ReceiverOptions {
    /// Its AS2 name (the `AS2-To` it accepts; default [`PARTNER`]).
    pub as2_name: String,
    /// The hub's AS2 name (default [`HUB`]); its signatures are verified with hub.crt.
    pub hub: String,
    pub mdn_fault: MdnFault,
    pub async_mdn: AsyncMdn,
    /// The first this many requests are answered 503, unparsed.
    pub unavailable: usize,
    /// Each answer is held back this long after the message was read.
    pub answer_delay_ms: u64,
}

impl Default for ReceiverOptions {
    fn default() -> Self {
        ReceiverOptions {
            as2_name: PARTNER.into(),
            hub: HUB.into(),
            mdn_fault: MdnFault::None,
            async_mdn: AsyncMdn::Once,
            unavailable: 0,
            answer_delay_ms: 0,
        }
    }
}

/// One message pyas2lib parsed, and the MDN it answered with.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub message_id: String,
    pub as2_from: String,
    pub as2_to: String,
    /// pyas2lib's status: `processed`, or `processed/Error` and the like.
    pub status: String,
    /// Why, when pyas2lib refused the message.
    pub detail: Option<String>,
    /// The content, unwrapped (line ends as the MIME canonical form left them).
    pub payload: Vec<u8>,
    pub signed: bool,
    pub encrypted: bool,
    pub compressed: bool,
    /// The content-encryption algorithm, by asn1crypto's name (`tripledes_3key`,
    /// `aes128_cbc`, ...), encrypted messages only.
    pub cipher: Option<String>,
    /// The signature's digest (pyas2lib's spelling: `sha256`), signed messages only.
    pub digest_alg: Option<String>,
    /// The MIC pyas2lib computed (signed messages only), base64.
    pub mic: Option<String>,
    /// `None` when no MDN was asked for.
    pub mdn: Option<SentMdn>,
    /// What the return URL answered to each async MDN POST (`Err`: no HTTP answer).
    pub async_posts: Vec<Result<u16, String>>,
    /// Every async MDN POST was made (there may have been none, see [`AsyncMdn`]).
    pub async_done: bool,
}

impl Received {
    /// For failure messages: everything but the payload's bytes.
    pub(crate) fn summary(&self) -> String {
        format!(
            "{} from {} to {}: {} {:?}, {} payload bytes, signed {:?} (MIC {:?}), \
             encrypted {:?}, compressed {}, MDN {:?}, async POSTs {:?}",
            self.message_id,
            self.as2_from,
            self.as2_to,
            self.status,
            self.detail,
            self.payload.len(),
            self.digest_alg,
            self.mic,
            self.cipher,
            self.compressed,
            self.mdn,
            self.async_posts,
        )
    }
}

/// The MDN the receiving partner sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SentMdn {
    pub asynchronous: bool,
    /// The Receipt-Delivery-Option it was POSTed to.
    pub url: Option<String>,
    pub signed: bool,
    /// The multipart/signed `micalg` (pyas2lib's spelling: `sha256`).
    pub micalg: Option<String>,
}

/// What the peer's stdout said so far.
#[derive(Debug, Default)]
struct Log {
    received: Vec<Received>,
    /// Message-IDs of the requests answered 503.
    unavailable: Vec<String>,
    /// pyas2lib failures and lines that made no sense: a test failure.
    errors: Vec<String>,
}

/// The receiving partner, running; stopped on drop.
pub(crate) struct ReceivingPeer {
    child: Child,
    /// Held open: the script exits when it closes.
    _stdin: ChildStdin,
    url: String,
    log: Arc<Mutex<Log>>,
}

impl Drop for ReceivingPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ReceivingPeer {
    /// Starts the partner on a free loopback port; returns once it listens.
    pub(crate) fn start(options: &ReceiverOptions) -> ReceivingPeer {
        let python = edihub_tests::venv_python();
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("interop/receiving_peer.py");
        let mut child = Command::new(&python)
            .arg(&script)
            .arg("--fixtures")
            .arg(fixture_path("as2"))
            .args(["--as2-name", &options.as2_name, "--hub", &options.hub])
            .args(["--mdn-fault", options.mdn_fault.arg()])
            .args(["--async-mdn", options.async_mdn.arg()])
            .args(["--unavailable", &options.unavailable.to_string()])
            .args(["--answer-delay-ms", &options.answer_delay_ms.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", python.display()));
        let stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut first = String::new();
        stdout
            .read_line(&mut first)
            .expect("read receiving_peer.py");
        let listening: Value = serde_json::from_str(&first).unwrap_or_else(|_| {
            panic!("receiving_peer.py did not start (is pyas2lib in the venv?): {first:?}")
        });
        let port = listening["port"].as_u64().expect("the port it listens on");
        let log = Arc::new(Mutex::new(Log::default()));
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                record(&mut sink.lock().expect("peer log"), &line);
            }
        });
        ReceivingPeer {
            child,
            _stdin: stdin,
            url: format!("http://127.0.0.1:{port}/as2"),
            log,
        }
    }

    /// Where to POST AS2 messages.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Every message parsed so far. Panics if pyas2lib failed outright on one.
    pub(crate) fn received(&self) -> Vec<Received> {
        let log = self.log.lock().expect("peer log");
        assert!(log.errors.is_empty(), "receiving peer: {:?}", log.errors);
        log.received.clone()
    }

    /// The Message-IDs of the requests answered 503 so far.
    pub(crate) fn unavailable(&self) -> Vec<String> {
        self.log.lock().expect("peer log").unavailable.clone()
    }

    /// Waits (30 s at most) until `count` messages were parsed.
    pub(crate) async fn wait_received(&self, count: usize) -> Vec<Received> {
        wait_for(
            &format!("{count} message(s) at the receiving peer"),
            Duration::from_secs(30),
            || async {
                let received = self.received();
                (received.len() >= count).then_some(received)
            },
        )
        .await
    }

    /// Waits until the async MDN of `message_id` was POSTed as often as it will be.
    pub(crate) async fn wait_async_done(&self, message_id: &str) -> Received {
        wait_for(
            &format!("the async MDN of {message_id}"),
            Duration::from_secs(30),
            || async {
                self.received()
                    .into_iter()
                    .find(|r| r.message_id == message_id && r.async_done)
            },
        )
        .await
    }
}

/// One stdout line into the log.
fn record(log: &mut Log, line: &str) {
    let Ok(event) = serde_json::from_str::<Value>(line) else {
        log.errors.push(format!("not JSON: {line}"));
        return;
    };
    let message_id = event["message_id"].as_str().unwrap_or_default().to_owned();
    let unknown = || format!("async MDN of an unknown message: {line}");
    match event["event"].as_str() {
        Some("received") => log.received.push(received(&event)),
        Some("unavailable") => log.unavailable.push(message_id),
        Some("async_mdn") => {
            let outcome = match event["answered"].as_u64() {
                Some(status) => Ok(u16::try_from(status).unwrap_or_default()),
                None => Err(event["error"].as_str().unwrap_or_default().to_owned()),
            };
            match latest(&mut log.received, &message_id) {
                Some(message) => message.async_posts.push(outcome),
                None => log.errors.push(unknown()),
            }
        }
        Some("async_done") => match latest(&mut log.received, &message_id) {
            Some(message) => message.async_done = true,
            None => log.errors.push(unknown()),
        },
        _ => log.errors.push(line.to_owned()),
    }
}

/// The last message received with this Message-ID (a resend may come again).
fn latest<'a>(received: &'a mut [Received], message_id: &str) -> Option<&'a mut Received> {
    received
        .iter_mut()
        .rev()
        .find(|r| r.message_id == message_id)
}

fn received(event: &Value) -> Received {
    let text = |name: &str| event[name].as_str().unwrap_or_default().to_owned();
    let optional = |value: &Value| value.as_str().map(str::to_owned);
    let mdn = &event["mdn"];
    Received {
        message_id: text("message_id"),
        as2_from: text("as2_from"),
        as2_to: text("as2_to"),
        status: text("status"),
        detail: optional(&event["detail"]),
        payload: STANDARD
            .decode(event["payload_b64"].as_str().unwrap_or_default())
            .expect("base64 payload"),
        signed: event["signed"] == true,
        encrypted: event["encrypted"] == true,
        compressed: event["compressed"] == true,
        cipher: optional(&event["cipher"]),
        digest_alg: optional(&event["digest_alg"]),
        mic: optional(&event["mic"]),
        mdn: mdn.is_object().then(|| SentMdn {
            asynchronous: mdn["mode"] == "ASYNC",
            url: optional(&mdn["url"]),
            signed: mdn["signed"] == true,
            micalg: optional(&mdn["micalg"]),
        }),
        async_posts: Vec::new(),
        async_done: false,
    }
}

// The tests: `edihub send` (the hub's side, with fixtures/as2/hub.*) to pyas2lib.

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// The S/MIME choices of one `edihub send`, in its own spelling.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Choice {
    pub sign: Option<&'static str>,
    pub encrypt: Option<&'static str>,
    pub compress: bool,
    pub signed_mdn: Option<&'static str>,
}

impl Choice {
    /// Signed, encrypted and a signed MDN, with the digests agreeing.
    pub(crate) const SECURE: Choice = Choice {
        sign: Some("sha256"),
        encrypt: Some("aes256"),
        compress: false,
        signed_mdn: Some("sha256"),
    };
}

/// Whether `edihub send` accepted the MDN, and what it printed.
struct Sent {
    accepted: bool,
    output: String,
}

impl Sent {
    /// The `Error: ...` line, or the last one.
    fn error(&self) -> &str {
        let lines = || self.output.lines();
        lines()
            .find(|l| l.starts_with("Error:"))
            .or_else(|| lines().last())
            .unwrap_or_default()
    }
}

/// Runs `edihub send` with the hub's keys to `url`, encrypting to partner-a.
fn edihub_send(url: &str, message_id: &str, choice: Choice) -> Sent {
    let as2 = fixture_path("as2");
    let mut command = Command::new(edihub_tests::service_binary("edihub"));
    command
        .arg("send")
        .arg(fixture_path(INVOIC))
        .args(["--url", url, "--from", HUB, "--to", PARTNER])
        .args(["--message-id", message_id])
        .arg("--key")
        .arg(as2.join("hub.key"))
        .arg("--cert")
        .arg(as2.join("hub.crt"))
        .arg("--hub-cert")
        .arg(as2.join("partner-a.crt"))
        .env("RUST_BACKTRACE", "0");
    let options = [
        ("--sign", choice.sign),
        ("--encrypt", choice.encrypt),
        ("--signed-mdn", choice.signed_mdn),
    ];
    for (flag, value) in options {
        if let Some(value) = value {
            command.args([flag, value]);
        }
    }
    if choice.compress {
        command.arg("--compress");
    }
    let output = tokio::task::block_in_place(|| command.output()).expect("run edihub send");
    Sent {
        accepted: output.status.success(),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// asn1crypto's names for `edihub send`'s ciphers.
fn asn1crypto_name(ours: &str) -> &str {
    match ours {
        "3des" => "tripledes_3key",
        "aes128" => "aes128_cbc",
        "aes256" => "aes256_cbc",
        other => other,
    }
}

/// How what pyas2lib parsed differs from what `choice` sent, with a sync MDN asked for
/// unless `asynchronous`.
pub(crate) fn differences(
    got: &Received,
    choice: Choice,
    payload: &[u8],
    asynchronous: bool,
) -> Vec<String> {
    let mdn = got.mdn.as_ref();
    let checks = [
        ("status", got.status == "processed"),
        ("AS2-From", got.as2_from == HUB),
        ("AS2-To", got.as2_to == PARTNER),
        ("payload", got.payload == payload),
        ("signed", got.signed == choice.sign.is_some()),
        ("digest", got.digest_alg.as_deref() == choice.sign),
        ("encrypted", got.encrypted == choice.encrypt.is_some()),
        (
            "cipher",
            got.cipher.as_deref() == choice.encrypt.map(asn1crypto_name),
        ),
        ("compressed", got.compressed == choice.compress),
        (
            "MDN mode",
            mdn.is_some_and(|m| m.asynchronous == asynchronous),
        ),
        (
            "MDN signed",
            mdn.is_some_and(|m| m.signed == choice.signed_mdn.is_some()),
        ),
        (
            "MDN micalg",
            mdn.is_some_and(|m| m.micalg.as_deref() == choice.signed_mdn),
        ),
    ];
    let wrong = checks.iter().filter(|(_, ok)| !ok).map(|(what, _)| *what);
    wrong
        .map(|what| format!("pyas2lib's {what} differs: {}", got.summary()))
        .collect()
}

/// Sends every sign x encrypt x compress combination with the given MDN request and
/// collects every case where pyas2lib or `edihub send` disagrees.
async fn send_matrix(signed_mdn: Option<&'static str>) {
    let peer = ReceivingPeer::start(&ReceiverOptions::default());
    let payload = fixture(INVOIC);
    let mut failures = Vec::new();
    let mut sent = 0;
    for sign in [None, Some("sha1"), Some("sha256"), Some("sha512")] {
        for encrypt in [None, Some("3des"), Some("aes128"), Some("aes256")] {
            for compress in [false, true] {
                let choice = Choice {
                    sign,
                    encrypt,
                    compress,
                    signed_mdn,
                };
                let message_id = format!("matrix-{sent}@{HUB}");
                let outcome = edihub_send(peer.url(), &message_id, choice);
                sent += 1;
                let received = peer.wait_received(sent).await;
                let got = received
                    .iter()
                    .find(|r| r.message_id == message_id)
                    .expect("pyas2lib got the message");
                for difference in differences(got, choice, &payload, false) {
                    failures.push(format!("{choice:?}: {difference}"));
                }
                // Every case is a receipt `edihub send` takes, pyas2lib's signed MDN for
                // an unsigned message included: it has no MIC, which would bind nothing
                // we signed.
                if !outcome.accepted {
                    failures.push(format!("{choice:?}: edihub send: {}", outcome.error()));
                }
            }
        }
    }
    assert_eq!(sent, 32);
    assert!(
        failures.is_empty(),
        "{} failure(s) in {sent} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receiving_pyas2lib_parses_every_combination_edihub_send_makes_with_unsigned_mdns() {
    send_matrix(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receiving_pyas2lib_parses_every_combination_edihub_send_makes_with_signed_mdns() {
    send_matrix(Some("sha256")).await;
}

/// pyas2lib signs its MDN with the digest asked for, whatever signed the message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receiving_pyas2lib_signs_its_mdn_with_the_micalg_asked_for() {
    let peer = ReceivingPeer::start(&ReceiverOptions::default());
    for (number, micalg) in ["sha1", "sha512"].into_iter().enumerate() {
        let choice = Choice {
            sign: Some(micalg),
            signed_mdn: Some(micalg),
            ..Choice::SECURE
        };
        let message_id = format!("micalg-{number}@{HUB}");
        let outcome = edihub_send(peer.url(), &message_id, choice);
        assert!(outcome.accepted, "{micalg}: {}", outcome.output);
        let got = peer.wait_received(number + 1).await.remove(number);
        let mdn = got.mdn.expect("an MDN");
        assert_eq!((mdn.signed, mdn.micalg.as_deref()), (true, Some(micalg)));
    }
}

/// Each wrong MDN makes `edihub send` fail, though pyas2lib read the message fine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receiving_edihub_send_refuses_the_wrong_mdns_a_misbehaving_partner_sends() {
    let cases = [
        (
            MdnFault::Error,
            "refused the message: unexpected-processing-error",
        ),
        (MdnFault::WrongMic, "MIC mismatch"),
        (MdnFault::WrongKey, "reading the MDN"),
        (MdnFault::Unsigned, "not signed"),
    ];
    for (fault, expected) in cases {
        let peer = ReceivingPeer::start(&ReceiverOptions {
            mdn_fault: fault,
            ..ReceiverOptions::default()
        });
        let message_id = format!("{fault:?}@{HUB}");
        let outcome = edihub_send(peer.url(), &message_id, Choice::SECURE);
        assert!(
            !outcome.accepted,
            "{fault:?}: accepted:\n{}",
            outcome.output
        );
        assert!(
            outcome.error().contains(expected),
            "{fault:?}: {}",
            outcome.output
        );
        let got = peer.wait_received(1).await.remove(0);
        assert_eq!(
            (got.message_id.as_str(), got.status.as_str()),
            (message_id.as_str(), "processed")
        );
        let mdn = got.mdn.expect("an MDN");
        assert_eq!(mdn.signed, fault != MdnFault::Unsigned, "{fault:?}");
    }
}

/// A partner down for a while: 503 unparsed, then the resend goes through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receiving_pyas2lib_answers_503_to_the_first_requests_when_told() {
    let peer = ReceivingPeer::start(&ReceiverOptions {
        unavailable: 2,
        ..ReceiverOptions::default()
    });
    let message_id = format!("resent@{HUB}");
    for _ in 0..2 {
        let outcome = edihub_send(peer.url(), &message_id, Choice::SECURE);
        assert!(!outcome.accepted);
        assert!(outcome.error().contains("503"), "{}", outcome.output);
    }
    let outcome = edihub_send(peer.url(), &message_id, Choice::SECURE);
    assert!(outcome.accepted, "{}", outcome.output);
    let received = peer.wait_received(1).await;
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].message_id, message_id);
    assert_eq!(peer.unavailable(), vec![message_id.clone(), message_id]);
}

/// An AS2 message from the hub asking for an async MDN at `return_url` (`edihub send`
/// asks for sync MDNs only): posted to the peer, which must answer 200 with no body.
async fn send_asking_async(peer: &ReceivingPeer, message_id: &str, return_url: &str) -> String {
    let hub = edihub_as2::Identity::from_pem(&fixture("as2/hub.crt"), &fixture("as2/hub.key"))
        .expect("hub identity");
    let partner = edihub_as2::certificates_from_pem(&fixture("as2/partner-a.crt"))
        .expect("partner certificate");
    let payload = fixture(INVOIC);
    let built = edihub_as2::build_secure_message(&edihub_as2::SecureMessageSpec {
        plain: edihub_as2::PlainMessageSpec {
            as2_from: HUB,
            as2_to: PARTNER,
            message_id,
            subject: "interop",
            content_type: "application/EDIFACT",
            payload: &payload,
            request_mdn_to: Some("edihub"),
            request_signed_mdn: Some(edihub_as2::MicAlg::Sha256),
        },
        compress: true,
        sign: Some((&hub, edihub_as2::MicAlg::Sha256)),
        encrypt: Some((&partner[0], edihub_as2::Encryption::CBC[0])),
        boundary: "----=_receiving_async",
        now_unix: chrono::Utc::now().timestamp(),
    })
    .expect("build the message");
    let mut request = edihub_tests::http_client().post(peer.url());
    for (name, value) in &built.message.headers {
        request = request.header(name, value);
    }
    let response = request
        .header("Receipt-Delivery-Option", return_url)
        .body(built.message.body)
        .send()
        .await
        .expect("POST to the peer");
    assert_eq!(response.status(), 200);
    assert!(
        response.bytes().await.expect("body").is_empty(),
        "a sync MDN"
    );
    built.expected_mic.digest_base64
}

/// The async MDN goes to the return URL once, twice (the first answered 503) or never.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receiving_pyas2lib_posts_async_mdns_once_twice_or_never_as_told() {
    let partner = edihub_as2::certificates_from_pem(&fixture("as2/partner-a.crt"))
        .expect("partner certificate");
    let cases = [
        (AsyncMdn::Once, 0, vec![Ok(200)]),
        (AsyncMdn::Twice, 1, vec![Ok(503), Ok(200)]),
        (AsyncMdn::Never, 0, vec![]),
    ];
    for (async_mdn, failures, expected) in cases {
        let receiver = MdnReceiver::start(failures).await;
        let peer = ReceivingPeer::start(&ReceiverOptions {
            async_mdn,
            ..ReceiverOptions::default()
        });
        let message_id = format!("async-{async_mdn:?}@{HUB}");
        let return_url = receiver.url("/mdn");
        let mic = send_asking_async(&peer, &message_id, &return_url).await;
        let got = peer.wait_async_done(&message_id).await;
        assert_eq!(got.async_posts, expected, "{async_mdn:?}");
        let mdn = got.mdn.expect("an MDN");
        assert!(mdn.asynchronous && mdn.signed, "{async_mdn:?}");
        assert_eq!(mdn.url.as_deref(), Some(return_url.as_str()));

        let posts = receiver.received();
        assert_eq!(posts.len(), expected.len(), "{async_mdn:?}");
        for post in posts {
            let content_type = post.header("content-type").unwrap_or_default();
            let read = edihub_as2::read_mdn(content_type, &post.body, &partner)
                .unwrap_or_else(|e| panic!("{async_mdn:?}: {e}"));
            assert!(read.signed);
            assert_eq!(read.report.original_message_id, message_id);
            let received_mic = read.report.received_content_mic.expect("a MIC");
            assert_eq!(received_mic.digest_base64, mic);
        }
    }
}
