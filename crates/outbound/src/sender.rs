//! The publisher of the `as2-outbound` channel: builds, POSTs and judges each row's
//! message, and records the outcome.
//!
//! The outcome is committed (with its status event) before the relay marks the row
//! SENT. A relay that dies in between publishes the row again; the message is then no
//! longer `queued`, so nothing is POSTed twice for one outcome.

use crate::build::{Parts, build_message};
use crate::inbound_mdn::SentReceipt;
use crate::outcome::{Posted, settle};
use crate::post;
use crate::store::{Change, SentColumns, SentRecord};
use crate::verdict::{self, Answer};
use crate::{OutboundDelivery, OutboundMessage, OutboundState, OutboundStore, SenderSettings};
use edihub_mdn_delivery::Clients;
use edihub_outbox::{OutboxRecord, PublishError, Publisher, backoff_delay};
use edihub_partners::live::LiveDirectory;
use edihub_partners::outbound::{MdnRequest, OutboundPartnership};
use std::sync::Arc;
use std::time::Duration;
use tracing::Instrument as _;
use uuid::Uuid;

/// Sends outbound messages for the relay of [`crate::CHANNEL`].
pub struct OutboundSender {
    store: OutboundStore,
    directory: Arc<LiveDirectory>,
    clients: Clients,
    max_attempts: i32,
}

/// What one delivery row came to, before it is recorded.
enum Outcome {
    /// Nothing to do: the message is no longer queued (cancelled, or done already).
    Skip,
    /// It cannot be sent as things are (no partnership, no key): failed, not tried.
    Unsendable(String),
    /// A POST was made, or tried; a retry waits `retry_after` (the partnership's
    /// backoff for this attempt).
    Attempted {
        // Boxed: the attempt's receipt makes it many times the other variants' size.
        change: Box<Change>,
        retry_after: Duration,
    },
}

impl OutboundSender {
    /// Fails when `settings.proxy` is not a usable proxy URL.
    pub fn new(
        store: OutboundStore,
        directory: Arc<LiveDirectory>,
        settings: &SenderSettings,
    ) -> Result<Self, edihub_mdn_delivery::DeliveryError> {
        Ok(Self {
            store,
            directory,
            clients: Clients::new(&settings.client_settings())?,
            max_attempts: settings.retry.max_attempts,
        })
    }

    async fn deliver(&self, record: &OutboxRecord) -> Result<(), PublishError> {
        let delivery = serde_json::from_str::<OutboundDelivery>(record.payload.get())
            .map_err(PublishError::permanent)?;
        let id = delivery.outbound_id;
        let span = tracing::info_span!(
            "outbound", outbound_id = %id, partner = %delivery.partner,
            attempt = record.attempts + 1,
        );
        async {
            let message = self.store.show(id).await.map_err(PublishError::new)?;
            let outcome = match message {
                Some(message) if message.state == OutboundState::Queued => {
                    self.attempt(&message).await?
                }
                _ => Outcome::Skip,
            };
            self.record(id, outcome).await
        }
        .instrument(span)
        .await
    }

    /// Records `outcome`; an error asks the relay to retry the row.
    async fn record(&self, id: Uuid, outcome: Outcome) -> Result<(), PublishError> {
        let (change, retry_after) = match outcome {
            Outcome::Skip => return Ok(()),
            Outcome::Unsendable(reason) => {
                tracing::warn!(%reason, "outbound message cannot be sent");
                (Change::unsendable(reason), None)
            }
            Outcome::Attempted {
                change,
                retry_after,
            } => (*change, Some(retry_after)),
        };
        let retry = change.to == OutboundState::Queued;
        let reason = change.reason().map(str::to_owned);
        let applied = self
            .store
            .apply(id, &change)
            .await
            .map_err(PublishError::new)?;
        match (applied, retry, reason) {
            // Not applied: cancelled meanwhile. The cancel wins, nothing to retry.
            (None, _, _) => Ok(()),
            (Some(_), true, Some(reason)) => {
                let retry = PublishError::new(RetryLater(reason));
                Err(match retry_after {
                    Some(delay) => retry.retry_after(delay),
                    None => retry,
                })
            }
            _ => Ok(()),
        }
    }

    /// Builds, POSTs and judges `message`; an error (the payload could not be read)
    /// asks the relay to retry the row.
    async fn attempt(&self, message: &OutboundMessage) -> Result<Outcome, PublishError> {
        let directory = self.directory.current();
        let Some(partnership) = directory.partner(&message.partner_as2_id) else {
            return Ok(Outcome::Unsendable(format!(
                "no partnership {}",
                message.partner_as2_id
            )));
        };
        let Some(outbound) = &partnership.outbound else {
            return Ok(Outcome::Unsendable(format!(
                "partnership {} has no outbound settings",
                message.partner_as2_id
            )));
        };
        let Some(identity) = directory.identity(&message.hub_as2_id) else {
            return Ok(Outcome::Unsendable(format!(
                "no hub identity {}",
                message.hub_as2_id
            )));
        };
        let Some(payload) = self
            .store
            .payload(message.id)
            .await
            .map_err(PublishError::new)?
        else {
            return Ok(Outcome::Skip);
        };
        let parts = Parts {
            hub_as2_id: &message.hub_as2_id,
            partner: &message.partner_as2_id,
            message_id: &message.as2_message_id,
            subject: message.filename.as_deref().unwrap_or("EDI message"),
            content_type: &message.content_type,
            payload: &payload,
        };
        let boundary = format!("----=_edihub_{}", Uuid::new_v4().simple());
        let now = chrono::Utc::now().timestamp();
        // Signing and encrypting are RSA work: kept off the worker's other tasks.
        let built = match edihub_config::runtime::blocking(|| {
            build_message(
                &parts,
                outbound,
                identity.keys.as_ref(),
                &partnership.certificates,
                &boundary,
                now,
            )
        }) {
            Ok(built) => built,
            Err(error) => return Ok(Outcome::Unsendable(error.to_string())),
        };
        let mic_expected = Some(built.sent.expected_mic.header_value());
        // What an asynchronous MDN will be judged against, recorded (and the POST
        // counted) before the POST: a partner may send the MDN before it answers.
        let counted_before = matches!(outbound.mdn, MdnRequest::Async { .. });
        let record = counted_before.then(|| SentRecord {
            receipt: serde_json::to_value(SentReceipt::of(&built.sent)).unwrap_or_default(),
            mic_content: built.sent.mic_content.clone(),
            mic_expected: built.sent.expected_mic.header_value(),
        });
        if let Some(record) = &record {
            self.store
                .await_receipt(message.id, record)
                .await
                .map_err(PublishError::new)?;
        }
        let timeout = Duration::from_millis(outbound.timeout_ms);
        let started = std::time::Instant::now();
        let answer = post::post(
            &self.clients,
            partnership,
            &outbound.url,
            built.message,
            timeout,
        )
        .await;
        let posted = match answer {
            Err(error) => Posted::NoAnswer(error),
            Ok(response) => {
                // A synchronous MDN's wait is the POST's.
                if matches!(outbound.mdn, MdnRequest::Sync { .. })
                    && (200..300).contains(&response.status)
                {
                    edihub_metrics::record_mdn_wait(started.elapsed().as_secs_f64());
                }
                let answer = Answer {
                    status: response.status,
                    content_type: &response.content_type,
                    body: &response.body,
                };
                let certificates = &partnership.certificates;
                let verdict = verdict::judge(&answer, &outbound.mdn, &built.sent, certificates);
                Posted::Answered {
                    verdict,
                    mdn: (response.content_type, response.body),
                }
            }
        };
        // The message's count, not the row's: a resend after the MDN timeout is a new
        // row, and counts on.
        let attempt_no = message.attempts + 1;
        let last = attempt_no >= attempt_limit(self.max_attempts, outbound);
        let (to, mut attempt) = settle(posted, last, attempt_no, mic_expected);
        attempt.sent = match (to, record) {
            // `sent` only when an asynchronous MDN was asked for, so there is a record.
            (OutboundState::Sent, Some(record)) => SentColumns::Set(record),
            // A retry: the MDN of an earlier POST (before the MDN timeout) still counts.
            (OutboundState::Queued, _) => SentColumns::Keep,
            _ => SentColumns::Clear,
        };
        log_outcome(to, attempt.error.as_deref());
        let retry_after = backoff_delay(
            outbound.base_backoff_ms,
            outbound.max_backoff_ms,
            attempt_no,
        );
        Ok(Outcome::Attempted {
            change: Box::new(match counted_before {
                true => Change::attempted(to, attempt).counted_before(),
                false => Change::attempted(to, attempt),
            }),
            retry_after,
        })
    }
}

/// The attempts allowed: the lower of the relay's and the partnership's.
pub(crate) fn attempt_limit(relay_max: i32, outbound: &OutboundPartnership) -> i32 {
    let partnership = i32::try_from(outbound.max_attempts)
        .unwrap_or(i32::MAX)
        .max(1);
    relay_max.min(partnership)
}

fn log_outcome(to: OutboundState, error: Option<&str>) {
    match (to, error) {
        (OutboundState::Delivered, _) => tracing::info!("outbound message delivered"),
        (OutboundState::Sent, _) => tracing::info!("outbound message sent, MDN to come"),
        (OutboundState::Queued, error) => tracing::warn!(error, "outbound POST failed; retried"),
        (state, error) => tracing::warn!(%state, error, "outbound message not delivered"),
    }
}

/// A retry the relay schedules after the partnership's backoff; the reason is the row's
/// `last_error`.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct RetryLater(String);

impl Publisher for OutboundSender {
    async fn publish(&self, records: &[OutboxRecord]) -> Vec<Result<(), PublishError>> {
        // One partner's slow server must not hold the others back.
        let deliveries = records.iter().map(|record| self.deliver(record));
        futures::future::join_all(deliveries).await
    }
}
