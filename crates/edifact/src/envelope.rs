//! Service segments: UNB/UNZ, UNG/UNE, UNH/UNT and syntax 4 packages (UNO/UNP).
//!
//! This is where ISO 9735's nesting and control rules are enforced: every UNH has a UNT
//! whose count and reference agree, groups are closed, UNZ counts what the interchange
//! holds and repeats UNB's reference. Count and reference defects are "control defects":
//! the content is still readable, so the tolerant entry point reports them as findings
//! while the strict one fails on the first.

use std::collections::HashSet;

use crate::charset::Charset;
use crate::error::{ParseError, ParseErrorKind};
use crate::segment::{Segment, Segments, SourcePosition};
use crate::syntax::{Delimiters, read_preamble};
use crate::tokenizer::Tokenizer;

/// What UNB says about the interchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterchangeHeader {
    /// S001/0001, e.g. `UNOC`.
    pub syntax_identifier: String,
    /// S001/0002, e.g. `3`.
    pub syntax_version: String,
    /// S002/0004.
    pub sender_id: String,
    /// S002/0007, e.g. `14` (GLN).
    pub sender_qualifier: Option<String>,
    /// S003/0010.
    pub recipient_id: String,
    /// S003/0007.
    pub recipient_qualifier: Option<String>,
    /// S004/0017, as sent (YYMMDD in syntax 1-3, CCYYMMDD in syntax 4).
    pub prepared_date: String,
    /// S004/0019, HHMM.
    pub prepared_time: String,
    /// 0020, the interchange control reference UNZ must repeat.
    pub control_reference: String,
    /// 0031 = `1`: the sender asks for a CONTRL acknowledgement.
    pub acknowledgement_requested: bool,
    /// 0035 = `1`: a test interchange.
    pub test_indicator: bool,
}

impl InterchangeHeader {
    /// Reads only UNA/UNB: cheap, used by the AS2 gateway on every message.
    ///
    /// It validates UNB itself (delimiters, syntax identifier, charset of its values,
    /// mandatory elements) but looks at nothing after it, so a truncated or otherwise
    /// broken body still yields the routing information needed to answer the partner.
    pub fn peek(input: &[u8]) -> Result<InterchangeHeader, ParseError> {
        let (mut tokenizer, _) = start(input)?;
        let mut read = Segments::default();
        let unb = first_segment(&mut tokenizer, &mut read)?;
        header_from_unb(&unb)
    }
}

/// One UNH..UNT message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// UNH 0062, the message reference number.
    pub reference: String,
    /// S009/0065, e.g. `INVOIC`.
    pub message_type: String,
    /// S009/0052, e.g. `D`.
    pub version: String,
    /// S009/0054, e.g. `96A`.
    pub release: String,
    /// S009/0051, e.g. `UN`.
    pub agency: String,
    /// S009/0057, e.g. `EAN008`.
    pub association_code: Option<String>,
    /// UNG 0048 of the group the message is in; `None` outside groups. A CONTRL reports
    /// grouped messages under their group, so the reader keeps which one that was.
    pub group_reference: Option<String>,
    /// UNH..UNT inclusive, in input order.
    pub segments: Segments,
}

/// A UNG..UNE functional group, as a CONTRL's UCF names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// UNG/UNE 0048, the group reference number.
    pub reference: String,
    /// UNG S006/0040, the application sender identification.
    pub application_sender: Option<String>,
    /// UNG S006/0007, its code qualifier.
    pub sender_qualifier: Option<String>,
    /// UNG S007/0044, the application recipient identification.
    pub application_recipient: Option<String>,
    /// UNG S007/0007, its code qualifier.
    pub recipient_qualifier: Option<String>,
    /// Where UNG is.
    pub header: SourcePosition,
    /// Segment number of UNE.
    pub trailer_segment: u32,
}

impl Group {
    /// Does segment number `segment` lie inside this group (UNG and UNE included)?
    pub fn contains(&self, segment: u32) -> bool {
        (self.header.segment..=self.trailer_segment).contains(&segment)
    }
}

/// A syntax 4 package (UNO..UNP, ISO 9735-8): an opaque object such as an attached PDF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// UNO 0800, the package reference number.
    pub reference: String,
    /// The object's bytes, exactly as sent.
    pub object: Vec<u8>,
    /// Position of the UNO segment.
    pub position: SourcePosition,
}

/// A parsed and envelope-checked interchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interchange {
    /// The delimiters in force (from UNA, or the defaults).
    pub delimiters: Delimiters,
    /// UNB.
    pub header: InterchangeHeader,
    /// All messages, whether or not they were inside UNG..UNE groups.
    pub messages: Vec<Message>,
    /// The UNG..UNE groups, in input order (none when the interchange does not use them).
    pub groups: Vec<Group>,
    /// Syntax 4 packages, in input order (usually none).
    pub packages: Vec<Package>,
}

impl Interchange {
    /// Parses and checks one interchange; the first defect of any kind is an error.
    pub fn parse(input: &[u8]) -> Result<Interchange, ParseError> {
        parse(input, Mode::Strict).map(|(interchange, _)| interchange)
    }

    /// Like [`Interchange::parse`], but control defects (counts, references, duplicate
    /// message references; see [`ParseError::is_control_defect`]) are returned as findings
    /// instead of failing. Real senders get these wrong while the content is fine; the
    /// caller decides whether to accept, reject or CONTRL-report them. Any other defect is
    /// still an error.
    pub fn parse_tolerant(input: &[u8]) -> Result<(Interchange, Vec<ParseError>), ParseError> {
        parse(input, Mode::Tolerant)
    }

    /// Reads as far as the input allows and returns *every* defect found on the way, in
    /// input order: the control defects of [`Interchange::parse_tolerant`], and also
    /// values outside the declared character set (one finding per segment; the value is
    /// then decoded lossily), empty segments, invalid segment tags (reading resumes after
    /// the next segment terminator), data segments outside a message and data after UNZ.
    ///
    /// `Ok` holds the interchange and its findings (possibly none); `Err` holds the
    /// findings when a defect made the rest unreadable (truncation, broken nesting, a
    /// broken UNA/UNB), the fatal one last. Any finding means the interchange is not
    /// sound; this entry point exists so that a rejection can name all of them at once.
    pub fn parse_collecting(
        input: &[u8],
    ) -> Result<(Interchange, Vec<ParseError>), Vec<ParseError>> {
        let mut messages = Vec::new();
        let (mut interchange, findings) =
            Self::parse_streaming(input, &mut |message| messages.push(message.clone()))?;
        interchange.messages = messages;
        Ok((interchange, findings))
    }

    /// [`Interchange::parse_collecting`] without holding the messages: each one is lent
    /// to `on_message` as soon as its UNT is read, and the returned interchange has none.
    /// The next message reuses the lent one's buffers, so reading allocates next to
    /// nothing per message.
    /// Memory stays at one message (plus a few bytes per message reference, kept to
    /// find duplicates) however large the input. A message handed out is only part of a
    /// sound interchange if the result is `Ok` with no findings.
    pub fn parse_streaming(
        input: &[u8],
        on_message: &mut dyn FnMut(&Message),
    ) -> Result<(Interchange, Vec<ParseError>), Vec<ParseError>> {
        let mut findings = Findings {
            mode: Mode::Collect,
            found: Vec::new(),
        };
        match walk(input, &mut findings, on_message) {
            Ok(interchange) => Ok((interchange, findings.found)),
            Err(fatal) => {
                findings.found.push(fatal);
                Err(findings.found)
            }
        }
    }
}

/// Every segment of `input` in order, service segments (UNB..UNZ) included, with the
/// delimiters in force: the tokenizer alone, without envelope checks. For tools and
/// cross-checks against other parsers; the hub itself uses [`Interchange`]. Stops at the
/// first defect (a syntax-4 package body is one: it is not made of segments).
pub fn segments(input: &[u8]) -> Result<(Delimiters, Segments), ParseError> {
    let (mut tokenizer, delimiters) = start(input)?;
    let mut segments = Segments::default();
    while let Some(read) = tokenizer.next_segment(&mut segments) {
        read?;
    }
    Ok((delimiters, segments))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Strict,
    Tolerant,
    /// Tolerant, and also records the recoverable defects listed at
    /// [`Interchange::parse_collecting`].
    Collect,
}

/// Collects control defects, or fails on the first one in strict mode.
struct Findings {
    mode: Mode,
    found: Vec<ParseError>,
}

impl Findings {
    fn report(&mut self, error: ParseError) -> Result<(), ParseError> {
        match self.mode {
            Mode::Strict => Err(error),
            Mode::Tolerant | Mode::Collect => {
                self.found.push(error);
                Ok(())
            }
        }
    }
}

fn start(input: &[u8]) -> Result<(Tokenizer<'_>, Delimiters), ParseError> {
    // Positions inside a message's segment arena are u32.
    if u32::try_from(input.len()).is_err() {
        return Err(ParseError::new(
            ParseErrorKind::TooLarge,
            SourcePosition::default(),
        ));
    }
    let preamble = read_preamble(input)?;
    let charset =
        Charset::from_syntax_identifier(&preamble.syntax_identifier).ok_or_else(|| {
            ParseError::new(
                ParseErrorKind::UnsupportedSyntaxIdentifier(
                    String::from_utf8_lossy(&preamble.syntax_identifier).into_owned(),
                ),
                SourcePosition {
                    segment: 1,
                    offset: preamble.body_start,
                },
            )
        })?;
    let tokenizer = Tokenizer::new(input, preamble.body_start, preamble.delimiters, charset);
    Ok((tokenizer, preamble.delimiters))
}

/// Reads UNB into the empty arena `into` and returns it.
fn first_segment<'s>(
    tokenizer: &mut Tokenizer<'_>,
    into: &'s mut Segments,
) -> Result<Segment<'s>, ParseError> {
    let here = tokenizer.here();
    tokenizer
        .next_segment(into)
        .ok_or_else(|| ParseError::new(ParseErrorKind::MissingUnb, here))??;
    let unb = into
        .last()
        .ok_or_else(|| ParseError::new(ParseErrorKind::MissingUnb, here))?;
    if unb.tag != "UNB" {
        return Err(ParseError::new(ParseErrorKind::MissingUnb, unb.position));
    }
    Ok(unb)
}

fn unbalanced<T>(position: SourcePosition, what: &'static str) -> Result<T, ParseError> {
    Err(ParseError::new(
        ParseErrorKind::UnbalancedEnvelope(what),
        position,
    ))
}

/// A mandatory component, or `MissingElement(name)` located at the segment.
fn required(
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

fn optional(segment: &Segment, element: usize, component: usize) -> Option<String> {
    segment.component(element, component).map(str::to_owned)
}

fn header_from_unb(unb: &Segment) -> Result<InterchangeHeader, ParseError> {
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
fn count(segment: &Segment, name: &'static str) -> Result<u64, ParseError> {
    let raw = required(segment, 0, 0, name)?;
    raw.parse().map_err(|_| {
        ParseError::new(ParseErrorKind::InvalidControlCount(raw), segment.position).in_element(0, 0)
    })
}

fn check_reference(
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
fn open_message(unh: &Segment<'_>, group_reference: Option<String>) -> Result<Message, ParseError> {
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

struct OpenGroup {
    group: Group,
    messages: u64,
}

fn parse(input: &[u8], mode: Mode) -> Result<(Interchange, Vec<ParseError>), ParseError> {
    let mut findings = Findings {
        mode,
        found: Vec::new(),
    };
    parse_into(input, &mut findings).map(|interchange| (interchange, findings.found))
}

fn parse_into(input: &[u8], findings: &mut Findings) -> Result<Interchange, ParseError> {
    let mut messages = Vec::new();
    let mut interchange = walk(input, findings, &mut |message| {
        messages.push(message.clone())
    })?;
    interchange.messages = messages;
    Ok(interchange)
}

/// The envelope walk. Each message is lent to `on_message` as soon as its UNT has been
/// read, so only one message is held at a time; the returned interchange has no
/// messages.
fn walk(
    input: &[u8],
    findings: &mut Findings,
    on_message: &mut dyn FnMut(&Message),
) -> Result<Interchange, ParseError> {
    let collect = findings.mode == Mode::Collect;
    let (tokenizer, delimiters) = start(input)?;
    let mut tokenizer = if collect {
        tokenizer.collecting()
    } else {
        tokenizer
    };
    // Segments outside a message are read into `next`, which is cleared after each; a
    // UNH takes it over as its message's arena, and gets it back cleared after UNT, so
    // one set of buffers serves every message.
    let mut next = Segments::default();
    let header = header_from_unb(&first_segment(&mut tokenizer, &mut next)?)?;
    findings.found.extend(tokenizer.take_deferred());
    next.clear();
    // The UNP after a package object.
    let mut package_trailer = Segments::default();
    let mut packages: Vec<Package> = Vec::new();
    let mut references: HashSet<String> = HashSet::new();
    let mut open: Option<Message> = None;
    let mut group: Option<OpenGroup> = None;
    let mut groups: u64 = 0;
    let mut closed_groups: Vec<Group> = Vec::new();
    let mut ungrouped: u64 = 0;

    loop {
        let here = tokenizer.here();
        let into = match open.as_mut() {
            Some(message) => &mut message.segments,
            None => &mut next,
        };
        let Some(read) = tokenizer.next_segment(into) else {
            // The input ended before UNZ (and maybe inside a message).
            return Err(ParseError::new(ParseErrorKind::Truncated, here));
        };
        findings.found.extend(tokenizer.take_deferred());
        match read {
            Ok(()) => {}
            // The tokenizer has already moved past these; the walk can go on.
            Err(e)
                if collect
                    && matches!(
                        e.kind,
                        ParseErrorKind::EmptySegment | ParseErrorKind::InvalidTag(_)
                    ) =>
            {
                findings.found.push(e);
                continue;
            }
            Err(e) => return Err(e),
        }

        if let Some(message) = open.as_mut() {
            let Some(segment) = message.segments.last() else {
                continue;
            };
            match segment.tag {
                "UNT" => {
                    let declared = count(&segment, "UNT 0074 number of segments")?;
                    let actual = message.segments.len() as u64;
                    if declared != actual {
                        findings.report(ParseError::new(
                            ParseErrorKind::SegmentCountMismatch { declared, actual },
                            segment.position,
                        ))?;
                    }
                    check_reference(
                        findings,
                        &segment,
                        "UNT",
                        "UNH",
                        &message.reference,
                        "UNT 0062",
                    )?;
                    if let Some(m) = open.take() {
                        on_message(&m);
                        next = m.segments;
                        next.clear();
                    }
                }
                "UNH" | "UNB" | "UNZ" | "UNG" | "UNE" | "UNO" | "UNP" => {
                    return unbalanced(segment.position, "message not closed by UNT");
                }
                _ => {}
            }
            continue;
        }

        // Outside a message, the segment just read is the only one in `next`.
        let Some(segment) = next.last() else {
            continue;
        };
        let position = segment.position;
        match segment.tag {
            "UNH" => {
                if groups > 0 && group.is_none() {
                    return unbalanced(
                        position,
                        "UNH outside a group in an interchange that uses groups",
                    );
                }
                let group_reference = group.as_ref().map(|g| g.group.reference.clone());
                let mut message = open_message(&segment, group_reference)?;
                message.segments = std::mem::take(&mut next);
                if !references.insert(message.reference.clone()) {
                    findings.report(ParseError::new(
                        ParseErrorKind::DuplicateMessageReference(message.reference.clone()),
                        position,
                    ))?;
                }
                match group.as_mut() {
                    Some(g) => g.messages += 1,
                    None => ungrouped += 1,
                }
                open = Some(message);
                continue;
            }
            "UNG" => {
                if group.is_some() {
                    return unbalanced(position, "UNG inside an open group");
                }
                if ungrouped > 0 || !packages.is_empty() {
                    return unbalanced(position, "UNG after messages outside groups");
                }
                let reference = required(&segment, 4, 0, "UNG 0048 group reference number")?;
                group = Some(OpenGroup {
                    group: Group {
                        reference,
                        application_sender: optional(&segment, 1, 0),
                        sender_qualifier: optional(&segment, 1, 1),
                        application_recipient: optional(&segment, 2, 0),
                        recipient_qualifier: optional(&segment, 2, 1),
                        header: position,
                        trailer_segment: position.segment,
                    },
                    messages: 0,
                });
                groups += 1;
            }
            "UNE" => {
                let Some(g) = group.take() else {
                    return unbalanced(position, "UNE without UNG");
                };
                let declared = count(&segment, "UNE 0060 number of messages")?;
                if declared != g.messages {
                    findings.report(ParseError::new(
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
                    findings,
                    &segment,
                    "UNE",
                    "UNG",
                    &closed.reference,
                    "UNE 0048",
                )?;
                closed.trailer_segment = position.segment;
                closed_groups.push(closed);
            }
            "UNO" => {
                if group.is_some() || groups > 0 {
                    return unbalanced(position, "package inside or beside groups");
                }
                packages.push(read_package(
                    &mut tokenizer,
                    &segment,
                    &mut package_trailer,
                )?);
            }
            "UNZ" => {
                if group.is_some() {
                    return unbalanced(position, "group not closed by UNE");
                }
                // ISO 9735-1: groups if used, otherwise messages and packages.
                let actual = if groups > 0 {
                    groups
                } else {
                    ungrouped + packages.len() as u64
                };
                let declared = count(&segment, "UNZ 0036 interchange control count")?;
                if declared != actual {
                    findings.report(ParseError::new(
                        ParseErrorKind::MessageCountMismatch {
                            trailer: "UNZ",
                            declared,
                            actual,
                        },
                        position,
                    ))?;
                }
                check_reference(
                    findings,
                    &segment,
                    "UNZ",
                    "UNB",
                    &header.control_reference,
                    "UNZ 0020",
                )?;
                if !tokenizer.at_end() {
                    let here = tokenizer.here();
                    let trailing = ParseError::new(ParseErrorKind::TrailingData, here);
                    if !collect {
                        return Err(trailing);
                    }
                    findings.found.push(trailing);
                }
                return Ok(Interchange {
                    delimiters,
                    header,
                    messages: Vec::new(),
                    groups: closed_groups,
                    packages,
                });
            }
            "UNT" => return unbalanced(position, "UNT without UNH"),
            "UNB" => return unbalanced(position, "UNB inside an interchange"),
            "UNP" => return unbalanced(position, "UNP without UNO"),
            _ if collect => findings.found.push(ParseError::new(
                ParseErrorKind::UnbalancedEnvelope("data segment outside a message"),
                position,
            )),
            _ => return unbalanced(position, "data segment outside a message"),
        }
        next.clear();
    }
}

/// Reads the object after a UNO segment and the UNP that must follow it.
///
/// The object length is UNO's last data element (0810, length of object in octets), which
/// UNP repeats in its first element together with the package reference.
fn read_package(
    tokenizer: &mut Tokenizer<'_>,
    uno: &Segment<'_>,
    trailer: &mut Segments,
) -> Result<Package, ParseError> {
    let invalid = |why| ParseError::new(ParseErrorKind::InvalidPackage(why), uno.position);
    let reference = uno
        .component(0, 0)
        .ok_or_else(|| invalid("UNO without reference"))?
        .to_owned();
    let length: usize = uno
        .element_count()
        .checked_sub(1)
        .and_then(|last| uno.component(last, 0))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| invalid("UNO without a numeric object length"))?;
    let object = tokenizer.take_object(length)?.to_vec();
    let not_unp = ParseErrorKind::InvalidPackage("object not followed by UNP (length wrong?)");
    trailer.clear();
    let unp = match tokenizer.next_segment(trailer) {
        Some(Ok(())) => trailer
            .last()
            .ok_or_else(|| ParseError::new(ParseErrorKind::Truncated, tokenizer.here()))?,
        // Bytes that do not even form a segment after the object: most likely the
        // declared length is wrong, which is the more useful diagnosis.
        Some(Err(e))
            if matches!(
                e.kind,
                ParseErrorKind::InvalidTag(_) | ParseErrorKind::EmptySegment
            ) =>
        {
            return Err(ParseError::new(not_unp, e.position));
        }
        Some(Err(e)) => return Err(e),
        None => return Err(ParseError::new(ParseErrorKind::Truncated, tokenizer.here())),
    };
    if unp.tag != "UNP" {
        return Err(ParseError::new(not_unp, unp.position));
    }
    let same_length = unp.component(0, 0).and_then(|v| v.parse::<usize>().ok()) == Some(length);
    if !same_length || unp.component(1, 0) != Some(reference.as_str()) {
        return Err(ParseError::new(
            ParseErrorKind::InvalidPackage("UNP does not repeat UNO's length and reference"),
            unp.position,
        ));
    }
    Ok(Package {
        reference,
        object,
        position: uno.position,
    })
}
