//! The hub's outbound sender (the outbox relay's `as2-outbound` channel) against pyas2lib
//! as the receiving partner: every sign x encrypt x compress combination a partnership's
//! outbound settings can ask for, with each kind of MDN (sync unsigned, sync signed,
//! async signed: pyas2lib POSTs that one to the test hub's gateway). Each message must
//! end `delivered`, and pyas2lib must have read exactly what the settings asked for.

use super::receiving::{AsyncMdn, Choice, MdnFault, ReceiverOptions, ReceivingPeer, differences};
use edihub_outbound::{NewOutbound, OutboundState, OutboundStore};
use edihub_tests::outbound::{Pair, relay, settings_file};
use edihub_tests::{HUB, PARTNER, TestApp, fixture, fixture_path, spawn_app_with, wait_for};
use outbox_relay::OutboundRelay;
use std::time::Duration;
use uuid::Uuid;

use super::INVOIC;

/// `HUB` (its key) sends to `PARTNER` (partner-a's certificate).
const PAIR: Pair<'static> = Pair {
    me: HUB,
    my_key: "as2/hub",
    partner: PARTNER,
    partner_key: "as2/partner-a",
};

/// The MDN a partnership asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MdnMode {
    SyncUnsigned,
    SyncSigned,
    AsyncSigned,
}

/// The test hub: `HUB` with its key, and `PARTNER` (partner-a's certificate) as a
/// partnership it sends to, so its gateway takes pyas2lib's asynchronous MDNs.
async fn hub() -> TestApp {
    spawn_app_with(|gateway| {
        gateway.hub_certificate = Some(fixture_path("as2/hub.crt"));
        gateway.hub_private_key = Some(fixture_path("as2/hub.key"));
        for partner in gateway.partners.iter_mut().filter(|p| p.as2_id == PARTNER) {
            partner.certificates = vec![fixture_path("as2/partner-a.crt")];
            partner.outbound = Some(edihub_config::PartnerOutboundSettings {
                // Only that it is a partner the hub sends to matters to the gateway.
                url: "http://127.0.0.1:9/as2".into(),
                ..Default::default()
            });
        }
    })
    .await
}

/// `[gateway.partners.outbound]` lines for `choice` and `mode`.
fn outbound_lines(choice: Choice, mode: MdnMode, return_url: &str) -> String {
    let mdn = match mode {
        MdnMode::SyncUnsigned => "mdn = \"sync\"\nmdn_signed = \"none\"".to_owned(),
        MdnMode::SyncSigned => "mdn = \"sync\"\nmdn_signed = \"sha256\"".to_owned(),
        MdnMode::AsyncSigned => {
            format!("mdn = \"async\"\nmdn_signed = \"sha256\"\nasync_mdn_url = \"{return_url}\"")
        }
    };
    format!(
        "sign = \"{}\"\nencrypt = \"{}\"\ncompress = {}\n{mdn}",
        choice.sign.unwrap_or("none"),
        choice.encrypt.unwrap_or("none"),
        choice.compress,
    )
}

/// Queues the INVOIC to `PARTNER`; its id.
async fn queue(app: &TestApp, payload: &[u8]) -> Uuid {
    let store = OutboundStore::new(app.pool.clone(), &app.kafka.topics.outbound_status);
    let queued = store
        .queue(&NewOutbound {
            partner: PARTNER,
            hub_as2_id: HUB,
            content_type: "application/edifact",
            payload,
            filename: Some("invoic.edi"),
            source: "cli",
            request_id: None,
        })
        .await
        .expect("queued");
    queued.id
}

/// Sends every combination with `mode`'s MDN; collects every disagreement.
async fn sender_matrix(mode: MdnMode) {
    let app = hub().await;
    let peer = ReceivingPeer::start(&ReceiverOptions {
        async_mdn: AsyncMdn::Once,
        ..ReceiverOptions::default()
    });
    let payload = fixture(INVOIC);
    let signed_mdn = (mode != MdnMode::SyncUnsigned).then_some("sha256");
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
                let lines = outbound_lines(choice, mode, &app.as2_url());
                let config = settings_file(&app, &PAIR, peer.url(), &lines);
                let relay = relay(&config, &app).await;
                let id = queue(&app, &payload).await;
                let (state, error, message_id) = finished(&relay, &app, id).await;
                sent += 1;
                if state != "delivered" {
                    failures.push(format!("{choice:?}: {state}: {error:?}"));
                }
                let received = peer.wait_received(sent).await;
                let got = received
                    .iter()
                    .find(|r| r.message_id == message_id)
                    .expect("pyas2lib got the message");
                let asynchronous = mode == MdnMode::AsyncSigned;
                for difference in differences(got, choice, &payload, asynchronous) {
                    failures.push(format!("{choice:?}: {difference}"));
                }
            }
        }
    }
    assert_eq!(sent, 32);
    assert!(
        failures.is_empty(),
        "{mode:?}: {} failure(s) in {sent} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outbound_sender_delivers_every_combination_to_pyas2lib_with_sync_unsigned_mdns() {
    sender_matrix(MdnMode::SyncUnsigned).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outbound_sender_delivers_every_combination_to_pyas2lib_with_sync_signed_mdns() {
    sender_matrix(MdnMode::SyncSigned).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outbound_sender_delivers_every_combination_to_pyas2lib_with_async_signed_mdns() {
    sender_matrix(MdnMode::AsyncSigned).await;
}

/// A partner that POSTs the asynchronous MDN before it answers the message's POST: the
/// MDN is judged against what the sender recorded before it POSTed, not ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_mdn_that_comes_before_the_post_is_answered_delivers_the_message() {
    let app = hub().await;
    let peer = ReceivingPeer::start(&ReceiverOptions {
        async_mdn: AsyncMdn::First,
        ..ReceiverOptions::default()
    });
    let lines = outbound_lines(Choice::SECURE, MdnMode::AsyncSigned, &app.as2_url());
    let config = settings_file(&app, &PAIR, peer.url(), &lines);
    let relay = relay(&config, &app).await;
    let id = queue(&app, &fixture(INVOIC)).await;
    let (state, error, message_id) = finished(&relay, &app, id).await;
    assert_eq!(state, "delivered", "{error:?}");
    let got = peer.wait_async_done(&message_id).await;
    assert_eq!(got.async_posts, [Ok(200)], "{}", got.summary());
}

/// Steps the relay and the MDN timeout sweep until message `id` is delivered or failed:
/// (state, last error, AS2 Message-ID).
async fn finished(
    relay: &OutboundRelay,
    app: &TestApp,
    id: Uuid,
) -> (String, Option<String>, String) {
    wait_for(
        "the message delivered or failed",
        Duration::from_secs(30),
        || async {
            relay.step().await.expect("step");
            relay.sweep_timeouts().await.expect("sweep");
            let row: (String, Option<String>, String) = sqlx::query_as(
                "SELECT state, last_error, as2_message_id FROM outbound_message WHERE id = $1",
            )
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("outbound row");
            matches!(row.0.as_str(), "delivered" | "failed").then_some(row)
        },
    )
    .await
}

/// Sends one secure message to a pyas2lib partner started with `options`, the
/// partnership asking for `mode` (plus `extra` outbound lines); the outcome, the peer
/// for what it saw, and the hub (its gateway takes MDNs while it lives).
async fn send_once(
    options: ReceiverOptions,
    mode: MdnMode,
    extra: &str,
) -> ((String, Option<String>, String), ReceivingPeer, TestApp) {
    let app = hub().await;
    let peer = ReceivingPeer::start(&options);
    let lines = outbound_lines(Choice::SECURE, mode, &app.as2_url()) + "\n" + extra;
    let config = settings_file(&app, &PAIR, peer.url(), &lines);
    let relay = relay(&config, &app).await;
    let id = queue(&app, &fixture(INVOIC)).await;
    (finished(&relay, &app, id).await, peer, app)
}

/// Each MDN pyas2lib gets wrong on purpose fails the message with its reason, sync or
/// async, though pyas2lib read the message fine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outbound_sender_fails_a_message_on_each_wrong_mdn_pyas2lib_sends() {
    let cases = [
        (MdnFault::Error, "unexpected-processing-error"),
        (MdnFault::WrongMic, "MIC"),
        (MdnFault::WrongKey, "signature"),
        (MdnFault::Unsigned, "not signed"),
    ];
    let mut wrong = Vec::new();
    for mode in [MdnMode::SyncSigned, MdnMode::AsyncSigned] {
        for (fault, expected) in cases {
            let options = ReceiverOptions {
                mdn_fault: fault,
                ..ReceiverOptions::default()
            };
            let extra = match mode {
                MdnMode::AsyncSigned => "mdn_timeout_ms = 300\nmax_attempts = 2",
                _ => "",
            };
            let ((state, error, _), peer, _hub) = send_once(options, mode, extra).await;
            let error = error.unwrap_or_default();
            let read = peer.wait_received(1).await.remove(0);
            // An async MDN the hub cannot trust changes nothing: the message waits for
            // its MDN timeout (0.3 s here) and fails after its attempts.
            let ignored = mode == MdnMode::AsyncSigned
                && matches!(fault, MdnFault::WrongKey | MdnFault::Unsigned);
            let expected = if ignored { "no MDN within" } else { expected };
            if state != "failed" || !error.contains(expected) || read.status != "processed" {
                wrong.push(format!(
                    "{mode:?} {fault:?}: {state}, {error:?}, {}",
                    read.summary()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A partner that answers 503 twice gets the message on the third POST, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pyas2lib_partner_that_is_down_gets_the_message_once_it_is_up() {
    let options = ReceiverOptions {
        unavailable: 2,
        ..ReceiverOptions::default()
    };
    let ((state, error, message_id), peer, _hub) =
        send_once(options, MdnMode::SyncSigned, "").await;
    assert_eq!(state, "delivered", "{error:?}");
    assert_eq!(peer.unavailable(), [message_id.clone(), message_id.clone()]);
    let received = peer.wait_received(1).await;
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].message_id, message_id);
}

/// No async MDN: sent again with the same Message-ID after the MDN timeout, then failed;
/// the same async MDN twice: delivered, and the second answered 200 too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_mdns_that_never_come_or_come_twice_from_pyas2lib() {
    let never = ReceiverOptions {
        async_mdn: AsyncMdn::Never,
        ..ReceiverOptions::default()
    };
    let timeouts = "mdn_timeout_ms = 300\nmax_attempts = 2";
    let ((state, error, message_id), peer, _hub) =
        send_once(never, MdnMode::AsyncSigned, timeouts).await;
    assert_eq!(state, "failed");
    assert!(
        error
            .unwrap_or_default()
            .contains("gave up after 2 attempts")
    );
    let received = peer.wait_received(2).await;
    assert!(
        received.iter().all(|r| r.message_id == message_id),
        "the same Message-ID"
    );

    let twice = ReceiverOptions {
        async_mdn: AsyncMdn::Twice,
        ..ReceiverOptions::default()
    };
    let ((state, error, message_id), peer, _hub) = send_once(twice, MdnMode::AsyncSigned, "").await;
    assert_eq!(state, "delivered", "{error:?}");
    let got = peer.wait_async_done(&message_id).await;
    assert_eq!(got.async_posts, [Ok(200), Ok(200)]);
}

/// The outbox relay as the service runs, a process of its own on `config` (the
/// environment's DATABASE_URL and the like must not override the file).
fn relay_process(config: &std::path::Path) -> std::process::Child {
    let mut command = std::process::Command::new(edihub_tests::service_binary("outbox-relay"));
    for (variable, _) in edihub_config::ENV_OVERRIDES {
        command.env_remove(variable);
    }
    command
        .env("EDIHUB_CONFIG", config)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start outbox-relay")
}

/// The sender SIGKILLed while pyas2lib holds its answer: the claim dies with the
/// process, the restarted sender POSTs the message again with the same Message-ID, and
/// it is delivered; the partner saw it twice, not more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sender_killed_mid_delivery_delivers_after_a_restart_with_one_resend_at_most() {
    let app = hub().await;
    let peer = ReceivingPeer::start(&ReceiverOptions {
        answer_delay_ms: 2000,
        ..ReceiverOptions::default()
    });
    let lines = outbound_lines(Choice::SECURE, MdnMode::SyncSigned, &app.as2_url())
        + "\n[outbound]\nrequests = false\n";
    let config = settings_file(&app, &PAIR, peer.url(), &lines);
    let id = queue(&app, &fixture(INVOIC)).await;

    let mut sender = relay_process(&config);
    let first = peer.wait_received(1).await.remove(0);
    sender.kill().expect("SIGKILL the sender"); // its POST awaits the held answer
    sender.wait().expect("reaped");
    let state: String = sqlx::query_scalar("SELECT state FROM outbound_message WHERE id = $1")
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect("state");
    assert_eq!(state, "queued", "killed before its outcome was recorded");

    let mut sender = relay_process(&config);
    let delivered = wait_for(
        "delivered after the restart",
        Duration::from_secs(60),
        || async {
            let state: String =
                sqlx::query_scalar("SELECT state FROM outbound_message WHERE id = $1")
                    .bind(id)
                    .fetch_one(&app.pool)
                    .await
                    .expect("state");
            (state == "delivered").then_some(state)
        },
    )
    .await;
    sender.kill().expect("stop the sender");
    sender.wait().expect("reaped");
    assert_eq!(delivered, "delivered");
    let received = peer.received();
    assert!(
        received.len() <= 2,
        "one resend at most: {}",
        received.len()
    );
    assert!(
        received.iter().all(|r| r.message_id == first.message_id),
        "resent with the same Message-ID"
    );
}

/// Cancelled while its POST awaits pyas2lib's answer: the processed MDN that comes back
/// makes it delivered after all, with the events in that order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_cancelled_while_its_post_is_in_flight_is_delivered_when_the_partner_took_it() {
    let app = hub().await;
    let peer = ReceivingPeer::start(&ReceiverOptions {
        answer_delay_ms: 1000,
        ..ReceiverOptions::default()
    });
    let lines = outbound_lines(Choice::SECURE, MdnMode::SyncSigned, &app.as2_url());
    let config = settings_file(&app, &PAIR, peer.url(), &lines);
    let relay = relay(&config, &app).await;
    let id = queue(&app, &fixture(INVOIC)).await;
    let store = OutboundStore::new(app.pool.clone(), &app.kafka.topics.outbound_status);

    let (stepped, cancelled) = tokio::join!(relay.step(), async {
        peer.wait_received(1).await; // read, its answer held back
        store.cancel(id).await
    });
    stepped.expect("step");
    assert_eq!(
        cancelled.expect("cancelled").state,
        OutboundState::Cancelled
    );
    let message = store.show(id).await.expect("show").expect("the message");
    assert_eq!(
        message.state,
        OutboundState::Delivered,
        "{:?}",
        message.last_error
    );
    let states: Vec<String> = sqlx::query_scalar(
        "SELECT payload->>'state' FROM outbox
          WHERE aggregate_id = $1 AND event_type = 'OutboundStatusChanged' ORDER BY seq",
    )
    .bind(id.to_string())
    .fetch_all(&app.pool)
    .await
    .expect("events");
    assert_eq!(states, ["queued", "cancelled", "delivered"]);
}
