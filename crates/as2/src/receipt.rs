//! Whether an MDN is the receipt a sender wanted for the message it sent (RFC 4130
//! section 7.3.1): the sending side's check, for `edihub send` and outbound delivery.
//!
//! The MIC is compared with the algorithm the MDN names when it is one the sender
//! accepts: peers (pyas2lib among them) compute it with the signature's digest even when
//! another micalg was asked for. An unsigned MDN may carry no MIC.

use crate::mdn::Disposition;
use crate::mic::{Mic, MicAlg};
use crate::smime::VerifiedMdn;

/// What the sender knows of the message it sent.
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
    /// Digests the sender accepts a MIC in.
    pub accepted_mic_algs: Vec<MicAlg>,
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
    #[error("the MDN carries no Received-Content-MIC")]
    NoMic,
}

/// Checks `mdn` against `sent`; the MIC the partner reported when it matched.
pub fn check_receipt(sent: &SentMessage, mdn: &VerifiedMdn) -> Result<Option<Mic>, ReceiptProblem> {
    if sent.signed_mdn_requested && !mdn.signed {
        return Err(ReceiptProblem::Unsigned);
    }
    let report = &mdn.report;
    if report.original_message_id != sent.message_id {
        return Err(ReceiptProblem::OtherMessage(report.original_message_id.clone()));
    }
    if let Disposition::Failed(error) = report.disposition {
        return Err(ReceiptProblem::Refused(error.as_str().to_owned()));
    }
    match &report.received_content_mic {
        Some(mic) if *mic == sent.expected_mic => Ok(Some(mic.clone())),
        Some(mic) => Err(ReceiptProblem::MicMismatch {
            reported: mic.header_value(),
            expected: sent.expected_mic.header_value(),
        }),
        None => Err(ReceiptProblem::NoMic),
    }
}
