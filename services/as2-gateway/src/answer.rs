//! The answers that are not a fresh acceptance: a refusal's error MDN, and a resend's
//! original MDN, again in the response or again to the partner's URL.

use crate::AppState;
use crate::entry::stored_mdn;
use crate::error::GatewayError;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use edihub_as2::As2Headers;
use edihub_inbound::{ReceiptDelivery, Refused};
use edihub_journal::{Refusal, StoredMdn};

/// Answers a refused message with its error MDN and records why, for operators.
/// Nothing reaches the journal or the outbox.
///
/// A message accepted before keeps its answer, whatever it would get now (a partner
/// removed or a certificate expired since), so a resend is looked for first.
pub(crate) async fn refusal(
    state: &AppState,
    as2: &As2Headers,
    refused: Refused,
    body_size: usize,
    refused_at: DateTime<Utc>,
) -> Result<Response, GatewayError> {
    if let Some(answer) = resend(state, as2, &refused.receipt).await? {
        return Ok(answer);
    }
    let disposition = refused.disposition.as_str();
    tracing::warn!(disposition, reason = %refused.reason, "message refused");
    edihub_metrics::AS2_MESSAGES
        .with_label_values(&[disposition])
        .inc();
    let record = Refusal {
        as2_from: Some(&as2.as2_from),
        as2_to: Some(&as2.as2_to),
        as2_message_id: Some(&as2.message_id),
        disposition,
        reason: &refused.reason,
        body_size,
        refused_at,
    };
    if let Err(e) = edihub_journal::record_refusal(&state.pool, &record).await {
        // The refusal MDN still goes out: the record is for operators only.
        tracing::error!(error = %e, "cannot record refusal");
    }
    Ok(mdn_response(as2, &stored_mdn(refused.mdn)))
}

/// The answer to a resend of a message the hub accepted before (its original MDN), or
/// `None` when this AS2-From, AS2-To and Message-ID were never accepted. The MDN goes
/// asynchronously again when the resend asks for that at an allowed URL, otherwise in
/// the response.
pub(crate) async fn resend(
    state: &AppState,
    as2: &As2Headers,
    receipt: &ReceiptDelivery,
) -> Result<Option<Response>, GatewayError> {
    let original =
        edihub_journal::find_mdn(&state.pool, &as2.as2_from, &as2.as2_to, &as2.message_id)
            .await
            .map_err(GatewayError::Lookup)?;
    let Some((original_id, mdn)) = original else {
        return Ok(None);
    };
    tracing::info!(%original_id, "resend of an accepted message: original MDN returned");
    edihub_metrics::AS2_MESSAGES
        .with_label_values(&["resend"])
        .inc();
    let answer = match receipt {
        ReceiptDelivery::Async(url) => {
            let delivery = edihub_mdn_delivery::delivery_event(original_id, &as2.as2_from, url);
            edihub_mdn_delivery::enqueue_redelivery(&state.pool, &delivery)
                .await
                .map_err(GatewayError::Redelivery)?;
            StatusCode::OK.into_response()
        }
        ReceiptDelivery::Disallowed(refused) => {
            // The original was accepted, so it is not refused now; the URL is not used.
            tracing::warn!(%refused, "resend asks for a disallowed async MDN URL: MDN returned in the response");
            mdn_response(as2, &mdn)
        }
        ReceiptDelivery::InResponse => mdn_response(as2, &mdn),
    };
    Ok(Some(answer))
}

/// The sync MDN as the HTTP response; a plain 200 when the partner asked for no MDN.
pub(crate) fn mdn_response(as2: &As2Headers, mdn: &StoredMdn) -> Response {
    if !as2.mdn_requested() {
        return StatusCode::OK.into_response();
    }
    let mut response = (StatusCode::OK, mdn.body.clone()).into_response();
    let out = response.headers_mut();
    for (name, value) in &mdn.headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            out.insert(name, value);
        }
    }
    if let Ok(value) = HeaderValue::from_str(&mdn.content_type) {
        out.insert(axum::http::header::CONTENT_TYPE, value);
    }
    response
}
