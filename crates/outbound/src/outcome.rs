//! What one attempt comes to for the message: its next state and what is recorded.

use crate::post::PostError;
use crate::store::Attempt;
use crate::verdict::Verdict;
use edihub_events::OutboundState;
use edihub_metrics::FailureClass;

/// A POST's result: no answer, or the verdict on the answer (and the answer, kept as
/// the MDN).
#[derive(Debug)]
pub(crate) enum Posted {
    NoAnswer(PostError),
    Answered {
        verdict: Verdict,
        mdn: (String, Vec<u8>),
    },
}

/// The state after attempt number `attempt_no` (`last`: no more attempts are allowed),
/// and the attempt to record. A retry stays `queued`, or is `failed` on the last.
pub(crate) fn settle(
    posted: Posted,
    last: bool,
    attempt_no: i32,
    mic_expected: Option<String>,
) -> (OutboundState, Attempt) {
    let gave_up = |reason: String| format!("{reason}; gave up after {attempt_no} attempts");
    let mut attempt = Attempt {
        mic_expected,
        ..Attempt::default()
    };
    let to = match posted {
        Posted::NoAnswer(error) if error.is_permanent() => {
            attempt.error = Some(error.to_string());
            attempt.failure = Some(FailureClass::Refused);
            OutboundState::Failed
        }
        Posted::NoAnswer(error) if last => {
            attempt.error = Some(gave_up(error.to_string()));
            attempt.failure = Some(FailureClass::AttemptsExhausted);
            OutboundState::Failed
        }
        Posted::NoAnswer(error) => {
            attempt.error = Some(error.to_string());
            OutboundState::Queued
        }
        Posted::Answered { verdict, mdn } => match verdict {
            Verdict::Delivered { mic } => {
                attempt.mic_reported = mic.map(|m| m.header_value());
                attempt.mdn = Some(mdn);
                OutboundState::Delivered
            }
            Verdict::Sent => OutboundState::Sent,
            Verdict::Failed { reason, mic, class } => {
                attempt.error = Some(reason);
                attempt.failure = Some(class);
                attempt.mic_reported = mic.map(|m| m.header_value());
                attempt.mdn = Some(mdn);
                OutboundState::Failed
            }
            Verdict::Retry { reason } if last => {
                attempt.error = Some(gave_up(reason));
                attempt.failure = Some(FailureClass::AttemptsExhausted);
                OutboundState::Failed
            }
            Verdict::Retry { reason } => {
                attempt.error = Some(reason);
                OutboundState::Queued
            }
        },
    };
    (to, attempt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use edihub_as2::{Mic, MicAlg};

    fn answered(verdict: Verdict) -> Posted {
        Posted::Answered {
            verdict,
            mdn: ("multipart/report".into(), b"mdn".to_vec()),
        }
    }

    fn refused() -> PostError {
        PostError::BadUrl {
            url: "nope".into(),
            source: url::ParseError::RelativeUrlWithoutBase,
        }
    }

    #[test]
    fn a_retry_stays_queued_until_the_last_attempt_fails_it() {
        let retry = || {
            answered(Verdict::Retry {
                reason: "HTTP 503".into(),
            })
        };
        let (to, attempt) = settle(retry(), false, 1, None);
        assert_eq!(to, OutboundState::Queued);
        assert_eq!(attempt.error.as_deref(), Some("HTTP 503"));
        assert_eq!(attempt.mdn, None);
        assert_eq!(attempt.failure, None, "not failed yet");
        let (to, attempt) = settle(retry(), true, 5, None);
        assert_eq!(to, OutboundState::Failed);
        assert_eq!(
            attempt.error.as_deref(),
            Some("HTTP 503; gave up after 5 attempts")
        );
        assert_eq!(attempt.failure, Some(FailureClass::AttemptsExhausted));
    }

    /// A committed `failed` change is counted under its class, nothing else is.
    #[test]
    fn a_failed_change_is_counted_under_its_class() {
        use crate::store::Change;
        let counted = |class: FailureClass| {
            edihub_metrics::outbound::OUTBOUND_FAILURES
                .with_label_values(&[class.as_str()])
                .get()
        };
        let before = counted(FailureClass::AttemptsExhausted);
        let (to, attempt) = settle(
            answered(Verdict::Retry {
                reason: "HTTP 503".into(),
            }),
            true,
            3,
            None,
        );
        Change::attempted(to, attempt).count_failure();
        assert_eq!(counted(FailureClass::AttemptsExhausted), before + 1);
        let (to, attempt) = settle(answered(Verdict::Delivered { mic: None }), false, 1, None);
        Change::attempted(to, attempt).count_failure();
        assert_eq!(counted(FailureClass::AttemptsExhausted), before + 1);
    }

    #[test]
    fn a_post_the_hub_must_not_make_fails_at_once() {
        let (to, attempt) = settle(Posted::NoAnswer(refused()), false, 1, None);
        assert_eq!(to, OutboundState::Failed);
        assert_eq!(attempt.failure, Some(FailureClass::Refused));
        assert!(attempt.error.unwrap_or_default().contains("not attempted"));
    }

    #[test]
    fn a_verdict_keeps_its_mdn_and_mic() {
        let mic = Mic::compute(MicAlg::Sha256, b"x");
        let delivered = answered(Verdict::Delivered {
            mic: Some(mic.clone()),
        });
        let (to, attempt) = settle(delivered, false, 1, Some(mic.header_value()));
        assert_eq!(to, OutboundState::Delivered);
        assert_eq!(attempt.mic_reported, Some(mic.header_value()));
        assert_eq!(attempt.mic_expected, Some(mic.header_value()));
        assert!(attempt.mdn.is_some() && attempt.error.is_none());
        let (to, attempt) = settle(answered(Verdict::Sent), false, 1, None);
        assert_eq!((to, attempt.mdn), (OutboundState::Sent, None));
    }
}
