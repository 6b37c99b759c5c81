//! Reading values out of an acknowledgement's segments: required, optional, numbers.

use super::error::{ReadError, ReadErrorKind};
use super::levels::Party;
use crate::Segment;

/// A value the segment cannot do without: data element `element` (e.g. `0083`, called
/// `name`) at 0-based `index`, component `component`.
pub(super) fn required<'a>(
    segment: &Segment<'a>,
    (index, component): (usize, usize),
    element: &'static str,
    name: &'static str,
) -> Result<&'a str, ReadError> {
    segment.component(index, component).ok_or_else(|| {
        let tag = segment.tag.to_owned();
        ReadError::new(
            ReadErrorKind::MissingValue { tag, element, name },
            segment.position,
        )
        .in_element(index, component)
    })
}

/// An optional value, owned.
pub(super) fn optional(segment: &Segment<'_>, index: usize, component: usize) -> Option<String> {
    segment.component(index, component).map(str::to_owned)
}

/// An optional number: absent is `None`, present and not a number is an error.
pub(super) fn number(
    segment: &Segment<'_>,
    at: (usize, usize),
    element: &'static str,
) -> Result<Option<u32>, ReadError> {
    segment
        .component(at.0, at.1)
        .map(|value| parse(segment, at, element, value))
        .transpose()
}

/// A number the segment cannot do without.
pub(super) fn required_number(
    segment: &Segment<'_>,
    at: (usize, usize),
    element: &'static str,
    name: &'static str,
) -> Result<u32, ReadError> {
    let value = required(segment, at, element, name)?;
    parse(segment, at, element, value)
}

fn parse(
    segment: &Segment<'_>,
    (index, component): (usize, usize),
    element: &'static str,
    value: &str,
) -> Result<u32, ReadError> {
    value.trim().parse().map_err(|_| {
        let kind = ReadErrorKind::NotANumber {
            element,
            value: value.to_owned(),
        };
        ReadError::new(kind, segment.position).in_element(index, component)
    })
}

/// A party composite (S002, S003, S006, S007): identification, then qualifier. `None`
/// when no identification is given.
pub(super) fn party(segment: &Segment<'_>, index: usize) -> Option<Party> {
    Some(Party {
        id: optional(segment, index, 0)?,
        qualifier: optional(segment, index, 1),
    })
}
