//! Asynchronous MDNs for the messages the hub sent (RFC 4130 section 7.3), arriving at
//! `POST /as2`: read off the async workers, recorded by `edihub_outbound`, answered 200.
//!
//! Every MDN is answered 200 once nothing more can come of it, even one that matches
//! nothing or is ignored: the partner's software would only POST it again (or alarm its
//! operators) on anything else, and a different answer would tell a stranger which
//! Message-IDs and partners exist. Only our own failure (the database) is a 503, so the
//! partner tries again later.

use crate::AppState;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use edihub_as2::As2Headers;
use edihub_outbound::OutboundStore;
use edihub_outbound::inbound_mdn::{self, ArrivedMdn, Ignored, MdnOutcome};
use edihub_partners::Directory;
use std::sync::Arc;

/// Whether the request is an MDN rather than a message.
pub(super) fn is_mdn(as2: &As2Headers, body: &[u8]) -> bool {
    inbound_mdn::is_mdn(&as2.content_type, body)
}

/// Reads, matches and records the MDN `as2` came with.
pub(super) async fn receive(
    state: &AppState,
    directory: Arc<Directory>,
    as2: As2Headers,
    body: Bytes,
) -> Response {
    let span = tracing::Span::current();
    let read = {
        let (as2, body) = (as2.clone(), body.clone());
        tokio::task::spawn_blocking(move || {
            let _entered = span.enter();
            inbound_mdn::read(
                &directory,
                &as2.as2_from,
                &as2.as2_to,
                &as2.content_type,
                &body,
            )
        })
        .await
    };
    let mdn = match read {
        Ok(Ok(mdn)) => mdn,
        Ok(Err(ignored)) => return answered(&MdnOutcome::Ignored(ignored)),
        Err(error) => return unavailable(&error),
    };
    let store = OutboundStore::new(
        state.pool.clone(),
        &state.settings.kafka.topics.outbound_status,
    );
    let arrived = ArrivedMdn {
        partner: &as2.as2_from,
        hub_as2_id: &as2.as2_to,
        mdn: &mdn,
        content_type: &as2.content_type,
        body: &body,
    };
    match store.receive_mdn(&arrived).await {
        Ok(outcome) => answered(&outcome),
        Err(error) => unavailable(&error),
    }
}

/// Logs and counts `outcome`; 200.
fn answered(outcome: &MdnOutcome) -> Response {
    let label = match outcome {
        MdnOutcome::Delivered(id) => {
            tracing::info!(outbound_id = %id, "async MDN: outbound message delivered");
            "async-mdn-delivered"
        }
        MdnOutcome::Failed { id, reason } => {
            tracing::warn!(outbound_id = %id, %reason, "async MDN: outbound message failed");
            "async-mdn-failed"
        }
        MdnOutcome::Repeated(id) => {
            tracing::info!(outbound_id = %id, "async MDN again for a delivered message");
            "async-mdn-repeated"
        }
        MdnOutcome::Ignored(ignored) => {
            log_ignored(ignored);
            "async-mdn-ignored"
        }
    };
    edihub_metrics::AS2_MESSAGES
        .with_label_values(&[label])
        .inc();
    StatusCode::OK.into_response()
}

fn log_ignored(ignored: &Ignored) {
    tracing::warn!(reason = %ignored, "async MDN ignored: nothing changed");
}

fn unavailable(error: &dyn std::error::Error) -> Response {
    tracing::error!(%error, "async MDN not recorded");
    edihub_metrics::AS2_MESSAGES
        .with_label_values(&["unavailable"])
        .inc();
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "MDN not recorded; retry later\n",
    )
        .into_response()
}
