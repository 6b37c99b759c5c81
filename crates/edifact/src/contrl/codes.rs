//! The ISO 9735 code tables a CONTRL uses: the action codes (0083) and the syntax error
//! codes (0085), with the mapping from a checked fault to its 0085 code.
//!
//! # Syntax error codes (0085)
//!
//! | fault | code | meaning (ISO 9735 service code list) |
//! |---|---|---|
//! | `InvalidUna` (decimal mark) | 19 | invalid decimal notation |
//! | `InvalidUna` (fewer than six characters) | 13 | missing |
//! | `InvalidUna` (other) | 20 | character invalid as service character |
//! | `UnsupportedSyntaxIdentifier` | 2 | syntax version or level not supported |
//! | `MissingUnb`, `MissingElement`, `Truncated` | 13 | missing |
//! | `UnbalancedEnvelope` (message not closed by UNT) | 13 | missing |
//! | `UnbalancedEnvelope` (data segment outside a message) | 33 | invalid occurrence outside message, package or group |
//! | `UnbalancedEnvelope` (groups mixed with messages) | 30 | groups and messages/packages mixed |
//! | `UnbalancedEnvelope` (other) | 18 | unspecified error |
//! | `SegmentCountMismatch`, `MessageCountMismatch` | 29 | control count does not match number of instances received |
//! | `ReferenceMismatch` | 28 | references do not match |
//! | `DuplicateMessageReference` | 26 | duplicate detected |
//! | `InvalidControlCount` | 37 | invalid type of character(s) |
//! | `InvalidCharacter`, `InvalidUtf8` | 21 | invalid character(s) |
//! | `InvalidTag` | 12 | invalid value |
//! | `EmptySegment`, `InvalidPackage`, `TrailingData` | 18 | unspecified error |
//! | mapping: `MissingSegment`, `MissingDocumentNumber`, `MissingDocumentType` | 13 | missing |
//! | mapping: `InvalidDate`, `InvalidAmount` | 12 | invalid value |
//! | mapping: `NotAnInvoice` | 17 | no agreement |
//! | acknowledgement (CONTRL, APERAK) unreadable: segment or value missing | 13 | missing |
//! | acknowledgement unreadable: other | 12 | invalid value |
//! | no message in the interchange | 32 | lower level empty |
//! | anything else | 18 | unspecified error |
//!
//! Codes for checks the hub does not make (23 unknown interchange sender, 25 test
//! indicator not supported, 35 and 36 too many repetitions, 39 and 40 length) are not
//! produced. A message of a type the hub does not map is no fault (acceptance is about
//! syntax, [`crate::check`]), so "no agreement" is left for an INVOIC that is no invoice.

use crate::ParseErrorKind;
use crate::check::Cause;
use crate::invoic::MappingErrorKind;
use crate::received::ReadErrorKind;

/// UCI 0083: what the CONTRL says about the subject interchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// 7: this level acknowledged, lower levels acknowledged if not explicitly rejected.
    Accepted,
    /// 4: this level and all lower levels rejected.
    Rejected,
}

impl Action {
    /// The 0083 code.
    pub fn code(self) -> &'static str {
        match self {
            Self::Accepted => "7",
            Self::Rejected => "4",
        }
    }

    /// `accepted` or `rejected`, as events carry it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accepted => "accepted",
            Self::Rejected => "rejected",
        }
    }
}

/// ISO 9735 syntax error codes (data element 0085) the hub reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxError {
    /// 2
    SyntaxVersionNotSupported,
    /// 12
    InvalidValue,
    /// 13
    Missing,
    /// 17
    NoAgreement,
    /// 18
    Unspecified,
    /// 19
    InvalidDecimalNotation,
    /// 20
    InvalidAsServiceCharacter,
    /// 21
    InvalidCharacters,
    /// 26
    DuplicateDetected,
    /// 28
    ReferencesDoNotMatch,
    /// 29
    ControlCountMismatch,
    /// 30
    GroupsAndMessagesMixed,
    /// 32
    LowerLevelEmpty,
    /// 33
    InvalidOccurrenceOutsideMessage,
    /// 37
    InvalidTypeOfCharacters,
}

impl SyntaxError {
    /// The 0085 code.
    pub fn code(self) -> &'static str {
        match self {
            Self::SyntaxVersionNotSupported => "2",
            Self::InvalidValue => "12",
            Self::Missing => "13",
            Self::NoAgreement => "17",
            Self::Unspecified => "18",
            Self::InvalidDecimalNotation => "19",
            Self::InvalidAsServiceCharacter => "20",
            Self::InvalidCharacters => "21",
            Self::DuplicateDetected => "26",
            Self::ReferencesDoNotMatch => "28",
            Self::ControlCountMismatch => "29",
            Self::GroupsAndMessagesMixed => "30",
            Self::LowerLevelEmpty => "32",
            Self::InvalidOccurrenceOutsideMessage => "33",
            Self::InvalidTypeOfCharacters => "37",
        }
    }
}

/// The 0085 code for a fault's cause: the table in this module's documentation.
pub fn syntax_error(cause: &Cause) -> SyntaxError {
    use SyntaxError as E;
    match cause {
        Cause::Syntax(kind) => match kind {
            ParseErrorKind::InvalidUna(why) if why.contains("decimal") => E::InvalidDecimalNotation,
            ParseErrorKind::InvalidUna(why) if why.contains("fewer") => E::Missing,
            ParseErrorKind::InvalidUna(_) => E::InvalidAsServiceCharacter,
            ParseErrorKind::UnsupportedSyntaxIdentifier(_) => E::SyntaxVersionNotSupported,
            ParseErrorKind::MissingUnb
            | ParseErrorKind::MissingElement(_)
            | ParseErrorKind::Truncated => E::Missing,
            ParseErrorKind::UnbalancedEnvelope(why) => {
                if why.contains("not closed by UNT") {
                    E::Missing
                } else if why.contains("outside a message") {
                    E::InvalidOccurrenceOutsideMessage
                } else if why.contains("outside a group") || why.contains("after messages") {
                    E::GroupsAndMessagesMixed
                } else {
                    E::Unspecified
                }
            }
            ParseErrorKind::SegmentCountMismatch { .. }
            | ParseErrorKind::MessageCountMismatch { .. } => E::ControlCountMismatch,
            ParseErrorKind::ReferenceMismatch { .. } => E::ReferencesDoNotMatch,
            ParseErrorKind::DuplicateMessageReference(_) => E::DuplicateDetected,
            ParseErrorKind::InvalidControlCount(_) => E::InvalidTypeOfCharacters,
            ParseErrorKind::InvalidCharacter { .. } | ParseErrorKind::InvalidUtf8 => {
                E::InvalidCharacters
            }
            ParseErrorKind::InvalidTag(_) => E::InvalidValue,
            _ => E::Unspecified,
        },
        Cause::Mapping(kind) => match kind {
            MappingErrorKind::MissingSegment(_)
            | MappingErrorKind::MissingDocumentNumber
            | MappingErrorKind::MissingDocumentType => E::Missing,
            MappingErrorKind::InvalidDate { .. } | MappingErrorKind::InvalidAmount(_) => {
                E::InvalidValue
            }
            MappingErrorKind::NotAnInvoice(_) => E::NoAgreement,
        },
        Cause::Acknowledgement(kind) => match kind {
            ReadErrorKind::MissingSegment(_) | ReadErrorKind::MissingValue { .. } => E::Missing,
            _ => E::InvalidValue,
        },
        Cause::NoMessage => E::LowerLevelEmpty,
        _ => E::Unspecified,
    }
}
