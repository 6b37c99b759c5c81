//! Segments as the tokenizer hands them out: decoded, unescaped, located.
//!
//! A message's segments live in one [`Segments`] arena: every value of every segment in
//! one `String`, and flat index tables over it. Reading a message therefore costs a few
//! growing buffers instead of a `String` per component and a `Vec` per element, which
//! is where the reader used to spend most of its time (in malloc and free). Callers see
//! [`Segment`] and [`Element`], cheap `Copy` views into the arena.

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

/// Where a value sits inside its segment, counted as CONTRL's S011 counts: element 1 is
/// the first data element after the tag (a repetition counts as its element), component
/// 1 the first component of that element.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub struct ElementPosition {
    /// 1-based data element position in the segment (0098).
    pub element: u32,
    /// 1-based component position in the element (0104).
    pub component: u32,
}

impl ElementPosition {
    /// From 0-based indices, as [`Segment::component`] takes them.
    pub(crate) fn at(element: usize, component: usize) -> Self {
        let one_based = |i: usize| u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
        Self {
            element: one_based(element),
            component: one_based(component),
        }
    }
}

/// A run of values in [`Segments::ends`]: one element occurrence's components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    first: u32,
    len: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Record {
    /// Index in `ends` of the tag (three characters), followed by the values.
    tag: u32,
    /// This segment's elements in `Segments::elements`.
    elements: Span,
    /// This segment's further occurrences in `Segments::repeats`.
    repeats: Span,
    position: SourcePosition,
}

/// The segments of one message (or any run of segments), in input order.
///
/// Values are unescaped (the release character is removed) and decoded with the
/// interchange's syntax identifier.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Segments {
    /// Every tag and value, back to back.
    text: String,
    /// End offset in `text` of each tag and value; a value starts where the previous
    /// one ends.
    ends: Vec<u32>,
    /// First occurrences of elements: the values of each, as a run of `ends`.
    elements: Vec<Span>,
    /// Further occurrences of repeated elements (syntax 4 repetition separator):
    /// `(element index, values)`.
    repeats: Vec<(u32, Span)>,
    records: Vec<Record>,
}

impl Segments {
    /// Number of segments.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// No segment at all.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Segment `i` (0-based within this arena).
    pub fn get(&self, i: usize) -> Option<Segment<'_>> {
        self.records.get(i).map(|record| self.view(record))
    }

    fn view<'a>(&'a self, record: &'a Record) -> Segment<'a> {
        Segment {
            tag: self.value(record.tag),
            position: record.position,
            arena: self,
            record,
        }
    }

    /// The first segment.
    pub fn first(&self) -> Option<Segment<'_>> {
        self.get(0)
    }

    /// The last segment.
    pub fn last(&self) -> Option<Segment<'_>> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// Every segment, in input order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            arena: self,
            records: self.records.iter(),
        }
    }

    /// Value number `i` of `ends`.
    fn value(&self, i: u32) -> &str {
        let i = i as usize;
        let start = match i.checked_sub(1) {
            Some(previous) => self.ends.get(previous).copied().unwrap_or(0) as usize,
            None => 0,
        };
        let end = self.ends.get(i).copied().unwrap_or(0) as usize;
        self.text.get(start..end).unwrap_or_default()
    }

    // --- Writing, for the tokenizer -------------------------------------------------

    /// Where a segment being written can be rolled back to.
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            text: self.text.len(),
            ends: self.ends.len(),
            elements: self.elements.len(),
            repeats: self.repeats.len(),
            records: self.records.len(),
        }
    }

    /// Forgets everything written after `mark` (a segment that turned out defective).
    pub(crate) fn rollback(&mut self, mark: Mark) {
        self.text.truncate(mark.text);
        self.ends.truncate(mark.ends);
        self.elements.truncate(mark.elements);
        self.repeats.truncate(mark.repeats);
        self.records.truncate(mark.records);
    }

    /// Forgets every segment, keeping the buffers.
    pub(crate) fn clear(&mut self) {
        self.rollback(Mark::default());
    }

    /// The text buffer values are decoded into; call [`Segments::end_value`] after
    /// appending one.
    pub(crate) fn text_mut(&mut self) -> &mut String {
        &mut self.text
    }

    /// Closes the value appended to the text since the previous one.
    pub(crate) fn end_value(&mut self) {
        // Offsets are u32: the tokenizer refuses inputs of 4 GiB and more.
        self.ends.push(self.text.len() as u32);
    }

    /// Closes an element occurrence whose first value is number `first_value`:
    /// a first occurrence, or a repetition of the segment's last element.
    pub(crate) fn end_element(&mut self, first_value: u32, repetition: bool, record: &Mark) {
        let span = Span {
            first: first_value,
            len: self.ends.len() as u32 - first_value,
        };
        if repetition {
            let index = (self.elements.len() - record.elements).saturating_sub(1);
            self.repeats.push((index as u32, span));
        } else {
            self.elements.push(span);
        }
    }

    /// Number of values written so far (the index the next one will get).
    pub(crate) fn values(&self) -> u32 {
        self.ends.len() as u32
    }

    /// Closes the segment begun at `mark`, whose tag is value number `mark.ends`.
    pub(crate) fn end_segment(&mut self, mark: &Mark, position: SourcePosition) {
        self.records.push(Record {
            tag: mark.ends as u32,
            elements: Span {
                first: mark.elements as u32,
                len: (self.elements.len() - mark.elements) as u32,
            },
            repeats: Span {
                first: mark.repeats as u32,
                len: (self.repeats.len() - mark.repeats) as u32,
            },
            position,
        });
    }
}

/// The segments of a [`Segments`] arena, in input order.
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    arena: &'a Segments,
    records: std::slice::Iter<'a, Record>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Segment<'a>;

    fn next(&mut self) -> Option<Segment<'a>> {
        self.records.next().map(|record| self.arena.view(record))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Segments {
    type Item = Segment<'a>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// A rollback point of a [`Segments`] arena.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Mark {
    text: usize,
    ends: usize,
    elements: usize,
    repeats: usize,
    records: usize,
}

/// One segment: its tag and its data elements (a view into [`Segments`]).
#[derive(Debug, Clone, Copy)]
pub struct Segment<'a> {
    /// Segment tag, e.g. `BGM`.
    pub tag: &'a str,
    /// Where the segment starts.
    pub position: SourcePosition,
    arena: &'a Segments,
    record: &'a Record,
}

impl<'a> Segment<'a> {
    /// Number of data elements after the tag (repetitions not counted).
    pub fn element_count(&self) -> usize {
        self.record.elements.len as usize
    }

    /// Data element `i` (0 = first element after the tag). Where an element is repeated
    /// (syntax 4 repetition separator), this is its first occurrence and
    /// [`Segment::occurrences`] gives the others, so positional indices stay stable.
    pub fn element(&self, i: usize) -> Option<Element<'a>> {
        if i >= self.element_count() {
            return None;
        }
        let index = self.record.elements.first as usize + i;
        self.arena.elements.get(index).map(|&span| Element {
            arena: self.arena,
            span,
        })
    }

    /// One component, or `None` when the element or component is absent *or empty*:
    /// EDIFACT does not distinguish an empty value from an omitted one.
    pub fn component(&self, element: usize, component: usize) -> Option<&'a str> {
        self.element(element)
            .and_then(|e| e.get(component))
            .filter(|v| !v.is_empty())
    }

    /// Every occurrence of element `i`, the first one included.
    pub fn occurrences(&self, i: usize) -> impl Iterator<Item = Element<'a>> + use<'a> {
        let arena = self.arena;
        let repeats = self.record.repeats;
        let start = repeats.first as usize;
        let further = arena
            .repeats
            .get(start..start + repeats.len as usize)
            .unwrap_or_default()
            .iter()
            .filter(move |(index, _)| *index as usize == i)
            .map(move |&(_, span)| Element { arena, span });
        self.element(i).into_iter().chain(further)
    }

    /// The segment uses the repetition separator.
    pub fn has_repetitions(&self) -> bool {
        self.record.repeats.len > 0
    }

    /// First occurrences of all elements as owned values, for tools and tests.
    pub fn to_vecs(&self) -> Vec<Vec<String>> {
        (0..self.element_count())
            .filter_map(|i| self.element(i))
            .map(|e| e.iter().map(str::to_owned).collect())
            .collect()
    }

    /// The qualifier most segments carry in their first component (`DTM+137:...` -> `137`).
    pub(crate) fn qualifier(&self) -> Option<&'a str> {
        self.component(0, 0)
    }
}

impl PartialEq for Segment<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.tag == other.tag
            && self.position == other.position
            && self.to_vecs() == other.to_vecs()
            && self.occurrence_lists() == other.occurrence_lists()
    }
}

impl Segment<'_> {
    fn occurrence_lists(&self) -> Vec<Vec<String>> {
        (0..self.element_count())
            .flat_map(|i| self.occurrences(i).skip(1))
            .map(|e| e.iter().map(str::to_owned).collect())
            .collect()
    }
}

/// One occurrence of a data element: its components (a view into [`Segments`]).
#[derive(Debug, Clone, Copy)]
pub struct Element<'a> {
    arena: &'a Segments,
    span: Span,
}

impl<'a> Element<'a> {
    /// Number of components written (trailing empty ones a sender omitted are absent).
    pub fn len(&self) -> usize {
        self.span.len as usize
    }

    /// No component at all (never the case for an element the tokenizer read).
    pub fn is_empty(&self) -> bool {
        self.span.len == 0
    }

    /// Component `c` as written, possibly empty.
    pub fn get(&self, c: usize) -> Option<&'a str> {
        (c < self.len()).then(|| self.arena.value(self.span.first + c as u32))
    }

    /// The components, in order, empty ones included.
    pub fn iter(self) -> impl Iterator<Item = &'a str> + use<'a> {
        let (arena, span) = (self.arena, self.span);
        (span.first..span.first + span.len).map(move |i| arena.value(i))
    }
}
