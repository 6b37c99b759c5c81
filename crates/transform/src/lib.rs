//! The transform consumer's handler: an `EdiMessageReceived` event in; canonical invoices
//! (EN 16931 model) and their `InvoiceTransformed` events out, or one
//! `EdiMessageRejected` event with the faults and their positions.
//!
//! Architecture invariant: the inbox row, the canonical invoice rows and the outbox rows
//! commit in one transaction.

use chrono::NaiveDate;
use edihub_config::TopicSettings;
use edihub_edifact::check;
use edihub_edifact::invoic::CanonicalInvoice;
use edihub_events::{
    AGGREGATE_EDI_MESSAGE, EdiMessageReceived, EdiMessageRejected, Envelope, EventHandler, Fault,
    Handled, InvoiceTransformed, event_types, headers,
};
use edihub_outbox::NewEvent;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum TransformError {
    #[error("event payload is not an EdiMessageReceived: {0}")]
    Payload(#[from] serde_json::Error),
    #[error(transparent)]
    ClaimCheck(#[from] edihub_journal::ClaimCheckError),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// What handling one event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Seen before: nothing done.
    Duplicate,
    /// Not an event this consumer acts on.
    Ignored,
    Transformed {
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
}

impl Transformer {
    pub fn new(pool: PgPool, topics: TopicSettings, consumer: impl Into<String>) -> Self {
        Self {
            pool,
            topics,
            consumer: consumer.into(),
        }
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
        let (message_id, stored) =
            edihub_journal::resolve_claim_check(&mut tx, &received.payload).await?;

        let correlation = event.correlation_id.clone();
        let outcome = match map_invoices(&stored.payload) {
            Ok(invoices) => {
                for invoice in &invoices {
                    self.store_invoice(&mut tx, message_id, invoice, correlation.as_deref())
                        .await?;
                }
                Outcome::Transformed {
                    invoices: invoices.len(),
                }
            }
            Err(faults) => {
                let count = faults.len();
                tracing::warn!(faults = ?faults, "message rejected");
                let rejected = EdiMessageRejected { message_id, faults };
                edihub_outbox::enqueue(
                    &mut tx,
                    &NewEvent {
                        id: Uuid::now_v7(),
                        aggregate_type: AGGREGATE_EDI_MESSAGE.into(),
                        aggregate_id: message_id.to_string(),
                        event_type: event_types::EDI_MESSAGE_REJECTED.into(),
                        topic: self.topics.inbound_rejected.clone(),
                        payload: serde_json::to_value(&rejected)?,
                        headers: correlation_headers(correlation.as_deref()),
                    },
                )
                .await?;
                Outcome::Rejected { faults: count }
            }
        };
        tx.commit().await?;
        tracing::info!(?outcome, "transformed");
        Ok(outcome)
    }

    async fn store_invoice(
        &self,
        tx: &mut PgConnection,
        message_id: Uuid,
        invoice: &CanonicalInvoice,
        correlation: Option<&str>,
    ) -> Result<(), TransformError> {
        let invoice_id = Uuid::now_v7();
        let canonical = serde_json::to_value(invoice)?;
        // Parsed and validated by the mapping; the column keeps SQL date semantics.
        let issue_date = NaiveDate::parse_from_str(&invoice.issue_date, "%Y-%m-%d").ok();
        sqlx::query(
            "INSERT INTO canonical_invoice (id, message_id, message_reference, invoice_number,
                                            issue_date, currency, amount_due, canonical)
             VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8)",
        )
        .bind(invoice_id)
        .bind(message_id)
        .bind(&invoice.message_reference)
        .bind(&invoice.invoice_number)
        .bind(issue_date)
        .bind(&invoice.currency)
        .bind(&invoice.totals.amount_due)
        .bind(&canonical)
        .execute(&mut *tx)
        .await?;
        let event = InvoiceTransformed {
            invoice_id,
            message_id,
            message_reference: invoice.message_reference.clone(),
            invoice: canonical,
        };
        edihub_outbox::enqueue(
            tx,
            &NewEvent {
                id: Uuid::now_v7(),
                aggregate_type: AGGREGATE_EDI_MESSAGE.into(),
                aggregate_id: message_id.to_string(),
                event_type: event_types::INVOICE_TRANSFORMED.into(),
                topic: self.topics.invoice_canonical.clone(),
                payload: serde_json::to_value(&event)?,
                headers: correlation_headers(correlation),
            },
        )
        .await?;
        Ok(())
    }
}

fn correlation_headers(correlation: Option<&str>) -> serde_json::Value {
    match correlation {
        Some(id) => serde_json::json!({ headers::CORRELATION_ID: id }),
        None => serde_json::json!({}),
    }
}

/// Parses, validates and maps an interchange with [`edihub_edifact::check::evaluate`]
/// (the same code path as `edihub edifact check`); every fault, with its position, when
/// the interchange must be rejected.
pub fn map_invoices(payload: &[u8]) -> Result<Vec<CanonicalInvoice>, Vec<Fault>> {
    let report = check::evaluate(payload);
    if report.must_reject() {
        return Err(report.faults.iter().map(to_event_fault).collect());
    }
    Ok(report.invoices)
}

/// The published form of a fault (crates/events has no dependency on the parser).
pub fn to_event_fault(fault: &check::Fault) -> Fault {
    Fault {
        code: Some(fault.class.as_str().to_owned()),
        message_reference: fault.message_reference.clone(),
        message: fault.message.clone(),
        segment: fault.position.map(|p| p.segment),
        offset: fault.position.map(|p| p.offset as u64),
    }
}

impl EventHandler for Transformer {
    type Error = TransformError;
    async fn handle(&self, event: &Envelope) -> Result<Handled, TransformError> {
        Ok(match self.transform(event).await? {
            Outcome::Duplicate => Handled::Duplicate,
            Outcome::Ignored => Handled::Ignored,
            Outcome::Transformed { .. } | Outcome::Rejected { .. } => Handled::Applied,
        })
    }
}
