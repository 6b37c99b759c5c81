//! Outbound AS2 benchmark (not a test): hub to hub over loopback, two identities. The
//! sending hub's outbound relay (as the outbox-relay service runs it) builds each message
//! signed (SHA-256) and encrypted (AES-256-CBC, RSA-2048), POSTs it to a second hub's
//! gateway and verifies the signed synchronous MDN; every message must end `delivered`.
//! Next to it, in alternating rounds, the receiving gateway's inbound ingest of the same
//! kind of message from a bare client (built before the clock starts, MDN verified):
//! the receiver's work is part of every outbound message here, so that is the ceiling.
//!
//!     bash deploy/stack.sh up && cargo bench -p edihub-tests --bench outbound
//!
//! Sizes: OUTBOUND_BENCH_MESSAGES per round (default 300), OUTBOUND_BENCH_ROUNDS (3).
//! 20 messages are in flight in both: the relay's batch, and the bare client's.

use edihub_as2::{
    Encryption, MicAlg, PlainMessageSpec, SecureMessage, SecureMessageSpec, build_secure_message,
};
use edihub_config::{GatewaySettings, PartnerSettings};
use edihub_outbound::{NewOutbound, queue_in};
use edihub_tests::outbound::{Pair, relay, settings_file};
use edihub_tests::{HUB, TestApp, fixture, fixture_path, spawn_app, spawn_app_with};
use futures::StreamExt as _;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const RECEIVER: &str = "PARTNER-HUB";

/// The receiving hub: partner-a's identity, `HUB` as a partner that must sign and encrypt.
async fn receiving_hub(concurrency: usize) -> TestApp {
    spawn_app_with(move |gateway: &mut GatewaySettings| {
        gateway.hub_as2_id = RECEIVER.into();
        gateway.hub_certificate = Some(fixture_path("as2/partner-a.crt"));
        gateway.hub_private_key = Some(fixture_path("as2/partner-a.key"));
        gateway.max_concurrent_per_partner = concurrency;
        gateway.partners = vec![PartnerSettings {
            as2_id: HUB.into(),
            certificates: vec![fixture_path("as2/hub.crt")],
            require_signature: true,
            require_encryption: true,
            ..Default::default()
        }];
    })
    .await
}

/// The INVOIC as interchange `number`: a UNB reference of its own, or the receiver would
/// answer it as a replay.
fn interchange(number: usize) -> Vec<u8> {
    String::from_utf8_lossy(&fixture("edifact/invoic-eancom-d96a.edi"))
        .replace("EH000001", &format!("{number:08}"))
        .into_bytes()
}

/// Messages `from..to` as the bare client sends them: from `HUB`, signed, encrypted.
fn prepared(from: usize, to: usize) -> Vec<SecureMessage> {
    let hub = edihub_as2::Identity::from_pem(&fixture("as2/hub.crt"), &fixture("as2/hub.key"))
        .expect("hub identity");
    let receiver = edihub_as2::certificates_from_pem(&fixture("as2/partner-a.crt"))
        .expect("receiver certificate")
        .remove(0);
    let now = chrono::Utc::now().timestamp();
    (from..to)
        .map(|i| {
            let payload = interchange(i);
            build_secure_message(&SecureMessageSpec {
                plain: PlainMessageSpec {
                    as2_from: HUB,
                    as2_to: RECEIVER,
                    message_id: &format!("inbound-{i}@{HUB}"),
                    subject: "bench",
                    content_type: "application/edifact",
                    payload: &payload,
                    request_mdn_to: Some(HUB),
                    request_signed_mdn: Some(MicAlg::Sha256),
                },
                compress: false,
                sign: Some((&hub, MicAlg::Sha256)),
                encrypt: Some((&receiver, Encryption::Aes256Cbc)),
                boundary: &format!("----=_bench_{i}"),
                now_unix: now,
            })
            .expect("build message")
        })
        .collect()
}

/// The bare client's round: POSTs `batch` at `concurrency`, verifying each signed MDN.
async fn inbound_round(
    receiver: &TestApp,
    batch: Vec<SecureMessage>,
    concurrency: usize,
) -> Duration {
    let receiver_cert = edihub_as2::certificates_from_pem(&fixture("as2/partner-a.crt"))
        .expect("receiver certificate");
    let started = Instant::now();
    futures::stream::iter(batch)
        .map(|secure| {
            let receiver_cert = &receiver_cert;
            async move {
                let response = receiver
                    .post_raw(&secure.message.headers, secure.message.body)
                    .await;
                assert_eq!(response.status, 200);
                let mdn =
                    edihub_as2::read_mdn(response.content_type(), &response.body, receiver_cert)
                        .expect("a signed MDN");
                assert_eq!(mdn.report.disposition, edihub_as2::Disposition::Processed);
            }
        })
        .buffer_unordered(concurrency)
        .collect::<Vec<()>>()
        .await;
    started.elapsed()
}

/// The outbound round: queues `from..to` in one transaction (so the relay sees them
/// at once, and queueing is not timed), then times the running relay until every one is
/// delivered.
async fn outbound_round(sender: &TestApp, from: usize, to: usize) -> Duration {
    let mut tx = sender.pool.begin().await.expect("begin");
    for i in from..to {
        let payload = interchange(i);
        let new = NewOutbound {
            partner: RECEIVER,
            hub_as2_id: HUB,
            content_type: "application/edifact",
            payload: &payload,
            filename: None,
            source: "cli",
            request_id: None,
        };
        queue_in(&mut tx, &sender.kafka.topics.outbound_status, &new)
            .await
            .expect("queued");
    }
    tx.commit().await.expect("commit");
    let started = Instant::now();
    loop {
        let (delivered, failed): (i64, i64) = sqlx::query_as(
            "SELECT count(*) FILTER (WHERE state = 'delivered'),
                    count(*) FILTER (WHERE state = 'failed') FROM outbound_message",
        )
        .fetch_one(&sender.pool)
        .await
        .expect("count");
        assert_eq!(failed, 0, "an outbound message failed");
        if delivered as usize >= to {
            return started.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let per_round = edihub_tests::env_number("OUTBOUND_BENCH_MESSAGES", 300_usize);
    let rounds = edihub_tests::env_number("OUTBOUND_BENCH_ROUNDS", 3_usize).max(1);
    let concurrency = 20;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let receiver = receiving_hub(concurrency).await;
    let sender = spawn_app().await;
    let pair = Pair {
        me: HUB,
        my_key: "as2/hub",
        partner: RECEIVER,
        partner_key: "as2/partner-a",
    };
    // The relay's batch is 20 (the settings file's), so 20 POSTs are in flight.
    let outbound = "sign = \"sha256\"\nencrypt = \"aes256\"\nmdn = \"sync\"\n\
                    mdn_signed = \"sha256\"\n\n[outbound]\nrequests = false\n";
    let config = settings_file(&sender, &pair, &receiver.as2_url(), outbound);
    let relay = relay(&config, &sender).await;
    let shutdown = CancellationToken::new();
    let running = tokio::spawn(relay.run(shutdown.clone()));

    let total = per_round * rounds;
    let mut inbound_messages = prepared(total, 2 * total).into_iter();
    let (mut inbound, mut outbound) = (Duration::ZERO, Duration::ZERO);
    println!(
        "Outbound AS2, hub to hub over loopback ({cores} cores), {rounds} rounds of {per_round}:"
    );
    for round in 0..rounds {
        let batch = inbound_messages.by_ref().take(per_round).collect();
        let took_in = inbound_round(&receiver, batch, concurrency).await;
        let took_out = outbound_round(&sender, round * per_round, (round + 1) * per_round).await;
        let rate = |took: Duration| per_round as f64 / took.as_secs_f64();
        println!(
            "  round {}: outbound {:>6.1} messages/s, receiver's inbound ingest {:>6.1} messages/s",
            round + 1,
            rate(took_out),
            rate(took_in)
        );
        inbound += took_in;
        outbound += took_out;
    }
    shutdown.cancel();
    running.await.expect("relay stopped");
    let journaled = receiver.count("SELECT count(*) FROM edi_message").await;
    assert_eq!(journaled, 2 * total as i64, "every message journaled once");
    let rate = |took: Duration| total as f64 / took.as_secs_f64();
    println!(
        "  all:     outbound {:>6.1} messages/s ({:.0} % of the inbound ingest), inbound {:>6.1} messages/s",
        rate(outbound),
        rate(outbound) / rate(inbound) * 100.0,
        rate(inbound)
    );
    println!(
        "  outbound: signed + encrypted, signed sync MDN verified and its MIC matched, \
         {concurrency} POSTs in flight (the relay's batch); the receiving gateway runs in \
         this process on the same cores"
    );
    receiver.drop_database().await;
    sender.drop_database().await;
}
