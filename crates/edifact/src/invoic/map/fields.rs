//! Reading one value out of a segment: dates, numbers and joined texts, with the
//! mapping error that locates a bad value at its element and component.

use super::super::values::{decimal, iso_date};
use crate::Segment;
use crate::invoic::{MappingError, MappingErrorKind};

/// A mapping error about component `component` of element `element` (0-based).
pub(super) fn error(
    kind: MappingErrorKind,
    segment: &Segment,
    element: usize,
    component: usize,
) -> MappingError {
    MappingError {
        kind,
        position: Some(segment.position),
        element: Some(crate::ElementPosition::at(element, component)),
    }
}

/// DTM C507 2380 as an ISO date, read in the format 2379 names.
pub(super) fn date(dtm: &Segment) -> Result<String, MappingError> {
    let value = dtm.component(0, 1).unwrap_or_default();
    let format = dtm.component(0, 2);
    iso_date(value, format).ok_or_else(|| {
        error(
            MappingErrorKind::InvalidDate {
                value: value.to_owned(),
                format: format.unwrap_or_default().to_owned(),
            },
            dtm,
            0,
            1,
        )
    })
}

/// A numeric component, normalised; `None` if absent, an error if present but malformed.
pub(super) fn number(
    segment: &Segment,
    element: usize,
    component: usize,
    mark: u8,
) -> Result<Option<String>, MappingError> {
    segment
        .component(element, component)
        .map(|v| {
            decimal(v, mark).ok_or_else(|| {
                error(
                    MappingErrorKind::InvalidAmount(v.to_owned()),
                    segment,
                    element,
                    component,
                )
            })
        })
        .transpose()
}

/// MOA C516 5004.
pub(super) fn moa_amount(moa: &Segment, mark: u8) -> Result<Option<String>, MappingError> {
    number(moa, 0, 1, mark)
}

/// The non-empty `components` joined by `separator`, or `None` when all are empty.
pub(super) fn non_empty_joined<'a>(
    components: Option<impl Iterator<Item = &'a str>>,
    separator: &str,
) -> Option<String> {
    let mut joined: Option<String> = None;
    for part in components.into_iter().flatten().filter(|c| !c.is_empty()) {
        match joined.as_mut() {
            Some(text) => {
                text.push_str(separator);
                text.push_str(part);
            }
            None => joined = Some(part.to_owned()),
        }
    }
    joined
}
