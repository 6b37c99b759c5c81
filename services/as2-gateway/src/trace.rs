//! The W3C trace context of a request's span, and what the outbox row carries on.

use axum::http::HeaderMap;
use edihub_events::headers;
use edihub_events::trace::TraceParent;
use uuid::Uuid;

/// Our span's `traceparent`, and the partner's `tracestate` to carry along with it.
pub(crate) struct TraceContext {
    pub parent: TraceParent,
    pub state: Option<String>,
}

/// The trace context of our span for this request: a child of the request's
/// `traceparent` when it carries exactly one valid value, else a new trace (W3C Trace
/// Context). A new trace takes the message id as its trace-id, so an operator can go
/// from one to the other.
pub(crate) fn trace_context(request_headers: &HeaderMap, message_id: Uuid) -> TraceContext {
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

#[cfg(test)]
mod tests;
