//! Reading service segment values: UNB's header, UNH's message identifier, control
//! counts and the references a trailer must repeat.

use super::{Findings, InterchangeHeader, Message};
use crate::error::{ParseError, ParseErrorKind};
use crate::segment::{Segment, Segments, SourcePosition};

/// Broken nesting at `position`; `what` says what is out of place.
pub(super) fn unbalanced<T>(position: SourcePosition, what: &'static str) -> Result<T, ParseError> {
    Err(ParseError::new(
        ParseErrorKind::UnbalancedEnvelope(what),
        position,
    ))
}

/// A mandatory component, or `MissingElement(name)` located at the segment.
pub(super) fn required(
    segment: &Segment,
    element: usize,
    component: usize,
    name: &'static str,
) -> Result<String, ParseError> {
    segment
        .component(element, component)
        .map(str::to_owned)
        .ok_or_else(|| {
            ParseError::new(ParseErrorKind::MissingElement(name), segment.position)
                .in_element(element, component)
        })
}

/// An optional component, as sent.
pub(super) fn optional(segment: &Segment, element: usize, component: usize) -> Option<String> {
    segment.component(element, component).map(str::to_owned)
}

/// The interchange header, from UNB; every mandatory element must be present.
pub(super) fn header_from_unb(unb: &Segment) -> Result<InterchangeHeader, ParseError> {
    Ok(InterchangeHeader {
        syntax_identifier: required(unb, 0, 0, "UNB 0001 syntax identifier")?,
        syntax_version: required(unb, 0, 1, "UNB 0002 syntax version")?,
        sender_id: required(unb, 1, 0, "UNB 0004 sender identification")?,
        sender_qualifier: optional(unb, 1, 1),
        recipient_id: required(unb, 2, 0, "UNB 0010 recipient identification")?,
        recipient_qualifier: optional(unb, 2, 1),
        prepared_date: required(unb, 3, 0, "UNB 0017 date")?,
        prepared_time: required(unb, 3, 1, "UNB 0019 time")?,
        control_reference: required(unb, 4, 0, "UNB 0020 interchange control reference")?,
        acknowledgement_requested: unb.component(8, 0) == Some("1"),
        test_indicator: unb.component(10, 0) == Some("1"),
    })
}

/// A control count as a number; a non-numeric count is a hard error because nothing can
/// be compared with it.
pub(super) fn count(segment: &Segment, name: &'static str) -> Result<u64, ParseError> {
    let raw = required(segment, 0, 0, name)?;
    raw.parse().map_err(|_| {
        ParseError::new(ParseErrorKind::InvalidControlCount(raw), segment.position).in_element(0, 0)
    })
}

/// Reports (as a control defect) a trailer whose reference is not its header's.
pub(super) fn check_reference(
    findings: &mut Findings,
    trailer: &Segment,
    trailer_tag: &'static str,
    header_tag: &'static str,
    expected: &str,
    name: &'static str,
) -> Result<(), ParseError> {
    let found = required(trailer, 1, 0, name)?;
    if found != expected {
        findings.report(ParseError::new(
            ParseErrorKind::ReferenceMismatch {
                trailer: trailer_tag,
                header: header_tag,
                expected: expected.to_owned(),
                found,
            },
            trailer.position,
        ))?;
    }
    Ok(())
}

/// A message opened by `unh`; its `segments` are still empty.
pub(super) fn open_message(
    unh: &Segment<'_>,
    group_reference: Option<String>,
) -> Result<Message, ParseError> {
    Ok(Message {
        reference: required(unh, 0, 0, "UNH 0062 message reference number")?,
        message_type: required(unh, 1, 0, "UNH 0065 message type")?,
        version: required(unh, 1, 1, "UNH 0052 message version number")?,
        release: required(unh, 1, 2, "UNH 0054 message release number")?,
        agency: required(unh, 1, 3, "UNH 0051 controlling agency")?,
        association_code: optional(unh, 1, 4),
        group_reference,
        segments: Segments::default(),
    })
}
