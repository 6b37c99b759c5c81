//! What an `OutboundRequested` event asks for, decided on its bytes and the partner
//! directory alone: a [`Plan`] to queue, or the [`Rejection`] its sender must fix.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use edihub_events::{ClaimCheck, OutboundRequested};
use edihub_partners::Directory;
use sha2::{Digest as _, Sha256};

/// The content type of a request that names none.
pub(crate) const DEFAULT_CONTENT_TYPE: &str = "application/EDIFACT";

/// What the hub accepts of requests.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules<'a> {
    pub directory: &'a Directory,
    /// `gateway.hub_as2_id`: who sends when neither the request nor the partnership
    /// names an identity.
    pub main_hub: &'a str,
    /// The only bucket claim checks may point into; `None`: claim checks are refused.
    pub claim_check_bucket: Option<&'a str>,
    pub max_document_bytes: u64,
}

/// A request the hub will queue, but for its document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    pub partner: String,
    pub hub_as2_id: String,
    pub content_type: String,
    pub filename: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Document {
    Inline(Vec<u8>),
    /// To be read from the claim-check bucket, then checked with [`check_claimed`].
    Claimed {
        key: String,
        sha256: String,
        size: u64,
    },
}

/// Why a request will never be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rejection {
    /// The partner the request named, when it could be read.
    pub partner: Option<String>,
    pub reason: String,
}

impl Rejection {
    fn of(request: &OutboundRequested, reason: impl Into<String>) -> Self {
        Rejection {
            partner: Some(request.partner.clone()),
            reason: reason.into(),
        }
    }
}

/// Reads and checks the request in `data`: what to queue, and where its document is.
pub(crate) fn plan(data: &[u8], rules: &Rules<'_>) -> Result<(Plan, Document), Rejection> {
    let request: OutboundRequested = serde_json::from_slice(data).map_err(|error| Rejection {
        partner: None,
        reason: format!("the request is not an OutboundRequested payload: {error}"),
    })?;
    let hub_as2_id = sender(&request, rules)?;
    let content_type = request
        .content_type
        .clone()
        .unwrap_or_else(|| DEFAULT_CONTENT_TYPE.to_owned());
    if !is_content_type(&content_type) {
        return Err(Rejection::of(
            &request,
            format!(
                "content_type {content_type:?} is not a MIME type (type/subtype, printable ASCII)"
            ),
        ));
    }
    if let Some(filename) = &request.filename
        && !is_filename(filename)
    {
        return Err(Rejection::of(
            &request,
            format!(
                "filename {filename:?} has a path separator, a control character or over 255 characters"
            ),
        ));
    }
    let document = document(&request, rules)?;
    let plan = Plan {
        partner: request.partner,
        hub_as2_id,
        content_type,
        filename: request.filename,
    };
    Ok((plan, document))
}

/// The hub identity that sends: the request's, else the partnership's, else the main
/// one; the partnership must have outbound settings and the identity must be the hub's.
fn sender(request: &OutboundRequested, rules: &Rules<'_>) -> Result<String, Rejection> {
    let Some(partnership) = rules.directory.partner(&request.partner) else {
        return Err(Rejection::of(
            request,
            format!("no partnership {}", request.partner),
        ));
    };
    let Some(outbound) = &partnership.outbound else {
        return Err(Rejection::of(
            request,
            format!("partnership {} has no outbound settings", request.partner),
        ));
    };
    let hub = request
        .hub_as2_id
        .as_deref()
        .unwrap_or_else(|| outbound.sending_identity(rules.main_hub));
    if rules.directory.identity(hub).is_none() {
        return Err(Rejection::of(
            request,
            format!("{hub} is not one of the hub's AS2 identities"),
        ));
    }
    Ok(hub.to_owned())
}

fn document(request: &OutboundRequested, rules: &Rules<'_>) -> Result<Document, Rejection> {
    match (&request.document_base64, &request.claim_check) {
        (Some(_), Some(_)) => Err(Rejection::of(
            request,
            "the request has both document_base64 and claim_check: send one",
        )),
        (None, None) => Err(Rejection::of(
            request,
            "the request has no document: give document_base64 or claim_check",
        )),
        (Some(text), None) => {
            let bytes = BASE64.decode(text).map_err(|error| {
                Rejection::of(request, format!("document_base64 is not base64: {error}"))
            })?;
            within_limit(request, bytes.len() as u64, rules)?;
            Ok(Document::Inline(bytes))
        }
        (None, Some(claim)) => claimed(request, claim, rules),
    }
}

fn claimed(
    request: &OutboundRequested,
    claim: &ClaimCheck,
    rules: &Rules<'_>,
) -> Result<Document, Rejection> {
    let Some(bucket) = rules.claim_check_bucket else {
        return Err(Rejection::of(
            request,
            "this hub takes no claim checks ([outbound] claim_check_bucket is not set)",
        ));
    };
    let key = claim
        .reference
        .strip_prefix("s3://")
        .and_then(|rest| rest.strip_prefix(bucket))
        .and_then(|rest| rest.strip_prefix('/'))
        .filter(|key| !key.is_empty());
    let Some(key) = key else {
        return Err(Rejection::of(
            request,
            format!(
                "claim_check.reference {:?} is not s3://{bucket}/KEY",
                claim.reference
            ),
        ));
    };
    let sha256 = claim.sha256.to_ascii_lowercase();
    if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Rejection::of(
            request,
            "claim_check.sha256 is not 64 hex digits",
        ));
    }
    within_limit(request, claim.size, rules)?;
    Ok(Document::Claimed {
        key: key.to_owned(),
        sha256,
        size: claim.size,
    })
}

fn within_limit(
    request: &OutboundRequested,
    size: u64,
    rules: &Rules<'_>,
) -> Result<(), Rejection> {
    match size > rules.max_document_bytes {
        true => Err(Rejection::of(
            request,
            format!(
                "the document has {size} bytes, over the limit of {} ([outbound] max_document_bytes)",
                rules.max_document_bytes
            ),
        )),
        false => Ok(()),
    }
}

/// The object read for a claim check, if it is the one the request described.
pub(crate) fn check_claimed(bytes: &[u8], sha256: &str, size: u64) -> Result<(), String> {
    if bytes.len() as u64 != size {
        return Err(format!(
            "the claim-checked object has {} bytes, the request said {size}",
            bytes.len()
        ));
    }
    let actual = hex::encode(Sha256::digest(bytes));
    match actual == sha256 {
        true => Ok(()),
        false => Err(format!(
            "the claim-checked object's SHA-256 is {actual}, the request said {sha256}"
        )),
    }
}

/// `type/subtype[; parameters]` in printable ASCII: it becomes a MIME header.
fn is_content_type(text: &str) -> bool {
    let essence = text.split(';').next().unwrap_or("");
    let mut halves = essence.trim().splitn(2, '/');
    let token = |part: Option<&str>| {
        part.is_some_and(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&b))
        })
    };
    text.len() <= 255
        && text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && token(halves.next())
        && token(halves.next())
}

fn is_filename(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 255
        && !text
            .chars()
            .any(|c| c.is_control() || c == '/' || c == '\\')
}

#[cfg(test)]
mod tests;
