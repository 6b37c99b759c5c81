//! Character repertoires named by the UNB syntax identifier, and decoding to `String`.
//!
//! The hub stores and forwards values as Rust strings, so every value is validated against
//! the repertoire the sender *declared*: a Latin-1 byte in a UNOB file is the partner's
//! defect and must be reported, never silently transcoded (see DESIGN.md, EDIFACT). How it
//! is reported, as a fault or as a warning with the value read as ISO 8859-1, is the
//! [`CharsetPolicy`] (see `policy`, and docs/adr/0005-tolerant-charset-and-generic-acceptance.md).

mod policy;

pub use policy::{CharsetPolicy, CharsetWarning, CharsetWarnings, UnknownCharsetPolicy};

use crate::error::ParseErrorKind;

/// How the values of an interchange are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    /// UNOA: ISO 9735 level A, upper-case letters, digits, space and a few punctuation
    /// marks.
    LevelA,
    /// UNOB: level A plus lower-case letters.
    LevelB,
    /// UNOC: ISO 8859-1, decoded byte-for-byte to Unicode.
    Latin1,
    /// UNOD..UNOK: ISO 8859-2..9. Only their ASCII half is decoded (this crate carries no
    /// tables for the upper halves); any other byte is reported, never guessed.
    AsciiPartOf(&'static str),
    /// UNOW (UTF-8) and UNOY (ISO 10646-1, taken as UTF-8 as its users do).
    Utf8(&'static str),
}

impl Charset {
    /// The charset for a UNB syntax identifier, `None` if unsupported (e.g. UNOX escapes).
    pub fn from_syntax_identifier(id: &[u8]) -> Option<Self> {
        Some(match id {
            b"UNOA" => Self::LevelA,
            b"UNOB" => Self::LevelB,
            b"UNOC" => Self::Latin1,
            b"UNOD" => Self::AsciiPartOf("UNOD"),
            b"UNOE" => Self::AsciiPartOf("UNOE"),
            b"UNOF" => Self::AsciiPartOf("UNOF"),
            b"UNOG" => Self::AsciiPartOf("UNOG"),
            b"UNOH" => Self::AsciiPartOf("UNOH"),
            b"UNOI" => Self::AsciiPartOf("UNOI"),
            b"UNOJ" => Self::AsciiPartOf("UNOJ"),
            b"UNOK" => Self::AsciiPartOf("UNOK"),
            b"UNOW" => Self::Utf8("UNOW"),
            b"UNOY" => Self::Utf8("UNOY"),
            _ => return None,
        })
    }

    /// The syntax identifier this charset was chosen for (used in error messages).
    pub fn name(self) -> &'static str {
        match self {
            Self::LevelA => "UNOA",
            Self::LevelB => "UNOB",
            Self::Latin1 => "UNOC",
            Self::AsciiPartOf(n) | Self::Utf8(n) => n,
        }
    }

    /// Decodes one unescaped value.
    #[cfg(test)]
    pub(crate) fn decode(self, bytes: &[u8]) -> Result<String, ParseErrorKind> {
        let mut out = String::new();
        self.decode_into(bytes, &mut out).map(|()| out)
    }

    /// Decodes one unescaped value onto the end of `out`; on error `out` is unchanged.
    pub(crate) fn decode_into(self, bytes: &[u8], out: &mut String) -> Result<(), ParseErrorKind> {
        let invalid = |byte| ParseErrorKind::InvalidCharacter {
            syntax_identifier: self.name(),
            byte,
        };
        let table = match self {
            Self::Utf8(_) => {
                let text = std::str::from_utf8(bytes).map_err(|_| ParseErrorKind::InvalidUtf8)?;
                out.push_str(text);
                return Ok(());
            }
            Self::Latin1 => &LATIN1,
            Self::LevelA => &LEVEL_A,
            Self::LevelB => &LEVEL_B,
            Self::AsciiPartOf(_) => &GRAPHIC_ASCII,
        };
        if let Some(&b) = bytes.iter().find(|&&b| !table[usize::from(b)]) {
            return Err(invalid(b));
        }
        match std::str::from_utf8(bytes) {
            // Every repertoire but UNOC is ASCII, and most UNOC values are too: one copy.
            Ok(text) => out.push_str(text),
            // ISO 8859-1 code points equal Unicode scalar values.
            Err(_) => out.extend(bytes.iter().map(|&b| char::from(b))),
        }
        Ok(())
    }
}

/// Which bytes a repertoire allows, one table per repertoire so that checking a value is
/// one load per byte.
type ByteSet = [bool; 256];

macro_rules! byte_set {
    ($allowed:expr) => {{
        let mut set = [false; 256];
        let mut b = 0;
        while b < 256 {
            set[b] = $allowed(b as u8);
            b += 1;
        }
        set
    }};
}

const GRAPHIC_ASCII: ByteSet = byte_set!(is_graphic_ascii);
const LATIN1: ByteSet = byte_set!(is_latin1);
const LEVEL_A: ByteSet = byte_set!(is_level_a);
const LEVEL_B: ByteSet = byte_set!(is_level_b);

impl Charset {
    /// How a writer puts `c` in this repertoire: `c` itself, its upper case where level A
    /// has no lower case, or `None` when the repertoire cannot carry it.
    pub(crate) fn writable(self, c: char) -> Option<char> {
        let fits = |c: char| match self {
            Self::Utf8(_) => true,
            Self::Latin1 => u8::try_from(c).is_ok_and(is_latin1),
            Self::LevelA => u8::try_from(c).is_ok_and(is_level_a),
            Self::LevelB => u8::try_from(c).is_ok_and(is_level_b),
            Self::AsciiPartOf(_) => u8::try_from(c).is_ok_and(is_graphic_ascii),
        };
        if fits(c) {
            return Some(c);
        }
        let upper = c.to_ascii_uppercase();
        (self == Self::LevelA && fits(upper)).then_some(upper)
    }

    /// The bytes of `text`, whose characters must all be [`Charset::writable`]: ISO 8859-1
    /// for UNOC, UTF-8 otherwise (for the ASCII repertoires that is ASCII itself).
    pub(crate) fn encode(self, text: &str) -> Vec<u8> {
        match self {
            // Every character was checked to be at most U+00FF, which is its Latin-1
            // byte; the fallback keeps the function total.
            Self::Latin1 => text
                .chars()
                .map(|c| u8::try_from(c).unwrap_or(b'?'))
                .collect(),
            _ => text.as_bytes().to_vec(),
        }
    }
}

const fn is_graphic_ascii(b: u8) -> bool {
    b >= 0x20 && b < 0x7F
}

/// ISO 8859-1's graphic characters.
const fn is_latin1(b: u8) -> bool {
    is_graphic_ascii(b) || b >= 0xA0
}

/// Level B: level A and lower-case letters.
const fn is_level_b(b: u8) -> bool {
    is_level_a(b) || b.is_ascii_lowercase()
}

/// ISO 9735 level A: A-Z, 0-9, space and `. , - ( ) / = ' + : ? ! " % & * ; < >`.
const fn is_level_a(b: u8) -> bool {
    if b.is_ascii_uppercase() || b.is_ascii_digit() {
        return true;
    }
    let punctuation = b" .,-()/='+:?!\"%&*;<>";
    let mut i = 0;
    while i < punctuation.len() {
        if punctuation[i] == b {
            return true;
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests;
