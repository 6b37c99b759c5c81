//! Asynchronous MDNs (RFC 4130 section 7.3), delivered through the outbox.
//!
//! The gateway writes a row on the outbox channel [`channels::AS2_MDN`] in the same
//! transaction as the message and its MDN ([`delivery_event`]), and answers the HTTP
//! request with an empty 200. A [`Relay`](edihub_outbox::Relay) for that channel, with an
//! [`MdnPoster`] as its publisher, then POSTs the stored MDN to the partner's URL: so an
//! MDN is sent only for a committed message, is retried with backoff while the partner's
//! server is down, and ends FAILED (visible to `edihub outbox failed`) rather than lost.
//!
//! The URL was checked against the partnership when the message came in
//! (`edihub_as2::receipt_url`, which also judged an IP-literal host). What a host name
//! resolves to is judged here, when the POST is made, against the partnership's async
//! MDN networks carried in the row ([`resolve`]); the poster connects only to the
//! addresses that passed, uses no proxy unless configured and follows no redirects, so
//! it cannot be steered elsewhere afterwards. Over https it trusts the server, and
//! presents a client certificate, as the partnership's outbound TLS says
//! ([`edihub_outbound_tls`]), also carried in the row.

pub mod checks;
mod client;
mod poster;
mod resolve;

pub use client::Clients;
pub use poster::{MdnPoster, PostError};
pub use resolve::AddressRefused;

use edihub_outbound_tls::OutboundTls;
use edihub_outbox::{NewEvent, channels};
use ipnet::IpNet;
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use url::Url;
use uuid::Uuid;

/// `event_type` of the delivery rows.
pub const EVENT_TYPE: &str = "As2MdnDelivery";
/// `aggregate_type` of the delivery rows. Their aggregate id is `mdn:<message id>`, not
/// the message id, so that a Kafka outage never holds an MDN back (and vice versa).
pub const AGGREGATE_TYPE: &str = "As2Mdn";

/// The payload of a delivery row; the MDN itself stays in the `mdn` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MdnDelivery {
    /// The journal id of the message the MDN answers.
    pub message_id: Uuid,
    /// The partner (AS2-From of the message), for operators.
    pub partner: String,
    /// Where to POST it; also in the row's `topic`.
    pub url: String,
    /// The partnership's async MDN networks when the message came in: internal
    /// addresses the URL may resolve to (rows from before this field: none).
    #[serde(default)]
    pub allowed_networks: Vec<IpNet>,
    /// The partnership's outbound TLS when the message came in (rows from before this
    /// field: the platform's roots, no client certificate).
    #[serde(default)]
    pub tls: OutboundTls,
}

/// How the hub may connect to a partner's server: the partnership's async MDN networks
/// and its outbound TLS.
#[derive(Debug, Clone, Copy)]
pub struct PartnerEndpoint<'a> {
    /// Internal addresses the partner's URLs may resolve to besides public ones.
    pub allowed_networks: &'a [IpNet],
    pub tls: &'a OutboundTls,
}

impl PartnerEndpoint<'static> {
    /// No internal addresses, the platform's roots, no client certificate: for a
    /// partner the directory does not know (any more).
    pub fn public() -> Self {
        static DEFAULT_TLS: OutboundTls = OutboundTls {
            server: edihub_outbound_tls::ServerTrust::System,
            client: None,
        };
        PartnerEndpoint {
            allowed_networks: &[],
            tls: &DEFAULT_TLS,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    #[error("cannot build the HTTP client: {0}")]
    Client(#[source] reqwest::Error),
    #[error("async_mdn.proxy is not a usable proxy URL: {0}")]
    Proxy(#[source] reqwest::Error),
    #[error("the partnership's outbound TLS cannot be used: {0}")]
    Tls(#[source] edihub_outbound_tls::TlsConfigError),
}

/// The outbox row that will deliver `message_id`'s stored MDN to `url`, connecting as
/// `endpoint` allows.
pub fn delivery_event(
    message_id: Uuid,
    partner: &str,
    url: &Url,
    endpoint: PartnerEndpoint<'_>,
) -> NewEvent {
    let delivery = MdnDelivery {
        message_id,
        partner: partner.to_owned(),
        url: url.to_string(),
        allowed_networks: endpoint.allowed_networks.to_vec(),
        tls: endpoint.tls.clone(),
    };
    NewEvent {
        id: Uuid::now_v7(),
        aggregate_type: AGGREGATE_TYPE.into(),
        aggregate_id: format!("mdn:{message_id}"),
        event_type: EVENT_TYPE.into(),
        topic: delivery.url.clone(),
        payload: serde_json::to_value(&delivery).unwrap_or_default(),
        headers: serde_json::json!({}),
    }
}

/// Queues a delivery outside a message's transaction: a resent message that asks for an
/// asynchronous MDN gets the stored one again.
pub async fn enqueue_redelivery(pool: &PgPool, event: &NewEvent) -> Result<(), sqlx::Error> {
    let mut conn = pool.acquire().await?;
    edihub_outbox::enqueue_on(&mut conn, channels::AS2_MDN, event).await
}
