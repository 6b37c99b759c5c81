//! The published contract: event types and payloads that downstream teams consume.
//! The topic names are settings (`edihub_config::TopicSettings`), so each deployment
//! and each test can choose its own.
//!
//! API boundary: changing a field name or meaning here is a breaking change for every
//! subscriber. Add fields; do not rename or remove them.
//!
//! Events travel as Kafka records in CloudEvents 1.0 *binary mode*: the payload is the
//! record value (JSON), the attributes are record headers named in [`headers`].

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::future::Future;
use trace::TraceParent;
use tracing::Instrument;
use uuid::Uuid;

mod acknowledged;
mod outbound;
mod parsed;
mod requested;
pub mod trace;

pub use acknowledged::OutboundAcknowledged;
pub use outbound::{OutboundState, OutboundStatusChanged, UnknownState};
pub use parsed::{CharsetPolicy, EdiMessageParsed, Warning};
pub use requested::{OutboundRequestRejected, OutboundRequested};

/// Kafka record header names (CloudEvents binary mode, Kafka protocol binding).
pub mod headers {
    pub const ID: &str = "ce_id";
    pub const TYPE: &str = "ce_type";
    pub const SOURCE: &str = "ce_source";
    pub const TIME: &str = "ce_time";
    pub const SPEC_VERSION: &str = "ce_specversion";
    pub const SUBJECT: &str = "ce_subject";
    pub const CONTENT_TYPE: &str = "content-type";
    /// Not a CloudEvents attribute: ties every log line of one AS2 message together.
    pub const CORRELATION_ID: &str = "correlation_id";
    /// Not a CloudEvents attribute: the W3C Trace Context of the span that published the
    /// event (see [`crate::trace`]), as on HTTP.
    pub const TRACEPARENT: &str = "traceparent";
    /// Not a CloudEvents attribute: the W3C `tracestate` that came with the trace
    /// (vendor data, carried along unchanged; see [`crate::trace::tracestate`]).
    pub const TRACESTATE: &str = "tracestate";
    pub const SPEC_VERSION_VALUE: &str = "1.0";
}

/// Event type names (the `ce_type` header and the outbox `event_type` column).
pub mod event_types {
    pub const EDI_MESSAGE_RECEIVED: &str = "EdiMessageReceived";
    pub const INVOICE_TRANSFORMED: &str = "InvoiceTransformed";
    pub const EDI_MESSAGE_REJECTED: &str = "EdiMessageRejected";
    pub const EDI_ACKNOWLEDGEMENT_ISSUED: &str = "EdiAcknowledgementIssued";
    pub const EDI_MESSAGE_PARSED: &str = "EdiMessageParsed";
    pub const OUTBOUND_STATUS_CHANGED: &str = "OutboundStatusChanged";
    pub const OUTBOUND_ACKNOWLEDGED: &str = "OutboundAcknowledged";
    /// Published by downstream systems, not by the hub.
    pub const OUTBOUND_REQUESTED: &str = "OutboundRequested";
    pub const OUTBOUND_REQUEST_REJECTED: &str = "OutboundRequestRejected";
}

/// Aggregate type of events about one received message.
pub const AGGREGATE_EDI_MESSAGE: &str = "EdiMessage";

/// The `ce_source` of events the hub publishes.
pub const SOURCE: &str = "urn:edihub";

/// A reference to a payload stored elsewhere (the claim-check pattern): events stay
/// small, and a consumer proves it read the right bytes by checking the digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClaimCheck {
    /// `edihub:edi_message:<uuid>`: the `payload` column of that journal row.
    pub reference: String,
    /// Lower-case hex SHA-256 of the referenced bytes.
    pub sha256: String,
    pub size: u64,
}

impl ClaimCheck {
    const JOURNAL_PREFIX: &'static str = "edihub:edi_message:";

    pub fn for_journal(message_id: Uuid, sha256: String, size: u64) -> Self {
        Self {
            reference: format!("{}{message_id}", Self::JOURNAL_PREFIX),
            sha256,
            size,
        }
    }

    /// The journal message id this claim check points to, if it points into the journal.
    pub fn journal_message_id(&self) -> Option<Uuid> {
        self.reference
            .strip_prefix(Self::JOURNAL_PREFIX)
            .and_then(|id| Uuid::parse_str(id).ok())
    }
}

/// Payload of `EdiMessageReceived` on `edi.inbound.received`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EdiMessageReceived {
    /// The hub's id of the message (also the aggregate id and the Kafka key).
    pub message_id: Uuid,
    pub as2_from: String,
    pub as2_to: String,
    /// The partner's AS2 Message-ID, without angle brackets.
    pub as2_message_id: String,
    /// UNB interchange control reference (0020); absent when the payload has no readable UNB.
    pub unb_reference: Option<String>,
    pub unb_sender: Option<String>,
    pub unb_recipient: Option<String>,
    pub content_type: String,
    pub received_at: DateTime<Utc>,
    pub payload: ClaimCheck,
    /// The partnership's EDIFACT charset policy when the message came in; absent in
    /// events written before it was added, which means `tolerant`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charset_policy: Option<CharsetPolicy>,
    /// How many years the archive keeps this message locked, from the partnership when
    /// the message came in; absent when the partnership sets none (and in events written
    /// before it was added), which means the archive's default (`s3.retention_years`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_years: Option<u32>,
    /// The partnership had outbound settings when the message came in: a CONTRL the
    /// interchange asks for is sent back to the partner over AS2. Absent means `false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub send_contrl: bool,
}

/// Payload of `InvoiceTransformed` on `edi.invoice.canonical`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InvoiceTransformed {
    pub invoice_id: Uuid,
    pub message_id: Uuid,
    pub message_reference: String,
    /// The canonical invoice (EN 16931 model) as JSON; its schema is
    /// docs/schema/canonical-invoice.json.
    #[schemars(schema_with = "canonical_invoice_ref")]
    pub invoice: serde_json::Value,
    /// What the charset policy let through in this message (and in the UNB or UNG read
    /// before it); the EN 16931 total-rule warnings are inside `invoice`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// The schema of [`InvoiceTransformed::invoice`]: a reference to the canonical invoice
/// schema, which lives with its type in the edifact crate (this crate does not depend on
/// the parser).
fn canonical_invoice_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "$ref": "canonical-invoice.json" })
}

/// The JSON Schema of every event payload the hub publishes, as `(file stem, schema)`;
/// the checked-in copies are docs/schema/<stem>.json.
pub fn payload_schemas() -> Vec<(&'static str, schemars::Schema)> {
    vec![
        (
            "edi-message-received",
            schemars::schema_for!(EdiMessageReceived),
        ),
        (
            "invoice-transformed",
            schemars::schema_for!(InvoiceTransformed),
        ),
        (
            "edi-message-rejected",
            schemars::schema_for!(EdiMessageRejected),
        ),
        (
            "edi-acknowledgement-issued",
            schemars::schema_for!(EdiAcknowledgementIssued),
        ),
        (
            "edi-message-parsed",
            schemars::schema_for!(EdiMessageParsed),
        ),
        (
            "outbound-status-changed",
            schemars::schema_for!(OutboundStatusChanged),
        ),
        (
            "outbound-acknowledged",
            schemars::schema_for!(OutboundAcknowledged),
        ),
        (
            "outbound-requested",
            schemars::schema_for!(OutboundRequested),
        ),
        (
            "outbound-request-rejected",
            schemars::schema_for!(OutboundRequestRejected),
        ),
    ]
}

/// Payload of `EdiMessageRejected` on `edi.inbound.rejected`.
///
/// The interchange is rejected as a unit: no `InvoiceTransformed` or `EdiMessageParsed`
/// is published for any of its messages. `faults` lists *every* fault found, in input
/// order, not only the first. Acceptance is about syntax: a sound message of any type is
/// accepted (and published on `edi.message.parsed`), so faults are syntax faults, or
/// mapping faults of an INVOIC, CONTRL or APERAK that cannot be read for what it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EdiMessageRejected {
    pub message_id: Uuid,
    pub faults: Vec<Fault>,
}

/// One reason a message was rejected, with where it was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Fault {
    /// Machine-readable class: `syntax` (ISO 9735 syntax, character set or envelope) or
    /// `mapping` (an INVOIC that cannot be mapped to the canonical invoice, or a CONTRL
    /// or APERAK that cannot be read). Events written before 2026-12 may also carry
    /// `unsupported-message-type`. Absent in events written before it was added.
    #[serde(default)]
    pub code: Option<String>,
    /// UNH 0062 of the message at fault, when the fault is inside one message.
    #[serde(default)]
    pub message_reference: Option<String>,
    /// Human-readable description.
    pub message: String,
    /// 1-based segment number in the interchange, when known.
    pub segment: Option<u32>,
    /// Byte offset in the interchange, when known.
    pub offset: Option<u64>,
    /// 1-based data element position in that segment (element 1 follows the tag), when
    /// the fault is one value's. Absent in events written before it was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<u32>,
    /// 1-based component position in that data element, with `element`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<u32>,
}

/// Payload of `EdiAcknowledgementIssued` on `edi.acknowledgement.issued`.
///
/// Published when the UNB of a received interchange asks for an acknowledgement (0031 =
/// `1`), after the interchange was accepted or rejected, in the same transaction as that
/// decision and under the same aggregate (the message id), so it follows the
/// `InvoiceTransformed` or `EdiMessageRejected` events of the message. `contrl` is the
/// CONTRL syntax and service report interchange to send back to the partner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EdiAcknowledgementIssued {
    /// The hub's id of the acknowledged message.
    pub message_id: Uuid,
    /// AS2-From of the acknowledged message: the partner the CONTRL is for.
    pub as2_from: String,
    /// AS2-To of the acknowledged message (the hub's AS2 name).
    pub as2_to: String,
    /// UNB 0020 of the acknowledged interchange.
    pub acknowledged_reference: String,
    /// UNB sender (S002/0004) of the acknowledged interchange; the CONTRL's recipient.
    pub unb_sender: String,
    /// UNB recipient (S003/0010) of the acknowledged interchange; the CONTRL's sender.
    pub unb_recipient: String,
    /// What the CONTRL says about the interchange (UCI action 7 or 4).
    pub action: AcknowledgementAction,
    /// UNB 0020 of the CONTRL interchange itself, derived from the message id so that a
    /// redelivered event yields the same CONTRL.
    pub contrl_reference: String,
    /// UNB syntax identifier of both interchanges, e.g. `UNOC`: how `contrl` becomes
    /// bytes.
    pub syntax_identifier: String,
    /// The CONTRL interchange (UNA..UNZ) as text. Its bytes on the wire are this text in
    /// ISO 8859-1 when `syntax_identifier` is `UNOC` and in UTF-8 otherwise; for UNOA,
    /// UNOB and UNOD..UNOK the text is ASCII, so both encodings agree.
    pub contrl: String,
    /// The outbound AS2 message that sends the CONTRL back to the partner (`edihub
    /// outbound show ID`); absent when the partnership had no outbound settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outbound_id: Option<Uuid>,
}

impl EdiAcknowledgementIssued {
    /// The CONTRL's bytes on the wire (see `contrl`): ISO 8859-1 for `UNOC`, UTF-8
    /// otherwise. The builder never writes a character its repertoire cannot carry; one
    /// that is there anyway becomes `?`, as the builder would have written it.
    pub fn contrl_bytes(&self) -> Vec<u8> {
        if self.syntax_identifier == "UNOC" {
            self.contrl
                .chars()
                .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
                .collect()
        } else {
            self.contrl.as_bytes().to_vec()
        }
    }
}

/// The verdict a CONTRL carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AcknowledgementAction {
    /// UCI action 7: the interchange and all its messages are acknowledged.
    Accepted,
    /// UCI action 4: the interchange and all its messages are rejected; the faults are
    /// in the CONTRL (UCI, UCM, UCS) and in the message's `EdiMessageRejected` event.
    Rejected,
}

/// An event as a consumer receives it: the CloudEvents attributes from the record's
/// headers, and the payload still as bytes (each handler decodes the type it expects).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    pub id: Uuid,
    pub event_type: String,
    pub source: String,
    pub time: Option<DateTime<Utc>>,
    pub correlation_id: Option<String>,
    /// The W3C trace context to continue while handling the event, and to pass on (as
    /// the `traceparent` header) with every event enqueued meanwhile. Read from the
    /// record's `traceparent` header (absent when missing or invalid); the consumer loop
    /// then replaces it with the context of its own span for the event: the same trace
    /// with a new parent-id, or a new trace when the record carried none.
    pub traceparent: Option<trace::TraceParent>,
    /// The record's `tracestate` header, passed on with `traceparent` (only when the
    /// record carried a valid `traceparent` too: it belongs to that trace).
    pub tracestate: Option<String>,
    /// The Kafka key (the aggregate id).
    pub key: Option<String>,
    pub data: Vec<u8>,
}

impl Envelope {
    /// Decodes the payload as `T`.
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_slice(&self.data)
    }
}

/// Applies one event. Must be idempotent: the same event may arrive more than once
/// (delivery is at-least-once), so implementations dedupe through the inbox.
pub trait EventHandler: Send + Sync {
    type Error: std::fmt::Display + Send;
    fn handle(&self, event: &Envelope)
    -> impl Future<Output = Result<Handled, Self::Error>> + Send;

    /// Handles the records the consumer loop received together, in their order (several
    /// aggregates mixed, each aggregate's events in order), and says what was done with
    /// each, in the same order. An error means the batch failed as a whole: the loop then
    /// gives each event to [`Self::handle`] alone, with its retries and dead letter. A
    /// handler that applies the batch in one transaction overrides this; the default
    /// handles the events one by one, and its inbox absorbs those that a failure later
    /// in the batch makes the loop hand over again.
    fn handle_batch(
        &self,
        events: &[Envelope],
    ) -> impl Future<Output = Result<Vec<Handled>, Self::Error>> + Send {
        async move {
            let mut handled = Vec::with_capacity(events.len());
            for event in events {
                let span = event_span(event);
                handled.push(self.handle(event).instrument(span).await?);
            }
            Ok(handled)
        }
    }
}

/// The span an event is handled in: a span of its trace, carrying its ids (every log
/// line about the event carries its message id, the Kafka key).
pub fn event_span(event: &Envelope) -> tracing::Span {
    let trace = event.traceparent.unwrap_or_else(TraceParent::random_root);
    tracing::info_span!(
        "event",
        trace_id = %trace.trace_id(),
        span_id = %trace.parent_id(),
        event_id = %event.id,
        event_type = %event.event_type,
        message_id = event.key.as_deref().unwrap_or(""),
        correlation_id = event.correlation_id.as_deref().unwrap_or(""),
    )
}

/// A borrowed handler handles as its owner does, so a component can keep its handler
/// and run the consumer loop again after it stopped.
impl<H: EventHandler> EventHandler for &H {
    type Error = H::Error;
    fn handle(
        &self,
        event: &Envelope,
    ) -> impl Future<Output = Result<Handled, Self::Error>> + Send {
        (**self).handle(event)
    }
    fn handle_batch(
        &self,
        events: &[Envelope],
    ) -> impl Future<Output = Result<Vec<Handled>, Self::Error>> + Send {
        (**self).handle_batch(events)
    }
}

/// What a handler did with an event (counted in `edihub_consumer_events_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    /// The effect was applied and committed.
    Applied,
    /// The inbox had the event already: nothing done.
    Duplicate,
    /// Not an event this consumer acts on.
    Ignored,
}

impl Handled {
    pub fn as_str(self) -> &'static str {
        match self {
            Handled::Applied => "done",
            Handled::Duplicate => "duplicate",
            Handled::Ignored => "ignored",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_check_round_trips_the_journal_id() {
        let id = Uuid::now_v7();
        let check = ClaimCheck::for_journal(id, "ab".into(), 2);
        assert_eq!(check.journal_message_id(), Some(id));
        let foreign = ClaimCheck {
            reference: format!("s3://bucket/{id}"),
            ..check
        };
        assert_eq!(foreign.journal_message_id(), None);
    }

    fn received_json() -> serde_json::Value {
        let id = Uuid::now_v7();
        serde_json::json!({
            "message_id": id,
            "as2_from": "ACME",
            "as2_to": "EDIHUB",
            "as2_message_id": "m1@acme",
            "unb_reference": null,
            "unb_sender": null,
            "unb_recipient": null,
            "content_type": "application/edifact",
            "received_at": "2026-12-04T10:00:00Z",
            "payload": ClaimCheck::for_journal(id, "ab".into(), 2),
        })
    }

    #[test]
    fn an_event_without_retention_means_the_archive_default_and_stays_without_it() {
        let received: EdiMessageReceived = serde_json::from_value(received_json()).unwrap();
        assert_eq!(received.retention_years, None);
        let written = serde_json::to_value(&received).unwrap();
        assert!(written.get("retention_years").is_none());
    }

    #[test]
    fn a_partnership_retention_travels_with_the_event() {
        let mut json = received_json();
        json["retention_years"] = 8.into();
        let received: EdiMessageReceived = serde_json::from_value(json).unwrap();
        assert_eq!(received.retention_years, Some(8));
        let written = serde_json::to_value(&received).unwrap();
        assert_eq!(written["retention_years"], 8);
    }
}
