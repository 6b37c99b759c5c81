//! The outbox row that asks the sender to deliver one outbound message.

use edihub_outbox::NewEvent;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// `event_type` of the delivery rows.
pub const DELIVERY_EVENT_TYPE: &str = "As2OutboundDelivery";
/// `aggregate_type` of the delivery rows. Their aggregate id is `outbound:<id>`, not the
/// id the status events use, so that a Kafka outage never holds a delivery back (the
/// relays claim only the head of an aggregate) and a slow partner never holds events.
pub const DELIVERY_AGGREGATE_TYPE: &str = "As2Outbound";

/// The payload of a delivery row; the message itself stays in `outbound_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutboundDelivery {
    pub outbound_id: Uuid,
    /// The partner (AS2-To), for operators.
    pub partner: String,
}

/// The delivery row of `outbound_id`; its `topic` names the partner, for operators
/// (`edihub outbox failed`).
pub fn delivery_event(outbound_id: Uuid, partner: &str) -> NewEvent {
    let delivery = OutboundDelivery {
        outbound_id,
        partner: partner.to_owned(),
    };
    NewEvent {
        id: Uuid::now_v7(),
        aggregate_type: DELIVERY_AGGREGATE_TYPE.into(),
        aggregate_id: format!("outbound:{outbound_id}"),
        event_type: DELIVERY_EVENT_TYPE.into(),
        topic: partner.to_owned(),
        payload: serde_json::to_value(&delivery).unwrap_or_default(),
        headers: serde_json::json!({}),
    }
}
