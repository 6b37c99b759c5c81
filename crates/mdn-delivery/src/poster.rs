//! The publisher of the `as2-mdn` channel: POSTs each row's stored MDN to its URL.

use crate::checks::{self, SendFailure, UrlRefused};
use crate::{AddressRefused, Clients, DeliveryError, MdnDelivery};
use edihub_journal::StoredMdn;
use edihub_outbox::{OutboxRecord, PublishError, Publisher};
use sqlx::PgPool;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use tracing::Instrument as _;
use url::Url;
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
    #[error("POST {url} not attempted: not a URL ({source})")]
    BadUrl {
        url: String,
        #[source]
        source: url::ParseError,
    },
    #[error(
        "POST {url} not attempted: {address} is a {range} address, outside the \
         partnership's async MDN networks"
    )]
    Address {
        url: String,
        address: IpAddr,
        range: &'static str,
    },
    #[error("POST {url} not attempted: {source}")]
    Refused {
        url: String,
        #[source]
        source: AddressRefused,
    },
    #[error("POST {url}: {source}")]
    Client {
        url: String,
        #[source]
        source: DeliveryError,
    },
    /// `cause` is the innermost error's text (a refused certificate, a reset
    /// connection): reqwest's own says only that sending failed.
    #[error("POST {url}: {source}: {cause}")]
    Send {
        url: String,
        cause: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("POST {url}: HTTP {status}")]
    Status {
        url: String,
        status: reqwest::StatusCode,
    },
}

impl PostError {
    /// Whether no retry can deliver it: the URL names, or resolves only to, addresses
    /// the hub does not POST to. A failed lookup, a refused connection or an error
    /// status may pass, and are retried.
    pub fn is_permanent(&self) -> bool {
        matches!(
            self,
            PostError::BadUrl { .. } | PostError::Address { .. } | PostError::Refused { .. }
        )
    }

    fn into_publish_error(self) -> PublishError {
        if self.is_permanent() {
            PublishError::permanent(self)
        } else {
            PublishError::new(self)
        }
    }
}

/// Publishes `as2-mdn` outbox rows by POSTing the stored MDNs.
pub struct MdnPoster {
    pool: PgPool,
    clients: Clients,
}

impl MdnPoster {
    pub fn new(pool: PgPool, clients: Clients) -> Self {
        Self { pool, clients }
    }

    async fn post(&self, delivery: &MdnDelivery, mdn: &StoredMdn) -> Result<(), PostError> {
        let url = checked_url(delivery)?;
        let client = self
            .clients
            .for_endpoint(&delivery.allowed_networks, &delivery.tls)
            .map_err(|source| PostError::Client {
                url: delivery.url.clone(),
                source,
            })?;
        let mut request = client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, &mdn.content_type)
            .body(mdn.body.clone());
        for (name, value) in &mdn.headers {
            if !name.eq_ignore_ascii_case("content-type") {
                request = request.header(name.as_str(), value.as_str());
            }
        }
        let response = request
            .send()
            .await
            .map_err(|source| send_error(delivery, source))?;
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
                Err(error) if error.is_permanent() => {
                    tracing::warn!(%error, "async MDN refused: not attempted, not retried");
                    "refused"
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

/// The row's URL, when the hub may connect to it. An IP-literal host is checked here,
/// again: the partnership's networks may have changed since, and old rows were never
/// checked.
fn checked_url(delivery: &MdnDelivery) -> Result<Url, PostError> {
    let url = delivery.url.clone();
    checks::checked_url(&delivery.url, &delivery.allowed_networks).map_err(
        |refused| match refused {
            UrlRefused::NotAUrl(source) => PostError::BadUrl { url, source },
            UrlRefused::Address { address, range } => PostError::Address {
                url,
                address,
                range,
            },
        },
    )
}

/// A failed send; permanent when the resolver found only refused addresses.
fn send_error(delivery: &MdnDelivery, source: reqwest::Error) -> PostError {
    let url = delivery.url.clone();
    match checks::send_failure(&source) {
        SendFailure::Refused(source) => PostError::Refused { url, source },
        SendFailure::Other { cause } => PostError::Send { url, cause, source },
    }
}

impl Publisher for MdnPoster {
    async fn publish(&self, records: &[OutboxRecord]) -> Vec<Result<(), PublishError>> {
        let deliveries: Vec<Result<MdnDelivery, PostError>> = records
            .iter()
            .map(|r| Ok(serde_json::from_str::<MdnDelivery>(r.payload.get())?))
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
                outcome.map_err(PostError::into_publish_error)
            });
        futures::future::join_all(posts).await
    }
}

#[cfg(test)]
mod tests;
