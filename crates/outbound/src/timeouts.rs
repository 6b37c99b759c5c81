//! The MDN timeout: a message `sent` for longer than its partnership's `mdn_timeout_ms`
//! is sent again with the same Message-ID, until its attempts are used up; then it is
//! `failed`. An MDN for an earlier POST is still taken meanwhile.

use crate::sender::attempt_limit;
use crate::store::Change;
use crate::{OutboundStore, SenderSettings};
use edihub_partners::live::LiveDirectory;
use std::sync::Arc;
use uuid::Uuid;

/// What one sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Queued again, with a new delivery row.
    pub resent: usize,
    pub failed: usize,
}

/// Finds the messages whose MDN is overdue and sends them again or fails them.
pub struct TimeoutSweep {
    store: OutboundStore,
    directory: Arc<LiveDirectory>,
    max_attempts: i32,
    batch_size: i64,
}

/// A `sent` message past its timeout.
#[derive(Debug, Clone, sqlx::FromRow)]
struct Overdue {
    id: Uuid,
    partner_as2_id: String,
    attempts: i32,
    mdn_timeout_ms: i64,
}

impl TimeoutSweep {
    /// The attempts allowed are the lower of `settings.retry.max_attempts` and the
    /// partnership's, as for the sender.
    pub fn new(
        store: OutboundStore,
        directory: Arc<LiveDirectory>,
        settings: &SenderSettings,
    ) -> Self {
        Self {
            store,
            directory,
            max_attempts: settings.retry.max_attempts,
            batch_size: settings.retry.batch_size.max(1),
        }
    }

    /// One sweep: one query on the `sent` messages (a partial index), then one
    /// transaction per overdue message (its change, its event, a delivery row when it
    /// is sent again).
    pub async fn sweep(&self) -> Result<SweepReport, sqlx::Error> {
        let directory = self.directory.current();
        let (partners, timeouts): (Vec<String>, Vec<i64>) = directory
            .partner_ids()
            .filter_map(|id| {
                let outbound = directory.partner(id)?.outbound.as_ref()?;
                let timeout = i64::try_from(outbound.mdn_timeout_ms).unwrap_or(i64::MAX);
                Some((id.to_owned(), timeout))
            })
            .unzip();
        let overdue: Vec<Overdue> = sqlx::query_as(
            "SELECT m.id, m.partner_as2_id, m.attempts, p.timeout_ms AS mdn_timeout_ms
             FROM outbound_message m
             JOIN unnest($1::text[], $2::bigint[]) AS p(partner, timeout_ms)
               ON p.partner = m.partner_as2_id
             WHERE m.state = 'sent'
               AND m.updated_at < now() - p.timeout_ms * interval '1 millisecond'
             ORDER BY m.updated_at
             LIMIT $3",
        )
        .bind(&partners)
        .bind(&timeouts)
        .bind(self.batch_size)
        .fetch_all(self.store.pool())
        .await?;
        let mut report = SweepReport::default();
        for message in overdue {
            let limit = directory
                .partner(&message.partner_as2_id)
                .and_then(|p| p.outbound.as_ref())
                .map_or(self.max_attempts, |o| attempt_limit(self.max_attempts, o));
            let change = overdue_change(message.attempts, limit, message.mdn_timeout_ms);
            let resend = change.to == crate::OutboundState::Queued;
            let applied = self
                .store
                .apply_delivering(message.id, &change, resend)
                .await?;
            // Not applied: the MDN (or a cancel) came meanwhile.
            if applied.is_some() {
                log(message.id, change.reason());
                match resend {
                    true => report.resent += 1,
                    false => report.failed += 1,
                }
            }
        }
        Ok(report)
    }
}

/// The change of an overdue message that was POSTed `attempts` times of `limit`.
fn overdue_change(attempts: i32, limit: i32, timeout_ms: i64) -> Change {
    let waited = format!("no MDN within {timeout_ms} ms");
    match attempts < limit {
        true => Change::mdn_timed_out(format!("{waited}; sent again"), true),
        false => Change::mdn_timed_out(
            format!("{waited}; gave up after {attempts} attempts"),
            false,
        ),
    }
}

fn log(id: Uuid, reason: Option<&str>) {
    tracing::warn!(outbound_id = %id, reason, "outbound MDN overdue");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OutboundState;

    #[test]
    fn an_overdue_message_is_sent_again_until_its_attempts_are_used_up() {
        let again = overdue_change(1, 3, 500);
        assert_eq!(again.to, OutboundState::Queued);
        assert_eq!(again.reason(), Some("no MDN within 500 ms; sent again"));
        let last = overdue_change(3, 3, 500);
        assert_eq!(last.to, OutboundState::Failed);
        assert_eq!(
            last.reason(),
            Some("no MDN within 500 ms; gave up after 3 attempts")
        );
        assert_eq!(again.from, &[OutboundState::Sent]);
    }
}
