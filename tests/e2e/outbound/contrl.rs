//! The CONTRL an interchange asks for goes back to the partner over AS2 when the
//! partnership has outbound settings: the transform consumer queues it as an outbound
//! message in the transaction of its decision, and the outbound relay delivers it to the
//! partner's own hub, which journals exactly the CONTRL's bytes.

use super::{journaled, relay, sender_config_for, sent_until_settled};
use crate::acknowledgement::acked_invoic;
use edihub_config::{GatewaySettings, PartnerOutboundSettings, PartnerSettings};
use edihub_events::{EdiAcknowledgementIssued, OutboundState, OutboundStatusChanged};
use edihub_tests::{HUB, PARTNER, TestApp, fixture_path, spawn_app_with};

/// The partner's own hub: `PARTNER` with partner-a's key (the one the test client signs
/// with), which knows `HUB` by its certificate.
async fn partner_hub() -> TestApp {
    partner_hub_answering(None).await
}

/// [`partner_hub`] listening on `listen`, which sends to `HUB` at `url` (so it sends the
/// CONTRLs `HUB` asks for back there), when given as `Some((listen, url))`.
pub(super) async fn partner_hub_answering(sends_back: Option<(String, String)>) -> TestApp {
    spawn_app_with(move |gateway: &mut GatewaySettings| {
        gateway.hub_as2_id = PARTNER.into();
        gateway.hub_certificate = Some(fixture_path("as2/partner-a.crt"));
        gateway.hub_private_key = Some(fixture_path("as2/partner-a.key"));
        let mut hub = PartnerSettings {
            as2_id: HUB.into(),
            certificates: vec![fixture_path("as2/hub.crt")],
            require_signature: true,
            require_encryption: true,
            ..Default::default()
        };
        if let Some((listen, url)) = sends_back {
            gateway.listen = listen;
            hub.outbound = Some(PartnerOutboundSettings {
                url,
                ..Default::default()
            });
        }
        gateway.partners = vec![hub];
    })
    .await
}

/// The hub, which sends to `PARTNER` at `url`.
pub(super) async fn hub_sending_to(url: String) -> TestApp {
    spawn_app_with(move |gateway: &mut GatewaySettings| {
        gateway.hub_certificate = Some(fixture_path("as2/hub.crt"));
        gateway.hub_private_key = Some(fixture_path("as2/hub.key"));
        let partner = gateway
            .partners
            .iter_mut()
            .find(|p| p.as2_id == PARTNER)
            .expect("the test partner");
        partner.certificates = vec![fixture_path("as2/partner-a.crt")];
        partner.outbound = Some(PartnerOutboundSettings {
            url,
            ..Default::default()
        });
    })
    .await
}

#[tokio::test]
async fn a_contrl_asked_for_is_sent_back_to_a_partner_with_outbound_settings() {
    let partner = partner_hub().await;
    let hub = hub_sending_to(partner.as2_url()).await;
    let (message_id, _) = hub
        .through_the_path(acked_invoic().as_bytes(), "EdiAcknowledgementIssued")
        .await;

    let record = hub
        .read_record(
            &hub.kafka.topics.acknowledgement_issued,
            &message_id.to_string(),
        )
        .await;
    let ack: EdiAcknowledgementIssued = serde_json::from_slice(&record.payload).expect("event");
    let outbound_id = ack
        .outbound_id
        .expect("the event names the outbound message");
    let (to, from, source, payload): (String, String, String, Vec<u8>) = sqlx::query_as(
        "SELECT partner_as2_id, hub_as2_id, source, payload FROM outbound_message WHERE id = $1",
    )
    .bind(outbound_id)
    .fetch_one(&hub.pool)
    .await
    .expect("the CONTRL is queued");
    assert_eq!((to.as_str(), from.as_str()), (PARTNER, HUB));
    assert_eq!(source, "contrl");
    assert_eq!(payload, ack.contrl_bytes());

    let config = sender_config_for(&hub, PARTNER, &partner.as2_url(), "");
    let relay = relay(&config, &hub).await;
    let done = sent_until_settled(&relay, &hub, outbound_id).await;
    assert_eq!(done.state, "delivered", "{done:?}");
    assert_eq!(done.mic_reported, done.mic_expected);
    assert_eq!(journaled(&partner, &done.as2_message_id).await, 1);
    let received: Vec<u8> =
        sqlx::query_scalar("SELECT payload FROM edi_message WHERE as2_message_id = $1")
            .bind(&done.as2_message_id)
            .fetch_one(&partner.pool)
            .await
            .expect("the partner's journal");
    assert_eq!(received, ack.contrl_bytes(), "the CONTRL, byte for byte");

    let queued = hub
        .read_record(&hub.kafka.topics.outbound_status, &outbound_id.to_string())
        .await;
    let queued: OutboundStatusChanged = serde_json::from_slice(&queued.payload).expect("event");
    assert_eq!(queued.state, OutboundState::Queued);
}
