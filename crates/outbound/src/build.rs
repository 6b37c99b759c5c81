//! One outbound message as its partnership's outbound settings say: compressed, signed
//! with the hub identity's key, encrypted to the partner's first certificate, asking for
//! the MDN the partnership wants. Pure: the boundary and the time come from the caller.

use edihub_as2::receipt::SentMessage;
use edihub_as2::{Certificate, Identity, OutgoingMessage, PlainMessageSpec, SecureMessageSpec};
use edihub_partners::outbound::{MdnRequest, OutboundPartnership};
use uuid::Uuid;

/// Why a message cannot be built; no retry cures it (the partnership must change).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("the partnership signs, but hub identity {0} has no private key")]
    NoSigningKey(String),
    #[error("the partnership encrypts, but the partner has no certificate")]
    NoPartnerCertificate,
    #[error("cannot build the AS2 message: {0}")]
    As2(#[from] edihub_as2::As2Error),
}

/// A built message and what judging its MDN needs.
#[derive(Debug, Clone)]
pub struct Built {
    pub message: OutgoingMessage,
    pub sent: SentMessage,
}

/// What the message is.
#[derive(Debug, Clone, Copy)]
pub struct Parts<'a> {
    pub hub_as2_id: &'a str,
    pub partner: &'a str,
    pub message_id: &'a str,
    pub subject: &'a str,
    pub content_type: &'a str,
    pub payload: &'a [u8],
}

/// Builds `parts` for `outbound`; `keys` is the sending identity's, `certificates` the
/// partner's.
pub fn build_message(
    parts: &Parts<'_>,
    outbound: &OutboundPartnership,
    keys: Option<&Identity>,
    certificates: &[Certificate],
    boundary: &str,
    now_unix: i64,
) -> Result<Built, BuildError> {
    let sign = match outbound.sign {
        Some(alg) => Some((
            keys.ok_or_else(|| BuildError::NoSigningKey(parts.hub_as2_id.to_owned()))?,
            alg,
        )),
        None => None,
    };
    let encrypt = match outbound.encrypt {
        Some(cipher) => Some((
            certificates
                .first()
                .ok_or(BuildError::NoPartnerCertificate)?,
            cipher,
        )),
        None => None,
    };
    let (request_mdn_to, request_signed_mdn) = match &outbound.mdn {
        MdnRequest::None => (None, None),
        MdnRequest::Sync { signed } => (Some(parts.hub_as2_id), *signed),
        MdnRequest::Async { signed, return_url } => (Some(return_url.as_str()), *signed),
    };
    let secure = edihub_as2::build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            as2_from: parts.hub_as2_id,
            as2_to: parts.partner,
            message_id: parts.message_id,
            subject: parts.subject,
            content_type: parts.content_type,
            payload: parts.payload,
            request_mdn_to,
            request_signed_mdn,
        },
        compress: outbound.compress,
        sign,
        encrypt,
        boundary,
        now_unix,
    })?;
    let sent = secure.sent_message();
    let mut message = secure.message;
    if let MdnRequest::Async { return_url, .. } = &outbound.mdn {
        message
            .headers
            .push(("Receipt-Delivery-Option".into(), return_url.clone()));
    }
    Ok(Built { message, sent })
}

/// Our Message-ID for outbound message `id` (without angle brackets): unique, and
/// naming the sending identity with only the characters a Message-ID's right-hand side
/// may carry.
pub fn message_id(id: Uuid, hub_as2_id: &str) -> String {
    let host: String = hub_as2_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let host = if host.is_empty() {
        "edihub".into()
    } else {
        host
    };
    format!("{}@{host}", id.simple())
}

#[cfg(test)]
mod tests;
