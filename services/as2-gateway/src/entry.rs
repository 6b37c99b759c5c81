//! What the journal stores for a message the decision accepted: the message itself, its
//! MDN, the `EdiMessageReceived` outbox row and, for an asynchronous MDN, the delivery
//! row. Building them is pure; `routes` hands the result to the journal.

use crate::trace::TraceContext;
use axum::http::HeaderMap;
use chrono::{DateTime, Utc};
use edihub_as2::As2Headers;
use edihub_events::{
    AGGREGATE_EDI_MESSAGE, CharsetPolicy, ClaimCheck, EdiMessageReceived, event_types, headers,
};
use edihub_inbound::{Accepted, Mdn};
use edihub_journal::{Accept, AcceptedMessage, StoredMdn};
use edihub_outbox::NewEvent;
use uuid::Uuid;

/// The request an accepted message came in, as the journal records it.
pub(crate) struct Arrival<'a> {
    pub message_id: Uuid,
    pub as2: &'a As2Headers,
    pub request_headers: &'a HeaderMap,
    /// The HTTP body exactly as received.
    pub raw_body: &'a [u8],
    pub received_at: DateTime<Utc>,
    pub trace: &'a TraceContext,
    /// Where `EdiMessageReceived` is published.
    pub topic: &'a str,
    /// How long the same signed content counts as a replay; `None`: never.
    pub replay_window: Option<chrono::Duration>,
    /// How the hub may connect to the partner, for the delivery row.
    pub partner_endpoint: edihub_mdn_delivery::PartnerEndpoint<'a>,
    /// The partnership's EDIFACT charset policy, for the transform consumer.
    pub edifact_charset: edihub_edifact::charset::CharsetPolicy,
    /// The partnership's archive retention in years, for the archive consumer; `None`:
    /// the archive's default.
    pub retention_years: Option<u32>,
    /// The partnership has outbound settings: a CONTRL the interchange asks for is sent
    /// back over AS2 (by the transform consumer).
    pub send_contrl: bool,
}

/// The journal's records for `accepted`, in one [`Accept`] to commit together.
pub(crate) fn journal_entry(
    accepted: Accepted,
    arrival: &Arrival<'_>,
) -> Result<Accept, serde_json::Error> {
    let (message_id, as2) = (arrival.message_id, arrival.as2);
    let (signed_entity, security) = security::evidence(
        accepted.signature,
        accepted.encryption,
        &accepted.layers,
        &accepted.mic,
    );
    let unb = accepted.unb.as_ref();
    let message = AcceptedMessage {
        id: message_id,
        as2_from: as2.as2_from.clone(),
        as2_to: as2.as2_to.clone(),
        as2_message_id: as2.message_id.clone(),
        content_type: accepted.content_type,
        as2_headers: headers_json(arrival.request_headers),
        raw_body: arrival.raw_body.to_vec(),
        unb_sender: unb.map(|h| h.sender_id.clone()),
        unb_recipient: unb.map(|h| h.recipient_id.clone()),
        unb_reference: unb.map(|h| h.control_reference.clone()),
        received_at: arrival.received_at,
        signed_sha256: accepted.signed_sha256,
        replay_until: accepted
            .signed_sha256
            .and(arrival.replay_window)
            .map(|window| arrival.received_at + window),
        payload: accepted.payload,
        signed_entity,
        security: Some(security),
    };
    let event = received_event(&message, arrival)?;
    let delivery = accepted.async_mdn.as_ref().map(|url| {
        let endpoint = arrival.partner_endpoint;
        edihub_mdn_delivery::delivery_event(message_id, &as2.as2_from, url, endpoint)
    });
    Ok(Accept {
        message,
        mdn: stored_mdn(accepted.mdn),
        event,
        delivery,
    })
}

/// The `EdiMessageReceived` outbox row, with a claim check on the journaled payload and
/// the trace context and correlation id the consumers carry on.
fn received_event(
    message: &AcceptedMessage,
    arrival: &Arrival<'_>,
) -> Result<NewEvent, serde_json::Error> {
    let message_id = message.id;
    let sha256 = edihub_journal::sha256_hex(&message.payload);
    let event = EdiMessageReceived {
        message_id,
        as2_from: message.as2_from.clone(),
        as2_to: message.as2_to.clone(),
        as2_message_id: message.as2_message_id.clone(),
        unb_reference: message.unb_reference.clone(),
        unb_sender: message.unb_sender.clone(),
        unb_recipient: message.unb_recipient.clone(),
        content_type: message.content_type.clone(),
        received_at: message.received_at,
        payload: ClaimCheck::for_journal(message_id, sha256, message.payload.len() as u64),
        charset_policy: Some(match arrival.edifact_charset {
            edihub_edifact::charset::CharsetPolicy::Strict => CharsetPolicy::Strict,
            edihub_edifact::charset::CharsetPolicy::Tolerant => CharsetPolicy::Tolerant,
        }),
        retention_years: arrival.retention_years,
        send_contrl: arrival.send_contrl,
    };
    let correlation_id = arrival
        .request_headers
        .get("x-correlation-id")
        .and_then(|v| v.to_str().ok())
        .map_or_else(|| message_id.to_string(), str::to_owned);
    let mut propagated = serde_json::json!({
        headers::CORRELATION_ID: correlation_id,
        headers::TRACEPARENT: arrival.trace.parent.to_string(),
    });
    if let Some(state) = &arrival.trace.state {
        propagated[headers::TRACESTATE] = state.clone().into();
    }
    Ok(NewEvent {
        id: Uuid::now_v7(),
        aggregate_type: AGGREGATE_EDI_MESSAGE.into(),
        aggregate_id: message_id.to_string(),
        event_type: event_types::EDI_MESSAGE_RECEIVED.into(),
        topic: arrival.topic.to_owned(),
        payload: serde_json::to_value(&event)?,
        headers: propagated,
    })
}

/// The decision's MDN in the journal's form.
pub(crate) fn stored_mdn(mdn: Mdn) -> StoredMdn {
    StoredMdn {
        mdn_message_id: mdn.message_id,
        disposition: mdn.disposition.outcome(),
        content_type: mdn.content_type,
        headers: mdn.headers,
        body: mdn.body,
    }
}

/// Request headers the journal never keeps: credentials a proxy or client may add,
/// which an auditor or operator reading `as2_headers` must not see.
const CREDENTIAL_HEADERS: [&str; 3] = ["authorization", "proxy-authorization", "cookie"];

/// The request's headers as the journal keeps them (values read as lossy UTF-8),
/// credentials left out.
fn headers_json(headers: &HeaderMap) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> = headers
        .iter()
        .filter(|(name, _)| !CREDENTIAL_HEADERS.contains(&name.as_str()))
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                serde_json::Value::String(String::from_utf8_lossy(value.as_bytes()).into_owned()),
            )
        })
        .collect();
    serde_json::Value::Object(map)
}

mod security;
#[cfg(test)]
mod tests;
