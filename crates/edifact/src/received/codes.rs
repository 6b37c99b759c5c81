//! The code lists an acknowledgement is read with.
//!
//! - 0083 (action): 4, 7 and 8 of the current ISO 9735 list, plus 1, 2, 3, 5 and 6,
//!   withdrawn in 2001 but still written by old translators. The codes the hub writes
//!   itself are compared through [`crate::contrl::Action::code`], not repeated here.
//! - 0085 (syntax error): the name of each code. For the codes the hub writes
//!   ([`SyntaxError`]) the name is found through that type, so the two lists cannot
//!   disagree on a code; the others (which the hub never writes but partners may) are
//!   listed here, including the ones withdrawn from syntax 3.
//! - APERAK BGM 1225 (message function) and 4343 (response type): which say accepted
//!   and which rejected.

use super::Action;
use crate::contrl::{self, SyntaxError};

/// The action 0083 `code` stands for, or `None` for a code not in the list.
pub(super) fn action(code: &str) -> Option<Action> {
    if code == contrl::Action::Accepted.code() {
        return Some(Action::Accepted);
    }
    if code == contrl::Action::Rejected.code() {
        return Some(Action::Rejected);
    }
    match code {
        "8" | "5" => Some(Action::Received),
        "1" => Some(Action::Accepted),
        "2" | "3" => Some(Action::PartiallyAccepted),
        "6" => Some(Action::Rejected),
        _ => None,
    }
}

/// What 0085 `code` means, or `None` for a code not in the list.
pub(super) fn syntax_error_meaning(code: &str) -> Option<&'static str> {
    if let Some(known) = HUB_CODES.into_iter().find(|e| e.code() == code) {
        return Some(hub_meaning(known));
    }
    let meaning = match code {
        // Withdrawn from the list with syntax 3, still found in old CONTRLs.
        "1" => "UNA not supported",
        "3" => "message version/release not supported",
        "4" => "service segment missing/invalid",
        "5" => "trailer check in error",
        "6" => "data segment missing/invalid",
        "8" => "too many data elements in segment",
        "9" => "mandatory data element missing",
        "10" => "data element attribute error",
        "11" => "password invalid",
        // Current codes the hub does not write.
        "7" => "interchange recipient not actual recipient",
        "14" => "value not supported in this position",
        "15" => "not supported in this position",
        "16" => "too many constituents",
        "22" => "invalid service character(s)",
        "23" => "unknown interchange sender",
        "24" => "too old",
        "25" => "test indicator not supported",
        "27" => "security function not supported",
        "31" => "more than one message type in group",
        "34" => "nesting indicator not allowed",
        "35" => "too many segment repetitions",
        "36" => "too many segment group repetitions",
        "38" => "missing digit in front of decimal sign",
        "39" => "data element too long",
        "40" => "data element too short",
        "41" => "permanent communication network error",
        "42" => "temporary communication network error",
        "43" => "unknown interchange recipient",
        "45" => "trailing separator",
        "46" => "character set not supported",
        "47" => "envelope functionality not supported",
        "48" => "dependency notes condition violated",
        _ => return None,
    };
    Some(meaning)
}

/// Every [`SyntaxError`]; `hub_meaning` is exhaustive, so a code added there without a
/// name does not compile, and the unit tests check this list against it.
const HUB_CODES: [SyntaxError; 15] = [
    SyntaxError::SyntaxVersionNotSupported,
    SyntaxError::InvalidValue,
    SyntaxError::Missing,
    SyntaxError::NoAgreement,
    SyntaxError::Unspecified,
    SyntaxError::InvalidDecimalNotation,
    SyntaxError::InvalidAsServiceCharacter,
    SyntaxError::InvalidCharacters,
    SyntaxError::DuplicateDetected,
    SyntaxError::ReferencesDoNotMatch,
    SyntaxError::ControlCountMismatch,
    SyntaxError::GroupsAndMessagesMixed,
    SyntaxError::LowerLevelEmpty,
    SyntaxError::InvalidOccurrenceOutsideMessage,
    SyntaxError::InvalidTypeOfCharacters,
];

/// The ISO 9735 name of a code the hub writes.
fn hub_meaning(error: SyntaxError) -> &'static str {
    use SyntaxError as E;
    match error {
        E::SyntaxVersionNotSupported => "syntax version or level not supported",
        E::InvalidValue => "invalid value",
        E::Missing => "missing",
        E::NoAgreement => "no agreement",
        E::Unspecified => "unspecified error",
        E::InvalidDecimalNotation => "invalid decimal notation",
        E::InvalidAsServiceCharacter => "character invalid as service character",
        E::InvalidCharacters => "invalid character(s)",
        E::DuplicateDetected => "duplicate detected",
        E::ReferencesDoNotMatch => "references do not match",
        E::ControlCountMismatch => "control count does not match number of instances received",
        E::GroupsAndMessagesMixed => "groups and messages/packages mixed",
        E::LowerLevelEmpty => "lower level empty",
        E::InvalidOccurrenceOutsideMessage => {
            "invalid occurrence outside message, package or group"
        }
        E::InvalidTypeOfCharacters => "invalid type of character(s)",
    }
}

/// What an APERAK's BGM 1225 (message function) says, where it says it: `None` for the
/// functions that are no verdict (9 original, 31 copy, ...), which leave it to
/// [`response_type`] or to the errors.
pub(super) fn message_function(code: &str) -> Option<Action> {
    match code {
        // Not accepted; not processed; accepted, contents rejected.
        "27" | "12" | "48" => Some(Action::Rejected),
        // Confirmation (EANCOM's positive APERAK); accepted without amendment; without
        // reserves; with amendment (in heading, detail or anywhere); with reserves.
        // Amended or not, the message was taken.
        "6" | "29" | "44" | "28" | "30" | "34" | "45" => Some(Action::Accepted),
        _ => None,
    }
}

/// What an APERAK's BGM 4343 (response type) says, where it says it.
pub(super) fn response_type(code: &str) -> Option<Action> {
    match code {
        // Accepted; conditionally accepted; confirmed.
        "AP" | "CA" | "CO" => Some(Action::Accepted),
        "RE" => Some(Action::Rejected),
        _ => None,
    }
}
