//! Whether an MDN is the receipt a sender wanted for the message it sent (RFC 4130
//! section 7.3.1): the sending side's check, for `edihub send` and outbound delivery.
//!
//! The MIC is compared with the algorithm the MDN names when it is one the sender
//! accepts: peers (pyas2lib among them) compute it with the signature's digest even when
//! another micalg was asked for. The MIC may be missing only where it proves nothing: from
//! an unsigned MDN when no signed one was asked for, or for a message we did not sign
//! (pyas2lib computes no MIC for those, and without our signature the MIC binds nothing).
//! For a signed message, a signed receipt must carry it: it is the sender's proof of
//! what was received.

use crate::mdn::{Disposition, DispositionWarning};
use crate::mic::{Mic, MicAlg};
use crate::smime::VerifiedMdn;

/// What the sender knows of the message it sent ([`crate::SecureMessage::sent_message`]
/// builds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentMessage {
    /// The Message-ID sent, without angle brackets.
    pub message_id: String,
    /// The bytes the receiver's MIC covers (see `mic_content` of the built message).
    pub mic_content: Vec<u8>,
    /// The MIC the sender expects with the algorithm it asked for.
    pub expected_mic: Mic,
    /// A signed MDN was asked for.
    pub signed_mdn_requested: bool,
    /// We signed the message.
    pub message_signed: bool,
    /// Digests the sender accepts a MIC in, besides `expected_mic`'s.
    pub accepted_mic_algs: Vec<MicAlg>,
}

/// An MDN that is the receipt wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// The MIC the partner reported, which matched; `None` only where a MIC proves
    /// nothing (see the module docs).
    pub mic: Option<Mic>,
    /// `processed/warning`: the partner took the message, with this remark.
    pub warning: Option<DispositionWarning>,
}

/// Why an MDN is not the receipt wanted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiptProblem {
    #[error("a signed MDN was asked for but the MDN is not signed")]
    Unsigned,
    #[error("the MDN answers another message ({0})")]
    OtherMessage(String),
    #[error("the partner refused the message: {0}")]
    Refused(String),
    #[error("MIC mismatch: the partner computed {reported}, we computed {expected}")]
    MicMismatch { reported: String, expected: String },
    #[error(
        "MIC mismatch: the partner computed its MIC with {reported}, which we do not accept (we accept {accepted})"
    )]
    MicAlgNotAccepted { reported: String, accepted: String },
    #[error("the MDN carries no Received-Content-MIC")]
    NoMic,
}

/// Checks `mdn` against `sent`, in the order a sender cares: signed as asked, for this
/// message, not refused, then the MIC.
pub fn check_receipt(sent: &SentMessage, mdn: &VerifiedMdn) -> Result<Receipt, ReceiptProblem> {
    if sent.signed_mdn_requested && !mdn.signed {
        return Err(ReceiptProblem::Unsigned);
    }
    let report = &mdn.report;
    if report.original_message_id != sent.message_id {
        return Err(ReceiptProblem::OtherMessage(
            report.original_message_id.clone(),
        ));
    }
    let warning = match &report.disposition {
        Disposition::Processed => None,
        Disposition::Warning(warning) => Some(warning.clone()),
        Disposition::Failed(error) => {
            return Err(ReceiptProblem::Refused(error.as_str().to_owned()));
        }
    };
    let mic = match &report.received_content_mic {
        Some(mic) => Some(check_mic(sent, mic)?),
        None if !sent.message_signed || (!mdn.signed && !sent.signed_mdn_requested) => None,
        None => return Err(ReceiptProblem::NoMic),
    };
    Ok(Receipt { mic, warning })
}

/// The reported MIC when it is, in an accepted algorithm, the digest of what we sent.
fn check_mic(sent: &SentMessage, reported: &Mic) -> Result<Mic, ReceiptProblem> {
    let expected = if reported.alg == sent.expected_mic.alg {
        sent.expected_mic.clone()
    } else if sent.accepted_mic_algs.contains(&reported.alg) {
        Mic::compute(reported.alg, &sent.mic_content)
    } else {
        return Err(ReceiptProblem::MicAlgNotAccepted {
            reported: reported.alg.as_str().to_owned(),
            accepted: accepted_names(sent),
        });
    };
    if *reported != expected {
        return Err(ReceiptProblem::MicMismatch {
            reported: reported.header_value(),
            expected: expected.header_value(),
        });
    }
    Ok(expected)
}

/// `expected_mic`'s algorithm and the other accepted ones, for the error message.
fn accepted_names(sent: &SentMessage) -> String {
    let mut names = vec![sent.expected_mic.alg.as_str()];
    for alg in &sent.accepted_mic_algs {
        if !names.contains(&alg.as_str()) {
            names.push(alg.as_str());
        }
    }
    names.join(", ")
}
