//! Segments as the tokenizer hands them out: decoded, unescaped, located.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a segment starts in the original bytes.
///
/// Both numbers are kept because they serve different readers: partners and CONTRL
/// messages speak in segment numbers, while operators looking at the raw archived file
/// need the byte offset.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    Serialize,
    Deserialize,
    JsonSchema,
)]
pub struct SourcePosition {
    /// 1-based number of the segment within the interchange; UNB is 1 and the UNA
    /// service string advice is not counted (an error inside UNA reports 0).
    pub segment: u32,
    /// Byte offset of the segment tag in the input (after any BOM or leading blanks,
    /// which are counted like every other byte).
    pub offset: usize,
}

/// One segment: its tag and its data elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Segment tag, e.g. `BGM`.
    pub tag: String,
    /// Data elements after the tag; each is the list of its components. Values are
    /// unescaped (the release character is removed) and decoded with the interchange's
    /// syntax identifier. Index 0 is the first element after the tag. Where an element is
    /// repeated (syntax 4 repetition separator), this holds the first occurrence and
    /// [`Segment::repeats`] holds the others, so positional indices stay stable.
    pub elements: Vec<Vec<String>>,
    /// Further occurrences of repeated elements: `(element index, components)`, in input
    /// order. Empty unless the interchange declares a repetition separator and uses it.
    pub repeats: Vec<(usize, Vec<String>)>,
    /// Where the segment starts.
    pub position: SourcePosition,
}

impl Segment {
    /// The components of data element `i` (0 = first element after the tag).
    pub fn element(&self, i: usize) -> Option<&[String]> {
        self.elements.get(i).map(Vec::as_slice)
    }

    /// One component, or `None` when the element or component is absent *or empty*:
    /// EDIFACT does not distinguish an empty value from an omitted one.
    pub fn component(&self, element: usize, component: usize) -> Option<&str> {
        self.elements
            .get(element)
            .and_then(|e| e.get(component))
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// Every occurrence of element `i`, the first one included.
    pub fn occurrences(&self, i: usize) -> impl Iterator<Item = &[String]> {
        self.element(i).into_iter().chain(
            self.repeats
                .iter()
                .filter(move |(idx, _)| *idx == i)
                .map(|(_, c)| c.as_slice()),
        )
    }

    /// The qualifier most segments carry in their first component (`DTM+137:...` -> `137`).
    pub(crate) fn qualifier(&self) -> Option<&str> {
        self.component(0, 0)
    }
}
