//! What an accepted interchange's messages leave behind (canonical invoices and their
//! events), gathered and written a batch at a time.
//!
//! An interchange can still be rejected after its messages were read (a fault may come
//! last, e.g. a wrong UNZ count), and then none of its messages' effects may remain.
//! Most interchanges are small: their effects wait here for the decision and are then
//! dropped, or, accepted, join those of the batch's other accepted interchanges, written
//! in one statement per table. A large one is written every [`BATCH`] messages, to bound
//! memory, inside a savepoint opened at its first write, which a rejection rolls back.

use chrono::NaiveDate;
use edihub_outbox::NewEvent;
use sqlx::PgConnection;
use uuid::Uuid;

/// Messages gathered before they are written.
const BATCH: usize = 64;

const SAVEPOINT: &str = "SAVEPOINT transform_effects";
const RELEASE: &str = "RELEASE SAVEPOINT transform_effects";
const ROLLBACK: &str = "ROLLBACK TO SAVEPOINT transform_effects";

/// A `canonical_invoice` row.
pub(crate) struct InvoiceRow {
    pub id: Uuid,
    pub message_id: Uuid,
    pub message_reference: String,
    pub invoice_number: String,
    /// None fails the insert (the column is NOT NULL): the mapping validated it.
    pub issue_date: Option<NaiveDate>,
    pub currency: Option<String>,
    pub amount_due: Option<String>,
    pub canonical: serde_json::Value,
}

#[derive(Default)]
pub(crate) struct Effects {
    messages: usize,
    invoices: Vec<InvoiceRow>,
    events: Vec<NewEvent>,
    /// Whether something was written: a rejection must then roll it back.
    savepoint: bool,
}

impl Effects {
    /// Adds one message's invoice (if any) and events, in publication order.
    pub fn push(
        &mut self,
        invoice: Option<InvoiceRow>,
        events: impl IntoIterator<Item = NewEvent>,
    ) {
        self.messages += 1;
        self.invoices.extend(invoice);
        self.events.extend(events);
    }

    /// Whether enough is gathered to be written now.
    pub fn is_full(&self) -> bool {
        self.messages >= BATCH
    }

    /// Writes what is gathered, inside the savepoint (opened now if it is not yet),
    /// after the batch's `accepted` effects, which the savepoint must not hold.
    /// Anything else written on `conn` until [`Self::accept`] or [`Self::reject`] is
    /// inside it too.
    pub async fn write(
        &mut self,
        conn: &mut PgConnection,
        accepted: &mut Effects,
    ) -> Result<(), sqlx::Error> {
        accepted.write_accepted(&mut *conn).await?;
        if !self.savepoint {
            sqlx::query(SAVEPOINT).execute(&mut *conn).await?;
            self.savepoint = true;
        }
        self.flush(conn).await
    }

    /// The interchange is accepted, and everything stays. Written inside a savepoint,
    /// the rest is written there too; otherwise nothing of it is written yet, and it
    /// joins `accepted`, the batch's accepted effects.
    pub async fn accept(
        mut self,
        conn: &mut PgConnection,
        accepted: &mut Effects,
    ) -> Result<(), sqlx::Error> {
        if !self.savepoint {
            accepted.invoices.append(&mut self.invoices);
            accepted.events.append(&mut self.events);
            return Ok(());
        }
        self.flush(conn).await?;
        sqlx::query(RELEASE).execute(conn).await?;
        Ok(())
    }

    /// Writes the accepted effects gathered by [`Self::accept`]: before anything else
    /// is written on `conn` (a savepoint must not hold them, and the outbox keeps the
    /// order of the events), and before the commit. Nothing gathered, nothing sent.
    pub async fn write_accepted(&mut self, conn: &mut PgConnection) -> Result<(), sqlx::Error> {
        self.flush(conn).await
    }

    /// The interchange is rejected: nothing of its messages remains.
    pub async fn reject(self, conn: &mut PgConnection) -> Result<(), sqlx::Error> {
        if self.savepoint {
            sqlx::query(ROLLBACK).execute(conn).await?;
        }
        Ok(())
    }

    async fn flush(&mut self, conn: &mut PgConnection) -> Result<(), sqlx::Error> {
        insert_invoices(conn, &self.invoices).await?;
        edihub_outbox::enqueue_all(conn, &self.events).await?;
        self.invoices.clear();
        self.events.clear();
        self.messages = 0;
        Ok(())
    }
}

async fn insert_invoices(conn: &mut PgConnection, rows: &[InvoiceRow]) -> Result<(), sqlx::Error> {
    if rows.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let message_ids: Vec<Uuid> = rows.iter().map(|r| r.message_id).collect();
    let references: Vec<&str> = rows.iter().map(|r| r.message_reference.as_str()).collect();
    let numbers: Vec<&str> = rows.iter().map(|r| r.invoice_number.as_str()).collect();
    let dates: Vec<Option<NaiveDate>> = rows.iter().map(|r| r.issue_date).collect();
    let currencies: Vec<Option<&str>> = rows.iter().map(|r| r.currency.as_deref()).collect();
    let amounts: Vec<Option<&str>> = rows.iter().map(|r| r.amount_due.as_deref()).collect();
    let canonical: Vec<&serde_json::Value> = rows.iter().map(|r| &r.canonical).collect();
    sqlx::query(
        "INSERT INTO canonical_invoice (id, message_id, message_reference, invoice_number,
                                        issue_date, currency, amount_due, canonical)
         SELECT id, message_id, message_reference, invoice_number, issue_date, currency,
                amount_due::numeric, canonical
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::date[], $6::text[],
                     $7::text[], $8::jsonb[])
              AS i(id, message_id, message_reference, invoice_number, issue_date, currency,
                   amount_due, canonical)",
    )
    .bind(ids)
    .bind(message_ids)
    .bind(references)
    .bind(numbers)
    .bind(dates)
    .bind(currencies)
    .bind(amounts)
    .bind(canonical)
    .execute(conn)
    .await?;
    Ok(())
}
