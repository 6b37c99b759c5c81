//! `OutboundAcknowledged`: a partner's CONTRL or APERAK answered an interchange the hub
//! sent it.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::OutboundState;

/// Payload of `OutboundAcknowledged` on `edi.outbound.status`.
///
/// Published in the transaction that records the acknowledgement, under the outbound
/// message's id as aggregate (the Kafka key), so it takes its place among that
/// message's `OutboundStatusChanged` events. It does not change the AS2 state: an MDN
/// says the partner received the file, a CONTRL or APERAK what its EDI system made of
/// it, which may come days later and more than once (a CONTRL, then an APERAK).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OutboundAcknowledged {
    /// The hub's id of the acknowledged outbound message.
    pub outbound_id: Uuid,
    /// AS2-To of the outbound message: the partner that acknowledges.
    pub partner: String,
    /// AS2-From of the outbound message: the hub identity that sent it.
    pub hub_as2_id: String,
    /// Our AS2 Message-ID of the outbound message.
    pub as2_message_id: String,
    /// UNB 0020 of the outbound interchange.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unb_reference: Option<String>,
    /// The outbound message's AS2 state when the acknowledgement came (unchanged by it).
    pub state: OutboundState,
    /// `CONTRL` or `APERAK`.
    pub message_type: String,
    /// UNH 0062 of the acknowledging message.
    pub message_reference: String,
    /// Its verdict: `accepted`, `rejected`, `received` (a CONTRL's 0083 = 8: the
    /// verdict is still to come) or `partially-accepted`.
    pub action: String,
    /// The received interchange that carried the acknowledgement (its
    /// `EdiMessageReceived` and `EdiMessageParsed` events have this id).
    pub message_id: Uuid,
    /// The acknowledgement as decoded: references, action, errors with their
    /// positions. Its schema is docs/schema/received-acknowledgement.json.
    #[schemars(schema_with = "received_acknowledgement_ref")]
    pub acknowledgement: serde_json::Value,
    pub acknowledged_at: DateTime<Utc>,
}

fn received_acknowledgement_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "$ref": "received-acknowledgement.json" })
}
