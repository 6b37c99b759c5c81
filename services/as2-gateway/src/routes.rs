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
use edihub_events::trace::TraceParent;
use edihub_events::{AGGREGATE_EDI_MESSAGE, ClaimCheck, EdiMessageReceived, event_types, headers};
use edihub_journal::{AcceptedMessage, JournalError, Refusal, StoredMdn};
use edihub_outbox::NewEvent;
use edihub_partners::Directory;
use std::sync::Arc;
use tracing::Instrument;
use uuid::Uuid;

const REPORTING_UA: &str = concat!("edihub/", env!("CARGO_PKG_VERSION"));

pub async fn receive(
    State(state): State<Arc<AppState>>,
    request_headers: HeaderMap,
    body: Bytes,
) -> Result<Response, GatewayError> {
    let limit = state.settings.gateway.max_header_bytes;
    let size: usize = request_headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if size > limit {
        return Err(GatewayError::HeadersTooLarge { size, limit });
    }
    let as2 = As2Headers::from_pairs(
        request_headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes())),
    )
    .map_err(|e| GatewayError::BadRequest(e.to_string()))?;
    // This request's view of partners and identities, even if they change meanwhile.
    let directory = state.directory.current();
    // Held until the answer is built; dropped with the future if the client goes away.
    let Some(_slot) = state.slots.try_acquire(&directory, &as2.as2_from) else {
        return Err(GatewayError::TooBusy {
            partner: as2.as2_from.clone(),
            limit: state.slots.limit(),
        });
    };
    let message_id = Uuid::now_v7();
    let trace = trace_context(&request_headers, message_id);
    let span = tracing::info_span!(
        "as2_receive",
        trace_id = %trace.parent.trace_id(),
        span_id = %trace.parent.parent_id(),
        %message_id,
        as2_message_id = %as2.message_id,
        as2_from = %as2.as2_from,
    );
    receive_message(
        state,
        directory,
        as2,
        message_id,
        trace,
        request_headers,
        body,
    )
    .instrument(span)
    .await
}

async fn receive_message(
    state: Arc<AppState>,
    directory: Arc<Directory>,
    as2: As2Headers,
    message_id: Uuid,
    trace: TraceContext,
    request_headers: HeaderMap,
    body: Bytes,
) -> Result<Response, GatewayError> {
    let settings = &state.settings.gateway;
    let now = Utc::now();

    let async_url = requested_async_url(&directory, &as2);

    // A resend gets the MDN it got the first time, and nothing new is journaled. It is
    // not looked up here: the journal reports it as a duplicate when the message would
    // be accepted, and `refuse` looks before refusing. Resends are rare; a lookup on
    // every message cost about a tenth of the throughput (as2_ingest).

    let hub = directory.identity(&as2.as2_to);
    let partner = directory.partner(&as2.as2_from);
    if hub.is_none() || partner.is_none() {
        let reason = if hub.is_none() {
            format!("AS2-To {:?} is not this hub", as2.as2_to)
        } else {
            format!("AS2-From {:?} is not a configured partner", as2.as2_from)
        };
        return refuse(
            &state,
            &directory,
            &as2,
            DispositionError::AuthenticationFailed,
            &reason,
            body.len(),
        )
        .await;
    }
    // Checked before any work: the hub never POSTs where the partnership did not say.
    let async_url = match async_url {
        Some(Err(refused)) => {
            return refuse(
                &state,
                &directory,
                &as2,
                DispositionError::UnexpectedProcessingError,
                &refused.to_string(),
                body.len(),
            )
            .await;
        }
        Some(Ok(url)) => Some(url),
        None => None,
    };
    // Decrypt, verify, decompress, then sign the MDN: RSA private-key work both, so off
    // the async workers, in one blocking task (one hand-off per message, not two).
    let outcome = {
        let (state, directory, as2) = (Arc::clone(&state), Arc::clone(&directory), as2.clone());
        let body = body.clone();
        let max_decompressed_bytes = settings.max_decompressed_bytes;
        let transfer_encoding = request_headers
            .get("content-transfer-encoding")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        tokio::task::spawn_blocking(move || {
            let hub = directory
                .identity(&as2.as2_to)
                .and_then(|h| h.keys.as_ref());
            let Some(partner) = directory.partner(&as2.as2_from) else {
                return Err(edihub_as2::InboundRefusal {
                    disposition: DispositionError::AuthenticationFailed,
                    reason: format!("AS2-From {:?} is not a configured partner", as2.as2_from),
                });
            };
            let unwrapped = edihub_as2::unwrap_inbound(
                &as2,
                transfer_encoding.as_deref(),
                &body,
                hub,
                &partner.security(now.timestamp()),
                max_decompressed_bytes,
            )?;
            let mdn = build_mdn(
                &state,
                &directory,
                &as2,
                Disposition::Processed,
                Some(unwrapped.mic.clone()),
                format!(
                    "The message {} was received and stored by edihub as {message_id}.",
                    as2.message_id
                ),
            );
            Ok((unwrapped, mdn))
        })
        .await
        .map_err(|e| GatewayError::Unavailable(format!("unwrap task: {e}")))?
    };
    let (unwrapped, mdn) = match outcome {
        Ok(done) => done,
        Err(refusal) => {
            return refuse(
                &state,
                &directory,
                &as2,
                refusal.disposition,
                &refusal.reason,
                body.len(),
            )
            .await;
        }
    };
    let mdn = mdn?;
    tracing::debug!(
        signed = unwrapped.signed,
        encrypted = unwrapped.encrypted,
        compressed = unwrapped.compressed,
        "security layers removed"
    );
    let payload_content_type = unwrapped.content_type;
    let payload = unwrapped.payload;
    let unb = InterchangeHeader::peek(&payload).ok();
    if unb.is_none() {
        // Accepted all the same: the MDN acknowledges receipt, and the transform
        // consumer rejects the content with the fault's position.
        tracing::warn!("payload has no readable UNB");
    }

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
        headers: {
            let mut propagated = serde_json::json!({
                headers::CORRELATION_ID: correlation_id,
                headers::TRACEPARENT: trace.parent.to_string(),
            });
            if let Some(state) = trace.state {
                propagated[headers::TRACESTATE] = state.into();
            }
            propagated
        },
    };

    let delivery = async_url
        .as_ref()
        .map(|url| edihub_mdn_delivery::delivery_event(message_id, &as2.as2_from, url));
    let (size, async_mdn) = (message.payload.len(), delivery.is_some());
    let accepted = edihub_journal::Accept {
        message,
        mdn: mdn.clone(),
        event: outbox_event,
        delivery,
    };
    match state.journal.accept(accepted).await {
        Ok(()) => {
            tracing::info!(size, async_mdn, "message accepted");
            edihub_metrics::AS2_MESSAGES
                .with_label_values(&["processed"])
                .inc();
            if async_mdn {
                // RFC 4130 7.3: the HTTP response only says the request arrived.
                return Ok(StatusCode::OK.into_response());
            }
            Ok(mdn_response(&as2, &mdn))
        }
        // A resend, or a concurrent copy that won the race: answer with the original's
        // MDN (the one signed for this copy is dropped).
        Err(JournalError::Duplicate) => {
            let async_url = async_url.map(Ok);
            match resend_answer(&state, &as2, async_url).await? {
                Some(answer) => Ok(answer),
                None => Err(GatewayError::Unavailable(
                    "duplicate message without a stored MDN".into(),
                )),
            }
        }
        Err(e @ (JournalError::Database(_) | JournalError::Stopped)) => {
            Err(GatewayError::Unavailable(e.to_string()))
        }
    }
}

/// The partner's `Receipt-Delivery-Option`, when it asked for an MDN at all, checked
/// against the partnership's `async_mdn_urls`. `None`: a synchronous MDN (or none).
fn requested_async_url(
    directory: &Directory,
    as2: &As2Headers,
) -> Option<Result<url::Url, edihub_as2::receipt_url::ReceiptUrlError>> {
    as2.disposition_notification_to.as_ref()?;
    let requested = as2.receipt_delivery_option.as_deref()?;
    let allowed = directory
        .partner(&as2.as2_from)
        .map(|p| p.async_mdn_urls.as_slice())
        .unwrap_or_default();
    Some(edihub_as2::receipt_url::check(requested, allowed))
}

/// The answer to a resend of a message the hub accepted before (its original MDN), or
/// `None` when this AS2-From, AS2-To and Message-ID were never accepted.
async fn resend_answer(
    state: &AppState,
    as2: &As2Headers,
    async_url: Option<Result<url::Url, edihub_as2::receipt_url::ReceiptUrlError>>,
) -> Result<Option<Response>, GatewayError> {
    let original =
        edihub_journal::find_mdn(&state.pool, &as2.as2_from, &as2.as2_to, &as2.message_id)
            .await
            .map_err(|e| GatewayError::Unavailable(e.to_string()))?;
    let Some((original_id, mdn)) = original else {
        return Ok(None);
    };
    tracing::info!(%original_id, "resend of an accepted message: original MDN returned");
    answer_resend(state, as2, original_id, &mdn, async_url)
        .await
        .map(Some)
}

/// Answers a resent message with the MDN of the original: again asynchronously when it
/// asks for that at an allowed URL, otherwise in the response.
async fn answer_resend(
    state: &AppState,
    as2: &As2Headers,
    original_id: Uuid,
    mdn: &StoredMdn,
    async_url: Option<Result<url::Url, edihub_as2::receipt_url::ReceiptUrlError>>,
) -> Result<Response, GatewayError> {
    edihub_metrics::AS2_MESSAGES
        .with_label_values(&["resend"])
        .inc();
    match async_url {
        Some(Ok(url)) => {
            let delivery = edihub_mdn_delivery::delivery_event(original_id, &as2.as2_from, &url);
            edihub_mdn_delivery::enqueue_redelivery(&state.pool, &delivery)
                .await
                .map_err(|e| GatewayError::Unavailable(e.to_string()))?;
            Ok(StatusCode::OK.into_response())
        }
        Some(Err(refused)) => {
            // The original was accepted, so it is not refused now; the URL is not used.
            tracing::warn!(%refused, "resend asks for a disallowed async MDN URL: MDN returned in the response");
            Ok(mdn_response(as2, mdn))
        }
        None => Ok(mdn_response(as2, mdn)),
    }
}

/// Builds the MDN, signed when the partner asked for a pkcs7-signature receipt and the
/// hub has a key (otherwise unsigned, which RFC 4130 allows the partner to refuse).
///
/// The MDN comes from the identity the message was addressed to; when AS2-To is not one
/// of ours (a refusal), from the hub's main identity (`gateway.hub_as2_id`).
fn build_mdn(
    state: &AppState,
    directory: &Directory,
    as2: &As2Headers,
    disposition: Disposition,
    received_content_mic: Option<edihub_as2::Mic>,
    human_text: String,
) -> Result<StoredMdn, GatewayError> {
    let main_id = &state.settings.gateway.hub_as2_id;
    let hub = directory
        .identity(&as2.as2_to)
        .or_else(|| directory.identity(main_id));
    let hub_as2_id = hub.map_or(main_id.as_str(), |h| h.as2_id.as_str());
    let report = MdnReport {
        reporting_ua: REPORTING_UA.into(),
        original_recipient: hub_as2_id.to_owned(),
        final_recipient: hub_as2_id.to_owned(),
        original_message_id: as2.message_id.clone(),
        received_content_mic,
        disposition,
        human_text,
    };
    let mdn_message_id = format!("{}@edihub", Uuid::now_v7());
    let boundary = format!("----=_edihub_{}", Uuid::new_v4().simple());
    let mut built = edihub_as2::build_mdn(
        &report,
        hub_as2_id,
        &as2.as2_from,
        &mdn_message_id,
        &boundary,
    );
    let options = as2.mdn_options.as_ref();
    let signed_requested = options
        .and_then(|o| o.signed_receipt_protocol.as_ref())
        .is_some_and(|(_, protocol)| protocol == "pkcs7-signature");
    if signed_requested {
        match hub.and_then(|h| h.keys.as_ref()) {
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
    directory: &Directory,
    as2: &As2Headers,
    error: DispositionError,
    reason: &str,
    body_size: usize,
) -> Result<Response, GatewayError> {
    // A message accepted before keeps its answer, whatever it would get now (a partner
    // removed or a certificate expired since).
    if let Some(answer) = resend_answer(state, as2, requested_async_url(directory, as2)).await? {
        return Ok(answer);
    }
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
        directory,
        as2,
        Disposition::Failed(error),
        None,
        format!("The message {} was refused: {reason}.", as2.message_id),
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

/// The trace context of our span for this request: a child of the request's
/// `traceparent` when it carries exactly one valid value, else a new trace (W3C Trace
/// Context). A new trace takes the message id as its trace-id, so an operator can go
/// from one to the other.
fn trace_context(request_headers: &HeaderMap, message_id: Uuid) -> TraceContext {
    let mut values = request_headers.get_all(headers::TRACEPARENT).iter();
    let incoming = match (values.next(), values.next()) {
        (Some(value), None) => value.to_str().ok(),
        _ => None,
    };
    // tracestate belongs to the partner's trace: kept only when that trace continues.
    let continued = incoming.is_some_and(|v| TraceParent::parse(v).is_ok());
    let state = continued
        .then(|| {
            edihub_events::trace::tracestate(
                request_headers
                    .get_all(headers::TRACESTATE)
                    .iter()
                    .filter_map(|v| v.to_str().ok()),
            )
        })
        .flatten();
    TraceContext {
        parent: TraceParent::for_message(incoming, message_id),
        state,
    }
}

/// Our span's `traceparent`, and the partner's `tracestate` to carry along with it.
struct TraceContext {
    parent: TraceParent,
    state: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(traceparent: &str, tracestate: &str) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in [("traceparent", traceparent), ("tracestate", tracestate)] {
            map.insert(name, HeaderValue::from_str(value).expect("header value"));
        }
        map
    }

    #[test]
    fn tracestate_travels_only_with_the_partners_trace() {
        let id = Uuid::now_v7();
        let valid = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let continued = trace_context(&request(valid, "congo=t61rcWkgMzE"), id);
        assert_eq!(
            continued.parent.trace_id().to_string(),
            "0af7651916cd43dd8448eb211c80319c"
        );
        assert_eq!(continued.state.as_deref(), Some("congo=t61rcWkgMzE"));

        // A new trace is the hub's own: the partner's vendor data has no place in it.
        let restarted = trace_context(&request("00-garbage", "congo=t61rcWkgMzE"), id);
        assert_eq!(
            restarted.parent.trace_id().to_string(),
            id.simple().to_string()
        );
        assert_eq!(restarted.state, None);
    }
}
