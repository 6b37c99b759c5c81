//! `POST /as2`: the partner-facing endpoint (an API boundary: partners' AS2 software
//! depends on its behaviour, see RFC 4130).
//!
//! The route does the I/O and nothing else: it reads the request, has
//! [`edihub_inbound::decide`] judge it on the blocking pool (the RSA work of unwrapping
//! and signing must not hold an async worker), journals what was accepted, and answers.
//! An asynchronous MDN for a message the hub sent is no message: [`mdn_in`] takes it
//! before the decision.

use crate::AppState;
use crate::answer;
use crate::connection::ConnectionInfo;
use crate::entry::{self, Arrival};
use crate::error::GatewayError;
use crate::trace::{TraceContext, trace_context};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use edihub_as2::{As2Headers, Mic};
use edihub_inbound::{Accepted, DecideError, Decision, Policy, ReceiptDelivery, Request};
use edihub_journal::{Accept, JournalError};
use edihub_partners::Directory;
use std::sync::Arc;
use tracing::Instrument;
use uuid::Uuid;

mod mdn_in;

/// Checks the headers and takes the partner's slot before a byte of the body is read:
/// a request refused on its headers, or over its partner's allowance, costs no body.
pub async fn receive(
    State(state): State<Arc<AppState>>,
    request: axum::extract::Request,
) -> Result<Response, GatewayError> {
    let (parts, body) = request.into_parts();
    let request_headers = parts.headers;
    let pairs: Vec<(&str, &[u8])> = request_headers
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_bytes()))
        .collect();
    let as2 = edihub_inbound::read_headers(&pairs, state.settings.gateway.max_header_bytes)?;
    let declared_length = state.body_limits.check_declared(&request_headers)?;
    // This request's view of partners and identities, even if they change meanwhile.
    let directory = state.directory.current();
    // serve.rs puts it on every request; a router served otherwise has no peer.
    let connection = parts
        .extensions
        .get::<ConnectionInfo>()
        .copied()
        .unwrap_or(ConnectionInfo {
            peer: std::net::SocketAddr::from(([0, 0, 0, 0], 0)),
            client_certificate_sha256: None,
        });
    // Held until the answer is built; dropped with the future if the client goes away.
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
    async move {
        let body = state.body_limits.read(body, declared_length).await?;
        if mdn_in::is_mdn(&as2, &body) {
            return Ok(mdn_in::receive(&state, directory, as2, body).await);
        }
        let arrival = Incoming {
            message_id,
            received_at: Utc::now(),
            trace,
            request_headers,
            body,
            connection,
        };
        receive_message(&state, directory, as2, arrival).await
    }
    .instrument(span.clone())
    .await
    // Answered in the span, so that the failure's log line names the message.
    .or_else(|error| Ok(span.in_scope(|| error.into_response())))
}

/// A request that passed the header checks, with the id and time the hub gave it.
struct Incoming {
    message_id: Uuid,
    received_at: DateTime<Utc>,
    trace: TraceContext,
    request_headers: HeaderMap,
    body: Bytes,
    connection: ConnectionInfo,
}

async fn receive_message(
    state: &AppState,
    directory: Arc<Directory>,
    as2: As2Headers,
    incoming: Incoming,
) -> Result<Response, GatewayError> {
    let (as2, decision) =
        on_blocking_pool(state, &directory, as2, &incoming, edihub_inbound::decide).await?;
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
            if accepted.layers.signed {
                state
                    .slots
                    .authenticated(&as2.as2_from, &incoming.connection);
            }
            let receipt = accepted
                .async_mdn
                .clone()
                .map_or(ReceiptDelivery::InResponse, ReceiptDelivery::Async);
            let (mic, signed_sha256) = (accepted.mic.clone(), accepted.signed_sha256);
            let partner = directory.partner(&as2.as2_from);
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
                    replay_window: replay_window(state),
                    partner_endpoint: partner_endpoint(partner),
                    edifact_charset: partner.map(|p| p.edifact_charset).unwrap_or_default(),
                    retention_years: partner.and_then(|p| p.retention_years),
                    send_contrl: partner.is_some_and(|p| p.outbound.is_some()),
                },
            )?;
            let replay_until = entry.message.replay_until;
            match journal(state, &as2, entry, &receipt).await? {
                Journaled::Answered(response) => Ok(response),
                Journaled::Duplicate => {
                    let copy = Copy {
                        mic,
                        signed_sha256,
                        replay_until,
                    };
                    replay(state, directory, as2, &incoming, copy).await
                }
            }
        }
    }
}

/// How the hub may connect to `partner`'s servers.
pub(crate) fn partner_endpoint(
    partner: Option<&edihub_partners::Partnership>,
) -> edihub_mdn_delivery::PartnerEndpoint<'_> {
    match partner {
        Some(p) => edihub_mdn_delivery::PartnerEndpoint {
            allowed_networks: &p.async_mdn_allowed_networks,
            tls: &p.outbound_tls,
        },
        None => edihub_mdn_delivery::PartnerEndpoint::public(),
    }
}

/// The replay window from the settings; `None` when the check is off.
fn replay_window(state: &AppState) -> Option<chrono::Duration> {
    let hours = state.settings.gateway.replay_window_hours;
    (hours > 0).then(|| chrono::Duration::hours(hours.min(i64::MAX as u64 / 3600) as i64))
}

/// Runs `work` (the decision, or another MDN: RSA work that must not hold an async
/// worker) on the blocking pool, inside the request's span, on the request as
/// `edihub_inbound` takes it, and hands the headers back with the result.
async fn on_blocking_pool<T: Send + 'static>(
    state: &AppState,
    directory: &Arc<Directory>,
    as2: As2Headers,
    incoming: &Incoming,
    work: impl FnOnce(&Request<'_>, &Directory, &Policy) -> Result<T, DecideError> + Send + 'static,
) -> Result<(As2Headers, T), GatewayError> {
    let policy = Arc::clone(&state.policy);
    let directory = Arc::clone(directory);
    let transfer_encoding = incoming
        .request_headers
        .get("content-transfer-encoding")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = incoming.body.clone();
    let (message_id, now) = (incoming.message_id, incoming.received_at);
    let tls_client_sha256 = incoming.connection.client_certificate_sha256;
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
            tls_client_sha256,
        };
        work(&request, &directory, &policy).map(|result| (as2, result))
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
    for warning in &accepted.warnings {
        tracing::warn!(%warning, "accepted with a warning");
    }
    if accepted.unb.is_none() {
        tracing::warn!("payload has no readable UNB");
    }
}

/// What became of an accepted message at the journal.
enum Journaled {
    /// Committed (and answered), or answered as a resend of an accepted Message-ID.
    Answered(Response),
    /// Its signed content was accepted before under another Message-ID.
    Duplicate,
}

/// Commits the message, its MDN and its outbox rows, then answers with the MDN.
async fn journal(
    state: &AppState,
    as2: &As2Headers,
    entry: Accept,
    receipt: &ReceiptDelivery,
) -> Result<Journaled, GatewayError> {
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
                return Ok(Journaled::Answered(StatusCode::OK.into_response()));
            }
            Ok(Journaled::Answered(answer::mdn_response(as2, &mdn)))
        }
        // A resend, or a concurrent copy that won the race: answer with the original's
        // MDN (the one signed for this copy is dropped). Else the same signed content
        // came before under another Message-ID.
        Err(JournalError::Duplicate) => Ok(match answer::resend(state, as2, receipt).await? {
            Some(response) => Journaled::Answered(response),
            None => Journaled::Duplicate,
        }),
        Err(e) => Err(GatewayError::Journal(e)),
    }
}

/// What a replayed copy is answered from.
struct Copy {
    mic: Mic,
    signed_sha256: Option<[u8; 32]>,
    replay_until: Option<DateTime<Utc>>,
}

/// Answers a copy of signed content accepted before under another Message-ID with a
/// `duplicate-document` warning, in the response (never POSTed: the copy may not come
/// from the partner, and the partner has its MDN already).
async fn replay(
    state: &AppState,
    directory: Arc<Directory>,
    as2: As2Headers,
    incoming: &Incoming,
    copy: Copy,
) -> Result<Response, GatewayError> {
    let (Some(sha256), Some(until)) = (copy.signed_sha256, copy.replay_until) else {
        return Err(GatewayError::OriginalMdnMissing);
    };
    let original = edihub_journal::find_signed_content(
        &state.pool,
        &as2.as2_from,
        &sha256,
        incoming.received_at,
        until,
    )
    .await
    .map_err(GatewayError::Lookup)?
    .ok_or(GatewayError::OriginalMdnMissing)?;
    tracing::warn!(
        original_id = %original.id,
        original_as2_message_id = %original.as2_message_id,
        "replay: signed content accepted before under another Message-ID, not journaled again"
    );
    let original_as2_message_id = original.as2_message_id;
    let (as2, mdn) = on_blocking_pool(
        state,
        &directory,
        as2,
        incoming,
        move |request, directory, policy| {
            edihub_inbound::replay_mdn(
                request,
                directory,
                policy,
                copy.mic,
                &original_as2_message_id,
            )
        },
    )
    .await?;
    answer::replayed(state, &as2, mdn, incoming.body.len(), incoming.received_at).await
}
