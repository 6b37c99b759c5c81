//! Recording an arriving MDN: the message it answers is locked, judged and changed in
//! one transaction, with its status event.

use super::{Ignored, Judged, SentReceipt, judge};
use crate::store::{Attempt, Change};
use crate::{OutboundState, OutboundStore};
use edihub_as2::VerifiedMdn;
use uuid::Uuid;

/// An MDN that [`super::read`] verified, with the request it came in.
#[derive(Debug, Clone, Copy)]
pub struct ArrivedMdn<'a> {
    /// AS2-From: the partner.
    pub partner: &'a str,
    /// AS2-To: the hub identity that sent the message.
    pub hub_as2_id: &'a str,
    pub mdn: &'a VerifiedMdn,
    /// The request as received, kept as the message's MDN.
    pub content_type: &'a str,
    pub body: &'a [u8],
}

/// What an arriving MDN did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MdnOutcome {
    Delivered(Uuid),
    Failed {
        id: Uuid,
        reason: String,
    },
    /// The message is delivered already (the same MDN again): nothing changed.
    Repeated(Uuid),
    Ignored(Ignored),
}

/// The row an MDN answers, as locked.
/// The row an MDN may answer; the last field is the seconds since its last change (the
/// POST that left it `sent`), for `edihub_outbound_mdn_wait_seconds`.
type Awaiting = (
    Uuid,
    String,
    Option<serde_json::Value>,
    Option<Vec<u8>>,
    f64,
);

impl OutboundStore {
    /// Matches `arrived` to the message it answers (Original-Message-ID, partner and
    /// identity), judges it against what was sent and records the outcome, in one
    /// transaction; a repeated MDN changes nothing.
    pub async fn receive_mdn(&self, arrived: &ArrivedMdn<'_>) -> Result<MdnOutcome, sqlx::Error> {
        let original = &arrived.mdn.report.original_message_id;
        let mut tx = self.pool().begin().await?;
        let row: Option<Awaiting> = sqlx::query_as(
            "SELECT id, state, sent_receipt, sent_mic_content,
                    extract(epoch FROM now() - updated_at)::float8 FROM outbound_message
             WHERE as2_message_id = $1 AND partner_as2_id = $2 AND hub_as2_id = $3
             FOR UPDATE",
        )
        .bind(original)
        .bind(arrived.partner)
        .bind(arrived.hub_as2_id)
        .fetch_optional(&mut *tx)
        .await?;
        let not_awaited = || MdnOutcome::Ignored(Ignored::NotAwaited(original.clone()));
        let Some((id, state, receipt, mic_content, waited)) = row else {
            return Ok(not_awaited());
        };
        if state == OutboundState::Delivered.as_str() {
            return Ok(MdnOutcome::Repeated(id));
        }
        let sent = receipt.zip(mic_content).and_then(|(receipt, content)| {
            let receipt: SentReceipt = serde_json::from_value(receipt).ok()?;
            receipt.sent_message(original.clone(), content)
        });
        let Some(sent) = sent else {
            return Ok(not_awaited());
        };
        let judged = match judge(&sent, arrived.mdn) {
            Ok(judged) => judged,
            Err(ignored) => return Ok(MdnOutcome::Ignored(ignored)),
        };
        let mdn = Some((arrived.content_type.to_owned(), arrived.body.to_vec()));
        let (change, outcome) = match judged {
            Judged::Delivered { mic } => {
                let attempt = Attempt {
                    mic_reported: mic.map(|m| m.header_value()),
                    mdn,
                    ..Attempt::default()
                };
                let change = Change::mdn_judged(OutboundState::Delivered, attempt);
                (change, MdnOutcome::Delivered(id))
            }
            Judged::Failed { reason, mic, class } => {
                let attempt = Attempt {
                    error: Some(reason.clone()),
                    failure: Some(class),
                    mic_reported: mic.map(|m| m.header_value()),
                    mdn,
                    ..Attempt::default()
                };
                let change = Change::mdn_judged(OutboundState::Failed, attempt);
                (change, MdnOutcome::Failed { id, reason })
            }
        };
        match self.apply_in(&mut tx, id, &change).await? {
            Some(_) => {
                tx.commit().await?;
                change.count_failure();
                edihub_metrics::record_mdn_wait(waited);
                Ok(outcome)
            }
            // Cancelled (or failed) meanwhile: the MDN comes too late to matter.
            None => Ok(not_awaited()),
        }
    }
}
