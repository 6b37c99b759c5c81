//! `POST /as2`: the partner-facing endpoint (an API boundary: partners' AS2 software
//! depends on its behaviour, see RFC 4130).
//!
//! The route does the I/O and nothing else: it reads the request, has
//! [`edihub_inbound::decide`] judge it on the blocking pool (the RSA work of unwrapping
//! and signing must not hold an async worker), journals what was accepted, and answers.

use crate::AppState;
use crate::answer;
use crate::entry::{self, Arrival};
use crate::error::GatewayError;
use crate::trace::{TraceContext, trace_context};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use edihub_as2::As2Headers;
use edihub_inbound::{Accepted, Decision, ReceiptDelivery, Request};
use edihub_journal::{Accept, JournalError};
use edihub_partners::Directory;
use std::sync::Arc;
use tracing::Instrument;
use uuid::Uuid;

pub async fn receive(
    State(state): State<Arc<AppState>>,
    request_headers: HeaderMap,
    body: Bytes,
) -> Result<Response, GatewayError> {
    let pairs: Vec<(&str, &[u8])> = request_headers
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_bytes()))
        .collect();
    let as2 = edihub_inbound::read_headers(&pairs, state.settings.gateway.max_header_bytes)?;
    // This request's view of partners and identities, even if they change meanwhile.
    let directory = state.directory.current();
    // Held until the answer is built; dropped with the future if the client goes away.
    // Until the transport hands one over (serve.rs), a connection without TLS.
    let connection = crate::connection::ConnectionInfo {
        peer: std::net::SocketAddr::from(([0, 0, 0, 0], 0)),
        client_certificate_sha256: None,
    };
    let Some(_slot) = state
        .slots
        .try_acquire(&directory, &as2.as2_from, &connection)
    else {
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
    let arrival = Incoming {
        message_id,
        received_at: Utc::now(),
        trace,
        request_headers,
        body,
    };
    receive_message(&state, directory, as2, arrival)
        .instrument(span)
        .await
}

/// A request that passed the header checks, with the id and time the hub gave it.
struct Incoming {
    message_id: Uuid,
    received_at: DateTime<Utc>,
    trace: TraceContext,
    request_headers: HeaderMap,
    body: Bytes,
}

async fn receive_message(
    state: &AppState,
    directory: Arc<Directory>,
    as2: As2Headers,
    incoming: Incoming,
) -> Result<Response, GatewayError> {
    let (as2, decision) = decide_blocking(state, directory, as2, &incoming).await?;
    match decision {
        Decision::Refuse(refused) => {
            answer::refusal(
                state,
                &as2,
                *refused,
                incoming.body.len(),
                incoming.received_at,
            )
            .await
        }
        Decision::Accept(accepted) => {
            log_accepted(&accepted);
            let receipt = accepted
                .async_mdn
                .clone()
                .map_or(ReceiptDelivery::InResponse, ReceiptDelivery::Async);
            let entry = entry::journal_entry(
                *accepted,
                &Arrival {
                    message_id: incoming.message_id,
                    as2: &as2,
                    request_headers: &incoming.request_headers,
                    raw_body: &incoming.body,
                    received_at: incoming.received_at,
                    trace: &incoming.trace,
                    topic: &state.settings.kafka.topics.inbound_received,
                },
            )?;
            journal(state, &as2, entry, receipt).await
        }
    }
}

/// Runs the decision on the blocking pool, inside the request's span, and hands the
/// headers back with it.
async fn decide_blocking(
    state: &AppState,
    directory: Arc<Directory>,
    as2: As2Headers,
    incoming: &Incoming,
) -> Result<(As2Headers, Decision), GatewayError> {
    let policy = Arc::clone(&state.policy);
    let transfer_encoding = incoming
        .request_headers
        .get("content-transfer-encoding")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = incoming.body.clone();
    let (message_id, now) = (incoming.message_id, incoming.received_at);
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || {
        let _entered = span.enter();
        let request = Request {
            headers: &as2,
            transfer_encoding: transfer_encoding.as_deref(),
            body: &body,
            message_id,
            mdn_nonce: Uuid::now_v7(),
            now,
        };
        let decision = edihub_inbound::decide(&request, &directory, &policy);
        decision.map(|decision| (as2, decision))
    })
    .await?
    .map_err(GatewayError::from)
}

fn log_accepted(accepted: &Accepted) {
    let layers = accepted.layers;
    tracing::debug!(
        signed = layers.signed,
        encrypted = layers.encrypted,
        compressed = layers.compressed,
        "security layers removed"
    );
    if accepted.unb.is_none() {
        tracing::warn!("payload has no readable UNB");
    }
}

/// Commits the message, its MDN and its outbox rows, then answers with the MDN.
async fn journal(
    state: &AppState,
    as2: &As2Headers,
    entry: Accept,
    receipt: ReceiptDelivery,
) -> Result<Response, GatewayError> {
    let mdn = entry.mdn.clone();
    let size = entry.message.payload.len();
    let async_mdn = matches!(receipt, ReceiptDelivery::Async(_));
    match state.journal.accept(entry).await {
        Ok(()) => {
            tracing::info!(size, async_mdn, "message accepted");
            edihub_metrics::AS2_MESSAGES
                .with_label_values(&["processed"])
                .inc();
            if async_mdn {
                // RFC 4130 7.3: the HTTP response only says the request arrived.
                return Ok(StatusCode::OK.into_response());
            }
            Ok(answer::mdn_response(as2, &mdn))
        }
        // A resend, or a concurrent copy that won the race: answer with the original's
        // MDN (the one signed for this copy is dropped).
        Err(JournalError::Duplicate) => answer::resend(state, as2, &receipt)
            .await?
            .ok_or(GatewayError::OriginalMdnMissing),
        Err(e) => Err(GatewayError::Journal(e)),
    }
}
