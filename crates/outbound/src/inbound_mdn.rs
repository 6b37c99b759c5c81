//! Asynchronous MDNs arriving at the gateway's `POST /as2` (RFC 4130 section 7.3): which
//! requests are MDNs, whether one may be looked at, and what it means for the message
//! it answers. Pure; [`OutboundStore::receive_mdn`](crate::OutboundStore::receive_mdn)
//! is the store call that records it.
//!
//! Anyone can POST to `/as2`, so an MDN changes a message only when it is authentic as
//! the partnership asks: from a partner we send to, to one of our identities, its
//! signature verified against the partner's certificates (the costly part, done last),
//! and signed when a signed MDN was asked for. Anything else is [`Ignored`]: the
//! message keeps waiting, and the MDN timeout sends it again.

use edihub_as2::receipt::{ReceiptProblem, SentMessage, check_receipt};
use edihub_as2::{Mic, MicAlg, VerifiedMdn};
use edihub_partners::Directory;
use serde::{Deserialize, Serialize};

mod record;

pub use record::{ArrivedMdn, MdnOutcome};

/// Why an arriving MDN changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Ignored {
    #[error("AS2-From {0:?} is no partner the hub sends to")]
    NotOurPartner(String),
    #[error("AS2-To {0:?} is none of the hub's identities")]
    NotOurIdentity(String),
    #[error("not a usable MDN: {0}")]
    Unreadable(String),
    #[error("a signed MDN was asked for; an unsigned one proves nothing")]
    Unsigned,
    #[error("no message {0:?} from us to this partner awaits an MDN")]
    NotAwaited(String),
}

/// RFC 4130 section 7.3: an MDN is a `multipart/report`, or a `multipart/signed` whose
/// first part is one. Anything else POSTed to `/as2` is a message.
pub fn is_mdn(content_type: &str, body: &[u8]) -> bool {
    match media_type(content_type).as_str() {
        "multipart/report" => true,
        "multipart/signed" => first_part_type(content_type, body)
            .is_some_and(|first| media_type(&first) == "multipart/report"),
        _ => false,
    }
}

/// Reads the MDN `as2_from` sent to `as2_to`: checked against the directory first, its
/// signature verified only then. Runs RSA: call it off the async workers.
pub fn read(
    directory: &Directory,
    as2_from: &str,
    as2_to: &str,
    content_type: &str,
    body: &[u8],
) -> Result<VerifiedMdn, Ignored> {
    let partner = directory
        .partner(as2_from)
        .filter(|p| p.outbound.is_some())
        .ok_or_else(|| Ignored::NotOurPartner(as2_from.to_owned()))?;
    if directory.identity(as2_to).is_none() {
        return Err(Ignored::NotOurIdentity(as2_to.to_owned()));
    }
    edihub_as2::read_mdn(content_type, body, &partner.certificates)
        .map_err(|e| Ignored::Unreadable(e.to_string()))
}

/// What an authentic MDN does to the message it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    Delivered {
        mic: Option<Mic>,
    },
    Failed {
        reason: String,
        mic: Option<Mic>,
        class: edihub_metrics::FailureClass,
    },
}

/// Judges `mdn` as the receipt for `sent`, as a synchronous one is judged.
pub fn judge(sent: &SentMessage, mdn: &VerifiedMdn) -> Result<Judged, Ignored> {
    match check_receipt(sent, mdn) {
        Ok(receipt) => Ok(Judged::Delivered { mic: receipt.mic }),
        // A forger could fail our messages with unsigned MDNs: ignore them instead.
        Err(ReceiptProblem::Unsigned) => Err(Ignored::Unsigned),
        Err(ReceiptProblem::OtherMessage(id)) => Err(Ignored::NotAwaited(id)),
        Err(problem) => Ok(Judged::Failed {
            reason: format!("MDN: {problem}"),
            mic: mdn.report.received_content_mic.clone(),
            class: crate::verdict::failure_class(&problem),
        }),
    }
}

/// [`SentMessage`] as `outbound_message.sent_receipt` keeps it (without the MIC's
/// content, which has a column of its own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SentReceipt {
    /// `<base64>, <alg>`.
    pub expected_mic: String,
    pub signed_mdn_requested: bool,
    pub message_signed: bool,
    pub accepted_mic_algs: Vec<String>,
}

impl SentReceipt {
    pub fn of(sent: &SentMessage) -> Self {
        Self {
            expected_mic: sent.expected_mic.header_value(),
            signed_mdn_requested: sent.signed_mdn_requested,
            message_signed: sent.message_signed,
            accepted_mic_algs: sent
                .accepted_mic_algs
                .iter()
                .map(|alg| alg.as_str().to_owned())
                .collect(),
        }
    }

    /// The sent message again; `None` when the stored MIC does not read.
    pub fn sent_message(self, message_id: String, mic_content: Vec<u8>) -> Option<SentMessage> {
        Some(SentMessage {
            message_id,
            mic_content,
            expected_mic: Mic::parse(&self.expected_mic).ok()?,
            signed_mdn_requested: self.signed_mdn_requested,
            message_signed: self.message_signed,
            accepted_mic_algs: self
                .accepted_mic_algs
                .iter()
                .filter_map(|alg| MicAlg::parse(alg))
                .collect(),
        })
    }
}

fn media_type(value: &str) -> String {
    value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

fn boundary(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"'))
    })
}

/// The Content-Type of a multipart body's first part, from its first 8 KiB.
fn first_part_type(content_type: &str, body: &[u8]) -> Option<String> {
    let delimiter = format!("--{}", boundary(content_type)?);
    let head = String::from_utf8_lossy(&body[..body.len().min(8192)]);
    let start = head.find(&delimiter)? + delimiter.len();
    let part = &head[start..];
    // The rest of the delimiter line, then the part's headers up to the blank line.
    let headers = part.split_once('\n')?.1;
    headers
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-type")
                .then(|| value.trim().to_owned())
        })
}

#[cfg(test)]
mod tests;
