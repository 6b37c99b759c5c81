//! The one error type of the syntax layer.
//!
//! Every error carries a [`SourcePosition`] so that a rejection sent back to a partner (or
//! shown to an operator) can name the exact segment and byte, not just "bad file".

use crate::segment::{ElementPosition, SourcePosition};

/// A syntax or envelope defect, located in the input.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
#[error("{kind} at segment {} (byte offset {})", position.segment, position.offset)]
pub struct ParseError {
    /// What is wrong.
    pub kind: ParseErrorKind,
    /// Where: the segment that carries the defect (segment 0 is the UNA service string
    /// advice, which ISO 9735 does not count as a segment).
    pub position: SourcePosition,
    /// The data element at fault inside that segment, when the defect is one value's.
    pub element: Option<ElementPosition>,
}

impl ParseError {
    pub(crate) fn new(kind: ParseErrorKind, position: SourcePosition) -> Self {
        Self {
            kind,
            position,
            element: None,
        }
    }

    /// The same error, located at element `element`, component `component` (0-based).
    pub(crate) fn in_element(mut self, element: usize, component: usize) -> Self {
        self.element = Some(ElementPosition::at(element, component));
        self
    }

    /// True for defects in control counts and references (UNT/UNE/UNZ counts, references
    /// that do not match, duplicate message references). The content is still readable, so
    /// [`crate::Interchange::parse_tolerant`] reports them as findings instead of failing.
    pub fn is_control_defect(&self) -> bool {
        matches!(
            self.kind,
            ParseErrorKind::SegmentCountMismatch { .. }
                | ParseErrorKind::MessageCountMismatch { .. }
                | ParseErrorKind::ReferenceMismatch { .. }
                | ParseErrorKind::DuplicateMessageReference(_)
        )
    }
}

/// The kinds of defect the reader reports. All of them are the sender's fault: the reader
/// has no "unexpected" failure mode because it does no I/O.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The first segment (after an optional UNA) is not UNB, or the input is empty.
    #[error("interchange does not start with UNB")]
    MissingUnb,
    /// The input ends inside a segment (no final terminator, or a dangling release
    /// character), inside a binary package, or before UNZ.
    #[error("interchange is truncated")]
    Truncated,
    /// Service segments are not nested as ISO 9735 requires (UNH without UNT, a data
    /// segment outside a message, UNG without UNE, ...).
    #[error("unbalanced envelope: {0}")]
    UnbalancedEnvelope(&'static str),
    /// UNT declares a segment count that differs from the segments between UNH and UNT
    /// inclusive.
    #[error("UNT declares {declared} segments but the message has {actual}")]
    SegmentCountMismatch { declared: u64, actual: u64 },
    /// A trailer's reference does not repeat its header's reference.
    #[error("{trailer} reference {found:?} does not match {header} reference {expected:?}")]
    ReferenceMismatch {
        trailer: &'static str,
        header: &'static str,
        expected: String,
        found: String,
    },
    /// UNE or UNZ declares a count that differs from what the envelope contains (UNE:
    /// messages in the group; UNZ: groups if groups are used, else messages plus packages).
    #[error("{trailer} declares {declared} but the envelope holds {actual}")]
    MessageCountMismatch {
        trailer: &'static str,
        declared: u64,
        actual: u64,
    },
    /// Two messages of one interchange share a UNH message reference.
    #[error("message reference {0:?} is used twice in the interchange")]
    DuplicateMessageReference(String),
    /// A control count is not a number.
    #[error("control count {0:?} is not a number")]
    InvalidControlCount(String),
    /// A segment terminator directly follows another one (`''`).
    #[error("empty segment")]
    EmptySegment,
    /// A segment tag is not three upper-case letters or digits.
    #[error("invalid segment tag {0:?}")]
    InvalidTag(String),
    /// The UNA service string advice is short or declares unusable characters.
    #[error("invalid UNA service string advice: {0}")]
    InvalidUna(&'static str),
    /// The syntax identifier in UNB is not one this reader can decode.
    #[error("unsupported syntax identifier {0:?}")]
    UnsupportedSyntaxIdentifier(String),
    /// A value is not valid UTF-8 although the syntax identifier (UNOW/UNOY) requires it.
    #[error("value is not valid UTF-8")]
    InvalidUtf8,
    /// A byte outside the repertoire of the declared syntax identifier.
    #[error("byte 0x{byte:02X} is not allowed by syntax identifier {syntax_identifier}")]
    InvalidCharacter {
        syntax_identifier: &'static str,
        byte: u8,
    },
    /// A mandatory service data element is empty or absent.
    #[error("missing mandatory service element {0}")]
    MissingElement(&'static str),
    /// A syntax 4 package (UNO..UNP) is malformed.
    #[error("invalid package: {0}")]
    InvalidPackage(&'static str),
    /// Something other than line breaks follows UNZ.
    #[error("data after UNZ")]
    TrailingData,
    /// The input is 4 GiB or larger, beyond what this reader indexes.
    #[error("interchange of 4 GiB or more is not supported")]
    TooLarge,
}
