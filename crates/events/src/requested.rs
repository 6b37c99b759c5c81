//! `OutboundRequested`: a downstream system asks the hub to send a document to a
//! partner; `OutboundRequestRejected`: the hub's answer when it cannot.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::ClaimCheck;

/// Payload of `OutboundRequested`, published by downstream systems on
/// `edi.outbound.requested` as a CloudEvent (binary mode: `ce_id`, `ce_type`,
/// `ce_source` headers, this JSON as the value).
///
/// The document comes inline (`document_base64`) or as a claim check on the hub's
/// claim-check bucket (`claim_check`), never both. `ce_id` names the request: the hub
/// queues one outbound message per `ce_id`, however often the record is delivered, and
/// every `OutboundStatusChanged` of that message carries it as `request_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutboundRequested {
    /// AS2-To: a partnership with outbound settings.
    pub partner: String,
    /// AS2-From; absent: the partnership's sending identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hub_as2_id: Option<String>,
    /// The document's MIME type; absent: `application/EDIFACT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// The file name the partner sees (Content-Disposition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// The document itself, base64 (RFC 4648, with padding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_base64: Option<String>,
    /// Or where it is: `s3://BUCKET/KEY` on the hub's claim-check bucket, with the
    /// SHA-256 and size of the object, which the hub checks before it queues anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_check: Option<ClaimCheck>,
}

/// Payload of `OutboundRequestRejected` on `edi.outbound.status`: an
/// `OutboundRequested` the hub will never send, and why. Published in the transaction
/// that records the request as handled, under the request's `ce_id` as aggregate (the
/// Kafka key). A request that could not be handled for a passing reason (S3 or the
/// database down) is retried instead, and gets no such event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OutboundRequestRejected {
    /// `ce_id` of the request.
    pub request_id: Uuid,
    /// `ce_source` of the request: who asked.
    pub request_source: String,
    /// The partner the request named, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partner: Option<String>,
    /// What is wrong, precisely enough to fix it (for JSON, the line and column).
    pub reason: String,
    pub rejected_at: DateTime<Utc>,
}
