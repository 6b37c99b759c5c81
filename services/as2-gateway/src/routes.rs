//! `POST /as2`: the partner-facing endpoint (an API boundary: partners' AS2 software
//! depends on its behaviour, see RFC 4130).

use crate::AppState;
use crate::error::GatewayError;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use edihub_as2::{As2Headers, Disposition, DispositionError, MdnReport};
use edihub_edifact::InterchangeHeader;
use edihub_events::{AGGREGATE_EDI_MESSAGE, ClaimCheck, EdiMessageReceived, event_types, headers};
use edihub_journal::{AcceptedMessage, JournalError, Refusal, StoredMdn};
use edihub_outbox::NewEvent;
use std::sync::Arc;
use tracing::Instrument;
use uuid::Uuid;

const REPORTING_UA: &str = concat!("edihub/", env!("CARGO_PKG_VERSION"));

pub async fn receive(
    State(state): State<Arc<AppState>>,
    request_headers: HeaderMap,
    body: Bytes,
) -> Result<Response, GatewayError> {
    let as2 = As2Headers::from_pairs(
        request_headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes())),
    )
    .map_err(|e| GatewayError::BadRequest(e.to_string()))?;
    let message_id = Uuid::now_v7();
    let span = tracing::info_span!(
        "as2_receive",
        %message_id,
        as2_message_id = %as2.message_id,
        as2_from = %as2.as2_from,
    );
    receive_message(state, as2, message_id, request_headers, body)
        .instrument(span)
        .await
}

async fn receive_message(
    state: Arc<AppState>,
    as2: As2Headers,
    message_id: Uuid,
    request_headers: HeaderMap,
    body: Bytes,
) -> Result<Response, GatewayError> {
    let settings = &state.settings.gateway;
    let now = Utc::now();

    // A resend gets the MDN it got the first time, and nothing new is written.
    if let Some((original_id, mdn)) =
        edihub_journal::find_mdn(&state.pool, &as2.as2_from, &as2.as2_to, &as2.message_id)
            .await
            .map_err(|e| GatewayError::Unavailable(e.to_string()))?
    {
        tracing::info!(%original_id, "resend of an accepted message: original MDN returned");
        edihub_metrics::AS2_MESSAGES
            .with_label_values(&["resend"])
            .inc();
        return Ok(mdn_response(&as2, &mdn));
    }

    let known_partner = settings.partners.iter().any(|p| p.as2_id == as2.as2_from);
    if as2.as2_to != settings.hub_as2_id || !known_partner {
        let reason = if as2.as2_to != settings.hub_as2_id {
            format!("AS2-To {:?} is not this hub", as2.as2_to)
        } else {
            format!("AS2-From {:?} is not a configured partner", as2.as2_from)
        };
        return refuse(
            &state,
            &as2,
            DispositionError::AuthenticationFailed,
            &reason,
            body.len(),
        )
        .await;
    }
    // Decrypt, verify, decompress. CPU-bound (RSA), so off the async workers.
    let unwrapped = {
        let state = Arc::clone(&state);
        let as2 = as2.clone();
        let body = body.clone();
        let transfer_encoding = request_headers
            .get("content-transfer-encoding")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        tokio::task::spawn_blocking(move || {
            let partner = state
                .security
                .partners
                .get(&as2.as2_from)
                .map(|p| p.security(now.timestamp()))
                .unwrap_or(edihub_as2::PartnerSecurity {
                    certificates: &[],
                    require_signature: false,
                    require_encryption: false,
                    allow_expired: false,
                    now_unix: now.timestamp(),
                });
            edihub_as2::unwrap_inbound(
                &as2,
                transfer_encoding.as_deref(),
                &body,
                state.security.hub.as_ref(),
                &partner,
                state.settings.gateway.max_decompressed_bytes,
            )
        })
        .await
        .map_err(|e| GatewayError::Unavailable(format!("unwrap task: {e}")))?
    };
    let unwrapped = match unwrapped {
        Ok(unwrapped) => unwrapped,
        Err(refusal) => {
            return refuse(
                &state,
                &as2,
                refusal.disposition,
                &refusal.reason,
                body.len(),
            )
            .await;
        }
    };
    tracing::debug!(
        signed = unwrapped.signed,
        encrypted = unwrapped.encrypted,
        compressed = unwrapped.compressed,
        "security layers removed"
    );
    let mic = unwrapped.mic;
    let payload_content_type = unwrapped.content_type;
    let payload = unwrapped.payload;
    let unb = InterchangeHeader::peek(&payload).ok();
    if unb.is_none() {
        // Accepted all the same: the MDN acknowledges receipt, and the transform
        // consumer rejects the content with the fault's position.
        tracing::warn!("payload has no readable UNB");
    }
    let mdn = build_mdn(
        &state,
        &as2,
        MdnReport {
            reporting_ua: REPORTING_UA.into(),
            original_recipient: settings.hub_as2_id.clone(),
            final_recipient: settings.hub_as2_id.clone(),
            original_message_id: as2.message_id.clone(),
            received_content_mic: Some(mic),
            disposition: Disposition::Processed,
            human_text: format!(
                "The message {} was received and stored by edihub as {message_id}.",
                as2.message_id
            ),
        },
    )?;

    let correlation_id = request_headers
        .get("x-correlation-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .unwrap_or_else(|| message_id.to_string());
    let sha256 = edihub_journal::sha256_hex(&payload);
    let message = AcceptedMessage {
        id: message_id,
        as2_from: as2.as2_from.clone(),
        as2_to: as2.as2_to.clone(),
        as2_message_id: as2.message_id.clone(),
        content_type: payload_content_type,
        as2_headers: headers_json(&request_headers),
        raw_body: body.to_vec(),
        unb_sender: unb.as_ref().map(|h| h.sender_id.clone()),
        unb_recipient: unb.as_ref().map(|h| h.recipient_id.clone()),
        unb_reference: unb.as_ref().map(|h| h.control_reference.clone()),
        received_at: now,
        payload,
    };
    let event = EdiMessageReceived {
        message_id,
        as2_from: message.as2_from.clone(),
        as2_to: message.as2_to.clone(),
        as2_message_id: message.as2_message_id.clone(),
        unb_reference: message.unb_reference.clone(),
        unb_sender: message.unb_sender.clone(),
        unb_recipient: message.unb_recipient.clone(),
        content_type: message.content_type.clone(),
        received_at: now,
        payload: ClaimCheck::for_journal(message_id, sha256, message.payload.len() as u64),
    };
    let outbox_event = NewEvent {
        id: Uuid::now_v7(),
        aggregate_type: AGGREGATE_EDI_MESSAGE.into(),
        aggregate_id: message_id.to_string(),
        event_type: event_types::EDI_MESSAGE_RECEIVED.into(),
        topic: state.settings.kafka.topics.inbound_received.clone(),
        payload: serde_json::to_value(&event)
            .map_err(|e| GatewayError::Unavailable(e.to_string()))?,
        headers: serde_json::json!({ headers::CORRELATION_ID: correlation_id }),
    };

    match edihub_journal::accept(&state.pool, &message, &mdn, &outbox_event).await {
        Ok(()) => {
            tracing::info!(size = message.payload.len(), "message accepted");
            edihub_metrics::AS2_MESSAGES
                .with_label_values(&["processed"])
                .inc();
            Ok(mdn_response(&as2, &mdn))
        }
        // A concurrent copy of the same message won the race: answer with its MDN.
        Err(JournalError::Duplicate) => {
            match edihub_journal::find_mdn(&state.pool, &as2.as2_from, &as2.as2_to, &as2.message_id)
                .await
                .map_err(|e| GatewayError::Unavailable(e.to_string()))?
            {
                Some((_, original)) => {
                    edihub_metrics::AS2_MESSAGES
                        .with_label_values(&["resend"])
                        .inc();
                    Ok(mdn_response(&as2, &original))
                }
                None => Err(GatewayError::Unavailable(
                    "duplicate message without a stored MDN".into(),
                )),
            }
        }
        Err(JournalError::Database(e)) => Err(GatewayError::Unavailable(e.to_string())),
    }
}

/// Builds the MDN, signed when the partner asked for a pkcs7-signature receipt and the
/// hub has a key (otherwise unsigned, which RFC 4130 allows the partner to refuse).
fn build_mdn(
    state: &AppState,
    as2: &As2Headers,
    report: MdnReport,
) -> Result<StoredMdn, GatewayError> {
    let mdn_message_id = format!("{}@edihub", Uuid::now_v7());
    let boundary = format!("----=_edihub_{}", Uuid::new_v4().simple());
    let mut built = edihub_as2::build_mdn(
        &report,
        &state.settings.gateway.hub_as2_id,
        &as2.as2_from,
        &mdn_message_id,
        &boundary,
    );
    let options = as2.mdn_options.as_ref();
    let signed_requested = options
        .and_then(|o| o.signed_receipt_protocol.as_ref())
        .is_some_and(|(_, protocol)| protocol == "pkcs7-signature");
    if signed_requested {
        match &state.security.hub {
            Some(identity) => {
                let alg = options
                    .and_then(|o| o.micalg.first().copied())
                    .unwrap_or(edihub_as2::mic::MicAlg::Sha256);
                let signed_boundary = format!("----=_edihub_signed_{}", Uuid::new_v4().simple());
                built = edihub_as2::sign_mdn(
                    built,
                    identity,
                    alg,
                    &signed_boundary,
                    Utc::now().timestamp(),
                )
                .map_err(|e| GatewayError::Unavailable(format!("cannot sign the MDN: {e}")))?;
            }
            None => tracing::warn!("signed MDN requested but the hub has no key: sent unsigned"),
        }
    }
    Ok(StoredMdn {
        mdn_message_id,
        disposition: disposition_text(&report.disposition),
        content_type: built.content_type,
        headers: built.headers,
        body: built.body,
    })
}

fn disposition_text(disposition: &Disposition) -> String {
    match disposition {
        Disposition::Processed => "processed".into(),
        Disposition::Failed(error) => format!("processed/error: {}", error.as_str()),
    }
}

/// Answers a refused message with an error MDN and records why, for operators.
/// Nothing reaches the journal or the outbox.
async fn refuse(
    state: &AppState,
    as2: &As2Headers,
    error: DispositionError,
    reason: &str,
    body_size: usize,
) -> Result<Response, GatewayError> {
    tracing::warn!(disposition = error.as_str(), reason, "message refused");
    edihub_metrics::AS2_MESSAGES
        .with_label_values(&[error.as_str()])
        .inc();
    let refusal = Refusal {
        as2_from: Some(&as2.as2_from),
        as2_to: Some(&as2.as2_to),
        as2_message_id: Some(&as2.message_id),
        disposition: error.as_str(),
        reason,
        body_size,
        refused_at: Utc::now(),
    };
    if let Err(e) = edihub_journal::record_refusal(&state.pool, &refusal).await {
        // The refusal MDN still goes out: the record is for operators only.
        tracing::error!(error = %e, "cannot record refusal");
    }
    let mdn = build_mdn(
        state,
        as2,
        MdnReport {
            reporting_ua: REPORTING_UA.into(),
            original_recipient: state.settings.gateway.hub_as2_id.clone(),
            final_recipient: state.settings.gateway.hub_as2_id.clone(),
            original_message_id: as2.message_id.clone(),
            received_content_mic: None,
            disposition: Disposition::Failed(error),
            human_text: format!("The message {} was refused: {reason}.", as2.message_id),
        },
    )?;
    Ok(mdn_response(as2, &mdn))
}

/// The sync MDN as the HTTP response; a plain 200 when the partner asked for no MDN.
fn mdn_response(as2: &As2Headers, mdn: &StoredMdn) -> Response {
    if as2.disposition_notification_to.is_none() {
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

fn headers_json(headers: &HeaderMap) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> = headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                serde_json::Value::String(String::from_utf8_lossy(value.as_bytes()).into_owned()),
            )
        })
        .collect();
    serde_json::Value::Object(map)
}
