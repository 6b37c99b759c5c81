//! Outbound AS2 (issue 16), hub to hub over loopback: the test hub queues a file with
//! `edihub outbound send`, the outbox relay's sender POSTs it to a second hub's gateway
//! (the receiving partner, which knows the sender's identity and certificate), and the
//! synchronous signed MDN decides the outcome; or the asynchronous one, which the
//! receiving hub POSTs back to the sending hub's gateway.

use edihub_config::{GatewaySettings, PartnerOutboundSettings, PartnerSettings};
use edihub_events::{OutboundState, OutboundStatusChanged};
use edihub_tests::outbound::{Pair, relay, settings_file};
use edihub_tests::{HUB, TestApp, fixture_path, spawn_app, spawn_app_with, wait_for};
use outbox_relay::OutboundRelay;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use uuid::Uuid;

mod acknowledged;
mod contrl;
mod requested;

/// The receiving hub's AS2 name.
const RECEIVER: &str = "PARTNER-HUB";
const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// A second hub that receives from `HUB`: its own identity is partner-a's key, and it
/// verifies `HUB`'s signatures with `sender_certificate`.
async fn receiving_hub(listen: &str, sender_certificate: &str) -> TestApp {
    receiving_hub_posting_to(listen, sender_certificate, None).await
}

/// [`receiving_hub`] that POSTs asynchronous MDNs to `async_mdn_url` (on loopback) when
/// `HUB` asks for one there.
async fn receiving_hub_posting_to(
    listen: &str,
    sender_certificate: &str,
    async_mdn_url: Option<&str>,
) -> TestApp {
    let listen = listen.to_owned();
    let certificate = fixture_path(sender_certificate);
    let async_mdn_urls: Vec<String> = async_mdn_url.map(str::to_owned).into_iter().collect();
    spawn_app_with(move |gateway: &mut GatewaySettings| {
        gateway.listen = listen;
        gateway.hub_as2_id = RECEIVER.into();
        gateway.hub_certificate = Some(fixture_path("as2/partner-a.crt"));
        gateway.hub_private_key = Some(fixture_path("as2/partner-a.key"));
        gateway.partners = vec![PartnerSettings {
            as2_id: HUB.into(),
            certificates: vec![certificate],
            require_signature: true,
            require_encryption: true,
            async_mdn_urls,
            async_mdn_allowed_networks: vec!["127.0.0.0/8".into()],
            ..Default::default()
        }];
    })
    .await
}

/// The sending hub: its gateway knows `RECEIVER` as a partner it sends to (partner-a's
/// certificate verifies the MDNs it POSTs back), and `HUB` has its key.
async fn sending_hub() -> TestApp {
    spawn_app_with(|gateway: &mut GatewaySettings| {
        gateway.hub_certificate = Some(fixture_path("as2/hub.crt"));
        gateway.hub_private_key = Some(fixture_path("as2/hub.key"));
        gateway.partners.push(PartnerSettings {
            as2_id: RECEIVER.into(),
            certificates: vec![fixture_path("as2/partner-a.crt")],
            outbound: Some(PartnerOutboundSettings {
                // Only that it is a partner the hub sends to matters to the gateway.
                url: "http://127.0.0.1:9/as2".into(),
                ..Default::default()
            }),
            ..Default::default()
        });
    })
    .await
}

/// The sending hub's settings file (for the CLI and the relay): its key, the receiving
/// partner at `url` with the default outbound settings (signed, encrypted, a signed
/// sync MDN), loopback allowed.
fn sender_config(app: &TestApp, url: &str) -> PathBuf {
    sender_config_with(app, url, "")
}

/// [`sender_config`] with more `[gateway.partners.outbound]` lines.
fn sender_config_with(app: &TestApp, url: &str, outbound: &str) -> PathBuf {
    sender_config_for(app, RECEIVER, url, outbound)
}

/// [`sender_config_with`] for the partner `partner` (partner-a's certificate). Its
/// retries wait 1 ms unless `outbound` sets the partnership's backoff.
fn sender_config_for(app: &TestApp, partner: &str, url: &str, outbound: &str) -> PathBuf {
    let pair = Pair {
        me: HUB,
        my_key: "as2/hub",
        partner,
        partner_key: "as2/partner-a",
    };
    settings_file(app, &pair, url, outbound)
}

fn edihub(config: &Path, args: &[&str]) -> std::process::Output {
    Command::new(edihub_tests::service_binary("edihub"))
        .args(args)
        .env_clear()
        .env("EDIHUB_CONFIG", config)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run edihub")
}

/// `edihub outbound send`: the queued message's id.
fn queue(config: &Path) -> Uuid {
    let file = fixture_path(INVOIC);
    let file = file.to_str().expect("path");
    let output = edihub(config, &["outbound", "send", "--to", RECEIVER, file]);
    assert!(output.status.success(), "{output:?}");
    let id = String::from_utf8_lossy(&output.stdout);
    Uuid::parse_str(id.trim()).expect("the id on stdout")
}

/// Steps the relay until message `id` leaves `queued`; its state, error, MIC reported.
async fn sent_until_settled(relay: &OutboundRelay, app: &TestApp, id: Uuid) -> Settled {
    wait_for(
        "the outbound message to settle",
        Duration::from_secs(30),
        || async {
            relay.step().await.expect("step");
            let settled = settled(app, id).await;
            (settled.state != "queued").then_some(settled)
        },
    )
    .await
}

#[derive(Debug)]
struct Settled {
    state: String,
    attempts: i32,
    last_error: Option<String>,
    mic_expected: Option<String>,
    mic_reported: Option<String>,
    as2_message_id: String,
}

async fn settled(app: &TestApp, id: Uuid) -> Settled {
    let row: (
        String,
        i32,
        Option<String>,
        Option<String>,
        Option<String>,
        String,
    ) = sqlx::query_as(
        "SELECT state, attempts, last_error, mic_expected, mic_reported, as2_message_id
             FROM outbound_message WHERE id = $1",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .expect("outbound row");
    Settled {
        state: row.0,
        attempts: row.1,
        last_error: row.2,
        mic_expected: row.3,
        mic_reported: row.4,
        as2_message_id: row.5,
    }
}

async fn journaled(receiver: &TestApp, as2_message_id: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM edi_message WHERE as2_message_id = $1")
        .bind(as2_message_id)
        .fetch_one(&receiver.pool)
        .await
        .expect("count")
}

/// The status events of `id` on the topic, in order, once `count` arrived.
async fn status_events(app: &TestApp, id: Uuid, count: usize) -> Vec<OutboundStatusChanged> {
    app.drain_outbox().await;
    let key = id.to_string();
    let records = edihub_kafka::reader::read_until(
        &app.kafka.brokers,
        &app.kafka.topics.outbound_status,
        Duration::from_secs(30),
        |read| {
            read.iter()
                .filter(|r| r.key.as_deref() == Some(&key))
                .count()
                >= count
        },
    )
    .await
    .expect("read the status topic");
    records
        .iter()
        .filter(|r| r.key.as_deref() == Some(&key))
        .map(|r| serde_json::from_slice(&r.payload).expect("OutboundStatusChanged"))
        .collect()
}

fn states(events: &[OutboundStatusChanged]) -> Vec<OutboundState> {
    events.iter().map(|e| e.state).collect()
}

#[tokio::test]
async fn a_queued_file_is_delivered_to_the_partner_with_its_mic_confirmed_and_resent_alike() {
    let receiver = receiving_hub("127.0.0.1:0", "as2/hub.crt").await;
    let sender = spawn_app().await;
    let config = sender_config(&sender, &receiver.as2_url());
    let id = queue(&config);
    let relay = relay(&config, &sender).await;

    let done = sent_until_settled(&relay, &sender, id).await;
    assert_eq!(done.state, "delivered", "{done:?}");
    assert_eq!(done.attempts, 1);
    assert!(done.mic_reported.is_some());
    assert_eq!(done.mic_reported, done.mic_expected);
    assert_eq!(journaled(&receiver, &done.as2_message_id).await, 1);

    let shown = edihub(&config, &["outbound", "show", &id.to_string(), "--json"]);
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("show --json");
    assert_eq!(shown["state"], "delivered");
    assert!(
        shown["mdn"]
            .as_str()
            .unwrap_or_default()
            .contains("processed")
    );
    let listed = edihub(
        &config,
        &["outbound", "list", "--state", "delivered", "--json"],
    );
    assert!(String::from_utf8_lossy(&listed.stdout).contains(&id.to_string()));

    // A delivered message cannot be cancelled; it can be resent, under the same
    // Message-ID, which the receiver recognises.
    let cancel = edihub(&config, &["outbound", "cancel", &id.to_string()]);
    assert!(!cancel.status.success(), "{cancel:?}");
    let resend = edihub(&config, &["outbound", "resend", &id.to_string()]);
    assert!(resend.status.success(), "{resend:?}");
    let again = sent_until_settled(&relay, &sender, id).await;
    assert_eq!(again.state, "delivered", "{again:?}");
    assert_eq!(again.as2_message_id, done.as2_message_id);
    assert_eq!(journaled(&receiver, &done.as2_message_id).await, 1);

    let events = status_events(&sender, id, 4).await;
    use OutboundState::{Delivered, Queued};
    assert_eq!(states(&events), [Queued, Delivered, Queued, Delivered]);
    assert_eq!(events[1].previous_state, Some(Queued));
    assert_eq!(events[1].mic, done.mic_reported);
    assert!(
        events
            .iter()
            .all(|e| e.as2_message_id == done.as2_message_id)
    );
}

/// A free port, nobody listening: connections to it are refused until a partner starts.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

#[tokio::test]
async fn a_partner_that_is_down_gets_the_message_once_it_is_up() {
    let port = free_port();
    let sender = spawn_app().await;
    let config = sender_config(&sender, &format!("http://127.0.0.1:{port}/as2"));
    let id = queue(&config);
    let relay = relay(&config, &sender).await;

    let report = relay.step().await.expect("step");
    assert_eq!(report.retried, 1, "{report:?}");
    let waiting = settled(&sender, id).await;
    assert_eq!(waiting.state, "queued");
    assert_eq!(waiting.attempts, 1);
    assert!(waiting.last_error.is_some());

    let receiver = receiving_hub(&format!("127.0.0.1:{port}"), "as2/hub.crt").await;
    let done = sent_until_settled(&relay, &sender, id).await;
    assert_eq!(done.state, "delivered", "{done:?}");
    assert!(done.attempts >= 2);
    assert_eq!(journaled(&receiver, &done.as2_message_id).await, 1);
}

#[tokio::test]
async fn a_retry_waits_the_partnerships_backoff_not_the_relays() {
    let port = free_port();
    let sender = spawn_app().await;
    // The relay's own backoff is 1 ms (`[outbound.retry]`); the partnership's 10 min.
    let config = sender_config_with(
        &sender,
        &format!("http://127.0.0.1:{port}/as2"),
        "base_backoff_ms = 600000\nmax_backoff_ms = 600000",
    );
    let id = queue(&config);
    let relay = relay(&config, &sender).await;

    let report = relay.step().await.expect("step");
    assert_eq!(report.retried, 1, "{report:?}");
    // The first retry waits between half and all of the base: 5 to 10 minutes.
    let wait: f64 = sqlx::query_scalar(
        "SELECT extract(epoch FROM next_attempt_at - now())::float8 FROM outbox
         WHERE channel = 'as2-outbound' AND status = 'PENDING'",
    )
    .fetch_one(&sender.pool)
    .await
    .expect("the delivery row waits");
    assert!((290.0..=600.0).contains(&wait), "waits {wait} s");
    assert_eq!(settled(&sender, id).await.state, "queued");
    assert_eq!(relay.step().await.expect("step").claimed, 0, "not due yet");
}

#[tokio::test]
async fn an_error_mdn_fails_the_message_with_the_partners_reason() {
    // The receiver expects another key for HUB: our signature fails its check.
    let receiver = receiving_hub("127.0.0.1:0", "as2/partner-b.crt").await;
    let sender = spawn_app().await;
    let config = sender_config(&sender, &receiver.as2_url());
    let id = queue(&config);
    let relay = relay(&config, &sender).await;

    let done = sent_until_settled(&relay, &sender, id).await;
    assert_eq!(done.state, "failed", "{done:?}");
    let error = done.last_error.unwrap_or_default();
    assert!(error.contains("refused"), "{error}");
    assert_eq!(journaled(&receiver, &done.as2_message_id).await, 0);
    let events = status_events(&sender, id, 2).await;
    assert_eq!(
        states(&events),
        [OutboundState::Queued, OutboundState::Failed]
    );
    assert_eq!(events[1].reason.as_deref(), Some(error.as_str()));
}

#[tokio::test]
async fn a_cancelled_message_is_never_posted() {
    let receiver = receiving_hub("127.0.0.1:0", "as2/hub.crt").await;
    let sender = spawn_app().await;
    let config = sender_config(&sender, &receiver.as2_url());
    let id = queue(&config);
    let cancel = edihub(&config, &["outbound", "cancel", &id.to_string()]);
    assert!(cancel.status.success(), "{cancel:?}");

    let relay = relay(&config, &sender).await;
    let report = relay.step().await.expect("step");
    assert_eq!(report.sent, 1, "the delivery row is done with: {report:?}");
    let after = settled(&sender, id).await;
    assert_eq!(after.state, "cancelled");
    assert_eq!(after.attempts, 0);
    assert_eq!(journaled(&receiver, &after.as2_message_id).await, 0);
    let resend = edihub(&config, &["outbound", "resend", &id.to_string()]);
    assert!(
        !resend.status.success(),
        "a cancelled message is not resent"
    );
}

#[tokio::test]
async fn without_an_mdn_asked_for_a_2xx_delivers() {
    let receiver = receiving_hub("127.0.0.1:0", "as2/hub.crt").await;
    let sender = spawn_app().await;
    let config = sender_config_with(&sender, &receiver.as2_url(), r#"mdn = "none""#);
    let id = queue(&config);
    let relay = relay(&config, &sender).await;

    let done = sent_until_settled(&relay, &sender, id).await;
    assert_eq!(done.state, "delivered", "{done:?}");
    assert_eq!(done.mic_reported, None);
    assert_eq!(journaled(&receiver, &done.as2_message_id).await, 1);
}

/// `mdn = "async"` lines for [`sender_config_with`]: the MDN to be POSTed to `url`.
fn async_mdn(url: &str, extra: &str) -> String {
    format!("mdn = \"async\"\nasync_mdn_url = \"{url}\"\n{extra}")
}

/// Steps the relay and the MDN timeout's sweep until message `id` is in `state`.
async fn until_state(relay: &OutboundRelay, app: &TestApp, id: Uuid, state: &str) -> Settled {
    wait_for(
        &format!("the outbound message to be {state}"),
        Duration::from_secs(30),
        || async {
            relay.step().await.expect("step");
            relay.sweep_timeouts().await.expect("sweep");
            let settled = settled(app, id).await;
            (settled.state == state).then_some(settled)
        },
    )
    .await
}

/// The `OutboundStatusChanged` events written for `id` (published or not).
async fn events_written(app: &TestApp, id: Uuid) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE aggregate_id = $1 AND event_type = 'OutboundStatusChanged'",
    )
    .bind(id.to_string())
    .fetch_one(&app.pool)
    .await
    .expect("count events")
}

#[tokio::test]
async fn an_async_mdn_posted_back_delivers_the_message_once_even_when_it_comes_twice() {
    let sender = sending_hub().await;
    let receiver =
        receiving_hub_posting_to("127.0.0.1:0", "as2/hub.crt", Some(&sender.as2_url())).await;
    let outbound = async_mdn(&sender.as2_url(), "");
    let config = sender_config_with(&sender, &receiver.as2_url(), &outbound);
    let id = queue(&config);
    let relay = relay(&config, &sender).await;

    // `delivered` already when the MDN came before the POST's answer was recorded.
    let sent = sent_until_settled(&relay, &sender, id).await;
    assert!(
        matches!(sent.state.as_str(), "sent" | "delivered"),
        "{sent:?}"
    );
    // The receiving hub's gateway POSTs its signed MDN to ours, which matches it.
    let done = wait_for("the async MDN", Duration::from_secs(30), || async {
        let now = settled(&sender, id).await;
        (now.state != "sent").then_some(now)
    })
    .await;
    assert_eq!(done.state, "delivered", "{done:?}");
    assert_eq!(done.attempts, 1);
    assert!(done.mic_reported.is_some());
    assert_eq!(done.mic_reported, done.mic_expected);
    assert_eq!(journaled(&receiver, &done.as2_message_id).await, 1);
    // Its wait is measured (the registry is this test process's), right after the
    // commit the state above came from: awaited, not read once.
    wait_for("the MDN wait observed", Duration::from_secs(10), || async {
        let metrics = sender.metrics().await;
        let observed = metrics
            .lines()
            .find_map(|l| l.strip_prefix("edihub_outbound_mdn_wait_seconds_count "))
            .and_then(|n| n.trim().parse::<u64>().ok());
        (observed >= Some(1)).then_some(())
    })
    .await;

    // The same MDN again (as a partner's retry would POST it): 200, nothing changes.
    let (content_type, mdn): (String, Vec<u8>) =
        sqlx::query_as("SELECT mdn_content_type, mdn FROM outbound_message WHERE id = $1")
            .bind(id)
            .fetch_one(&sender.pool)
            .await
            .expect("the stored MDN");
    let headers: Vec<(String, String)> = [
        ("AS2-From", RECEIVER),
        ("AS2-To", HUB),
        ("AS2-Version", "1.2"),
        ("Message-ID", "<again@PARTNER-HUB>"),
        ("Content-Type", content_type.as_str()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .collect();
    let written = events_written(&sender, id).await;
    let again = sender.post_raw(&headers, mdn).await;
    assert_eq!(again.status, 200);
    assert_eq!(settled(&sender, id).await.state, "delivered");
    assert_eq!(events_written(&sender, id).await, written, "no new event");
    let events = status_events(&sender, id, written as usize).await;
    use OutboundState::{Delivered, Queued, Sent};
    // `sent` was read after the sender's step: an MDN that came after the POST's answer
    // was recorded, but before that read, shows `delivered` with a `sent` event before
    // it. Only an observed `sent` rules out the sequence without one.
    let observed = states(&events);
    let allowed: &[&[OutboundState]] = match sent.state.as_str() {
        "sent" => &[&[Queued, Sent, Delivered]],
        _ => &[&[Queued, Delivered], &[Queued, Sent, Delivered]],
    };
    assert!(allowed.contains(&observed.as_slice()), "{observed:?}");
    assert_eq!(events.last().and_then(|e| e.mic.clone()), done.mic_reported);
}

/// What an asynchronous MDN is judged against, the MIC it should report included, is
/// recorded before the POST: a partner may send its MDN before it answers the POST,
/// and that MDN ends the message before the POST's outcome is recorded.
#[tokio::test]
async fn an_async_mdns_expected_mic_is_recorded_before_the_post_is_answered() {
    // A partner that takes the connection (the kernel's backlog) and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/as2", silent.local_addr().expect("address"));
    let sender = sending_hub().await;
    let outbound = async_mdn(&sender.as2_url(), "timeout_ms = 30000");
    let config = sender_config_with(&sender, &url, &outbound);
    let id = queue(&config);
    let relay = relay(&config, &sender).await;
    let posting = tokio::spawn(async move { relay.step().await });
    let counted = wait_for("the POST counted", Duration::from_secs(30), || async {
        let now = settled(&sender, id).await;
        (now.attempts == 1).then_some(now)
    })
    .await;
    assert_eq!(
        counted.state, "queued",
        "the POST is unanswered: {counted:?}"
    );
    assert!(counted.mic_expected.is_some(), "{counted:?}");
    posting.abort();
}

#[tokio::test]
async fn an_async_mdn_that_never_comes_resends_with_the_same_message_id_then_fails() {
    // The receiver takes the message but POSTs its MDN to a port where nobody listens.
    let nowhere = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let nowhere = format!("http://{nowhere}/as2");
    let sender = sending_hub().await;
    let receiver = receiving_hub_posting_to("127.0.0.1:0", "as2/hub.crt", Some(&nowhere)).await;
    let outbound = async_mdn(&nowhere, "mdn_timeout_ms = 200\nmax_attempts = 3");
    let config = sender_config_with(&sender, &receiver.as2_url(), &outbound);
    let id = queue(&config);
    let relay = relay(&config, &sender).await;

    let done = until_state(&relay, &sender, id, "failed").await;
    assert_eq!(done.attempts, 3, "{done:?}");
    let error = done.last_error.clone().unwrap_or_default();
    assert!(error.contains("no MDN within 200 ms"), "{error}");
    // Three POSTs of one Message-ID: the receiver journaled it once.
    assert_eq!(journaled(&receiver, &done.as2_message_id).await, 1);

    let events = status_events(&sender, id, 7).await;
    use OutboundState::{Failed, Queued, Sent};
    assert_eq!(
        states(&events),
        [Queued, Sent, Queued, Sent, Queued, Sent, Failed]
    );
    assert!(
        events
            .iter()
            .all(|e| e.as2_message_id == done.as2_message_id)
    );
    assert_eq!(
        events[2].reason.as_deref(),
        Some("no MDN within 200 ms; sent again")
    );
    assert_eq!(events[6].reason.as_deref(), Some(error.as_str()));
}
