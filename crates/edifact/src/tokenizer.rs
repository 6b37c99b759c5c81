//! Bytes to segments.
//!
//! A pull tokenizer: the envelope layer asks for one segment at a time, which lets it stop
//! early (UNB only, for [`crate::InterchangeHeader::peek`]) and lets it hand a binary
//! package body (UNO..UNP) past the tokenizer without splitting it.
//!
//! Offsets are byte offsets into the caller's slice, counted before any decoding, so line
//! breaks between segments (LF or CRLF) never make them drift.

use crate::charset::{Charset, CharsetPolicy, CharsetWarning, CharsetWarnings};
use crate::error::{ParseError, ParseErrorKind};
use crate::segment::{ElementPosition, Mark, Segments, SourcePosition};
use crate::syntax::{Delimiters, skip_line_breaks};

pub(crate) struct Tokenizer<'a> {
    input: &'a [u8],
    pos: usize,
    delimiters: Delimiters,
    charset: Charset,
    /// Number the next segment will get.
    next_number: u32,
    /// Reused buffer for one unescaped value.
    scratch: Vec<u8>,
    /// Collecting mode: a value outside the declared repertoire is recorded in
    /// `deferred` (once per segment) and decoded lossily, so the walk goes on.
    collect: bool,
    /// Value defects recorded in collecting mode, in input order.
    deferred: Vec<ParseError>,
    /// The current segment already has a deferred value defect.
    segment_faulted: bool,
    /// The delimiters in force, as a byte set: where a run of plain bytes ends.
    special: [bool; 256],
    /// What a value outside the declared repertoire is: a fault, or (tolerant) a
    /// warning with the value read as ISO 8859-1.
    policy: CharsetPolicy,
    /// Warnings of the tolerant policy not yet taken, in input order.
    warnings: Vec<CharsetWarning>,
}

impl<'a> Tokenizer<'a> {
    pub(crate) fn new(
        input: &'a [u8],
        start: usize,
        delimiters: Delimiters,
        charset: Charset,
    ) -> Self {
        Self {
            input,
            pos: start,
            delimiters,
            charset,
            next_number: 1,
            scratch: Vec::new(),
            collect: false,
            deferred: Vec::new(),
            segment_faulted: false,
            special: delimiters.as_byte_set(),
            policy: CharsetPolicy::Strict,
            warnings: Vec::new(),
        }
    }

    /// Reads values under `policy` (strict unless set).
    pub(crate) fn with_policy(mut self, policy: CharsetPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Moves the charset warnings recorded so far into `into`.
    pub(crate) fn take_warnings(&mut self, into: &mut CharsetWarnings) {
        for warning in self.warnings.drain(..) {
            into.push(warning);
        }
    }

    /// Switches to collecting mode (see the `collect` field).
    pub(crate) fn collecting(mut self) -> Self {
        self.collect = true;
        self
    }

    /// Takes the value defects recorded so far in collecting mode.
    pub(crate) fn take_deferred(&mut self) -> Vec<ParseError> {
        std::mem::take(&mut self.deferred)
    }

    /// After a defect that leaves the cursor inside a segment: moves past the next
    /// unreleased segment terminator so that reading can resume at the next segment.
    fn resync(&mut self) {
        let d = self.delimiters;
        while let Some(&b) = self.input.get(self.pos) {
            self.pos += 1;
            if Some(b) == d.release {
                self.pos += 1;
            } else if b == d.segment_terminator {
                return;
            }
        }
        self.pos = self.pos.min(self.input.len());
    }

    /// Where the next segment would start: used to locate "expected more" errors.
    pub(crate) fn here(&mut self) -> SourcePosition {
        self.pos = skip_line_breaks(self.input, self.pos, &self.delimiters);
        SourcePosition {
            segment: self.next_number,
            offset: self.pos,
        }
    }

    /// True when only line breaks remain.
    pub(crate) fn at_end(&mut self) -> bool {
        self.here().offset >= self.input.len()
    }

    /// Takes `len` raw bytes (a package object) starting right after the last segment
    /// terminator; line breaks are *not* skipped because they may be part of the object.
    pub(crate) fn take_object(&mut self, len: usize) -> Result<&'a [u8], ParseError> {
        let start = self.pos;
        let end = start.checked_add(len).filter(|&e| e <= self.input.len());
        match end {
            Some(end) => {
                self.pos = end;
                Ok(&self.input[start..end])
            }
            None => Err(ParseError::new(
                ParseErrorKind::Truncated,
                SourcePosition {
                    segment: self.next_number,
                    offset: start,
                },
            )),
        }
    }

    /// Reads the next segment onto the end of `into`; `None` at the end of the input.
    /// After an error `into` is as it was.
    pub(crate) fn next_segment(&mut self, into: &mut Segments) -> Option<Result<(), ParseError>> {
        let position = self.here();
        if position.offset >= self.input.len() {
            return None;
        }
        self.next_number = self.next_number.saturating_add(1);
        self.segment_faulted = false;
        let mark = into.mark();
        let result = self.read_segment(position, into, &mark);
        if result.is_err() {
            into.rollback(mark);
        }
        Some(result)
    }

    fn read_segment(
        &mut self,
        position: SourcePosition,
        into: &mut Segments,
        mark: &Mark,
    ) -> Result<(), ParseError> {
        if self.read_tag(position, into, mark)? {
            return Ok(());
        }
        self.read_elements(position, into, mark)
    }

    /// Reads and checks the tag; `Ok(true)` when the segment ends right after it.
    fn read_tag(
        &mut self,
        position: SourcePosition,
        into: &mut Segments,
        mark: &Mark,
    ) -> Result<bool, ParseError> {
        let err = |kind| ParseError::new(kind, position);
        let d = self.delimiters;
        let input = self.input;

        // The tag: plain bytes up to the first service character.
        let tag_end = input[self.pos..]
            .iter()
            .position(|&b| self.special[usize::from(b)])
            .map(|i| self.pos + i)
            .ok_or_else(|| err(ParseErrorKind::Truncated))?;
        let tag = &input[self.pos..tag_end];
        if tag.is_empty() && input[tag_end] == d.segment_terminator {
            self.pos = tag_end + 1;
            return Err(err(ParseErrorKind::EmptySegment));
        }
        let after_tag = input[tag_end];
        let letters_ok = tag.len() == 3
            && tag[0].is_ascii_uppercase()
            && tag[1..]
                .iter()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
        let ended_ok = after_tag == d.element || after_tag == d.segment_terminator;
        if !(letters_ok && ended_ok) {
            // The tag alone, unless its letters are fine and the fault is the
            // delimiter after it (`BGM:`).
            let shown = if letters_ok {
                &input[self.pos..=tag_end]
            } else {
                tag
            };
            let error = err(ParseErrorKind::InvalidTag(
                String::from_utf8_lossy(shown).into_owned(),
            ));
            self.resync();
            return Err(error);
        }
        // Checked above to be three ASCII characters.
        into.text_mut()
            .push_str(std::str::from_utf8(tag).unwrap_or("???"));
        into.end_value();
        self.pos = tag_end + 1;
        if after_tag == d.segment_terminator {
            into.end_segment(mark, position);
            return Ok(true);
        }
        Ok(false)
    }

    /// Reads the data elements after the tag, up to and including the segment
    /// terminator.
    fn read_elements(
        &mut self,
        position: SourcePosition,
        into: &mut Segments,
        mark: &Mark,
    ) -> Result<(), ParseError> {
        let err = |kind| ParseError::new(kind, position);
        let d = self.delimiters;
        let input = self.input;
        let mut element_start = into.values();
        let mut repeating = false;
        // 0-based position of the value being read, for errors (a repetition keeps its
        // element's index).
        let (mut element, mut component) = (0usize, 0usize);
        // The value being read is `input[value_start..]` up to the next delimiter, unless
        // it holds a release character: then its unescaped bytes collect in `scratch`.
        let mut value_start = self.pos;
        let mut escaped = false;
        self.scratch.clear();
        loop {
            let rest = &input[self.pos..];
            let run = rest
                .iter()
                .position(|&b| self.special[usize::from(b)])
                .unwrap_or(rest.len());
            if escaped {
                self.scratch.extend_from_slice(&rest[..run]);
            }
            let value_end = self.pos + run;
            self.pos = value_end;
            let Some(&b) = input.get(self.pos) else {
                return Err(err(ParseErrorKind::Truncated));
            };
            self.pos += 1;
            if Some(b) == d.release {
                let Some(&released) = input.get(self.pos) else {
                    return Err(err(ParseErrorKind::Truncated));
                };
                if !escaped {
                    escaped = true;
                    self.scratch
                        .extend_from_slice(&input[value_start..value_end]);
                }
                self.scratch.push(released);
                self.pos += 1;
                continue;
            }
            let raw = if escaped {
                None
            } else {
                Some(&input[value_start..value_end])
            };
            let at = (value_start, element, component);
            self.take_value(raw, position, at, into)?;
            escaped = false;
            value_start = self.pos;
            component += 1;
            if b != d.component {
                component = 0;
                if Some(b) != d.repetition {
                    element += 1;
                }
                // Element separator, segment terminator or repetition separator.
                into.end_element(element_start, repeating, mark);
                element_start = into.values();
                repeating = Some(b) == d.repetition;
                if b == d.segment_terminator {
                    into.end_segment(mark, position);
                    return Ok(());
                }
            }
        }
    }

    /// Decodes one value into the arena: `raw` straight from the input, or, when it held
    /// release characters (`None`), the unescaped bytes in `scratch`. The value starts
    /// at input offset `value_start`, as element `element`, component `component`.
    fn take_value(
        &mut self,
        raw: Option<&[u8]>,
        position: SourcePosition,
        (value_start, element, component): (usize, usize, usize),
        into: &mut Segments,
    ) -> Result<(), ParseError> {
        let bytes = raw.unwrap_or(&self.scratch);
        let mut decoded = self.charset.decode_into(bytes, into.text_mut());
        // The rare value outside the repertoire takes the slow path; clean input never
        // gets here.
        if decoded.is_err() && self.policy == CharsetPolicy::Tolerant {
            decoded = self
                .charset
                .decode_tolerant_into(bytes, into.text_mut())
                .map(|tolerated| {
                    if tolerated.bytes > 0 {
                        self.warnings.push(CharsetWarning {
                            position,
                            element: ElementPosition::at(element, component),
                            byte_offset: input_offset(
                                self.input,
                                value_start,
                                tolerated.first,
                                self.delimiters.release,
                            ),
                            byte: bytes.get(tolerated.first).copied().unwrap_or_default(),
                            bytes: tolerated.bytes,
                            syntax_identifier: self.charset.name(),
                        });
                    }
                });
        }
        let result = match decoded {
            Ok(()) => Ok(()),
            Err(kind) if self.collect => {
                if !self.segment_faulted {
                    self.segment_faulted = true;
                    self.deferred
                        .push(ParseError::new(kind, position).in_element(element, component));
                }
                into.text_mut().push_str(&String::from_utf8_lossy(bytes));
                Ok(())
            }
            Err(kind) => Err(ParseError::new(kind, position).in_element(element, component)),
        };
        into.end_value();
        self.scratch.clear();
        result
    }
}

/// The input offset of byte `index` of the unescaped value that starts at `start`: each
/// release character before it adds one byte.
fn input_offset(input: &[u8], start: usize, index: usize, release: Option<u8>) -> usize {
    let mut at = start;
    for _ in 0..=index {
        if release.is_some() && input.get(at).copied() == release {
            at += 1;
        }
        at += 1;
    }
    at.saturating_sub(1).min(input.len())
}

#[cfg(test)]
mod tests;
