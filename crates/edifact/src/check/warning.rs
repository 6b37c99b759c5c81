//! What the tolerant charset policy let through, as the report and the events carry it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::MessageSummary;
use crate::charset::{CharsetWarning, CharsetWarnings};
use crate::{ElementPosition, SourcePosition};

/// What kind of warning: stable, machine-readable (serialised in kebab-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum WarningKind {
    /// A value holds bytes outside the declared repertoire and was read as ISO 8859-1.
    Charset,
    /// More values were read so than the report lists (see [`CharsetWarnings::LIMIT`]);
    /// the message says how many.
    CharsetOmitted,
}

impl WarningKind {
    /// The kebab-case name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Charset => "charset",
            Self::CharsetOmitted => "charset-omitted",
        }
    }
}

/// Something the sender got wrong that does not reject the interchange, located.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Warning {
    pub kind: WarningKind,
    /// Human-readable description (without the position, which is in `position`).
    pub message: String,
    /// UNH 0062 of the message the value is in, when it is inside one.
    pub message_reference: Option<String>,
    /// The segment: its number and the byte offset of its tag.
    pub position: Option<SourcePosition>,
    /// The value inside that segment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ElementPosition>,
    /// Byte offset in the input of the value's first byte outside the repertoire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<usize>,
    /// The syntax identifier UNB declared, e.g. `UNOA`.
    pub syntax_identifier: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(p) = self.position {
            write!(f, "segment {} (byte {})", p.segment, p.offset)?;
        }
        if let Some(e) = self.element {
            write!(f, ", element {}:{}", e.element, e.component)?;
        }
        write!(f, ": [{}] {}", self.kind.as_str(), self.message)?;
        if let Some(r) = &self.message_reference {
            write!(f, " (message {r})")?;
        }
        Ok(())
    }
}

/// The report's warnings for the reader's charset warnings; `messages` names the message
/// each is in.
pub(super) fn warnings(found: &CharsetWarnings, messages: &[MessageSummary]) -> Vec<Warning> {
    let syntax_identifier = found.listed.first().map(|w| w.syntax_identifier);
    let mut out: Vec<Warning> = found
        .listed
        .iter()
        .map(|w| charset_warning(w, messages))
        .collect();
    if found.omitted > 0 {
        out.push(Warning {
            kind: WarningKind::CharsetOmitted,
            message: format!(
                "{} further values outside the repertoire were read as ISO 8859-1",
                found.omitted
            ),
            message_reference: None,
            position: None,
            element: None,
            byte_offset: None,
            syntax_identifier: syntax_identifier.unwrap_or_default().to_owned(),
        });
    }
    out
}

pub(super) fn charset_warning(w: &CharsetWarning, messages: &[MessageSummary]) -> Warning {
    // Tolerated bytes are all graphic in ISO 8859-1, so the character can be shown.
    let shown = char::from(w.byte);
    let others = match w.bytes {
        0 | 1 => String::new(),
        n => format!(" ({n} bytes of the value are outside it)"),
    };
    Warning {
        kind: WarningKind::Charset,
        message: format!(
            "byte 0x{:02X} {shown:?} is not allowed by syntax identifier {}{others}; \
             the value was read as ISO 8859-1",
            w.byte, w.syntax_identifier
        ),
        message_reference: message_at(messages, w.position.segment).map(|m| m.reference.clone()),
        position: Some(w.position),
        element: Some(w.element),
        byte_offset: Some(w.byte_offset),
        syntax_identifier: w.syntax_identifier.to_owned(),
    }
}

/// The message segment number `segment` is in; `messages` are in input order.
fn message_at(messages: &[MessageSummary], segment: u32) -> Option<&MessageSummary> {
    let after = messages.partition_point(|m| m.header.segment <= segment);
    let m = messages.get(after.checked_sub(1)?)?;
    m.contains(segment).then_some(m)
}
