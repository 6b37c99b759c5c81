//! The answers that are not a fresh acceptance: a refusal's error MDN, and a resend's
//! original MDN, again in the response or again to the partner's URL.

use crate::AppState;
use crate::entry::stored_mdn;
use crate::error::GatewayError;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use edihub_as2::As2Headers;
use edihub_inbound::{Mdn, ReceiptDelivery, Refused};
use edihub_journal::{Refusal, StoredMdn};

/// Answers a refused message with its error MDN and records why, for operators.
/// Nothing reaches the journal or the outbox.
///
/// A message accepted before keeps its answer, whatever it would get now (a partner
/// removed or a certificate expired since), so a resend is looked for first, but only
/// for a request that proved it comes from the partner: the Message-ID is not signed,
/// and a forged request naming a known one must not get its MDN (or have it POSTed).
pub(crate) async fn refusal(
    state: &AppState,
    as2: &As2Headers,
    refused: Refused,
    body_size: usize,
    refused_at: DateTime<Utc>,
) -> Result<Response, GatewayError> {
    if refused.authenticated
        && let Some(answer) = resend(state, as2, &refused.receipt).await?
    {
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
    write_record(state, &record, refused.authenticated).await;
    Ok(mdn_response(as2, &stored_mdn(refused.mdn)))
}

/// Answers a replayed copy with its `duplicate-document` MDN, in the response, and
/// records it for operators like a refusal (nothing reaches the journal or the outbox).
pub(crate) async fn replayed(
    state: &AppState,
    as2: &As2Headers,
    mdn: Mdn,
    body_size: usize,
    received_at: DateTime<Utc>,
) -> Result<Response, GatewayError> {
    let outcome = mdn.disposition.outcome();
    edihub_metrics::AS2_MESSAGES
        .with_label_values(&["duplicate-document"])
        .inc();
    let record = Refusal {
        as2_from: Some(&as2.as2_from),
        as2_to: Some(&as2.as2_to),
        as2_message_id: Some(&as2.message_id),
        disposition: "duplicate-document",
        reason: &outcome,
        body_size,
        refused_at: received_at,
    };
    // A replay is signed by the partner: always worth recording.
    write_record(state, &record, true).await;
    // In the response even when the copy asked for an asynchronous MDN.
    Ok(mdn_response(as2, &stored_mdn(mdn)))
}

/// Writes a refusal record, within the budget for unauthenticated requests.
async fn write_record(state: &AppState, record: &Refusal<'_>, authenticated: bool) {
    if !authenticated && !state.refusal_budget.take(std::time::Instant::now()) {
        edihub_metrics::AS2_REFUSALS_UNRECORDED.inc();
        tracing::debug!("refusal not recorded: over the budget for unauthenticated requests");
        return;
    }
    if let Err(e) = edihub_journal::record_refusal(&state.pool, record).await {
        // The refusal MDN still goes out: the record is for operators only.
        tracing::error!(error = %e, "cannot record refusal");
    }
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
            let directory = state.directory.current();
            let endpoint = crate::routes::partner_endpoint(directory.partner(&as2.as2_from));
            let delivery =
                edihub_mdn_delivery::delivery_event(original_id, &as2.as2_from, url, endpoint);
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
