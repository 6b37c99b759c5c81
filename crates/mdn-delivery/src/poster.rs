//! The publisher of the `as2-mdn` channel: POSTs each row's stored MDN to its URL.

use crate::MdnDelivery;
use edihub_journal::StoredMdn;
use edihub_outbox::{OutboxRecord, PublishError, Publisher};
use serde::Deserialize;
use sqlx::PgPool;
use std::collections::HashMap;
use std::sync::Arc;
use tracing::Instrument as _;
use uuid::Uuid;

/// Why one MDN was not delivered; its text becomes the row's `last_error`.
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    #[error("unreadable delivery row: {0}")]
    Unreadable(#[from] serde_json::Error),
    /// The batch's MDNs could not be read: every row of the batch fails with this.
    #[error("cannot load the MDNs: {0}")]
    Load(#[source] Arc<sqlx::Error>),
    #[error("no stored MDN for message {0}")]
    NoMdn(Uuid),
    #[error("POST {url}: {source}")]
    Send {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("POST {url}: HTTP {status}")]
    Status {
        url: String,
        status: reqwest::StatusCode,
    },
}

/// Publishes `as2-mdn` outbox rows by POSTing the stored MDNs.
pub struct MdnPoster {
    pool: PgPool,
    client: reqwest::Client,
}

impl MdnPoster {
    pub fn new(pool: PgPool, client: reqwest::Client) -> Self {
        Self { pool, client }
    }

    async fn post(&self, delivery: &MdnDelivery, mdn: &StoredMdn) -> Result<(), PostError> {
        let mut request = self
            .client
            .post(&delivery.url)
            .header(reqwest::header::CONTENT_TYPE, &mdn.content_type)
            .body(mdn.body.clone());
        for (name, value) in &mdn.headers {
            if !name.eq_ignore_ascii_case("content-type") {
                request = request.header(name.as_str(), value.as_str());
            }
        }
        let response = request.send().await.map_err(|source| PostError::Send {
            url: delivery.url.clone(),
            source,
        })?;
        let status = response.status();
        if status.is_success() {
            Ok(())
        } else {
            Err(PostError::Status {
                url: delivery.url.clone(),
                status,
            })
        }
    }

    async fn deliver(
        &self,
        record: &OutboxRecord,
        delivery: MdnDelivery,
        mdns: &HashMap<Uuid, StoredMdn>,
    ) -> Result<(), PostError> {
        let span = tracing::info_span!(
            "async_mdn",
            message_id = %delivery.message_id,
            url = %delivery.url,
            attempt = record.attempts + 1,
        );
        async {
            let mdn = mdns
                .get(&delivery.message_id)
                .ok_or(PostError::NoMdn(delivery.message_id))?;
            let outcome = self.post(&delivery, mdn).await;
            let label = match &outcome {
                Ok(()) => {
                    tracing::info!("async MDN delivered");
                    "delivered"
                }
                Err(error) => {
                    tracing::warn!(%error, "async MDN not delivered");
                    "error"
                }
            };
            edihub_metrics::AS2_ASYNC_MDN_POSTS
                .with_label_values(&[label])
                .inc();
            outcome
        }
        .instrument(span)
        .await
    }
}

impl Publisher for MdnPoster {
    async fn publish(&self, records: &[OutboxRecord]) -> Vec<Result<(), PublishError>> {
        let deliveries: Vec<Result<MdnDelivery, PostError>> = records
            .iter()
            .map(|r| Ok(MdnDelivery::deserialize(&r.payload)?))
            .collect();
        let ids: Vec<Uuid> = deliveries
            .iter()
            .filter_map(|d| d.as_ref().ok().map(|d| d.message_id))
            .collect();
        let mdns = match edihub_journal::load_mdns(&self.pool, &ids).await {
            Ok(mdns) => mdns,
            Err(error) => {
                let error = Arc::new(error);
                return records
                    .iter()
                    .map(|_| Err(PublishError::new(PostError::Load(error.clone()))))
                    .collect();
            }
        };
        // One partner's slow receiver must not hold the others' MDNs back: POST the
        // batch concurrently (its size is the channel's `batch_size`).
        let posts = records
            .iter()
            .zip(deliveries)
            .map(|(record, delivery)| async {
                let outcome = match delivery {
                    Ok(delivery) => self.deliver(record, delivery, &mdns).await,
                    Err(error) => Err(error),
                };
                outcome.map_err(PublishError::new)
            });
        futures::future::join_all(posts).await
    }
}
