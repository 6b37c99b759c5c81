//! The plan: which CONTRL segment reports each fault of a [`Report`].
//!
//! The check lists faults by position in the input; a CONTRL reports them by level. A
//! fault in a data segment goes to a `UCS` (a value's fault to a `UCD` under it), one on
//! UNH or UNT to its message's `UCM`, one on UNG or UNE to its group's `UCF`, and
//! anything else to `UCI`. Each level carries only its first error, and the repetition
//! limits of CONTRL's segment groups cap what is kept, so the plan is bounded whatever
//! the input.

use super::codes::{SyntaxError, syntax_error};
use crate::ParseErrorKind;
use crate::check::{Cause, Fault, MessageSummary, Report};
use crate::envelope::Group;
use crate::segment::ElementPosition;

/// UCS repeats at most 999 times per message (segment group 2 of CONTRL).
const MAX_UCS: usize = 999;
/// UCD repeats at most 99 times per UCS.
const MAX_UCD: usize = 99;
/// 0096 is n..6.
const MAX_SEGMENT_POSITION: u32 = 999_999;

/// What the CONTRL says below its UNB, level by level.
pub(super) struct Plan<'a> {
    /// The error UCI carries, if any.
    pub(super) uci: Option<Reported>,
    /// One per group to report, in input order.
    pub(super) ucfs: Vec<Ucf<'a>>,
    /// One per message to report, in input order.
    pub(super) ucms: Vec<Ucm<'a>>,
}

/// The error a UCI, UCF or UCM carries itself: code, service segment tag (may be empty)
/// and the data element at fault.
pub(super) struct Reported {
    pub(super) code: SyntaxError,
    pub(super) tag: &'static str,
    pub(super) element: Option<ElementPosition>,
}

/// One UCF: a group with faults of its own or in its messages.
pub(super) struct Ucf<'a> {
    /// Index in the report's groups.
    pub(super) index: usize,
    pub(super) group: &'a Group,
    pub(super) error: Option<Reported>,
}

/// One UCM and its UCS segments.
pub(super) struct Ucm<'a> {
    pub(super) message: &'a MessageSummary,
    /// Index in the report's groups of the group the message is in.
    pub(super) group: Option<usize>,
    pub(super) error: Option<Reported>,
    /// One per faulty segment, in input order.
    pub(super) segments: Vec<Ucs>,
}

/// One UCS and its UCD segments.
pub(super) struct Ucs {
    /// Position from UNH = 1.
    pub(super) position: u32,
    /// The first fault of the segment as a whole (UCS 0085), if any.
    pub(super) error: Option<SyntaxError>,
    /// Faults of single data elements (one UCD each), the first per element.
    pub(super) elements: Vec<(ElementPosition, SyntaxError)>,
}

/// Where a fault is reported.
enum Level {
    /// UCI.
    Interchange,
    /// UCF of group `index`, about its UNG or UNE (`tag`).
    Group { index: usize, tag: &'static str },
    /// UCM of message `index`, about its UNH or UNT (`tag`), or without a tag.
    Message { index: usize, tag: &'static str },
    /// UCS of message `index`, at `position` counted from UNH = 1.
    Segment { index: usize, position: u32 },
}

/// Sorts every fault to the level that reports it.
pub(super) fn plan(report: &Report) -> Plan<'_> {
    let mut planner = Planner::new(report);
    for fault in &report.faults {
        planner.place(fault);
    }
    planner.finish()
}

/// The plan being built, with what placing a fault needs to know about the interchange.
struct Planner<'a> {
    /// The messages of the acknowledged interchange (those before any data after UNZ).
    messages: Vec<&'a MessageSummary>,
    groups: &'a [Group],
    /// The group each message is in, as an index into `groups`.
    group_of: Vec<Option<usize>>,
    /// Segment number where the acknowledged interchange ends, if data follows its UNZ.
    end: Option<u32>,
    uci: Option<Reported>,
    ucfs: Vec<Option<Ucf<'a>>>,
    ucms: Vec<Option<Ucm<'a>>>,
}

impl<'a> Planner<'a> {
    fn new(report: &'a Report) -> Self {
        // The first interchange ends where "data after UNZ" is found; anything from there
        // on belongs to the input, not to the acknowledged interchange.
        let end = report
            .faults
            .iter()
            .find(|f| f.cause == Cause::Syntax(ParseErrorKind::TrailingData))
            .and_then(|f| f.position)
            .map(|p| p.segment);
        let messages: Vec<&MessageSummary> = report
            .messages
            .iter()
            .filter(|m| end.is_none_or(|end| m.header.segment < end))
            .collect();
        let groups = report.groups.as_slice();
        // A grouped message whose group was not recorded cannot be placed under a UCF, so
        // its faults go to UCI.
        let group_of = messages
            .iter()
            .map(|m| groups.iter().position(|g| g.contains(m.header.segment)))
            .collect();
        Self {
            ucfs: groups.iter().map(|_| None).collect(),
            ucms: messages.iter().map(|_| None).collect(),
            messages,
            groups,
            group_of,
            end,
            uci: None,
        }
    }

    /// Records `fault` at its level, unless that level already has its first error or a
    /// repetition limit is reached.
    fn place(&mut self, fault: &Fault) {
        let code = syntax_error(&fault.cause);
        let reported = |tag| Reported {
            code,
            tag,
            element: fault.element,
        };
        let level = match level(fault, &self.messages, self.end) {
            Level::Message { index, .. } | Level::Segment { index, .. }
                if self.messages[index].group_reference.is_some()
                    && self.group_of[index].is_none() =>
            {
                Level::Interchange
            }
            Level::Interchange => group_level(fault, self.groups, self.end),
            level => level,
        };
        let (index, position) = match level {
            Level::Interchange => {
                let tag = interchange_tag(fault).unwrap_or_default();
                self.uci.get_or_insert(reported(tag));
                return;
            }
            Level::Group { index, tag } => {
                self.ucf(index).error.get_or_insert(reported(tag));
                return;
            }
            Level::Message { index, tag } => {
                let ucm = self.ucm(index);
                if ucm.error.is_none() {
                    ucm.error = Some(reported(tag));
                    return;
                }
                // A second UNH or UNT fault: report it like a segment's.
                let m = self.messages[index];
                let position = if tag == "UNT" {
                    m.trailer_segment - m.header.segment + 1
                } else {
                    1
                };
                (index, position)
            }
            Level::Segment { index, position } => (index, position),
        };
        add_to_ucs(self.ucm(index), position, fault.element, code);
    }

    /// The plan, with a UCF for every group whose messages have faults (without an error
    /// of its own when the group itself is sound).
    fn finish(mut self) -> Plan<'a> {
        let groups: Vec<usize> = self.ucms.iter().flatten().filter_map(|u| u.group).collect();
        for index in groups {
            self.ucf(index);
        }
        Plan {
            uci: self.uci,
            ucfs: self.ucfs.into_iter().flatten().collect(),
            ucms: self.ucms.into_iter().flatten().collect(),
        }
    }

    fn ucm(&mut self, index: usize) -> &mut Ucm<'a> {
        let (message, group) = (self.messages[index], self.group_of[index]);
        self.ucms[index].get_or_insert_with(|| Ucm {
            message,
            group,
            error: None,
            segments: Vec::new(),
        })
    }

    fn ucf(&mut self, index: usize) -> &mut Ucf<'a> {
        let group = &self.groups[index];
        self.ucfs[index].get_or_insert(Ucf {
            index,
            group,
            error: None,
        })
    }
}

/// Records a fault of the segment at `position` of `ucm`'s message: in its UCS as a whole,
/// or in a UCD of the UCS when the fault is one value's.
fn add_to_ucs(
    ucm: &mut Ucm<'_>,
    position: u32,
    element: Option<ElementPosition>,
    code: SyntaxError,
) {
    if position > MAX_SEGMENT_POSITION {
        return;
    }
    let ucs = match ucm.segments.iter().position(|s| s.position == position) {
        Some(i) => &mut ucm.segments[i],
        None if ucm.segments.len() < MAX_UCS => {
            ucm.segments.push(Ucs {
                position,
                error: None,
                elements: Vec::new(),
            });
            let last = ucm.segments.len() - 1;
            &mut ucm.segments[last]
        }
        None => return,
    };
    match element {
        Some(element) => {
            if ucs.elements.len() < MAX_UCD && !ucs.elements.iter().any(|(e, _)| *e == element) {
                ucs.elements.push((element, code));
            }
        }
        None => {
            ucs.error.get_or_insert(code);
        }
    }
}

/// A fault outside every message: on a group's UNG or UNE it belongs to that group's
/// UCF, anything else to UCI.
fn group_level(fault: &Fault, groups: &[Group], end: Option<u32>) -> Level {
    let Some(segment) = fault.position.map(|p| p.segment) else {
        return Level::Interchange;
    };
    if end.is_some_and(|end| segment >= end) {
        return Level::Interchange;
    }
    match groups.iter().position(|g| g.contains(segment)) {
        Some(index) if groups[index].header.segment == segment => {
            Level::Group { index, tag: "UNG" }
        }
        Some(index) if groups[index].trailer_segment == segment => {
            Level::Group { index, tag: "UNE" }
        }
        _ => Level::Interchange,
    }
}

/// Where a fault is reported when only the messages are considered: in a message (its
/// UNH, UNT or a data segment), or at the interchange.
fn level(fault: &Fault, messages: &[&MessageSummary], end: Option<u32>) -> Level {
    let Some(position) = fault.position else {
        // Unlocated but naming its message: a message-level fault without a tag.
        return fault
            .message_reference
            .as_ref()
            .and_then(|r| messages.iter().position(|m| &m.reference == r))
            .map_or(Level::Interchange, |index| Level::Message {
                index,
                tag: "",
            });
    };
    if end.is_some_and(|end| position.segment >= end) {
        return Level::Interchange;
    }
    let Some(index) = messages.iter().position(|m| m.contains(position.segment)) else {
        return Level::Interchange;
    };
    let m = messages[index];
    let in_message = position.segment - m.header.segment + 1;
    match &fault.cause {
        // Mapping faults are about data segments, also those reported at UNH because the
        // segment is missing.
        Cause::Mapping(_) | Cause::Acknowledgement(_) => Level::Segment {
            index,
            position: in_message,
        },
        _ if position.segment == m.header.segment => Level::Message { index, tag: "UNH" },
        _ if position.segment == m.trailer_segment => Level::Message { index, tag: "UNT" },
        _ => Level::Segment {
            index,
            position: in_message,
        },
    }
}

/// UCI 0013: the service segment an interchange-level fault is about, where it is one
/// of UNA, UNB and UNZ (the only values UCI allows).
fn interchange_tag(fault: &Fault) -> Option<&'static str> {
    match &fault.cause {
        Cause::Syntax(ParseErrorKind::InvalidUna(_)) => return Some("UNA"),
        Cause::Syntax(ParseErrorKind::MissingUnb) => return Some("UNB"),
        Cause::Syntax(
            ParseErrorKind::MessageCountMismatch { trailer, .. }
            | ParseErrorKind::ReferenceMismatch { trailer, .. },
        ) => return (*trailer == "UNZ").then_some("UNZ"),
        Cause::Syntax(ParseErrorKind::MissingElement(name)) if name.starts_with("UNZ") => {
            return Some("UNZ");
        }
        Cause::Syntax(_) => {}
        _ => return None,
    }
    match fault.position.map(|p| p.segment) {
        Some(0) => Some("UNA"),
        Some(1) => Some("UNB"),
        _ => None,
    }
}
