//! The generic rendering: one message of any type as plain data, without loss.
//!
//! Acceptance is about syntax, mapping is per type: a DESADV or ORDERS the hub does not
//! map yet is still published, in this form, so that downstream teams can consume it.
//! Every segment from UNH to UNT is kept with its position, and every element as the list
//! of its components, decoded and unescaped. Empty elements and components are kept
//! (trailing ones a sender omitted stay absent, as in the input), so the index of a value
//! in the lists is its ISO 9735 position minus one and a CONTRL or an operator can point
//! at it. Repetitions (syntax 4) are kept apart, so that positional indices stay stable.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Message, Segment, SourcePosition};

/// One UNH..UNT message, rendered generically.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GenericMessage {
    /// UNH 0062, the message reference number.
    pub reference: String,
    /// UNH S009, the message identifier.
    pub identifier: GenericIdentifier,
    /// UNG 0048 of the enclosing group, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_reference: Option<String>,
    /// UNH..UNT inclusive, in input order.
    pub segments: Vec<GenericSegment>,
}

/// UNH S009.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GenericIdentifier {
    /// 0065, e.g. `DESADV`.
    pub message_type: String,
    /// 0052, e.g. `D`.
    pub version: String,
    /// 0054, e.g. `96A`.
    pub release: String,
    /// 0051, e.g. `UN`.
    pub agency: String,
    /// 0057, e.g. `EAN005`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub association_code: Option<String>,
}

/// One segment: its tag, where it is, and its data elements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GenericSegment {
    /// The segment tag, e.g. `LIN`.
    pub tag: String,
    /// Segment number in the interchange (UNB = 1) and byte offset of the tag.
    pub position: SourcePosition,
    /// The data elements after the tag (element `i` is data element position `i + 1`),
    /// each as its components (component `j` is component position `j + 1`); where an
    /// element is repeated, its first occurrence.
    pub elements: Vec<Vec<String>>,
    /// The further occurrences of repeated elements, in input order (syntax 4 only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repetitions: Vec<GenericRepetition>,
}

/// A further occurrence of a repeated data element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GenericRepetition {
    /// The element's 1-based data element position in the segment.
    pub element: u32,
    /// Its components.
    pub components: Vec<String>,
}

impl GenericMessage {
    /// The rendering of `message`, positions as the reader gave them.
    pub fn of(message: &Message) -> Self {
        Self {
            reference: message.reference.clone(),
            identifier: GenericIdentifier {
                message_type: message.message_type.clone(),
                version: message.version.clone(),
                release: message.release.clone(),
                agency: message.agency.clone(),
                association_code: message.association_code.clone(),
            },
            group_reference: message.group_reference.clone(),
            segments: message.segments.iter().map(|s| segment(&s)).collect(),
        }
    }

    /// Moves every position by `base`, for a message of an interchange that starts at
    /// `base` in a larger input (segment numbers count on from `base.segment`).
    pub(crate) fn shift(&mut self, base: SourcePosition) {
        if base == SourcePosition::default() {
            return;
        }
        for s in &mut self.segments {
            s.position.segment = s
                .position
                .segment
                .saturating_add(base.segment.saturating_sub(1));
            s.position.offset += base.offset;
        }
    }

    /// UNH 0065, e.g. `DESADV`.
    pub fn message_type(&self) -> &str {
        &self.identifier.message_type
    }
}

fn segment(s: &Segment<'_>) -> GenericSegment {
    let count = s.element_count();
    let components =
        |e: crate::Element<'_>| -> Vec<String> { e.iter().map(str::to_owned).collect() };
    let elements = (0..count)
        .map(|i| s.element(i).map(components).unwrap_or_default())
        .collect();
    let repetitions = if s.has_repetitions() {
        (0..count)
            .flat_map(|i| {
                s.occurrences(i).skip(1).map(move |e| GenericRepetition {
                    element: u32::try_from(i + 1).unwrap_or(u32::MAX),
                    components: components(e),
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    GenericSegment {
        tag: s.tag.to_owned(),
        position: s.position,
        elements,
        repetitions,
    }
}

#[cfg(test)]
mod tests;
