//! Where one inbound message's CPU goes in this crate (not a test): each step of the
//! gateway's blocking task timed alone on one thread, next to the raw RSA-2048
//! private-key operation OpenSSL can do on this machine.
//!
//!     cargo bench -p edihub-as2 --bench inbound_crypto
//!
//! The message is the one `as2_ingest` posts: the EANCOM INVOIC fixture, signed with
//! SHA-256 and encrypted with AES-256-CBC to the hub's RSA-2048 certificate, asking for a
//! signed MDN. Iterations: INBOUND_CRYPTO_ITERATIONS (default 2000). Last, the whole
//! task runs on as many threads as cores, then on 32 (the gateway's blocking pool under
//! the ingest benchmark's load), to show what concurrency costs.

use edihub_as2::{
    As2Headers, Disposition, Encryption, Identity, MdnReport, MicAlg, PartnerSecurity,
    PlainMessageSpec, SecureMessageSpec, build_mdn, build_secure_message, read_mdn, sign_mdn,
    unwrap_inbound,
};
use openssl::hash::MessageDigest;
use openssl::sign::Signer;
use std::hint::black_box;
use std::time::Instant;

const HUB_CRT: &[u8] = include_bytes!("../../../fixtures/as2/hub.crt");
const HUB_KEY: &[u8] = include_bytes!("../../../fixtures/as2/hub.key");
const PARTNER_CRT: &[u8] = include_bytes!("../../../fixtures/as2/partner-a.crt");
const PARTNER_KEY: &[u8] = include_bytes!("../../../fixtures/as2/partner-a.key");
const PAYLOAD: &[u8] = include_bytes!("../../../fixtures/edifact/invoic-eancom-d96a.edi");

/// Runs `step` `iterations` times and prints microseconds per call.
fn time<T>(label: &str, iterations: u32, mut step: impl FnMut() -> T) -> f64 {
    for _ in 0..iterations / 10 {
        black_box(step());
    }
    let started = Instant::now();
    for _ in 0..iterations {
        black_box(step());
    }
    let micros = started.elapsed().as_secs_f64() * 1e6 / f64::from(iterations);
    println!("{label:<44} {micros:>8.1} µs");
    micros
}

fn main() {
    let iterations: u32 = std::env::var("INBOUND_CRYPTO_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let hub = Identity::from_pem(HUB_CRT, HUB_KEY).expect("hub identity");
    let partner = Identity::from_pem(PARTNER_CRT, PARTNER_KEY).expect("partner identity");
    let secure = build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            as2_from: "ACME",
            as2_to: "EDIHUB",
            message_id: "bench@acme",
            subject: "bench",
            content_type: "application/edifact",
            payload: PAYLOAD,
            request_mdn_to: Some("as2@acme.example"),
            request_signed_mdn: Some(MicAlg::Sha256),
        },
        compress: false,
        sign: Some((&partner, MicAlg::Sha256)),
        encrypt: Some((&hub.certificate, Encryption::Aes256Cbc)),
        boundary: "----=_bench",
        now_unix: 1_780_000_000,
    })
    .expect("message");
    let headers = As2Headers::from_pairs(
        secure
            .message
            .headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes())),
    )
    .expect("headers");
    let partner_certificates = [partner.certificate.clone()];
    let security = PartnerSecurity {
        algorithms: &edihub_as2::AlgorithmPolicy::default(),
        certificates: &partner_certificates,
        require_signature: true,
        require_encryption: true,
        allow_expired: true,
        now_unix: 1_780_000_000,
    };
    let body = &secure.message.body;
    println!(
        "one message: {} bytes of EDIFACT, {} bytes on the wire; {iterations} iterations, 1 thread",
        PAYLOAD.len(),
        body.len()
    );

    let unwrap = || {
        unwrap_inbound(
            &headers,
            None,
            body,
            Some(&hub),
            &security,
            edihub_as2::UnwrapLimits::default(),
        )
    };
    let unwrapped = unwrap().expect("unwrap");
    assert_eq!(unwrapped.mic, secure.expected_mic);
    let report = MdnReport {
        reporting_ua: "edihub bench".into(),
        original_recipient: "EDIHUB".into(),
        final_recipient: "EDIHUB".into(),
        original_message_id: headers.message_id.clone(),
        received_content_mic: Some(unwrapped.mic.clone()),
        disposition: Disposition::Processed,
        human_text: "The message was received.".into(),
    };
    let mdn = || build_mdn(&report, "EDIHUB", "ACME", "mdn@edihub", "----=_report");
    let sign = || sign_mdn(mdn(), &hub, MicAlg::Sha256, "----=_signed", 1_780_000_000);
    let signed = sign().expect("signed MDN");

    let rsa_sign = time(
        "RSA-2048 PKCS#1 v1.5 sign (the raw operation)",
        iterations,
        || {
            let mut signer =
                Signer::new(MessageDigest::sha256(), &hub.private_key).expect("signer");
            signer.update(b"x").expect("update");
            signer.sign_to_vec().expect("sign")
        },
    );
    let whole = time("unwrap_inbound (decrypt + verify)", iterations, || {
        unwrap().expect("unwrap")
    });
    time("build_mdn (unsigned multipart/report)", iterations, mdn);
    let signing = time("build_mdn + sign_mdn", iterations, || sign().expect("sign"));
    time("read_mdn (the client's verification)", iterations, || {
        read_mdn(
            &signed.content_type,
            &signed.body,
            std::slice::from_ref(&hub.certificate),
        )
        .expect("read")
    });
    let total = whole + signing;
    println!(
        "gateway's blocking task {total:.1} µs = {:.2} x two raw RSA signatures ({:.1} µs); \
         one core's ceiling {:.0} messages/s",
        total / (2.0 * rsa_sign),
        2.0 * rsa_sign,
        1e6 / total
    );

    // The same task on several threads at once, as the gateway's blocking pool runs it
    // under load (a thread per request in progress): does it stay as cheap as alone?
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for threads in [cores, 32] {
        let per_thread = (iterations / 2 / threads as u32).max(1);
        let started = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    for _ in 0..per_thread {
                        black_box(unwrap().expect("unwrap"));
                        black_box(sign().expect("sign"));
                    }
                });
            }
        });
        let rate = f64::from(per_thread) * threads as f64 / started.elapsed().as_secs_f64();
        let core_micros = cores as f64 * 1e6 / rate;
        println!(
            "{threads:>2} threads at once on {cores} cores: {rate:>5.0} messages/s, \
             {core_micros:.1} core-µs each = {:.2} x the task alone",
            core_micros / total
        );
    }
}
