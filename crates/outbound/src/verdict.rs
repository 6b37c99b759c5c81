//! What one POST's answer means for the message (RFC 4130 section 7.3.1, from the
//! sending side). Pure: the answer in, the verdict out.

use edihub_as2::receipt::{ReceiptProblem, SentMessage, check_receipt};
use edihub_as2::{Certificate, Mic};
use edihub_metrics::FailureClass;
use edihub_partners::outbound::MdnRequest;

/// The partner's HTTP answer.
#[derive(Debug, Clone, Copy)]
pub struct Answer<'a> {
    pub status: u16,
    pub content_type: &'a str,
    pub body: &'a [u8],
}

/// What becomes of the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Confirmed: the MDN's MIC matched (`mic`), or 2xx when no MDN was asked for.
    Delivered { mic: Option<Mic> },
    /// Accepted; the asynchronous MDN is still to come.
    Sent,
    /// Refused or not confirmed; no retry changes that.
    Failed {
        reason: String,
        mic: Option<Mic>,
        class: FailureClass,
    },
    /// Worth another attempt (5xx, 408, 429).
    Retry { reason: String },
}

/// Judges `answer` to the message `sent`, which asked for `mdn`; a signed MDN is
/// verified against `certificates` (the partner's).
pub fn judge(
    answer: &Answer<'_>,
    mdn: &MdnRequest,
    sent: &SentMessage,
    certificates: &[Certificate],
) -> Verdict {
    let status = answer.status;
    if status >= 500 || status == 408 || status == 429 {
        return Verdict::Retry {
            reason: format!("HTTP {status}"),
        };
    }
    if !(200..300).contains(&status) {
        return Verdict::Failed {
            reason: format!("HTTP {status}: {}", excerpt(answer.body)),
            mic: None,
            class: FailureClass::Refused,
        };
    }
    match mdn {
        MdnRequest::None => Verdict::Delivered { mic: None },
        MdnRequest::Async { .. } => Verdict::Sent,
        MdnRequest::Sync { .. } => judge_mdn(answer, sent, certificates),
    }
}

fn judge_mdn(answer: &Answer<'_>, sent: &SentMessage, certificates: &[Certificate]) -> Verdict {
    let read = match edihub_as2::read_mdn(answer.content_type, answer.body, certificates) {
        Ok(read) => read,
        Err(error) => {
            let class = match error {
                edihub_as2::As2Error::Signature(_) => FailureClass::Signature,
                _ => FailureClass::Refused,
            };
            return Verdict::Failed {
                reason: format!("the answer is not a usable MDN: {error}"),
                mic: None,
                class,
            };
        }
    };
    let reported = read.report.received_content_mic.clone();
    match check_receipt(sent, &read) {
        Ok(receipt) => Verdict::Delivered { mic: receipt.mic },
        Err(problem) => Verdict::Failed {
            reason: problem_text(&problem),
            mic: reported,
            class: failure_class(&problem),
        },
    }
}

/// The metrics' class of a receipt that is not the one wanted.
pub(crate) fn failure_class(problem: &ReceiptProblem) -> FailureClass {
    match problem {
        ReceiptProblem::Refused(_) => FailureClass::MdnError,
        ReceiptProblem::MicMismatch { .. } | ReceiptProblem::MicAlgNotAccepted { .. } => {
            FailureClass::MicMismatch
        }
        ReceiptProblem::Unsigned | ReceiptProblem::NoMic => FailureClass::Signature,
        ReceiptProblem::OtherMessage(_) => FailureClass::Refused,
    }
}

fn problem_text(problem: &ReceiptProblem) -> String {
    format!("MDN: {problem}")
}

/// The start of an error body, for the reason (partners explain a 4xx there).
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]);
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    line.trim().to_owned()
}

#[cfg(test)]
mod tests;
