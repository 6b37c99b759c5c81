//! The CONTRL syntax and service report the hub returns when UNB asks for one (0031 = 1).
//!
//! Sans-IO like the rest of the crate: the caller passes the CONTRL's own interchange
//! control reference, message reference and preparation time, so the same input always
//! yields the same bytes (the transform consumer derives them from the message id and
//! the time of receipt, which makes a redelivered event produce the identical CONTRL).
//!
//! # What is written
//!
//! A complete interchange: `UNA`, `UNB` (sender and recipient of the subject interchange
//! swapped, identifiers with their qualifiers kept; same syntax identifier and version;
//! the test indicator mirrored; no acknowledgement request, since a CONTRL is never
//! acknowledged), `UNH`, `UCI`, one `UCM` per faulty message with one `UCS` per faulty
//! segment, `UNT`, `UNZ`.
//!
//! The message identifier follows the subject interchange's syntax version:
//! `CONTRL:D:3:UN` for syntax 1 to 3 and `CONTRL:4:1:UN` for syntax 4. D:3 is the
//! CONTRL of ISO 9735 version 3, which EANCOM and most partners on syntax 3 use; syntax 4
//! (ISO 9735-4) defines its own version 4 release 1 of the message. The older `2:2`
//! predates the D.93 service directory and has no place in either. Every element written
//! here sits at the same position in both versions, so one writer serves both.
//!
//! The hub accepts or rejects an interchange as a unit ([`crate::check`]), so:
//! - accepted: `UCI` action 7 (this level acknowledged, lower levels acknowledged if not
//!   explicitly rejected) and no `UCM`;
//! - rejected: `UCI` action 4 (this level and all lower levels rejected), with the first
//!   interchange-level error code (if any) in `UCI`, and a `UCM` with action 4 for every
//!   message that has faults of its own. A fault on UNH or UNT goes in `UCM` itself
//!   (0085 and the tag in 0013); a fault in a data segment goes in a `UCS` with the
//!   segment's position counted from UNH = 1, one `UCS` per segment. A fault of one
//!   value (a wrong amount, a date, a character outside the repertoire, a missing
//!   mandatory service element) gets a `UCD` under that `UCS` with the value's element
//!   and component position (S011), and the `UCS` then carries no code of its own unless
//!   the segment also has a fault as a whole. `UCI`, `UCF` and `UCM` carry S011 too when
//!   their error is one value's.
//!   A missing segment is reported at UNH, because the mapping does not know where it
//!   was expected. Action 8 (interchange received) is never sent: the check is complete
//!   before the CONTRL is built.
//!
//! In an interchange with functional groups (UNG..UNE), each group with faults of its
//! own or in its messages gets a `UCF` (action 4, with the first UNG or UNE error and
//! its tag), and the `UCM`s of its messages follow it (segment group 3 of CONTRL); a
//! fault on UNG or UNE itself is reported in the `UCF`.

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
//! | unsupported message type (also mapping `NotAnInvoice`) | 17 | no agreement |
//! | no message in the interchange | 32 | lower level empty |
//! | anything else | 18 | unspecified error |
//!
//! Codes for checks the hub does not make (23 unknown interchange sender, 25 test
//! indicator not supported, 35 and 36 too many repetitions, 39 and 40 length) are not
//! produced. An unsupported message type is 17 rather than 14 ("value not supported in
//! this position"): the hub takes INVOIC only, whatever the position, which is an
//! interchange-agreement matter.
//!
//! # Characters
//!
//! Values copied from the subject interchange are written in its repertoire: a
//! character the repertoire cannot carry (one the reader already reported and decoded
//! lossily) becomes `?`, lower case becomes upper case under UNOA, and every service
//! character is preceded by the release character `?`. The bytes are ISO 8859-1 for
//! UNOC and UTF-8 otherwise, which for the ASCII repertoires (UNOA, UNOB, the ASCII half
//! of UNOD..UNOK) is ASCII.

use crate::charset::Charset;
use crate::check::{Cause, Fault, MessageSummary, Report};
use crate::envelope::Group;
use crate::invoic::MappingErrorKind;
use crate::segment::ElementPosition;
use crate::{InterchangeHeader, ParseErrorKind};

/// The CONTRL's own references and preparation time, chosen by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContrlParams {
    /// UNB/UNZ 0020 of the CONTRL interchange (an..14).
    pub interchange_reference: String,
    /// UNH/UNT 0062 of the CONTRL message (an..14).
    pub message_reference: String,
    /// UNB S004, the date and time of preparation.
    pub prepared: Prepared,
}

/// A date and time of preparation. Written as YYMMDD and HHMM in syntax 1 to 3 and as
/// CCYYMMDD and HHMM in syntax 4, hence the full year.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prepared {
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
}

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

/// A built CONTRL interchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contrl {
    /// The interchange, encoded in the subject interchange's repertoire.
    pub bytes: Vec<u8>,
    /// The same interchange as text: `bytes` is this text in ISO 8859-1 for UNOC and in
    /// UTF-8 for every other syntax identifier.
    pub text: String,
    /// What UCI says.
    pub action: Action,
    /// UNB 0020 of the subject interchange.
    pub acknowledged_reference: String,
    /// UNB 0020 of the CONTRL interchange (as given in [`ContrlParams`]).
    pub interchange_reference: String,
    /// UNB S001/0001 of both interchanges, e.g. `UNOC`.
    pub syntax_identifier: String,
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

/// The 0085 code for a fault's cause: the table in the module documentation.
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
        Cause::UnsupportedMessageType(_) => E::NoAgreement,
        Cause::NoMessage => E::LowerLevelEmpty,
        _ => E::Unspecified,
    }
}

/// The CONTRL for the interchange `report` describes, or `None` when none is due: the
/// UNB could not be read, it does not ask for an acknowledgement, its repertoire is one
/// this crate cannot write, or the interchange holds only CONTRL messages (a CONTRL is
/// never answered with a CONTRL, which would let two hubs acknowledge each other
/// forever).
///
/// Only the first interchange of the input is acknowledged: faults after its UNZ (data
/// after UNZ, a further interchange) are reported as its own interchange-level fault.
pub fn build(report: &Report, params: &ContrlParams) -> Option<Contrl> {
    let header = report.header.as_ref()?;
    if !header.acknowledgement_requested {
        return None;
    }
    if !report.messages.is_empty()
        && report
            .messages
            .iter()
            .all(|m| m.identifier.message_type == "CONTRL")
    {
        return None;
    }
    let charset = Charset::from_syntax_identifier(header.syntax_identifier.as_bytes())?;
    let syntax4 = header.syntax_version.parse::<u8>().is_ok_and(|v| v >= 4);
    let (uci, ucfs, ucms) = plan(report);
    let action = if report.must_reject() {
        Action::Rejected
    } else {
        Action::Accepted
    };

    let mut w = Writer::new(charset, syntax4);
    w.una();
    write_unb(&mut w, header, params, syntax4);
    let unh_at = w.segments;
    let (version, release) = if syntax4 { ("4", "1") } else { ("D", "3") };
    w.segment(
        "UNH",
        &[
            &[&params.message_reference],
            &["CONTRL", version, release, "UN"],
        ],
    );
    let (uci_code, uci_tag, uci_element) = reported(uci.as_ref());
    w.segment(
        "UCI",
        &[
            &[&header.control_reference],
            &[
                &header.sender_id,
                header.sender_qualifier.as_deref().unwrap_or_default(),
            ],
            &[
                &header.recipient_id,
                header.recipient_qualifier.as_deref().unwrap_or_default(),
            ],
            &[action.code()],
            &[uci_code],
            &[uci_tag],
            &[&uci_element.0, &uci_element.1],
        ],
    );
    // Messages outside groups first (segment group 1), then each group with its
    // messages (segment group 3); an interchange has one kind or the other.
    for ucm in ucms.iter().filter(|u| u.group.is_none()) {
        write_ucm(&mut w, ucm);
    }
    for ucf in &ucfs {
        let g = ucf.group;
        let (code, tag, element) = reported(ucf.error.as_ref());
        w.segment(
            "UCF",
            &[
                &[&g.reference],
                &[
                    g.application_sender.as_deref().unwrap_or_default(),
                    g.sender_qualifier.as_deref().unwrap_or_default(),
                ],
                &[
                    g.application_recipient.as_deref().unwrap_or_default(),
                    g.recipient_qualifier.as_deref().unwrap_or_default(),
                ],
                &[Action::Rejected.code()],
                &[code],
                &[tag],
                &[&element.0, &element.1],
            ],
        );
        for ucm in ucms.iter().filter(|u| u.group == Some(ucf.index)) {
            write_ucm(&mut w, ucm);
        }
    }
    let count = (w.segments - unh_at + 1).to_string();
    w.segment("UNT", &[&[&count], &[&params.message_reference]]);
    w.segment("UNZ", &[&["1"], &[&params.interchange_reference]]);

    Some(Contrl {
        bytes: charset.encode(&w.text),
        text: w.text,
        action,
        acknowledged_reference: header.control_reference.clone(),
        interchange_reference: params.interchange_reference.clone(),
        syntax_identifier: header.syntax_identifier.clone(),
    })
}

/// 0085, 0013 and S011 of an error reported in UCI, UCF or UCM (empty when none).
fn reported(error: Option<&Reported>) -> (&'static str, &'static str, (String, String)) {
    match error {
        Some(e) => (e.code.code(), e.tag, s011(e.element)),
        None => ("", "", (String::new(), String::new())),
    }
}

/// S011's 0098 and 0104 (n..3 each): empty when unknown or too large to write.
fn s011(element: Option<ElementPosition>) -> (String, String) {
    match element.filter(|e| e.element <= 999 && e.component <= 999) {
        Some(e) => (e.element.to_string(), e.component.to_string()),
        None => (String::new(), String::new()),
    }
}

fn write_ucm(w: &mut Writer, ucm: &Ucm<'_>) {
    let (m, id) = (ucm.message, &ucm.message.identifier);
    let (code, tag, element) = reported(ucm.error.as_ref());
    w.segment(
        "UCM",
        &[
            &[&m.reference],
            &[
                &id.message_type,
                &id.version,
                &id.release,
                &id.agency,
                id.association_code.as_deref().unwrap_or_default(),
            ],
            &[Action::Rejected.code()],
            &[code],
            &[tag],
            &[&element.0, &element.1],
        ],
    );
    for ucs in &ucm.segments {
        let code = ucs.error.map(SyntaxError::code).unwrap_or_default();
        w.segment("UCS", &[&[&ucs.position.to_string()], &[code]]);
        for (element, error) in &ucs.elements {
            let (position, component) = s011(Some(*element));
            w.segment("UCD", &[&[error.code()], &[&position, &component]]);
        }
    }
}

fn write_unb(w: &mut Writer, header: &InterchangeHeader, params: &ContrlParams, syntax4: bool) {
    let p = params.prepared;
    let date = if syntax4 {
        format!("{:04}{:02}{:02}", p.year, p.month, p.day)
    } else {
        format!("{:02}{:02}{:02}", p.year % 100, p.month, p.day)
    };
    let time = format!("{:02}{:02}", p.hour, p.minute);
    let test = if header.test_indicator { "1" } else { "" };
    w.segment(
        "UNB",
        &[
            &[&header.syntax_identifier, &header.syntax_version],
            // The CONTRL goes back: its sender is the subject interchange's recipient.
            &[
                &header.recipient_id,
                header.recipient_qualifier.as_deref().unwrap_or_default(),
            ],
            &[
                &header.sender_id,
                header.sender_qualifier.as_deref().unwrap_or_default(),
            ],
            &[&date, &time],
            &[&params.interchange_reference],
            // S005, 0026, 0029, 0031 (never set: a CONTRL is not acknowledged), 0032.
            &[],
            &[],
            &[],
            &[],
            &[],
            &[test],
        ],
    );
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

/// The error a UCI, UCF or UCM carries itself: code, service segment tag (may be empty)
/// and the data element at fault.
struct Reported {
    code: SyntaxError,
    tag: &'static str,
    element: Option<ElementPosition>,
}

/// One UCF: a group with faults of its own or in its messages.
struct Ucf<'a> {
    /// Index in the report's groups.
    index: usize,
    group: &'a Group,
    error: Option<Reported>,
}

/// One UCM and its UCS segments.
struct Ucm<'a> {
    message: &'a MessageSummary,
    /// Index in the report's groups of the group the message is in.
    group: Option<usize>,
    error: Option<Reported>,
    /// One per faulty segment, in input order.
    segments: Vec<Ucs>,
}

/// One UCS and its UCD segments.
struct Ucs {
    /// Position from UNH = 1.
    position: u32,
    /// The first fault of the segment as a whole (UCS 0085), if any.
    error: Option<SyntaxError>,
    /// Faults of single data elements (one UCD each), the first per element.
    elements: Vec<(ElementPosition, SyntaxError)>,
}

/// UCS repeats at most 999 times per message (segment group 2 of CONTRL).
const MAX_UCS: usize = 999;
/// UCD repeats at most 99 times per UCS.
const MAX_UCD: usize = 99;
/// 0096 is n..6.
const MAX_SEGMENT_POSITION: u32 = 999_999;

type UciError = Option<Reported>;

/// Sorts every fault to the level that reports it.
fn plan(report: &Report) -> (UciError, Vec<Ucf<'_>>, Vec<Ucm<'_>>) {
    // The first interchange ends where "data after UNZ" is found; anything from there on
    // belongs to the input, not to the acknowledged interchange.
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
    let groups = &report.groups;
    // The group each message is in; a grouped message whose group was not recorded
    // cannot be placed under a UCF, so its faults go to UCI.
    let group_of: Vec<Option<usize>> = messages
        .iter()
        .map(|m| groups.iter().position(|g| g.contains(m.header.segment)))
        .collect();

    let mut uci: UciError = None;
    let mut ucfs: Vec<Option<Ucf<'_>>> = groups.iter().map(|_| None).collect();
    let mut ucms: Vec<Option<Ucm<'_>>> = messages.iter().map(|_| None).collect();
    for fault in &report.faults {
        let code = syntax_error(&fault.cause);
        let level = match level(fault, &messages, end) {
            Level::Message { index, .. } | Level::Segment { index, .. }
                if messages[index].group_reference.is_some() && group_of[index].is_none() =>
            {
                Level::Interchange
            }
            Level::Interchange => group_level(fault, groups, end),
            level => level,
        };
        let (index, position) = match level {
            Level::Interchange => {
                uci.get_or_insert(Reported {
                    code,
                    tag: interchange_tag(fault).unwrap_or_default(),
                    element: fault.element,
                });
                continue;
            }
            Level::Group { index, tag } => {
                let ucf = ucf_for(&mut ucfs, groups, index);
                ucf.error.get_or_insert(Reported {
                    code,
                    tag,
                    element: fault.element,
                });
                continue;
            }
            Level::Message { index, tag } => {
                let ucm = ucm_for(&mut ucms, &messages, &group_of, index);
                if ucm.error.is_none() {
                    ucm.error = Some(Reported {
                        code,
                        tag,
                        element: fault.element,
                    });
                    continue;
                }
                // A second UNH or UNT fault: report it like a segment's.
                let m = messages[index];
                let position = if tag == "UNT" {
                    m.trailer_segment - m.header.segment + 1
                } else {
                    1
                };
                (index, position)
            }
            Level::Segment { index, position } => (index, position),
        };
        let ucm = ucm_for(&mut ucms, &messages, &group_of, index);
        if position > MAX_SEGMENT_POSITION {
            continue;
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
            None => continue,
        };
        match fault.element {
            Some(element) => {
                if ucs.elements.len() < MAX_UCD && !ucs.elements.iter().any(|(e, _)| *e == element)
                {
                    ucs.elements.push((element, code));
                }
            }
            None => {
                ucs.error.get_or_insert(code);
            }
        }
    }
    // A group whose messages have faults is reported too, without an error of its own.
    for ucm in ucms.iter().flatten() {
        if let Some(index) = ucm.group {
            ucf_for(&mut ucfs, groups, index);
        }
    }
    (
        uci,
        ucfs.into_iter().flatten().collect(),
        ucms.into_iter().flatten().collect(),
    )
}

fn ucm_for<'a, 'b>(
    ucms: &'b mut [Option<Ucm<'a>>],
    messages: &[&'a MessageSummary],
    group_of: &[Option<usize>],
    index: usize,
) -> &'b mut Ucm<'a> {
    ucms[index].get_or_insert_with(|| Ucm {
        message: messages[index],
        group: group_of[index],
        error: None,
        segments: Vec::new(),
    })
}

fn ucf_for<'a, 'b>(
    ucfs: &'b mut [Option<Ucf<'a>>],
    groups: &'a [Group],
    index: usize,
) -> &'b mut Ucf<'a> {
    ucfs[index].get_or_insert_with(|| Ucf {
        index,
        group: &groups[index],
        error: None,
    })
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
        Cause::Mapping(_) => Level::Segment {
            index,
            position: in_message,
        },
        Cause::UnsupportedMessageType(_) => Level::Message { index, tag: "UNH" },
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

/// The CONTRL's own service characters: the ISO 9735 defaults, `*` as repetition
/// separator in syntax 4 only.
const COMPONENT: char = ':';
const ELEMENT: char = '+';
const RELEASE: char = '?';
const REPETITION: char = '*';
const TERMINATOR: char = '\'';

/// `value` with every service character preceded by the release character, so that a
/// reader gets `value` back (ISO 9735: the release character makes the next character
/// data). `repetition` says whether `*` is a service character (syntax 4).
pub fn escape(value: &str, repetition: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, COMPONENT | ELEMENT | RELEASE | TERMINATOR)
            || (repetition && c == REPETITION)
        {
            out.push(RELEASE);
        }
        out.push(c);
    }
    out
}

/// Writes segments as text and counts them.
struct Writer {
    charset: Charset,
    syntax4: bool,
    text: String,
    /// Segments written so far (UNA not counted).
    segments: usize,
}

impl Writer {
    fn new(charset: Charset, syntax4: bool) -> Self {
        Self {
            charset,
            syntax4,
            text: String::with_capacity(256),
            segments: 0,
        }
    }

    fn una(&mut self) {
        let repetition = if self.syntax4 { REPETITION } else { ' ' };
        self.text.extend([
            'U', 'N', 'A', COMPONENT, ELEMENT, '.', RELEASE, repetition, TERMINATOR,
        ]);
    }

    /// One segment; trailing empty components and elements are left out, as ISO 9735
    /// requires.
    fn segment(&mut self, tag: &str, elements: &[&[&str]]) {
        let used = |e: &[&str]| e.iter().rposition(|c| !c.is_empty()).map_or(0, |i| i + 1);
        let count = elements
            .iter()
            .rposition(|e| used(e) > 0)
            .map_or(0, |i| i + 1);
        self.text.push_str(tag);
        for element in &elements[..count] {
            self.text.push(ELEMENT);
            for (i, component) in element[..used(element)].iter().enumerate() {
                if i > 0 {
                    self.text.push(COMPONENT);
                }
                self.value(component);
            }
        }
        self.text.push(TERMINATOR);
        self.segments += 1;
    }

    /// A value in the repertoire, escaped.
    fn value(&mut self, value: &str) {
        let writable: String = value
            .chars()
            .map(|c| self.charset.writable(c).unwrap_or('?'))
            .collect();
        self.text.push_str(&escape(&writable, self.syntax4));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Interchange;
    use crate::check::evaluate;

    const SAMPLE: &str = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi");

    fn params() -> ContrlParams {
        ContrlParams {
            interchange_reference: "C0000000000001".into(),
            message_reference: "1".into(),
            prepared: Prepared {
                year: 2026,
                month: 12,
                day: 3,
                hour: 9,
                minute: 5,
            },
        }
    }

    /// The sample with UNB asking for an acknowledgement.
    fn acked(input: &str) -> String {
        input.replace("+EH000001++INVOIC'", "+EH000001++INVOIC++1'")
    }

    fn contrl(input: &str) -> Contrl {
        build(&evaluate(input.as_bytes()), &params()).expect("a CONTRL is due")
    }

    /// The CONTRL, read back with the crate's own strict parser.
    fn reread(c: &Contrl) -> Interchange {
        Interchange::parse(&c.bytes)
            .unwrap_or_else(|e| panic!("the CONTRL does not parse: {e}\n{}", c.text))
    }

    fn segments_of(c: &Contrl) -> Vec<String> {
        c.text.split_inclusive('\'').map(str::to_owned).collect()
    }

    #[test]
    fn an_accepted_interchange_gets_uci_7_and_the_contrl_parses_back() {
        let c = contrl(&acked(SAMPLE));
        assert_eq!(c.action, Action::Accepted);
        assert_eq!(c.acknowledged_reference, "EH000001");
        assert_eq!(
            c.text,
            "UNA:+.? '\
             UNB+UNOC:3+4012345000094:14+5412345000013:14+261203:0905+C0000000000001'\
             UNH+1+CONTRL:D:3:UN'\
             UCI+EH000001+5412345000013:14+4012345000094:14+7'\
             UNT+3+1'\
             UNZ+1+C0000000000001'"
        );
        let i = reread(&c);
        assert_eq!(i.header.sender_id, "4012345000094");
        assert_eq!(i.header.recipient_id, "5412345000013");
        assert_eq!(i.header.recipient_qualifier.as_deref(), Some("14"));
        assert_eq!(i.header.control_reference, "C0000000000001");
        assert!(!i.header.acknowledgement_requested);
        assert_eq!(i.messages.len(), 1);
        let m = &i.messages[0];
        assert_eq!(
            (m.message_type.as_str(), m.version.as_str()),
            ("CONTRL", "D")
        );
        // The strict parse checked UNT's count; say it once more in numbers.
        assert_eq!(m.segments.len(), 3);
    }

    #[test]
    fn no_acknowledgement_requested_or_no_header_gives_none() {
        assert_eq!(build(&evaluate(SAMPLE.as_bytes()), &params()), None);
        assert_eq!(build(&evaluate(b"not edifact"), &params()), None);
    }

    #[test]
    fn an_interchange_of_contrl_messages_is_not_acknowledged() {
        let c = contrl(&acked(SAMPLE));
        let mut report = evaluate(&c.bytes);
        assert!(report.header.is_some());
        if let Some(h) = report.header.as_mut() {
            h.acknowledgement_requested = true;
        }
        assert_eq!(build(&report, &params()), None);
    }

    #[test]
    fn a_faulty_message_gets_ucm_4_and_ucs_with_its_position_and_code() {
        let input = acked(SAMPLE).replace("MOA+9:267.75", "MOA+9:26O");
        let c = contrl(&input);
        assert_eq!(c.action, Action::Rejected);
        let segments = segments_of(&c);
        assert!(
            segments.contains(&"UCI+EH000001+5412345000013:14+4012345000094:14+4'".to_owned()),
            "{segments:?}"
        );
        // MOA+9 is segment 31 of the interchange and UNH segment 2: position 30.
        assert!(
            segments.contains(&"UCM+1+INVOIC:D:96A:UN:EAN008+4'".to_owned()),
            "{segments:?}"
        );
        // The segment is sound as such; its element 1, component 2 (5004) is not.
        let ucs = segments.iter().position(|s| s == "UCS+30'");
        let ucd = segments.iter().position(|s| s == "UCD+12+1:2'");
        assert!(ucs.is_some() && ucd == ucs.map(|i| i + 1), "{segments:?}");
        let i = reread(&c);
        assert_eq!(i.messages[0].segments.len(), 6);
    }

    #[test]
    fn element_faults_get_a_ucd_each_and_segment_faults_stay_in_ucs() {
        // A character UNOC does not allow in NAD 3036 (element 4, component 1) and an
        // impossible date in DTM+137 2380 (element 1, component 2).
        let input = acked(SAMPLE)
            .replace("Muster Lieferant", "Muster\u{1}Lieferant")
            .replace("DTM+137:20261202:102", "DTM+137:20261332:102");
        let segments = segments_of(&contrl(&input));
        let after = |first: &str| {
            let i = segments
                .iter()
                .position(|s| s == first)
                .unwrap_or_else(|| panic!("{first} in {segments:?}"));
            segments[i + 1].clone()
        };
        // DTM+137 is segment 3 of the message, NAD+SU segment 6.
        assert_eq!(after("UCS+3'"), "UCD+12+1:2'", "{segments:?}");
        assert_eq!(after("UCS+6'"), "UCD+21+4:1'", "{segments:?}");
    }

    #[test]
    fn a_wrong_unt_count_is_reported_in_ucm() {
        let input = acked(SAMPLE).replace("UNT+34+1", "UNT+33+1");
        let segments = segments_of(&contrl(&input));
        assert!(
            segments.contains(&"UCM+1+INVOIC:D:96A:UN:EAN008+4+29+UNT'".to_owned()),
            "{segments:?}"
        );
    }

    #[test]
    fn interchange_level_faults_go_in_uci() {
        let input = acked(SAMPLE).replace("UNZ+1+EH000001", "UNZ+2+EH000001");
        let segments = segments_of(&contrl(&input));
        assert!(
            segments
                .contains(&"UCI+EH000001+5412345000013:14+4012345000094:14+4+29+UNZ'".to_owned()),
            "{segments:?}"
        );
        assert!(!segments.iter().any(|s| s.starts_with("UCM")));

        // A truncated interchange: no message could be read, UCI carries "missing".
        let cut = &acked(SAMPLE)[..acked(SAMPLE).find("UNT+").unwrap_or(0)];
        let c = contrl(cut);
        assert_eq!(c.action, Action::Rejected);
        assert!(c.text.contains("+4+13'"), "{}", c.text);
        reread(&c);
    }

    #[test]
    fn an_unsupported_message_type_is_no_agreement_in_ucm() {
        let input = acked(SAMPLE).replace("UNH+1+INVOIC", "UNH+1+DESADV");
        let segments = segments_of(&contrl(&input));
        assert!(
            segments.contains(&"UCM+1+DESADV:D:96A:UN:EAN008+4+17+UNH'".to_owned()),
            "{segments:?}"
        );
    }

    #[test]
    fn values_with_service_characters_are_released() {
        assert_eq!(escape("A?B+C:D'E*F", false), "A??B?+C?:D?'E*F");
        assert_eq!(escape("A*B", true), "A?*B");
        assert_eq!(escape("plain", true), "plain");

        let input = acked(SAMPLE)
            .replace("UNB+UNOC:3+5412345000013:14", "UNB+UNOC:3+ACME?+CO?:1:14")
            .replace("+EH000001+", "+REF?'??1+")
            .replace("UNZ+1+EH000001", "UNZ+1+REF?'??1");
        let c = contrl(&input);
        assert!(
            c.text
                .contains("UCI+REF?'??1+ACME?+CO?:1:14+4012345000094:14+7'"),
            "{}",
            c.text
        );
        let i = reread(&c);
        assert_eq!(i.header.recipient_id, "ACME+CO:1");
    }

    #[test]
    fn syntax_4_writes_the_century_the_repetition_separator_and_contrl_4_1() {
        let input = acked(SAMPLE)
            .replace("UNA:+.? '", "UNA:+.?*'")
            .replace("UNOC:3", "UNOC:4")
            .replace("261202:1400", "20261202:1400")
            .replace("+EH000001++INVOIC++1'", "+EH?*1++INVOIC++1++1'")
            .replace("UNZ+1+EH000001", "UNZ+1+EH?*1");
        let c = contrl(&input);
        assert!(c.text.starts_with("UNA:+.?*'UNB+UNOC:4+"), "{}", c.text);
        assert!(
            c.text.contains("+20261203:0905+C0000000000001++++++1'"),
            "{}",
            c.text
        );
        assert!(c.text.contains("UNH+1+CONTRL:4:1:UN'"), "{}", c.text);
        assert!(c.text.contains("UCI+EH?*1+"), "{}", c.text);
        let i = reread(&c);
        assert!(i.header.test_indicator);
    }

    #[test]
    fn values_outside_the_repertoire_are_replaced_and_latin1_is_encoded() {
        // UNOC is ISO 8859-1: the sender's u-umlaut is the single byte 0xFC.
        let input = acked(SAMPLE).replacen("5412345000013:14+", "M\u{1}ller:14+", 1);
        let bytes: Vec<u8> = input
            .bytes()
            .map(|b| if b == 1 { 0xFC } else { b })
            .collect();
        let c = build(&evaluate(&bytes), &params()).expect("a CONTRL is due");
        assert!(c.text.contains("UCI+EH000001+Müller:14+"), "{}", c.text);
        // UNOC: one byte per character.
        assert!(c.bytes.windows(6).any(|w| w == b"M\xFCller"));
        reread(&c);

        // UNOA has neither the u-umlaut nor lower case: the reader reported both and
        // decoded lossily; the CONTRL upper-cases and writes `?` (released) instead.
        let mut raw = bytes.clone();
        let at = raw
            .windows(6)
            .position(|w| w == b"UNOC:3")
            .expect("syntax identifier");
        raw[at + 3] = b'A';
        let c = build(&evaluate(&raw), &params()).expect("a CONTRL is due");
        assert!(c.text.contains("UCI+EH000001+M??LLER:14+"), "{}", c.text);
        reread(&c);
        assert_eq!(Charset::LevelA.writable('a'), Some('A'));
        assert_eq!(Charset::LevelA.writable('\u{fc}'), None);
        assert_eq!(Charset::AsciiPartOf("UNOD").writable('\u{fc}'), None);
    }
}
