//! One change of an outbound message, as a single UPDATE guarded by the states it may
//! start from (the row is locked meanwhile, so a cancel and the sender cannot both win).

use super::OutboundMessage;
use edihub_events::OutboundState;
use edihub_metrics::FailureClass;
use sqlx::PgConnection;
use uuid::Uuid;

/// What becomes of the attempt counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counter {
    Keep,
    /// One more POST was made.
    Add,
    /// Queued again: counting starts over.
    Reset,
}

/// The result of one POST, recorded over the previous one's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Attempt {
    pub error: Option<String>,
    pub mic_expected: Option<String>,
    pub mic_reported: Option<String>,
    /// The MDN's content type and body.
    pub mdn: Option<(String, Vec<u8>)>,
    /// What becomes of the record an asynchronous MDN is judged against.
    pub sent: SentColumns,
    /// Why the message failed, for `edihub_outbound_failures_total` (a `failed` change).
    pub failure: Option<FailureClass>,
}

/// The `sent_receipt` and `sent_mic_content` columns (migration 20261204000016).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum SentColumns {
    /// Cleared: no MDN is awaited for the message as it stands.
    #[default]
    Clear,
    /// Kept: an MDN for the last POST is still welcome (a resend after the MDN timeout).
    Keep,
    /// The last POST's, which leaves the message `sent`.
    Set(SentRecord),
}

/// What [`check_receipt`](edihub_as2::receipt::check_receipt) needs of a POSTed message,
/// as stored: the JSON of `sent_receipt` and the MIC's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SentRecord {
    pub receipt: serde_json::Value,
    pub mic_content: Vec<u8>,
    /// The MIC header value the MDN should report, recorded with the receipt: an MDN
    /// that comes before the POST's answer ends the message before the POST's outcome
    /// could record it.
    pub mic_expected: String,
}

/// A guarded change: from one of `from` to `to`.
#[derive(Debug, Clone)]
pub(crate) struct Change {
    pub from: &'static [OutboundState],
    pub to: OutboundState,
    pub counter: Counter,
    /// `None`: the attempt columns stay as they are.
    pub attempt: Option<Attempt>,
}

const SQL: &str = "
    WITH old AS (SELECT id, state FROM outbound_message WHERE id = $1 FOR UPDATE)
    UPDATE outbound_message m SET
        state = $2,
        attempts = CASE $4 WHEN 'add' THEN m.attempts + 1 WHEN 'reset' THEN 0
                   ELSE m.attempts END,
        last_error = CASE WHEN $5 THEN $6 ELSE m.last_error END,
        mic_expected = COALESCE($7, m.mic_expected),
        mic_reported = CASE WHEN $5 THEN $8 ELSE m.mic_reported END,
        mdn_content_type = CASE WHEN $5 THEN $9 ELSE m.mdn_content_type END,
        mdn = CASE WHEN $5 THEN $10 ELSE m.mdn END,
        sent_receipt = CASE WHEN NOT $5 OR $11 THEN m.sent_receipt ELSE $12 END,
        sent_mic_content = CASE WHEN NOT $5 OR $11 THEN m.sent_mic_content ELSE $13 END,
        updated_at = now()
    FROM old
    WHERE m.id = old.id AND old.state = ANY($3)
    RETURNING old.state AS previous_state, ";

impl Change {
    pub fn cancel() -> Self {
        Change {
            from: &[OutboundState::Queued, OutboundState::Sent],
            to: OutboundState::Cancelled,
            counter: Counter::Keep,
            attempt: None,
        }
    }

    pub fn resend() -> Self {
        Change {
            from: &[OutboundState::Failed, OutboundState::Delivered],
            to: OutboundState::Queued,
            counter: Counter::Reset,
            attempt: Some(Attempt::default()),
        }
    }

    /// A POST of a `queued` message made, with this outcome (`to` may be `queued`
    /// again: a retry). A delivery also ends a message cancelled while its POST was in
    /// flight: the partner has it, and the state says so. The POST is counted here,
    /// unless [`Change::counted_before`] says it was counted before it was made.
    pub fn attempted(to: OutboundState, attempt: Attempt) -> Self {
        Change {
            from: match to {
                OutboundState::Delivered => &[OutboundState::Queued, OutboundState::Cancelled],
                _ => &[OutboundState::Queued],
            },
            to,
            counter: Counter::Add,
            attempt: Some(attempt),
        }
    }

    /// This change without counting the POST: it was counted when its receipt was
    /// recorded before the POST ([`OutboundStore::await_receipt`](super::OutboundStore)).
    pub fn counted_before(mut self) -> Self {
        self.counter = Counter::Keep;
        self
    }

    /// A message the sender could not even try (no partnership, no key): failed.
    pub fn unsendable(error: String) -> Self {
        Change {
            from: &[OutboundState::Queued],
            to: OutboundState::Failed,
            counter: Counter::Keep,
            attempt: Some(Attempt {
                error: Some(error),
                failure: Some(FailureClass::Refused),
                ..Attempt::default()
            }),
        }
    }

    /// An asynchronous MDN judged: `delivered` or `failed`. From `queued` too: a message
    /// sent again after its MDN timeout still takes the MDN of an earlier POST (the store
    /// checks that one was made).
    /// A `processed` MDN for a message cancelled after it was POSTed delivers it too.
    pub fn mdn_judged(to: OutboundState, attempt: Attempt) -> Self {
        Change {
            from: match to {
                OutboundState::Delivered => &[
                    OutboundState::Sent,
                    OutboundState::Queued,
                    OutboundState::Cancelled,
                ],
                _ => &[OutboundState::Sent, OutboundState::Queued],
            },
            to,
            counter: Counter::Keep,
            attempt: Some(attempt),
        }
    }

    /// No MDN within the timeout: sent again (`queued`; the POST counts the attempt),
    /// still welcoming the awaited MDN, or `failed` when the attempts are used up.
    pub fn mdn_timed_out(reason: String, resend: bool) -> Self {
        let (to, sent) = match resend {
            true => (OutboundState::Queued, SentColumns::Keep),
            false => (OutboundState::Failed, SentColumns::Clear),
        };
        Change {
            from: &[OutboundState::Sent],
            to,
            counter: Counter::Keep,
            attempt: Some(Attempt {
                error: Some(reason),
                sent,
                failure: (!resend).then_some(FailureClass::AttemptsExhausted),
                ..Attempt::default()
            }),
        }
    }

    /// Counts a committed `failed` change in `edihub_outbound_failures_total`.
    pub fn count_failure(&self) {
        if self.to == OutboundState::Failed {
            let class = self.attempt.as_ref().and_then(|a| a.failure);
            edihub_metrics::record_failure(class.unwrap_or(FailureClass::Refused));
        }
    }

    /// The reason the event gives: the attempt's error.
    pub fn reason(&self) -> Option<&str> {
        self.attempt.as_ref().and_then(|a| a.error.as_deref())
    }

    /// `queued or sent`, for refusals.
    pub fn allowed_names(&self) -> &'static str {
        match self.from {
            [OutboundState::Queued, OutboundState::Sent] => "queued or sent",
            [OutboundState::Failed, OutboundState::Delivered] => "failed or delivered",
            _ => "queued",
        }
    }

    /// Runs the UPDATE, returning `columns` (of the table as `m`); the state before and
    /// the row after, or `None` when the row is not in a `from` state.
    pub async fn run(
        &self,
        conn: &mut PgConnection,
        id: Uuid,
        columns: &str,
    ) -> Result<Option<(OutboundState, OutboundMessage)>, sqlx::Error> {
        let from: Vec<&str> = self.from.iter().map(|s| s.as_str()).collect();
        let counter = match self.counter {
            Counter::Keep => "keep",
            Counter::Add => "add",
            Counter::Reset => "reset",
        };
        let attempt = self.attempt.clone().unwrap_or_default();
        let (mdn_type, mdn) = attempt.mdn.unzip();
        let keep_sent = attempt.sent == SentColumns::Keep;
        let (receipt, mic_content) = match attempt.sent {
            SentColumns::Set(record) => (Some(record.receipt), Some(record.mic_content)),
            SentColumns::Clear | SentColumns::Keep => (None, None),
        };
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("{SQL}{columns}")))
            .bind(id)
            .bind(self.to.as_str())
            .bind(&from)
            .bind(counter)
            .bind(self.attempt.is_some())
            .bind(attempt.error)
            .bind(attempt.mic_expected)
            .bind(attempt.mic_reported)
            .bind(mdn_type)
            .bind(mdn)
            .bind(keep_sent)
            .bind(receipt)
            .bind(mic_content)
            .fetch_optional(conn)
            .await?;
        let Some(row) = row else { return Ok(None) };
        use sqlx::{FromRow as _, Row as _};
        let previous: String = row.try_get("previous_state")?;
        let previous =
            OutboundState::try_from(previous).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
        Ok(Some((previous, OutboundMessage::from_row(&row)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_and_resend_start_from_the_states_the_cli_documents() {
        assert_eq!(Change::cancel().allowed_names(), "queued or sent");
        assert!(!Change::cancel().from.contains(&OutboundState::Delivered));
        let resend = Change::resend();
        assert_eq!(resend.to, OutboundState::Queued);
        assert_eq!(resend.counter, Counter::Reset);
        assert!(resend.from.contains(&OutboundState::Failed));
        assert!(!resend.from.contains(&OutboundState::Cancelled));
    }

    #[test]
    fn an_attempt_counts_and_gives_its_error_as_the_reason() {
        let change = Change::attempted(
            OutboundState::Failed,
            Attempt {
                error: Some("HTTP 403".into()),
                ..Attempt::default()
            },
        );
        assert_eq!(change.counter, Counter::Add);
        assert_eq!(change.reason(), Some("HTTP 403"));
        assert_eq!(change.from, &[OutboundState::Queued]);
    }
}
