//! The charset policy: what to do with a byte outside the declared repertoire.
//!
//! Partners routinely declare UNOA or UNOB and still write lower case (not in level A)
//! or ISO 8859-1 letters such as `ß` or `é` (in neither). Under [`CharsetPolicy::Tolerant`]
//! such a byte is decoded as ISO 8859-1 and reported as a [`CharsetWarning`]; under
//! [`CharsetPolicy::Strict`] it is a fault, as before. Only the rare value that fails the
//! strict table lookup takes this path, so clean input costs nothing extra.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{Charset, is_latin1};
use crate::error::ParseErrorKind;
use crate::segment::{ElementPosition, SourcePosition};

/// How strictly values are held to the repertoire the UNB syntax identifier declares.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum CharsetPolicy {
    /// Every byte outside the declared repertoire is a fault.
    Strict,
    /// Under UNOA and UNOB, a byte outside the repertoire that is a graphic character of
    /// ISO 8859-1 (0x20-0x7E, 0xA0-0xFF) is decoded as ISO 8859-1 and warned about.
    /// Control characters (C0, DEL, C1), invalid UTF-8 under UNOW/UNOY and the upper half
    /// of UNOD..UNOK (which this crate cannot decode without guessing) stay faults.
    #[default]
    Tolerant,
}

impl CharsetPolicy {
    /// The kebab-case name, as serialised and parsed.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Strict => "strict",
            Self::Tolerant => "tolerant",
        }
    }
}

impl fmt::Display for CharsetPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A charset policy name that is neither `strict` nor `tolerant`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown charset policy {0:?} (expected strict or tolerant)")]
pub struct UnknownCharsetPolicy(pub String);

impl FromStr for CharsetPolicy {
    type Err = UnknownCharsetPolicy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "strict" => Ok(Self::Strict),
            "tolerant" => Ok(Self::Tolerant),
            _ => Err(UnknownCharsetPolicy(s.to_owned())),
        }
    }
}

/// One value a tolerant reading decoded as ISO 8859-1 although it holds bytes outside the
/// declared repertoire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharsetWarning {
    /// The segment holding the value.
    pub position: SourcePosition,
    /// The value inside that segment.
    pub element: ElementPosition,
    /// Byte offset in the input of the value's first byte outside the repertoire.
    pub byte_offset: usize,
    /// That byte.
    pub byte: u8,
    /// How many bytes of the value lie outside the repertoire.
    pub bytes: u32,
    /// The syntax identifier UNB declared, e.g. `UNOA`.
    pub syntax_identifier: &'static str,
}

/// The charset warnings of one reading: the first [`CharsetWarnings::LIMIT`] in input
/// order, and a count of the rest, so a file written in lower case throughout under UNOA
/// costs bounded memory and a readable report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CharsetWarnings {
    /// The warnings kept, in input order.
    pub listed: Vec<CharsetWarning>,
    /// Further values decoded the same way, not listed.
    pub omitted: u64,
}

impl CharsetWarnings {
    /// How many warnings are listed at most.
    pub const LIMIT: usize = 100;

    /// Records one more warning.
    pub(crate) fn push(&mut self, warning: CharsetWarning) {
        if self.listed.len() < Self::LIMIT {
            self.listed.push(warning);
        } else {
            self.omitted += 1;
        }
    }

    /// No warning at all.
    pub fn is_empty(&self) -> bool {
        self.listed.is_empty() && self.omitted == 0
    }
}

/// What a tolerant decoding found outside the repertoire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tolerated {
    /// Index in the value of the first byte outside the repertoire.
    pub(crate) first: usize,
    /// How many bytes lie outside it.
    pub(crate) bytes: u32,
}

impl Charset {
    /// The tolerant reading of a value that [`Charset::decode_into`] refused: ISO 8859-1
    /// when the repertoire is level A or B and every byte is an ISO 8859-1 graphic
    /// character. Otherwise the fault to report, naming the first byte no reading allows.
    /// On error `out` is unchanged.
    pub(crate) fn decode_tolerant_into(
        self,
        bytes: &[u8],
        out: &mut String,
    ) -> Result<Tolerated, ParseErrorKind> {
        let table = match self {
            Self::LevelA => &super::LEVEL_A,
            Self::LevelB => &super::LEVEL_B,
            // Their faults are control characters, undecodable bytes or invalid UTF-8.
            Self::Latin1 | Self::AsciiPartOf(_) | Self::Utf8(_) => {
                return self
                    .decode_into(bytes, out)
                    .map(|()| Tolerated { first: 0, bytes: 0 });
            }
        };
        if let Some(&b) = bytes.iter().find(|&&b| !is_latin1(b)) {
            return Err(ParseErrorKind::InvalidCharacter {
                syntax_identifier: self.name(),
                byte: b,
            });
        }
        let outside = |b: &u8| !table[usize::from(*b)];
        let first = bytes.iter().position(outside).unwrap_or(0);
        let count = bytes.iter().filter(|b| outside(b)).count();
        // ISO 8859-1 code points equal Unicode scalar values.
        out.extend(bytes.iter().map(|&b| char::from(b)));
        Ok(Tolerated {
            first,
            bytes: u32::try_from(count).unwrap_or(u32::MAX),
        })
    }
}
