//! The transform consumer's handler: an `EdiMessageReceived` event in; for an accepted
//! interchange, an `EdiMessageParsed` event per message of any type, and for each INVOIC
//! its canonical invoice (EN 16931 model) and `InvoiceTransformed` event; for a rejected
//! one, one `EdiMessageRejected` event with the faults and their positions. When UNB asks
//! for an acknowledgement, an `EdiAcknowledgementIssued` event with the CONTRL follows.
//! When the partnership has outbound settings (the event says so), the CONTRL is also
//! queued as an outbound AS2 message to the partner. A CONTRL or APERAK the partner
//! sends is matched to the outbound interchange it answers. The partnership's charset
//! policy comes with the event.
//!
//! Architecture invariant: the inbox row, the canonical invoice rows and the outbox rows
//! commit in one transaction.

mod effects;
mod invoices;
mod prefetch;
mod published;

pub use invoices::invoices_json;
pub use published::{charset_policy, parsed_event, to_event_fault, to_event_warning};

use chrono::{DateTime, Datelike, NaiveDate, Timelike, Utc};
use edihub_config::TopicSettings;
use edihub_edifact::InterchangeHeader;
use edihub_edifact::check::{self, MessageOutput, Report};
use edihub_edifact::contrl::{self, ContrlParams, Prepared};
use edihub_edifact::invoic::CanonicalInvoice;
use edihub_edifact::received::ReceivedAcknowledgement;
use edihub_events::{
    AGGREGATE_EDI_MESSAGE, AcknowledgementAction, EdiAcknowledgementIssued, EdiMessageReceived,
    EdiMessageRejected, Envelope, EventHandler, Fault, Handled, InvoiceTransformed, event_types,
    headers,
};
use edihub_outbox::NewEvent;
use effects::{Effects, InvoiceRow};
use sqlx::{PgConnection, PgPool};
use std::collections::HashMap;
use tracing::Instrument;
use uuid::Uuid;

/// The Content-Type a CONTRL is sent with (RFC 1767).
const CONTRL_CONTENT_TYPE: &str = "application/edifact";

#[derive(Debug, thiserror::Error)]
pub enum TransformError {
    #[error("event payload is not an EdiMessageReceived: {0}")]
    Payload(#[from] serde_json::Error),
    #[error(transparent)]
    ClaimCheck(#[from] edihub_journal::ClaimCheckError),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("queueing the CONTRL for the partner, or recording a partner's: {0}")]
    Outbound(#[from] edihub_outbound::StoreError),
    /// The mapping thread panicked (a bug: the parser promises not to) or was cancelled.
    #[error("mapping task failed: {0}")]
    Mapping(tokio::task::JoinError),
}

/// What handling one event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Seen before: nothing done.
    Duplicate,
    /// Not an event this consumer acts on.
    Ignored,
    Transformed {
        /// Messages of every type, each with an `EdiMessageParsed` event.
        messages: usize,
        invoices: usize,
    },
    Rejected {
        faults: usize,
    },
}

pub struct Transformer {
    pool: PgPool,
    topics: TopicSettings,
    consumer: String,
    /// Where the payloads of messages purged from the journal are read from.
    archive: Option<std::sync::Arc<dyn edihub_journal::PurgedPayloads>>,
}

impl Transformer {
    pub fn new(pool: PgPool, topics: TopicSettings, consumer: impl Into<String>) -> Self {
        Self {
            pool,
            topics,
            consumer: consumer.into(),
            archive: None,
        }
    }

    /// Reads the payloads of messages purged from the journal from `archive`; without
    /// it, their events fail (and go to the dead-letter topic) naming the purge.
    pub fn with_archive(
        mut self,
        archive: std::sync::Arc<dyn edihub_journal::PurgedPayloads>,
    ) -> Self {
        self.archive = Some(archive);
        self
    }

    pub async fn transform(&self, event: &Envelope) -> Result<Outcome, TransformError> {
        if event.event_type != event_types::EDI_MESSAGE_RECEIVED {
            return Ok(Outcome::Ignored);
        }
        let received: EdiMessageReceived = event.decode()?;
        let mut tx = self.pool.begin().await?;
        if !edihub_inbox::claim(&mut tx, &self.consumer, event.id, &event.event_type).await? {
            tracing::info!("duplicate event, already transformed");
            return Ok(Outcome::Duplicate);
        }
        let mut accepted = Effects::default();
        let outcome = self.apply(&mut tx, event, &received, &mut accepted).await?;
        accepted.write_accepted(&mut tx).await?;
        tx.commit().await?;
        tracing::info!(?outcome, "transformed");
        Ok(outcome)
    }

    /// [`Self::transform`] for several events, in one transaction: one inbox statement,
    /// the small payloads read in one statement, each claimed event's effects in turn,
    /// one commit. All or nothing. The effects of small accepted interchanges are
    /// written together, one statement per table.
    pub async fn transform_batch(
        &self,
        events: &[Envelope],
    ) -> Result<Vec<Outcome>, TransformError> {
        let received = |e: &&Envelope| e.event_type == event_types::EDI_MESSAGE_RECEIVED;
        let wanted: Vec<(Uuid, &str)> = (events.iter().filter(received))
            .map(|e| (e.id, e.event_type.as_str()))
            .collect();
        let mut tx = self.pool.begin().await?;
        let claimed = edihub_inbox::claim_all(&mut tx, &self.consumer, &wanted).await?;
        // Decoded once each, and kept in the events' order: the read-ahead budget goes
        // to the first ones.
        let mut decoded = HashMap::with_capacity(claimed.len());
        let mut in_order = Vec::with_capacity(claimed.len());
        for event in events.iter().filter(|e| claimed.contains(&e.id)) {
            if let std::collections::hash_map::Entry::Vacant(slot) = decoded.entry(event.id) {
                slot.insert(event.decode::<EdiMessageReceived>()?);
                in_order.push(event.id);
            }
        }
        let claims = in_order.iter().filter_map(|id| decoded.get(id));
        let ahead = prefetch::read_ahead(claims.map(|r| &r.payload));
        let mut loaded = edihub_journal::load_payloads(&mut tx, &ahead).await?;
        let mut accepted = Effects::default();
        let mut outcomes = Vec::with_capacity(events.len());
        let mut applied = Vec::new();
        for event in events {
            let span = edihub_events::event_span(event);
            let outcome = async {
                if !received(&event) {
                    return Ok(Outcome::Ignored);
                }
                let Some(message) = decoded.remove(&event.id) else {
                    tracing::info!("duplicate event, already transformed");
                    return Ok(Outcome::Duplicate);
                };
                let stored = self.resolve(&mut tx, &message, &mut loaded).await?;
                (self.apply_resolved(&mut tx, event, &message, stored, &mut accepted)).await
            }
            .instrument(span.clone())
            .await?;
            if !matches!(outcome, Outcome::Ignored | Outcome::Duplicate) {
                applied.push((span, outcome.clone()));
            }
            outcomes.push(outcome);
        }
        accepted.write_accepted(&mut tx).await?;
        tx.commit().await?;
        for (span, outcome) in applied {
            span.in_scope(|| tracing::info!(?outcome, "transformed"));
        }
        Ok(outcomes)
    }

    /// The effects of a claimed `EdiMessageReceived` event, written on `tx`; those of a
    /// small accepted interchange join `accepted` instead, which is written before
    /// anything else is (so the outbox keeps the events' order) or before the commit.
    async fn apply(
        &self,
        tx: &mut PgConnection,
        event: &Envelope,
        received: &EdiMessageReceived,
        accepted: &mut Effects,
    ) -> Result<Outcome, TransformError> {
        let archive = self.archive.as_deref();
        let stored =
            edihub_journal::resolve_claim_check(&mut *tx, &received.payload, archive).await?;
        self.apply_resolved(tx, event, received, stored, accepted)
            .await
    }

    /// The payload `received` points to, from `loaded` when read ahead, proved by its
    /// digest.
    async fn resolve(
        &self,
        tx: &mut PgConnection,
        received: &EdiMessageReceived,
        loaded: &mut HashMap<Uuid, edihub_journal::StoredPayload>,
    ) -> Result<(Uuid, edihub_journal::StoredPayload), TransformError> {
        let archive = self.archive.as_deref();
        let claim = &received.payload;
        Ok(edihub_journal::resolve_claim_check_from(tx, claim, archive, loaded).await?)
    }

    /// [`Self::apply`] once the payload is read and proved.
    async fn apply_resolved(
        &self,
        tx: &mut PgConnection,
        event: &Envelope,
        received: &EdiMessageReceived,
        (message_id, stored): (Uuid, edihub_journal::StoredPayload),
        accepted: &mut Effects,
    ) -> Result<Outcome, TransformError> {
        let propagated = correlation_headers(event);
        // Bounded memory for large interchanges: the evaluation runs on a blocking thread
        // and hands each message over as soon as its UNT is read; its effects are
        // gathered and written in batches (see `effects`), undone if the interchange
        // turns out to be rejected after all (a fault may come last).
        let options = check::Options {
            charset: charset_policy(received.charset_policy),
        };
        // Messages are handed out only after UNB was read, so the header is there then.
        let header = InterchangeHeader::peek_with(&stored.payload, options.charset).ok();
        let (sender, mut evaluated) = tokio::sync::mpsc::channel::<MessageOutput>(16);
        let payload = stored.payload;
        let evaluation = tokio::task::spawn_blocking(move || {
            check::evaluate_each_with(&payload, &options, &mut |message| {
                // Fails only when the receiver is gone (a database error below): the
                // rest of the evaluation is then moot.
                let _ = sender.blocking_send(message);
            })
        });
        let mut effects = Effects::default();
        let (mut messages, mut stored_invoices) = (0, 0);
        while let Some(output) = evaluated.recv().await {
            let Some(header) = &header else { continue };
            let parsed = parsed_event(message_id, header, &output)?;
            let (invoice, transformed) = match &output.invoice {
                Some(invoice) => {
                    let (row, event) =
                        self.invoice_effects(message_id, invoice, &parsed, &propagated)?;
                    (Some(row), Some(event))
                }
                None => (None, None),
            };
            stored_invoices += usize::from(invoice.is_some());
            let parsed = message_event(
                message_id,
                event_types::EDI_MESSAGE_PARSED,
                &self.topics.message_parsed,
                serde_json::to_value(&parsed)?,
                &propagated,
            );
            effects.push(invoice, std::iter::once(parsed).chain(transformed));
            messages += 1;
            if let Some(ack) = &output.acknowledgement {
                // Its writes follow the effects gathered so far, inside the savepoint.
                effects.write(&mut *tx, accepted).await?;
                self.match_acknowledgement(&mut *tx, message_id, received, ack)
                    .await?;
            } else if effects.is_full() {
                effects.write(&mut *tx, accepted).await?;
            }
        }
        let report = evaluation.await.map_err(TransformError::Mapping)?;
        let acknowledgement = acknowledgement(&report, message_id, received);
        let outcome = match decide(report) {
            Ok(_) => {
                effects.accept(&mut *tx, accepted).await?;
                Outcome::Transformed {
                    messages,
                    invoices: stored_invoices,
                }
            }
            Err(faults) => {
                effects.reject(&mut *tx).await?;
                accepted.write_accepted(&mut *tx).await?;
                let count = faults.len();
                tracing::warn!(faults = ?faults, "message rejected");
                let rejected = EdiMessageRejected { message_id, faults };
                edihub_outbox::enqueue(
                    &mut *tx,
                    &message_event(
                        message_id,
                        event_types::EDI_MESSAGE_REJECTED,
                        &self.topics.inbound_rejected,
                        serde_json::to_value(&rejected)?,
                        &propagated,
                    ),
                )
                .await?;
                Outcome::Rejected { faults: count }
            }
        };
        // After the decision's events, under the same aggregate: the relay publishes
        // them in this order.
        if let Some(mut ack) = acknowledgement {
            accepted.write_accepted(&mut *tx).await?;
            if received.send_contrl {
                ack.outbound_id = Some(self.queue_contrl(&mut *tx, &ack).await?);
            }
            tracing::info!(
                %message_id,
                action = ?ack.action,
                contrl_reference = %ack.contrl_reference,
                outbound_id = ?ack.outbound_id,
                "CONTRL issued"
            );
            edihub_outbox::enqueue(
                &mut *tx,
                &message_event(
                    message_id,
                    event_types::EDI_ACKNOWLEDGEMENT_ISSUED,
                    &self.topics.acknowledgement_issued,
                    serde_json::to_value(&ack)?,
                    &propagated,
                ),
            )
            .await?;
        }
        Ok(outcome)
    }

    /// Queues `ack`'s CONTRL as an outbound AS2 message to the partner, from the hub
    /// identity the interchange was sent to; returns its outbound id.
    async fn queue_contrl(
        &self,
        tx: &mut PgConnection,
        ack: &EdiAcknowledgementIssued,
    ) -> Result<Uuid, TransformError> {
        let filename = format!("CONTRL-{}.edi", ack.contrl_reference);
        let queued = edihub_outbound::queue_in(
            tx,
            &self.topics.outbound_status,
            &edihub_outbound::NewOutbound {
                partner: &ack.as2_from,
                hub_as2_id: &ack.as2_to,
                content_type: CONTRL_CONTENT_TYPE,
                payload: &ack.contrl_bytes(),
                filename: Some(&filename),
                source: "contrl",
                request_id: None,
            },
        )
        .await?;
        Ok(queued.id)
    }

    /// Records a partner's CONTRL or APERAK on the outbound message it answers, if the
    /// hub sent one (inside the interchange's savepoint: a rejected interchange
    /// acknowledges nothing).
    async fn match_acknowledgement(
        &self,
        tx: &mut PgConnection,
        message_id: Uuid,
        received: &EdiMessageReceived,
        ack: &ReceivedAcknowledgement,
    ) -> Result<(), TransformError> {
        let source = edihub_outbound::AcknowledgementSource {
            partner: &received.as2_from,
            hub_as2_id: &received.as2_to,
            message_id,
        };
        let matched =
            edihub_outbound::record_acknowledgement(tx, &self.topics.outbound_status, &source, ack)
                .await?;
        match matched {
            Some(outbound) => tracing::info!(
                %message_id,
                outbound_id = %outbound.id,
                message_type = %ack.message_type,
                action = ack.action.as_str(),
                "acknowledgement matched to an outbound message"
            ),
            None => tracing::info!(
                %message_id,
                message_type = %ack.message_type,
                interchange_reference = ?ack.interchange_reference,
                "acknowledgement answers no outbound message"
            ),
        }
        Ok(())
    }

    /// A message's canonical invoice row and its `InvoiceTransformed` event.
    fn invoice_effects(
        &self,
        message_id: Uuid,
        invoice: &CanonicalInvoice,
        parsed: &edihub_events::EdiMessageParsed,
        propagated: &serde_json::Value,
    ) -> Result<(InvoiceRow, NewEvent), TransformError> {
        let invoice_id = Uuid::now_v7();
        let canonical = serde_json::to_value(invoice)?;
        let event = InvoiceTransformed {
            invoice_id,
            message_id,
            message_reference: invoice.message_reference.clone(),
            invoice: canonical.clone(),
            warnings: parsed.warnings.clone(),
        };
        let event = message_event(
            message_id,
            event_types::INVOICE_TRANSFORMED,
            &self.topics.invoice_canonical,
            serde_json::to_value(&event)?,
            propagated,
        );
        let row = InvoiceRow {
            id: invoice_id,
            message_id,
            message_reference: invoice.message_reference.clone(),
            invoice_number: invoice.invoice_number.clone(),
            // Parsed and validated by the mapping; the column keeps SQL date semantics.
            issue_date: NaiveDate::parse_from_str(&invoice.issue_date, "%Y-%m-%d").ok(),
            currency: invoice.currency.clone(),
            amount_due: invoice.totals.amount_due.clone(),
            canonical,
        };
        Ok((row, event))
    }
}

/// An outbox event of the message's aggregate, so the relay publishes the events of one
/// message in the order they were enqueued.
fn message_event(
    message_id: Uuid,
    event_type: &str,
    topic: &str,
    payload: serde_json::Value,
    headers: &serde_json::Value,
) -> NewEvent {
    NewEvent {
        id: Uuid::now_v7(),
        aggregate_type: AGGREGATE_EDI_MESSAGE.into(),
        aggregate_id: message_id.to_string(),
        event_type: event_type.into(),
        topic: topic.into(),
        payload,
        headers: headers.clone(),
    }
}

/// The outbox headers of the events enqueued for `event`: its correlation id, and the
/// trace context of its handling (the consumer loop's span), so the next consumer
/// continues the same trace.
fn correlation_headers(event: &Envelope) -> serde_json::Value {
    let mut propagated = serde_json::Map::new();
    if let Some(id) = &event.correlation_id {
        propagated.insert(headers::CORRELATION_ID.into(), id.as_str().into());
    }
    if let Some(trace) = &event.traceparent {
        propagated.insert(headers::TRACEPARENT.into(), trace.to_string().into());
        if let Some(state) = &event.tracestate {
            propagated.insert(headers::TRACESTATE.into(), state.as_str().into());
        }
    }
    serde_json::Value::Object(propagated)
}

/// Parses, validates and maps an interchange with [`edihub_edifact::check::evaluate`]
/// (the same code path as `edihub edifact check`); every fault, with its position, when
/// the interchange must be rejected.
pub fn map_invoices(payload: &[u8]) -> Result<Vec<CanonicalInvoice>, Vec<Fault>> {
    decide(check::evaluate(payload))
}

fn decide(report: Report) -> Result<Vec<CanonicalInvoice>, Vec<Fault>> {
    if report.must_reject() {
        return Err(report.faults.iter().map(to_event_fault).collect());
    }
    Ok(report.invoices)
}

/// The `EdiAcknowledgementIssued` event for an interchange whose UNB asks for a CONTRL
/// ([`contrl::build`] decides), `None` otherwise.
///
/// Everything in it is derived from the message, never from the clock or a random
/// source: the CONTRL's interchange reference from the message id
/// ([`contrl_reference`]), its message reference is `1` and its preparation time is the
/// time of receipt. A redelivered event therefore yields the same CONTRL byte for byte.
pub fn acknowledgement(
    report: &Report,
    message_id: Uuid,
    received: &EdiMessageReceived,
) -> Option<EdiAcknowledgementIssued> {
    let header = report.header.as_ref()?;
    let params = ContrlParams {
        interchange_reference: contrl_reference(message_id),
        message_reference: "1".to_owned(),
        prepared: prepared(received.received_at),
    };
    let contrl = contrl::build(report, &params)?;
    Some(EdiAcknowledgementIssued {
        message_id,
        as2_from: received.as2_from.clone(),
        as2_to: received.as2_to.clone(),
        acknowledged_reference: contrl.acknowledged_reference,
        unb_sender: header.sender_id.clone(),
        unb_recipient: header.recipient_id.clone(),
        action: match contrl.action {
            contrl::Action::Accepted => AcknowledgementAction::Accepted,
            contrl::Action::Rejected => AcknowledgementAction::Rejected,
        },
        contrl_reference: contrl.interchange_reference,
        syntax_identifier: contrl.syntax_identifier,
        contrl: contrl.text,
        outbound_id: None,
    })
}

/// The CONTRL's own interchange control reference (an..14): the last 14 hex digits of
/// the message id, upper case because UNOA has no lower case. Those digits are random
/// bits in UUID v4 and v7 alike (v7 puts its timestamp first), so references of
/// different messages collide no more than 56 random bits do.
pub fn contrl_reference(message_id: Uuid) -> String {
    let mut hex = message_id.simple().to_string().to_ascii_uppercase();
    hex.split_off(hex.len() - 14)
}

fn prepared(at: DateTime<Utc>) -> Prepared {
    let two = |n: u32| u8::try_from(n).unwrap_or_default();
    Prepared {
        year: u16::try_from(at.year()).unwrap_or_default(),
        month: two(at.month()),
        day: two(at.day()),
        hour: two(at.hour()),
        minute: two(at.minute()),
    }
}

impl EventHandler for Transformer {
    type Error = TransformError;
    async fn handle(&self, event: &Envelope) -> Result<Handled, TransformError> {
        Ok(handled(&self.transform(event).await?))
    }
    async fn handle_batch(&self, events: &[Envelope]) -> Result<Vec<Handled>, TransformError> {
        Ok(self
            .transform_batch(events)
            .await?
            .iter()
            .map(handled)
            .collect())
    }
}

fn handled(outcome: &Outcome) -> Handled {
    match outcome {
        Outcome::Duplicate => Handled::Duplicate,
        Outcome::Ignored => Handled::Ignored,
        Outcome::Transformed { .. } | Outcome::Rejected { .. } => Handled::Applied,
    }
}
