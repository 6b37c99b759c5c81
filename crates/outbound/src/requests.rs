//! The Kafka source of outbound messages: `OutboundRequested` events from downstream
//! systems (topic `edi.outbound.requested`), each queued once as an outbound message,
//! or answered by an `OutboundRequestRejected` when it can never be sent.
//!
//! Architecture invariant: the inbox row, and the message with its delivery row and
//! `queued` event (or the rejection event), commit in one transaction. A claim check is
//! read before that transaction; when S3 or the database fails, the handler returns an
//! error and the consumer loop retries the event, then dead-letters it.

mod plan;

use crate::store::{NewOutbound, StoreError, queue_in};
use chrono::Utc;
use edihub_events::{
    Envelope, EventHandler, Handled, OutboundRequestRejected, event_types, headers,
};
use edihub_outbox::NewEvent;
use edihub_partners::live::LiveDirectory;
use plan::{Document, Plan, Rejection, Rules};
use sqlx::PgPool;
use std::future::Future;
use std::sync::Arc;
use uuid::Uuid;

/// `source` of the outbound messages queued from requests.
pub const REQUEST_SOURCE: &str = "kafka";

/// `aggregate_type` of `OutboundRequestRejected` events.
pub const REQUEST_AGGREGATE_TYPE: &str = "OutboundRequest";

/// Where claim-checked documents are read: the claim-check bucket.
pub trait ClaimChecks: Send + Sync {
    /// The object's bytes; `None` when there is no such key.
    fn fetch(
        &self,
        key: &str,
    ) -> impl Future<Output = Result<Option<Vec<u8>>, ClaimCheckError>> + Send;
}

/// Reading a claim check failed for a reason that may pass (the request is retried).
#[derive(Debug, thiserror::Error)]
#[error("reading claim check {key}: {source}")]
pub struct ClaimCheckError {
    pub key: String,
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error(transparent)]
    ClaimCheck(#[from] ClaimCheckError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// What a request handler needs to know besides its connections.
#[derive(Debug, Clone)]
pub struct RequestSettings {
    /// The consumer group, which is also the consumer's name in the inbox.
    pub consumer: String,
    /// `TopicSettings.outbound_status`: where the `queued` and rejection events go.
    pub status_topic: String,
    /// `gateway.hub_as2_id`.
    pub main_hub: String,
    /// `[outbound] claim_check_bucket`; `None`: claim checks are rejected.
    pub claim_check_bucket: Option<String>,
    /// `[outbound] max_document_bytes`.
    pub max_document_bytes: u64,
}

/// The `OutboundRequested` handler, for `edihub_kafka::run_consumer`.
pub struct OutboundRequests<C> {
    pool: PgPool,
    directory: Arc<LiveDirectory>,
    claim_checks: C,
    settings: RequestSettings,
}

impl<C: ClaimChecks> OutboundRequests<C> {
    pub fn new(
        pool: PgPool,
        directory: Arc<LiveDirectory>,
        claim_checks: C,
        settings: RequestSettings,
    ) -> Self {
        Self {
            pool,
            directory,
            claim_checks,
            settings,
        }
    }

    /// The request's plan with its document read, or why it cannot be sent.
    async fn read(&self, data: &[u8]) -> Result<Result<(Plan, Vec<u8>), Rejection>, RequestError> {
        let directory = self.directory.current();
        let rules = Rules {
            directory: &directory,
            main_hub: &self.settings.main_hub,
            claim_check_bucket: self.settings.claim_check_bucket.as_deref(),
            max_document_bytes: self.settings.max_document_bytes,
        };
        let (plan, document) = match plan::plan(data, &rules) {
            Ok(planned) => planned,
            Err(rejection) => return Ok(Err(rejection)),
        };
        let bytes = match document {
            Document::Inline(bytes) => bytes,
            Document::Claimed { key, sha256, size } => {
                let Some(bytes) = self.claim_checks.fetch(&key).await? else {
                    return Ok(Err(Rejection {
                        partner: Some(plan.partner),
                        reason: format!("no object {key} in the claim-check bucket"),
                    }));
                };
                if let Err(reason) = plan::check_claimed(&bytes, &sha256, size) {
                    return Ok(Err(Rejection {
                        partner: Some(plan.partner),
                        reason,
                    }));
                }
                bytes
            }
        };
        Ok(Ok((plan, bytes)))
    }

    fn rejection_event(&self, event: &Envelope, rejection: Rejection) -> NewEvent {
        let payload = OutboundRequestRejected {
            request_id: event.id,
            request_source: event.source.clone(),
            partner: rejection.partner,
            reason: rejection.reason,
            rejected_at: Utc::now(),
        };
        NewEvent {
            id: Uuid::now_v7(),
            aggregate_type: REQUEST_AGGREGATE_TYPE.into(),
            aggregate_id: event.id.to_string(),
            event_type: event_types::OUTBOUND_REQUEST_REJECTED.into(),
            topic: self.settings.status_topic.clone(),
            payload: serde_json::to_value(&payload).unwrap_or_default(),
            headers: serde_json::json!({ (headers::CORRELATION_ID): event.id.to_string() }),
        }
    }
}

impl<C: ClaimChecks> EventHandler for OutboundRequests<C> {
    type Error = RequestError;

    async fn handle(&self, event: &Envelope) -> Result<Handled, RequestError> {
        if event.event_type != event_types::OUTBOUND_REQUESTED {
            return Ok(Handled::Ignored);
        }
        let read = self.read(&event.data).await?;
        let mut tx = self.pool.begin().await?;
        if !edihub_inbox::claim(
            &mut tx,
            &self.settings.consumer,
            event.id,
            &event.event_type,
        )
        .await?
        {
            return Ok(Handled::Duplicate);
        }
        match read {
            Ok((plan, payload)) => {
                let new = NewOutbound {
                    partner: &plan.partner,
                    hub_as2_id: &plan.hub_as2_id,
                    content_type: &plan.content_type,
                    payload: &payload,
                    filename: plan.filename.as_deref(),
                    source: REQUEST_SOURCE,
                    request_id: Some(event.id),
                };
                let queued = queue_in(&mut tx, &self.settings.status_topic, &new).await?;
                tx.commit().await?;
                tracing::info!(request_id = %event.id, outbound_id = %queued.id,
                    partner = %plan.partner, size = payload.len(), "outbound request queued");
            }
            Err(rejection) => {
                tracing::warn!(request_id = %event.id, partner = ?rejection.partner,
                    reason = %rejection.reason, "outbound request rejected");
                edihub_outbox::enqueue(&mut tx, &self.rejection_event(event, rejection)).await?;
                tx.commit().await?;
            }
        }
        Ok(Handled::Applied)
    }
}
