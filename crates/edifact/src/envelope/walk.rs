//! The envelope walk: one pass over the segments that checks UNB..UNZ, UNG..UNE and
//! UNH..UNT nesting, counts and references, and hands each message on at its UNT.
//!
//! Segments outside a message are read into one arena, which is cleared after each; a
//! UNH takes that arena over as its message's, and the arena comes back cleared after
//! UNT, so one set of buffers serves every message.

use std::collections::HashSet;

use super::fields::{
    check_reference, count, header_from_unb, open_message, optional, required, unbalanced,
};
use super::package::read_package;
use super::{
    Findings, Group, Interchange, InterchangeHeader, Message, Mode, Package, first_segment, start,
};
use crate::charset::CharsetWarnings;
use crate::error::{ParseError, ParseErrorKind};
use crate::segment::{Segment, Segments, SourcePosition};
use crate::syntax::Delimiters;
use crate::tokenizer::Tokenizer;

/// What a walk lends each message to, with the charset warnings found so far.
pub(crate) type OnMessage<'a> = dyn FnMut(&Message, &CharsetWarnings) + 'a;

/// Each message is lent to `on_message` as soon as its UNT has been read, with the charset
/// warnings found so far, so only one message is held at a time; the returned interchange
/// has no messages.
pub(super) fn walk(
    input: &[u8],
    findings: &mut Findings,
    on_message: &mut OnMessage<'_>,
) -> Result<Interchange, ParseError> {
    let collect = findings.mode == Mode::Collect;
    let (tokenizer, delimiters) = start(input)?;
    let tokenizer = tokenizer.with_policy(findings.policy);
    let mut tokenizer = if collect {
        tokenizer.collecting()
    } else {
        tokenizer
    };
    let mut next = Segments::default();
    let unb = first_segment(&mut tokenizer, &mut next);
    tokenizer.take_warnings(&mut findings.warnings);
    let header = header_from_unb(&unb?)?;
    findings.found.extend(tokenizer.take_deferred());
    next.clear();
    let mut walk = Walk {
        tokenizer,
        findings,
        collect,
        delimiters,
        header,
        package_trailer: Segments::default(),
        packages: Vec::new(),
        references: HashSet::new(),
        open: None,
        group: None,
        groups: 0,
        closed_groups: Vec::new(),
        ungrouped: 0,
    };
    loop {
        if !walk.read(&mut next)? {
            continue;
        }
        if walk.open.is_some() {
            walk.in_message(&mut next, on_message)?;
            continue;
        }
        if walk.outside_message(&mut next)? {
            return Ok(walk.into_interchange());
        }
        next.clear();
    }
}

/// A UNG whose UNE has not been read yet.
struct OpenGroup {
    group: Group,
    messages: u64,
}

/// The walk's state between two segments.
struct Walk<'i, 'f> {
    tokenizer: Tokenizer<'i>,
    findings: &'f mut Findings,
    /// [`Mode::Collect`]: recoverable defects are recorded and the walk goes on.
    collect: bool,
    delimiters: Delimiters,
    header: InterchangeHeader,
    /// The UNP after a package object.
    package_trailer: Segments,
    packages: Vec<Package>,
    /// Message references seen so far, to find duplicates.
    references: HashSet<String>,
    open: Option<Message>,
    group: Option<OpenGroup>,
    /// UNGs read.
    groups: u64,
    closed_groups: Vec<Group>,
    /// Messages read outside groups.
    ungrouped: u64,
}

impl Walk<'_, '_> {
    /// Reads the next segment into the open message's arena, or into `next` outside a
    /// message. `Ok(false)` when the segment was a defect the walk can go on after
    /// (collecting only); the input ending before UNZ is an error.
    fn read(&mut self, next: &mut Segments) -> Result<bool, ParseError> {
        let here = self.tokenizer.here();
        let into = match self.open.as_mut() {
            Some(message) => &mut message.segments,
            None => next,
        };
        let Some(read) = self.tokenizer.next_segment(into) else {
            // The input ended before UNZ (and maybe inside a message).
            return Err(ParseError::new(ParseErrorKind::Truncated, here));
        };
        self.findings.found.extend(self.tokenizer.take_deferred());
        self.tokenizer.take_warnings(&mut self.findings.warnings);
        match read {
            Ok(()) => Ok(true),
            // The tokenizer has already moved past these; the walk can go on.
            Err(e)
                if self.collect
                    && matches!(
                        e.kind,
                        ParseErrorKind::EmptySegment | ParseErrorKind::InvalidTag(_)
                    ) =>
            {
                self.findings.found.push(e);
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// The segment just read into the open message: UNT closes the message and lends it
    /// to `on_message`, handing its arena back as `next`; any other service segment
    /// means UNT is missing.
    fn in_message(
        &mut self,
        next: &mut Segments,
        on_message: &mut OnMessage<'_>,
    ) -> Result<(), ParseError> {
        let Some(message) = self.open.as_ref() else {
            return Ok(());
        };
        let Some(segment) = message.segments.last() else {
            return Ok(());
        };
        match segment.tag {
            "UNT" => {
                let declared = count(&segment, "UNT 0074 number of segments")?;
                let actual = message.segments.len() as u64;
                if declared != actual {
                    self.findings.report(ParseError::new(
                        ParseErrorKind::SegmentCountMismatch { declared, actual },
                        segment.position,
                    ))?;
                }
                check_reference(
                    self.findings,
                    &segment,
                    "UNT",
                    "UNH",
                    &message.reference,
                    "UNT 0062",
                )?;
                if let Some(m) = self.open.take() {
                    on_message(&m, &self.findings.warnings);
                    *next = m.segments;
                    next.clear();
                }
            }
            "UNH" | "UNB" | "UNZ" | "UNG" | "UNE" | "UNO" | "UNP" => {
                return unbalanced(segment.position, "message not closed by UNT");
            }
            _ => {}
        }
        Ok(())
    }

    /// The segment just read outside a message, the only one in `next`. `Ok(true)` at
    /// UNZ, which ends the walk.
    fn outside_message(&mut self, next: &mut Segments) -> Result<bool, ParseError> {
        let Some(segment) = next.last() else {
            return Ok(false);
        };
        let position = segment.position;
        match segment.tag {
            "UNH" => {
                let mut message = self.unh(&segment)?;
                message.segments = std::mem::take(next);
                self.open(message, position)?;
            }
            "UNG" => self.ung(&segment)?,
            "UNE" => self.une(&segment)?,
            "UNO" => {
                if self.group.is_some() || self.groups > 0 {
                    return unbalanced(position, "package inside or beside groups");
                }
                let package =
                    read_package(&mut self.tokenizer, &segment, &mut self.package_trailer)?;
                self.packages.push(package);
            }
            "UNZ" => {
                self.unz(&segment)?;
                return Ok(true);
            }
            "UNT" => return unbalanced(position, "UNT without UNH"),
            "UNB" => return unbalanced(position, "UNB inside an interchange"),
            "UNP" => return unbalanced(position, "UNP without UNO"),
            _ if self.collect => self.findings.found.push(ParseError::new(
                ParseErrorKind::UnbalancedEnvelope("data segment outside a message"),
                position,
            )),
            _ => return unbalanced(position, "data segment outside a message"),
        }
        Ok(false)
    }

    /// The message `unh` opens, still without its segments.
    fn unh(&self, unh: &Segment<'_>) -> Result<Message, ParseError> {
        if self.groups > 0 && self.group.is_none() {
            return unbalanced(
                unh.position,
                "UNH outside a group in an interchange that uses groups",
            );
        }
        let group_reference = self.group.as_ref().map(|g| g.group.reference.clone());
        open_message(unh, group_reference)
    }

    /// Opens `message`, whose UNH is at `position`, and counts it.
    fn open(&mut self, message: Message, position: SourcePosition) -> Result<(), ParseError> {
        if !self.references.insert(message.reference.clone()) {
            self.findings.report(ParseError::new(
                ParseErrorKind::DuplicateMessageReference(message.reference.clone()),
                position,
            ))?;
        }
        match self.group.as_mut() {
            Some(g) => g.messages += 1,
            None => self.ungrouped += 1,
        }
        self.open = Some(message);
        Ok(())
    }

    fn ung(&mut self, ung: &Segment<'_>) -> Result<(), ParseError> {
        let position = ung.position;
        if self.group.is_some() {
            return unbalanced(position, "UNG inside an open group");
        }
        if self.ungrouped > 0 || !self.packages.is_empty() {
            return unbalanced(position, "UNG after messages outside groups");
        }
        let reference = required(ung, 4, 0, "UNG 0048 group reference number")?;
        self.group = Some(OpenGroup {
            group: Group {
                reference,
                application_sender: optional(ung, 1, 0),
                sender_qualifier: optional(ung, 1, 1),
                application_recipient: optional(ung, 2, 0),
                recipient_qualifier: optional(ung, 2, 1),
                header: position,
                trailer_segment: position.segment,
            },
            messages: 0,
        });
        self.groups += 1;
        Ok(())
    }

    fn une(&mut self, une: &Segment<'_>) -> Result<(), ParseError> {
        let position = une.position;
        let Some(g) = self.group.take() else {
            return unbalanced(position, "UNE without UNG");
        };
        let declared = count(une, "UNE 0060 number of messages")?;
        if declared != g.messages {
            self.findings.report(ParseError::new(
                ParseErrorKind::MessageCountMismatch {
                    trailer: "UNE",
                    declared,
                    actual: g.messages,
                },
                position,
            ))?;
        }
        let mut closed = g.group;
        check_reference(
            self.findings,
            une,
            "UNE",
            "UNG",
            &closed.reference,
            "UNE 0048",
        )?;
        closed.trailer_segment = position.segment;
        self.closed_groups.push(closed);
        Ok(())
    }

    /// UNZ: counts and reference, and nothing may follow it (collected, when collecting).
    fn unz(&mut self, unz: &Segment<'_>) -> Result<(), ParseError> {
        let position = unz.position;
        if self.group.is_some() {
            return unbalanced(position, "group not closed by UNE");
        }
        // ISO 9735-1: groups if used, otherwise messages and packages.
        let actual = if self.groups > 0 {
            self.groups
        } else {
            self.ungrouped + self.packages.len() as u64
        };
        let declared = count(unz, "UNZ 0036 interchange control count")?;
        if declared != actual {
            self.findings.report(ParseError::new(
                ParseErrorKind::MessageCountMismatch {
                    trailer: "UNZ",
                    declared,
                    actual,
                },
                position,
            ))?;
        }
        check_reference(
            self.findings,
            unz,
            "UNZ",
            "UNB",
            &self.header.control_reference,
            "UNZ 0020",
        )?;
        if !self.tokenizer.at_end() {
            let trailing = ParseError::new(ParseErrorKind::TrailingData, self.tokenizer.here());
            if !self.collect {
                return Err(trailing);
            }
            self.findings.found.push(trailing);
        }
        Ok(())
    }

    fn into_interchange(self) -> Interchange {
        Interchange {
            delimiters: self.delimiters,
            header: self.header,
            messages: Vec::new(),
            groups: self.closed_groups,
            packages: self.packages,
        }
    }
}
