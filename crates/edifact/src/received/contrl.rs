//! A partner's CONTRL (D:3 and 4:1, whose elements sit at the same positions).
//!
//! - `UCI`: 0020 (required: it is what the CONTRL acknowledges), S002 and S003
//!   (optional), 0083 (required, from the code list), then an optional error: 0085,
//!   0013, S011.
//! - `UCF` (segment group 3): 0048 and 0083 required, S006 and S007 optional, then an
//!   optional error. The UCMs after a UCF are that group's messages.
//! - `UCM`: 0062 and 0083 required, S009 optional, then an optional error.
//! - `UCS`: 0096 required (a number: the segment's position from UNH = 1), 0085
//!   optional; only after a UCM.
//! - `UCD`: 0085 required, S011 optional; only after a UCS. A UCS without a code of its
//!   own stands only for the UCDs under it, so it yields no error of its own when it has
//!   some.
//!
//! Other segments (none in either version) are passed over. An accepting UCI or UCF
//! with a rejected level below it becomes `partially-accepted`.

use super::codes;
use super::error::{ReadError, ReadErrorKind};
use super::fields::{number, optional, party, required, required_number};
use super::{AcknowledgedGroup, AcknowledgedMessage, Action, ErroneousElement};
use super::{ReceivedAcknowledgement, ReportedError, empty};
use crate::{Message, Segment};

/// Decodes a CONTRL message.
pub(super) fn read(message: &Message) -> Result<ReceivedAcknowledgement, ReadError> {
    let mut decoder = Decoder {
        ack: empty(message, Action::Received),
        uci_seen: false,
        message_open: false,
        ucs: None,
    };
    for segment in &message.segments {
        decoder.segment(&segment)?;
    }
    if !decoder.uci_seen {
        let kind = ReadErrorKind::MissingSegment("UCI");
        return Err(ReadError::new(kind, decoder.ack.position));
    }
    Ok(finish(decoder.ack))
}

struct Decoder {
    ack: ReceivedAcknowledgement,
    uci_seen: bool,
    /// A UCM has been read since the last UCF: UCS segments belong to it.
    message_open: bool,
    /// 0096 of the UCS read last in the open message: UCD segments belong to it.
    ucs: Option<u32>,
}

impl Decoder {
    fn segment(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        match segment.tag {
            "UCI" => self.uci(segment),
            "UCF" => self.ucf(segment),
            "UCM" => self.ucm(segment),
            "UCS" => self.ucs(segment),
            "UCD" => self.ucd(segment),
            _ => Ok(()),
        }
    }

    fn uci(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        if self.uci_seen {
            return Err(misplaced("UCI", "occurs twice", segment));
        }
        self.uci_seen = true;
        let ack = &mut self.ack;
        ack.interchange_reference =
            Some(required(segment, (0, 0), "0020", "interchange control reference")?.into());
        ack.interchange_sender = party(segment, 1);
        ack.interchange_recipient = party(segment, 2);
        ack.action = action(segment, 3)?;
        ack.errors.extend(level_error(segment, 4)?);
        Ok(())
    }

    fn ucf(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        let reference = required(segment, (0, 0), "0048", "group reference")?;
        self.ack.groups.push(AcknowledgedGroup {
            reference: reference.to_owned(),
            application_sender: party(segment, 1),
            application_recipient: party(segment, 2),
            action: action(segment, 3)?,
            errors: level_error(segment, 4)?.into_iter().collect(),
            position: segment.position,
        });
        self.message_open = false;
        self.ucs = None;
        Ok(())
    }

    fn ucm(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        let reference = required(segment, (0, 0), "0062", "message reference")?;
        self.ack.messages.push(AcknowledgedMessage {
            reference: reference.to_owned(),
            message_type: optional(segment, 1, 0),
            version: optional(segment, 1, 1),
            release: optional(segment, 1, 2),
            agency: optional(segment, 1, 3),
            association_code: optional(segment, 1, 4),
            group_reference: self.ack.groups.last().map(|g| g.reference.clone()),
            action: action(segment, 2)?,
            errors: level_error(segment, 3)?.into_iter().collect(),
            position: segment.position,
        });
        self.message_open = true;
        self.ucs = None;
        Ok(())
    }

    fn ucs(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        let Some(message) = self.ack.messages.last_mut().filter(|_| self.message_open) else {
            return Err(misplaced("UCS", "is not under a UCM", segment));
        };
        let at = required_number(segment, (0, 0), "0096", "segment position in message")?;
        let mut error = syntax_error(optional(segment, 1, 0), segment);
        error.segment_position = Some(at);
        message.errors.push(error);
        self.ucs = Some(at);
        Ok(())
    }

    fn ucd(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        let (Some(at), Some(message)) = (self.ucs, self.ack.messages.last_mut()) else {
            return Err(misplaced("UCD", "is not under a UCS", segment));
        };
        let code = required(segment, (0, 0), "0085", "syntax error")?;
        let mut error = syntax_error(Some(code.to_owned()), segment);
        error.segment_position = Some(at);
        error.element = s011(segment, 1)?;
        // The UCS said only "this segment"; its UCDs say what is wrong in it.
        let placeholder = |e: &ReportedError| {
            e.code.is_none() && e.element.is_none() && e.segment_position == Some(at)
        };
        if message.errors.last().is_some_and(placeholder) {
            message.errors.pop();
        }
        message.errors.push(error);
        Ok(())
    }
}

/// 0083 at element `index`, required and from the code list.
fn action(segment: &Segment<'_>, index: usize) -> Result<Action, ReadError> {
    let code = required(segment, (index, 0), "0083", "action")?;
    codes::action(code).ok_or_else(|| {
        ReadError::new(
            ReadErrorKind::UnknownAction(code.to_owned()),
            segment.position,
        )
        .in_element(index, 0)
    })
}

/// The error of a UCI, UCF or UCM: 0085, 0013 and S011 from element `first` on; `None`
/// when all three are absent.
fn level_error(segment: &Segment<'_>, first: usize) -> Result<Option<ReportedError>, ReadError> {
    let code = optional(segment, first, 0);
    let tag = optional(segment, first + 1, 0);
    let element = s011(segment, first + 2)?;
    if code.is_none() && tag.is_none() && element.is_none() {
        return Ok(None);
    }
    let mut error = syntax_error(code, segment);
    error.segment_tag = tag;
    error.element = element;
    Ok(Some(error))
}

/// S011 at element `index`: `None` without a data element position (0098).
fn s011(segment: &Segment<'_>, index: usize) -> Result<Option<ErroneousElement>, ReadError> {
    let Some(element) = number(segment, (index, 0), "0098")? else {
        return Ok(None);
    };
    Ok(Some(ErroneousElement {
        element,
        component: number(segment, (index, 1), "0104")?,
        occurrence: number(segment, (index, 2), "0136")?,
    }))
}

/// An error with 0085 `code` and its meaning, reported by `segment`.
fn syntax_error(code: Option<String>, segment: &Segment<'_>) -> ReportedError {
    let mut error = ReportedError::at(code, segment.position);
    error.meaning = error
        .code
        .as_deref()
        .and_then(codes::syntax_error_meaning)
        .map(str::to_owned);
    error
}

fn misplaced(tag: &'static str, why: &'static str, segment: &Segment<'_>) -> ReadError {
    ReadError::new(ReadErrorKind::Misplaced { tag, why }, segment.position)
}

/// Accepting levels with a rejected level below become `partially-accepted`.
fn finish(mut ack: ReceivedAcknowledgement) -> ReceivedAcknowledgement {
    for group in &mut ack.groups {
        let below = ack
            .messages
            .iter()
            .filter(|m| m.group_reference.as_deref() == Some(group.reference.as_str()));
        group.action = partially(group.action, below.map(|m| m.action));
    }
    let below = ack.groups.iter().map(|g| g.action);
    let below = below.chain(ack.messages.iter().map(|m| m.action));
    ack.action = partially(ack.action, below);
    ack
}

fn partially(action: Action, mut below: impl Iterator<Item = Action>) -> Action {
    if action == Action::Accepted && below.any(|a| a != Action::Accepted) {
        Action::PartiallyAccepted
    } else {
        action
    }
}
