//! Delimiters and the UNA service string advice.
//!
//! The delimiters must be known before a single segment can be split, so this module
//! works on raw bytes: it finds an optional UNA (which may follow a BOM or blank lines,
//! as real partner files do) and otherwise picks the ISO 9735 defaults, looking ahead
//! into UNB only as far as the syntax version (syntax 4 adds the `*` repetition
//! separator).

use crate::error::{ParseError, ParseErrorKind};
use crate::segment::SourcePosition;

/// The six service characters of an interchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delimiters {
    /// Component data element separator (default `:`).
    pub component: u8,
    /// Data element separator (default `+`).
    pub element: u8,
    /// Decimal mark used in numeric values (default `.`); values are normalised to `.`.
    pub decimal_mark: u8,
    /// Release (escape) character (default `?`); `None` when UNA declares a space.
    pub release: Option<u8>,
    /// Repetition separator: `*` by default in syntax 4, absent in syntax 1-3.
    pub repetition: Option<u8>,
    /// Segment terminator (default `'`).
    pub segment_terminator: u8,
}

impl Default for Delimiters {
    /// ISO 9735 level A defaults `:+.? '` (no repetition separator, as in syntax 1-3).
    fn default() -> Self {
        Self {
            component: b':',
            element: b'+',
            decimal_mark: b'.',
            release: Some(b'?'),
            repetition: None,
            segment_terminator: b'\'',
        }
    }
}

impl Delimiters {
    /// The defaults for an interchange without UNA, given its UNB syntax version: syntax 4
    /// adds `*` as repetition separator.
    pub fn for_syntax_version(version: &str) -> Self {
        let repetition = (version == "4").then_some(b'*');
        Self {
            repetition,
            ..Self::default()
        }
    }

    /// Level B information-separator defaults (IS1/IS3/IS4), recognised when UNB is
    /// followed by IS3 instead of `+`. There is no release character in this set.
    pub fn level_b_separators() -> Self {
        Self {
            component: 0x1F,
            element: 0x1D,
            decimal_mark: b'.',
            release: None,
            repetition: None,
            segment_terminator: 0x1C,
        }
    }

    /// [`Delimiters::is_service`] as a table, for scanning runs of plain bytes.
    pub(crate) fn as_byte_set(&self) -> [bool; 256] {
        let mut set = [false; 256];
        for b in [self.component, self.element, self.segment_terminator]
            .into_iter()
            .chain(self.release)
            .chain(self.repetition)
        {
            set[usize::from(b)] = true;
        }
        set
    }

    /// Is `b` one of the characters that structure the interchange?
    pub(crate) fn is_service(&self, b: u8) -> bool {
        b == self.component
            || b == self.element
            || b == self.segment_terminator
            || Some(b) == self.release
            || Some(b) == self.repetition
    }
}

/// What precedes the first segment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Preamble {
    pub delimiters: Delimiters,
    /// Offset of the first byte after UNA (or after the BOM/blanks when there is none).
    pub body_start: usize,
    /// The UNB syntax identifier, read ahead of tokenizing: it decides the charset of
    /// every value, UNB's own included.
    pub syntax_identifier: [u8; 4],
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Offset after a UTF-8 BOM and any ASCII blanks/line breaks.
fn skip_leading(input: &[u8]) -> usize {
    let mut pos = if input.starts_with(BOM) { BOM.len() } else { 0 };
    while input
        .get(pos)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    {
        pos += 1;
    }
    pos
}

/// Skips the line breaks that many senders put between segments.
pub(crate) fn skip_line_breaks(input: &[u8], mut pos: usize, delimiters: &Delimiters) -> usize {
    while let Some(&b) = input.get(pos) {
        if (b == b'\r' || b == b'\n') && !delimiters.is_service(b) {
            pos += 1;
        } else {
            break;
        }
    }
    pos
}

/// Reads the UNA (if any) and looks ahead into UNB.
pub(crate) fn read_preamble(input: &[u8]) -> Result<Preamble, ParseError> {
    let start = skip_leading(input);
    let (mut delimiters, body_start, una) = match input.get(start..start + 3) {
        Some(b"UNA") => {
            let una = input.get(start + 3..start + 9).ok_or_else(|| {
                ParseError::new(
                    ParseErrorKind::Truncated,
                    SourcePosition {
                        segment: 0,
                        offset: start,
                    },
                )
            })?;
            let d = parse_una(una).map_err(|kind| {
                ParseError::new(
                    kind,
                    SourcePosition {
                        segment: 0,
                        offset: start,
                    },
                )
            })?;
            (d, start + 9, true)
        }
        _ => {
            // Level B interchanges may use information separators instead of `+`.
            let d = if input.get(start..start + 4) == Some(b"UNB\x1D") {
                Delimiters::level_b_separators()
            } else {
                Delimiters::default()
            };
            (d, start, false)
        }
    };
    let first = skip_line_breaks(input, body_start, &delimiters);
    let (syntax_identifier, syntax_version) = sniff_unb(input, first, &delimiters)?;
    if !una && syntax_version == b'4' && delimiters.element == b'+' {
        delimiters.repetition = Some(b'*');
    }
    Ok(Preamble {
        delimiters,
        body_start,
        syntax_identifier,
    })
}

/// Interprets the six characters after `UNA`.
fn parse_una(c: &[u8]) -> Result<Delimiters, ParseErrorKind> {
    let [
        component,
        element,
        decimal_mark,
        release,
        repetition,
        segment_terminator,
    ] = c
    else {
        return Err(ParseErrorKind::InvalidUna("fewer than six characters"));
    };
    // A space in UNA4 (release) or UNA5 (reserved in syntax 3, repetition in syntax 4)
    // means "not used".
    let opt = |b: u8| (b != b' ').then_some(b);
    let d = Delimiters {
        component: *component,
        element: *element,
        decimal_mark: *decimal_mark,
        release: opt(*release),
        repetition: opt(*repetition),
        segment_terminator: *segment_terminator,
    };
    if !matches!(d.decimal_mark, b'.' | b',') {
        return Err(ParseErrorKind::InvalidUna(
            "decimal mark must be '.' or ','",
        ));
    }
    let mut service = vec![d.component, d.element, d.segment_terminator];
    service.extend(d.release);
    service.extend(d.repetition);
    if service
        .iter()
        .any(|b| b.is_ascii_alphanumeric() || *b == b' ')
    {
        return Err(ParseErrorKind::InvalidUna(
            "service characters must not be letters, digits or space",
        ));
    }
    let mut sorted = service.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != service.len() {
        return Err(ParseErrorKind::InvalidUna(
            "service characters must be distinct",
        ));
    }
    Ok(d)
}

/// Reads `UNB+IDEN:V` at `pos` without tokenizing: the syntax identifier decides how every
/// value (UNB's own included) is decoded.
fn sniff_unb(input: &[u8], pos: usize, d: &Delimiters) -> Result<([u8; 4], u8), ParseError> {
    let here = SourcePosition {
        segment: 1,
        offset: pos,
    };
    if input.get(pos..pos + 3) != Some(b"UNB") {
        return Err(ParseError::new(ParseErrorKind::MissingUnb, here));
    }
    let s001 = input.get(pos + 4..).unwrap_or_default();
    if input.get(pos + 3) != Some(&d.element) {
        let kind = if s001.is_empty() {
            ParseErrorKind::Truncated
        } else {
            ParseErrorKind::MissingElement("UNB S001 syntax identifier")
        };
        return Err(ParseError::new(kind, here));
    }
    let end = s001
        .iter()
        .position(|&b| b == d.element || b == d.segment_terminator)
        .ok_or_else(|| ParseError::new(ParseErrorKind::Truncated, here))?;
    let mut parts = s001[..end].split(|&b| b == d.component);
    let ident = parts.next().unwrap_or_default();
    let version = parts.next().unwrap_or_default();
    let ident: [u8; 4] = ident.try_into().map_err(|_| {
        ParseError::new(
            ParseErrorKind::UnsupportedSyntaxIdentifier(
                String::from_utf8_lossy(ident).into_owned(),
            ),
            here,
        )
    })?;
    let version = match version {
        [v @ b'1'..=b'9'] => *v,
        _ => {
            return Err(ParseError::new(
                ParseErrorKind::MissingElement("UNB 0002 syntax version"),
                here,
            ));
        }
    };
    Ok((ident, version))
}

#[cfg(test)]
mod tests;
