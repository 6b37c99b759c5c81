//! Why an acknowledgement could not be read.

use crate::{ElementPosition, SourcePosition};

/// A CONTRL or APERAK that cannot be read as an acknowledgement without losing what it
/// says. Always the partner's fault: the reader does no I/O.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}{}", at(.position))]
pub struct ReadError {
    /// What is wrong.
    pub kind: ReadErrorKind,
    /// The segment at fault (UNH when a segment is missing).
    pub position: Option<SourcePosition>,
    /// The value at fault in that segment, when the fault is one value's.
    pub element: Option<ElementPosition>,
}

/// The kinds of [`ReadError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// A segment the acknowledgement cannot do without: `UCI` in a CONTRL, `BGM` in an
    /// APERAK.
    #[error("the message has no {0} segment")]
    MissingSegment(&'static str),
    /// A value the segment cannot do without, named by its data element, e.g. `0083`.
    #[error("{tag} has no {element} ({name})")]
    MissingValue {
        /// The segment's tag.
        tag: String,
        /// The data element's number, e.g. `0083`.
        element: &'static str,
        /// Its name, e.g. `action`.
        name: &'static str,
    },
    /// An 0083 action code that is not in the ISO 9735 code list.
    #[error("action code {0:?} (0083) is not in the ISO 9735 code list")]
    UnknownAction(String),
    /// A position or count that is not a number.
    #[error("{element} {value:?} is not a number")]
    NotANumber {
        /// The data element's number, e.g. `0096`.
        element: &'static str,
        /// The value as sent.
        value: String,
    },
    /// A segment where its level is not open (a UCS outside a UCM, a UCD outside a
    /// UCS), or a second one of a segment that occurs once.
    #[error("{tag} {why}")]
    Misplaced {
        /// The segment's tag.
        tag: &'static str,
        /// What is wrong with its place, e.g. `is not under a UCM`.
        why: &'static str,
    },
}

impl ReadError {
    pub(super) fn new(kind: ReadErrorKind, position: SourcePosition) -> Self {
        Self {
            kind,
            position: Some(position),
            element: None,
        }
    }

    /// The same error, located at element `element`, component `component` (0-based).
    pub(super) fn in_element(mut self, element: usize, component: usize) -> Self {
        self.element = Some(ElementPosition::at(element, component));
        self
    }
}

fn at(position: &Option<SourcePosition>) -> String {
    match position {
        Some(p) => format!(" at segment {} (byte offset {})", p.segment, p.offset),
        None => String::new(),
    }
}
