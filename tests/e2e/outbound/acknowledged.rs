//! A partner's CONTRL and APERAK are matched to the interchange the hub sent it: hub to
//! hub, the hub sends an INVOIC that asks for a CONTRL, the partner's hub sends its
//! CONTRL back over AS2 by itself, and the hub records it on the outbound message with
//! an `OutboundAcknowledged` event. An APERAK is matched by the invoice number it names;
//! an acknowledgement of nothing the hub sent records nothing.

use super::contrl::{hub_sending_to, partner_hub_answering};
use super::{Pair, edihub, free_port, relay, sender_config_for, sent_until_settled, settings_file};
use crate::acknowledgement::acked_invoic;
use edihub_events::{OutboundAcknowledged, event_types, headers};
use edihub_outbound::{NewOutbound, OutboundStore};
use edihub_tests::{HUB, PARTNER, TestApp, spawn_app, wait_for};
use std::time::Duration;
use uuid::Uuid;

/// UNB 0020 and the invoice number (BGM 1004) of the INVOIC fixture.
const UNB_REFERENCE: &str = "EH000001";
const INVOICE_NUMBER: &str = "INV-2026-0001";

/// Queues the acked INVOIC from `HUB` to `PARTNER` on `app`.
async fn queue_invoic(app: &TestApp) -> Uuid {
    let store = OutboundStore::new(app.pool.clone(), &app.kafka.topics.outbound_status);
    let payload = acked_invoic();
    let queued = store
        .queue(&NewOutbound {
            partner: PARTNER,
            hub_as2_id: HUB,
            content_type: "application/edifact",
            payload: payload.as_bytes(),
            filename: Some("invoic.edi"),
            source: "cli",
            request_id: None,
        })
        .await
        .expect("queued");
    assert_eq!(queued.unb_reference.as_deref(), Some(UNB_REFERENCE));
    assert_eq!(queued.document_numbers, [INVOICE_NUMBER]);
    queued.id
}

/// Waits until outbound message `id` on `app` has an acknowledgement; its verdict.
async fn acknowledgement_of(app: &TestApp, id: Uuid) -> String {
    wait_for(
        "the acknowledgement to be matched",
        Duration::from_secs(60),
        || async {
            sqlx::query_scalar::<_, Option<String>>(
                "SELECT acknowledgement FROM outbound_message WHERE id = $1",
            )
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("outbound row")
        },
    )
    .await
}

/// The `OutboundAcknowledged` events of `id` on the status topic, once one arrived.
async fn acknowledged_events(app: &TestApp, id: Uuid) -> Vec<OutboundAcknowledged> {
    app.drain_outbox().await;
    let key = id.to_string();
    let is_acknowledged = |r: &edihub_kafka::reader::RecordView| {
        r.key.as_deref() == Some(key.as_str())
            && r.header(headers::TYPE) == Some(event_types::OUTBOUND_ACKNOWLEDGED)
    };
    let records = edihub_kafka::reader::read_until(
        &app.kafka.brokers,
        &app.kafka.topics.outbound_status,
        Duration::from_secs(30),
        |read| read.iter().any(is_acknowledged),
    )
    .await
    .expect("read the status topic");
    records
        .iter()
        .filter(|r| is_acknowledged(r))
        .map(|r| serde_json::from_slice(&r.payload).expect("OutboundAcknowledged"))
        .collect()
}

#[tokio::test]
async fn the_contrl_a_partners_hub_sends_back_is_matched_to_the_interchange_it_answers() {
    let partner_port = free_port();
    let hub = hub_sending_to(format!("http://127.0.0.1:{partner_port}/as2")).await;
    let partner =
        partner_hub_answering(Some((format!("127.0.0.1:{partner_port}"), hub.as2_url()))).await;

    let outbound_id = queue_invoic(&hub).await;
    let hub_config = sender_config_for(&hub, PARTNER, &partner.as2_url(), "");
    let done = sent_until_settled(&relay(&hub_config, &hub).await, &hub, outbound_id).await;
    assert_eq!(done.state, "delivered", "{done:?}");

    // The partner's hub transforms the INVOIC, queues its CONTRL and sends it back.
    partner.drain_outbox().await;
    partner.start_consumers();
    let contrl_id: Uuid = wait_for("the partner's CONTRL", Duration::from_secs(60), || async {
        sqlx::query_scalar("SELECT id FROM outbound_message WHERE source = 'contrl'")
            .fetch_optional(&partner.pool)
            .await
            .expect("query")
    })
    .await;
    let pair = Pair {
        me: PARTNER,
        my_key: "as2/partner-a",
        partner: HUB,
        partner_key: "as2/hub",
    };
    let partner_config = settings_file(&partner, &pair, &hub.as2_url(), "");
    let back =
        sent_until_settled(&relay(&partner_config, &partner).await, &partner, contrl_id).await;
    assert_eq!(back.state, "delivered", "{back:?}");

    hub.drain_outbox().await;
    hub.start_consumers();
    assert_eq!(acknowledgement_of(&hub, outbound_id).await, "accepted");
    let contrl_message: Uuid = hub.journal_id(&back.as2_message_id).await;

    let events = acknowledged_events(&hub, outbound_id).await;
    assert_eq!(events.len(), 1, "{events:?}");
    let event = &events[0];
    assert_eq!(
        (event.message_type.as_str(), event.action.as_str()),
        ("CONTRL", "accepted")
    );
    assert_eq!(event.message_id, contrl_message);
    assert_eq!(event.unb_reference.as_deref(), Some(UNB_REFERENCE));
    assert_eq!(event.as2_message_id, done.as2_message_id);
    assert_eq!(
        event.acknowledgement["interchange_reference"],
        UNB_REFERENCE
    );

    let output = edihub(&hub_config, &["outbound", "show", &outbound_id.to_string()]);
    assert!(output.status.success(), "{output:?}");
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(shown.contains("acknowledgement:  accepted at"), "{shown}");
    assert!(shown.contains("--- CONTRL "), "{shown}");
}

/// An interchange from `PARTNER` to `HUB` of `count` `messages` (UNH to UNT each).
fn interchange(messages: &str, count: usize) -> String {
    format!(
        "UNA:+.? 'UNB+UNOC:3+4012345000094:14+5412345000013:14+261203:1015+PA000901'\
{messages}UNZ+{count}+PA000901'"
    )
}

#[tokio::test]
async fn an_aperak_is_matched_by_the_invoice_number_and_an_unknown_reference_by_nothing() {
    let app = spawn_app().await;
    let outbound_id = queue_invoic(&app).await;
    // Its `queued` event, so that the path counts only the interchange's.
    app.drain_outbox().await;

    let stray = "UNH+1+CONTRL:D:3:UN'UCI+NOSUCHREF+5412345000013:14+4012345000094:14+7'UNT+3+1'";
    let aperak = format!(
        "UNH+2+APERAK:D:96A:UN:EAN002'BGM+305+AP1+27'RFF+IV:{INVOICE_NUMBER}'ERC+11'\
FTX+AAO+++Unknown buyer'UNT+6+2'"
    );
    let (message_id, types) = app
        .through_the_path(
            interchange(&format!("{stray}{aperak}"), 2).as_bytes(),
            "EdiMessageParsed",
        )
        .await;
    assert_eq!(
        types.iter().filter(|t| *t == "EdiMessageParsed").count(),
        2,
        "{types:?}"
    );

    assert_eq!(acknowledgement_of(&app, outbound_id).await, "rejected");
    let mut conn = app.pool.acquire().await.expect("connection");
    let recorded = edihub_outbound::acknowledgements(&mut conn, outbound_id)
        .await
        .expect("acknowledgements");
    assert_eq!(
        recorded.len(),
        1,
        "only the APERAK answers it: {recorded:?}"
    );
    assert_eq!(
        (recorded[0].message_type.as_str(), recorded[0].message_id),
        ("APERAK", message_id)
    );
    let events = acknowledged_events(&app, outbound_id).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].action, "rejected");
    assert_eq!(
        app.count("SELECT count(*) FROM outbound_acknowledgement")
            .await,
        1
    );
}
