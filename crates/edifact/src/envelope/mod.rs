//! Service segments: UNB/UNZ, UNG/UNE, UNH/UNT and syntax 4 packages (UNO/UNP).
//!
//! This is where ISO 9735's nesting and control rules are enforced: every UNH has a UNT
//! whose count and reference agree, groups are closed, UNZ counts what the interchange
//! holds and repeats UNB's reference. Count and reference defects are "control defects":
//! the content is still readable, so the tolerant entry point reports them as findings
//! while the strict one fails on the first.
//!
//! Here are the envelope's types and entry points; `walk` is the one pass that checks
//! the nesting, `fields` reads service segment values and `package` reads syntax 4
//! package objects.

mod fields;
mod package;
mod walk;

use crate::charset::{Charset, CharsetPolicy, CharsetWarnings};
use crate::error::{ParseError, ParseErrorKind};
use crate::segment::{Segment, Segments, SourcePosition};
use crate::syntax::{Delimiters, read_preamble};
use crate::tokenizer::Tokenizer;
use fields::header_from_unb;
use walk::walk;

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
        Self::peek_with(input, CharsetPolicy::Strict)
    }

    /// [`InterchangeHeader::peek`] under `policy`: tolerant, a UNB value outside the
    /// declared repertoire is read as ISO 8859-1 (the warning is dropped; [`crate::check`]
    /// reports it).
    pub fn peek_with(input: &[u8], policy: CharsetPolicy) -> Result<InterchangeHeader, ParseError> {
        let (tokenizer, _) = start(input)?;
        let mut tokenizer = tokenizer.with_policy(policy);
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
    ///
    /// Values are held strictly to the declared repertoire; see
    /// [`Interchange::parse_streaming_with`] for the tolerant policy.
    pub fn parse_streaming(
        input: &[u8],
        on_message: &mut dyn FnMut(&Message),
    ) -> Result<(Interchange, Vec<ParseError>), Vec<ParseError>> {
        let mut warnings = CharsetWarnings::default();
        Self::parse_streaming_with(input, CharsetPolicy::Strict, &mut warnings, &mut |m, _| {
            on_message(m)
        })
    }

    /// [`Interchange::parse_streaming`] under a charset `policy`: tolerant, a value
    /// outside the declared repertoire that ISO 8859-1 can read is decoded so and goes to
    /// `warnings` instead of the findings (see [`CharsetPolicy`]). The warnings read
    /// before a fatal defect are kept too. Each message is lent with the warnings found
    /// so far (its own come last), so a caller can tell which are new.
    pub fn parse_streaming_with(
        input: &[u8],
        policy: CharsetPolicy,
        warnings: &mut CharsetWarnings,
        on_message: &mut dyn FnMut(&Message, &CharsetWarnings),
    ) -> Result<(Interchange, Vec<ParseError>), Vec<ParseError>> {
        let mut findings = Findings {
            mode: Mode::Collect,
            found: Vec::new(),
            policy,
            warnings: std::mem::take(warnings),
        };
        let walked = walk(input, &mut findings, on_message);
        *warnings = std::mem::take(&mut findings.warnings);
        match walked {
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

/// Collects control defects, or fails on the first one in strict mode; and the charset
/// warnings of the tolerant policy.
struct Findings {
    mode: Mode,
    found: Vec<ParseError>,
    policy: CharsetPolicy,
    warnings: CharsetWarnings,
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

/// [`Interchange::parse`] and [`Interchange::parse_tolerant`]: the walk, keeping every
/// message.
fn parse(input: &[u8], mode: Mode) -> Result<(Interchange, Vec<ParseError>), ParseError> {
    let mut findings = Findings {
        mode,
        found: Vec::new(),
        policy: CharsetPolicy::Strict,
        warnings: CharsetWarnings::default(),
    };
    parse_into(input, &mut findings).map(|interchange| (interchange, findings.found))
}

fn parse_into(input: &[u8], findings: &mut Findings) -> Result<Interchange, ParseError> {
    let mut messages = Vec::new();
    let mut interchange = walk(input, findings, &mut |message, _| {
        messages.push(message.clone())
    })?;
    interchange.messages = messages;
    Ok(interchange)
}
