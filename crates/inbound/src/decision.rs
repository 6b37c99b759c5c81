//! Accept or refuse one inbound AS2 message.
//!
//! The checks run in the order that keeps expensive work behind cheap refusals: the
//! identity and the partnership the headers name, then the asynchronous MDN URL, and
//! only then the RSA work of the security layers. Whatever the outcome, the MDN is built
//! here, so the caller only journals and answers.

use crate::mdn::{Mdn, MdnContext};
use crate::receipt::{ReceiptDelivery, receipt_delivery};
use chrono::{DateTime, Utc};
use edihub_as2::{
    As2Error, As2Headers, Disposition, DispositionError, Encryption, InboundRefusal, Mic,
    SignatureEvidence,
};
use edihub_edifact::InterchangeHeader;
use edihub_partners::{Directory, HubIdentity, Partnership};
use url::Url;
use uuid::Uuid;

/// The gateway settings the decision depends on.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The hub's main AS2 id: it answers messages addressed to none of its identities.
    pub hub_as2_id: String,
    /// The most a compressed payload may inflate to.
    pub max_decompressed_bytes: usize,
}

/// One request, as read off the wire, with what the caller chose for it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub headers: &'a As2Headers,
    /// The request's `Content-Transfer-Encoding`, if any.
    pub transfer_encoding: Option<&'a str>,
    pub body: &'a [u8],
    /// The hub's id for this message (named in the MDN's text).
    pub message_id: Uuid,
    /// Seeds the MDN's Message-ID and MIME boundaries.
    pub mdn_nonce: Uuid,
    /// When the message arrived: judges certificate validity and signs the MDN.
    pub now: DateTime<Utc>,
    /// SHA-256 of the TLS client certificate the connection presented, if any.
    pub tls_client_sha256: Option<[u8; 32]>,
}

#[derive(Debug)]
pub enum Decision {
    // Boxed, both: the two differ in size, and either is large next to a pointer.
    Accept(Box<Accepted>),
    Refuse(Box<Refused>),
}

/// Which security layers the message came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layers {
    pub signed: bool,
    pub encrypted: bool,
    pub compressed: bool,
}

/// A message to journal, with the `processed` MDN to store with it.
#[derive(Debug)]
pub struct Accepted {
    /// The business document, every security layer and transfer encoding removed.
    pub payload: Vec<u8>,
    /// The `Content-Type` of the innermost entity.
    pub content_type: String,
    /// The interchange header, when the payload starts with a readable UNB. A payload
    /// without one is accepted all the same: the MDN acknowledges receipt, and the
    /// transform consumer rejects the content with the fault's position.
    pub unb: Option<InterchangeHeader>,
    pub layers: Layers,
    pub mic: Mic,
    pub mdn: Mdn,
    /// Where to POST the MDN, when the partner asked for it asynchronously.
    pub async_mdn: Option<Url>,
    /// SHA-256 of the signed entity as the partner signed it (replay detection).
    pub signed_sha256: Option<[u8; 32]>,
    /// The signed entity, its signer and digest, for the audit evidence; `None` unsigned.
    pub signature: Option<SignatureEvidence>,
    /// The content-encryption algorithm, for the audit evidence; `None` unencrypted.
    pub encryption: Option<Encryption>,
    /// Remarks on an accepted message (a weak digest or cipher), for operators.
    pub warnings: Vec<String>,
}

/// A message refused with an error MDN; nothing of it is journaled.
#[derive(Debug)]
pub struct Refused {
    pub disposition: DispositionError,
    /// For operators, and in the MDN's text.
    pub reason: String,
    pub mdn: Mdn,
    /// Where the MDN of an earlier, accepted copy would go, should this be a resend.
    pub receipt: ReceiptDelivery,
    /// The request proved it comes from the partner (its signature verified with one of
    /// the partner's certificates) before it was refused. Only such a request may be
    /// answered as a resend of an accepted message.
    pub authenticated: bool,
}

/// The hub's fault, not the partner's: no answer can be given now.
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    #[error("cannot sign the MDN: {0}")]
    SignMdn(#[source] As2Error),
}

/// Decides on one request against one snapshot of the partner directory.
pub fn decide(
    request: &Request<'_>,
    directory: &Directory,
    policy: &Policy,
) -> Result<Decision, DecideError> {
    let as2 = request.headers;
    let partner = directory.partner(&as2.as2_from);
    let receipt = receipt_delivery(as2, partner);
    let hub = directory.identity(&as2.as2_to);
    // A refusal for an AS2-To that is none of ours is answered by the main identity.
    let mdn = MdnContext {
        answering: hub.or_else(|| directory.identity(&policy.hub_as2_id)),
        main_as2_id: &policy.hub_as2_id,
        as2,
        nonce: request.mdn_nonce,
        now_unix: request.now.timestamp(),
    };
    let known = Known { hub, partner };
    match unwrap(request, known, policy, &receipt) {
        Ok((unwrapped, async_mdn)) => {
            let text = format!(
                "The message {} was received and stored by edihub as {}.",
                as2.message_id, request.message_id
            );
            let mdn = mdn
                .build(Disposition::Processed, Some(unwrapped.mic.clone()), text)
                .map_err(DecideError::SignMdn)?;
            Ok(Decision::Accept(Box::new(Accepted {
                // Under the partnership's charset policy, as the transform will read it.
                unb: InterchangeHeader::peek_with(
                    &unwrapped.payload,
                    partner.map(|p| p.edifact_charset).unwrap_or_default(),
                )
                .ok(),
                layers: Layers {
                    signed: unwrapped.signed,
                    encrypted: unwrapped.encrypted,
                    compressed: unwrapped.compressed,
                },
                payload: unwrapped.payload,
                content_type: unwrapped.content_type,
                mic: unwrapped.mic,
                mdn,
                async_mdn,
                signed_sha256: unwrapped.signed_sha256,
                signature: unwrapped.signature,
                encryption: unwrapped.encryption,
                warnings: unwrapped.warnings,
            })))
        }
        Err(InboundRefusal {
            disposition,
            reason,
            authenticated,
        }) => {
            let text = format!("The message {} was refused: {reason}.", as2.message_id);
            let mdn = mdn
                .build(Disposition::Failed(disposition), None, text)
                .map_err(DecideError::SignMdn)?;
            Ok(Decision::Refuse(Box::new(Refused {
                disposition,
                reason,
                mdn,
                receipt,
                authenticated,
            })))
        }
    }
}

/// The hub identity and the partnership the headers name, looked up once.
#[derive(Clone, Copy)]
struct Known<'a> {
    hub: Option<&'a HubIdentity>,
    partner: Option<&'a Partnership>,
}

/// The checks in order, then the security layers removed.
fn unwrap(
    request: &Request<'_>,
    known: Known<'_>,
    policy: &Policy,
    receipt: &ReceiptDelivery,
) -> Result<(edihub_as2::Unwrapped, Option<Url>), InboundRefusal> {
    let as2 = request.headers;
    let refuse = |disposition, reason: String| InboundRefusal {
        disposition,
        reason,
        authenticated: false,
    };
    let Some(hub) = known.hub else {
        let reason = format!("AS2-To {:?} is not this hub", as2.as2_to);
        return Err(refuse(DispositionError::AuthenticationFailed, reason));
    };
    let Some(partner) = known.partner else {
        let reason = format!("AS2-From {:?} is not a configured partner", as2.as2_from);
        return Err(refuse(DispositionError::AuthenticationFailed, reason));
    };
    if !tls_client_matches(partner, request.tls_client_sha256) {
        let reason = format!(
            "the partnership of AS2-From {:?} requires one of its TLS client certificates, and the connection presented {}",
            as2.as2_from,
            if request.tls_client_sha256.is_some() {
                "another"
            } else {
                "none"
            }
        );
        return Err(refuse(DispositionError::AuthenticationFailed, reason));
    }
    let async_mdn = match receipt {
        ReceiptDelivery::InResponse => None,
        ReceiptDelivery::Async(url) => Some(url.clone()),
        ReceiptDelivery::Disallowed(refused) => {
            let reason = refused.to_string();
            return Err(refuse(DispositionError::UnexpectedProcessingError, reason));
        }
    };
    let unwrapped = edihub_as2::unwrap_inbound(
        as2,
        request.transfer_encoding,
        request.body,
        hub.keys.as_ref(),
        &partner.security(request.now.timestamp()),
        edihub_as2::UnwrapLimits {
            max_decompressed_bytes: policy.max_decompressed_bytes,
            ..Default::default()
        },
    )?;
    Ok((unwrapped, async_mdn))
}

/// Whether the connection's TLS client certificate is one the partnership pins (always
/// true for a partnership that pins none).
pub fn tls_client_matches(partner: &Partnership, presented: Option<[u8; 32]>) -> bool {
    partner.tls_client_fingerprints.is_empty()
        || presented.is_some_and(|sha256| partner.tls_client_fingerprints.contains(&sha256))
}
