//! The one decision "accept or reject this interchange", with every reason.
//!
//! The transform consumer and the operator CLI (`edihub edifact check|convert`) both call
//! [`evaluate_with`] or [`evaluate_each_with`], so a partner onboarding team sees exactly
//! the faults the hub would put in an `EdiMessageRejected` event.
//!
//! Policy, in one place:
//! - acceptance is about syntax: any syntax or envelope defect
//!   ([`Interchange::parse_collecting`]) rejects the interchange, control-count defects
//!   included, and a syntactically sound message of any type is accepted;
//! - characters follow [`Options::charset`]: strict, a byte outside the declared
//!   repertoire is a syntax fault; tolerant (the default), one that ISO 8859-1 can read
//!   under UNOA/UNOB is decoded so and reported as a [`Warning`], which does not reject.
//!   Control characters, invalid UTF-8 and separator misuse are faults in both policies,
//!   and so are counts, references, truncation and envelope structure;
//! - mapping is per type: every INVOIC message is also mapped to the canonical invoice on
//!   its own, and all mapping errors of all messages are collected as faults; every
//!   CONTRL and APERAK is decoded by [`crate::received::read`], and one it cannot read is
//!   a mapping fault; any other type is only rendered ([`crate::generic`]);
//! - an interchange is accepted or rejected as a unit, so nothing is dropped silently;
//! - EN 16931 total rules are warnings inside each invoice, never faults.

mod evaluate;
mod output;
mod warning;

pub use evaluate::{evaluate, evaluate_each, evaluate_each_with, evaluate_with};
pub use output::{MessageOutput, Options};
pub use warning::{Warning, WarningKind};

use std::sync::Arc;

use serde::{Deserialize, Serialize};

#[cfg(doc)]
use crate::Interchange;
use crate::invoic::{CanonicalInvoice, MappingErrorKind};
use crate::received::ReadErrorKind;
use crate::{ElementPosition, Group, InterchangeHeader, ParseErrorKind, SourcePosition};

/// What kind of fault: stable, machine-readable (serialised in kebab-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultClass {
    /// ISO 9735 syntax, character set or envelope defect.
    Syntax,
    /// An INVOIC message that cannot be mapped to the canonical invoice, or a CONTRL or
    /// APERAK that cannot be read as an acknowledgement.
    Mapping,
}

impl FaultClass {
    /// The kebab-case name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::Mapping => "mapping",
        }
    }
}

/// One reason to reject, located.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    pub class: FaultClass,
    /// Human-readable description (without the position, which is in `position`).
    pub message: String,
    /// UNH 0062 of the message at fault, when the fault is inside a message.
    pub message_reference: Option<String>,
    /// Segment number and byte offset, when known.
    pub position: Option<SourcePosition>,
    /// The data element at fault inside that segment, when the fault is one value's
    /// (a CONTRL reports it in UCD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ElementPosition>,
    /// The defect as a value, for reports that need more than the text: the CONTRL
    /// builder ([`crate::contrl`]) maps it to an ISO 9735 syntax error code. Not
    /// serialised: the published form of a fault is `class` and `message`.
    #[serde(skip)]
    pub cause: Cause,
}

/// What a [`Fault`] is, as a value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Cause {
    /// A syntax, character set or envelope defect found by the reader.
    Syntax(ParseErrorKind),
    /// An INVOIC message that cannot be mapped.
    Mapping(MappingErrorKind),
    /// A CONTRL or APERAK that cannot be read as an acknowledgement.
    Acknowledgement(ReadErrorKind),
    /// The interchange holds no message at all.
    NoMessage,
    /// Not recorded (a fault deserialised from its published form).
    #[default]
    Unspecified,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.position {
            Some(p) => write!(f, "segment {} (byte {})", p.segment, p.offset)?,
            None => write!(f, "(no position)")?,
        }
        // As CONTRL's S011 writes it: data element, then component, from 1.
        if let Some(e) = self.element {
            write!(f, ", element {}:{}", e.element, e.component)?;
        }
        write!(f, ": ")?;
        write!(f, "[{}] {}", self.class.as_str(), self.message)?;
        if let Some(r) = &self.message_reference {
            write!(f, " (message {r})")?;
        }
        Ok(())
    }
}

/// The result of [`evaluate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// UNB, when it could be read.
    pub header: Option<InterchangeHeader>,
    /// Every fault, in input order. Not empty means: reject.
    pub faults: Vec<Fault>,
    /// The messages read, in input order, whether they mapped or not (empty when a defect
    /// made the interchange unreadable). Positions are in the whole input, like those of
    /// the faults.
    pub messages: Vec<MessageSummary>,
    /// The UNG..UNE groups read, in input order (empty when the interchange has none or
    /// was unreadable). Positions are in the whole input.
    pub groups: Vec<Group>,
    /// The invoices of the INVOIC messages that mapped (also when other parts of the
    /// interchange are at fault, so a tool can show them), one per message, in order.
    pub invoices: Vec<CanonicalInvoice>,
    /// Everything the tolerant charset policy let through, in input order. Warnings do
    /// not reject.
    pub warnings: Vec<Warning>,
}

impl Report {
    /// The interchange must be rejected (and no invoice published).
    pub fn must_reject(&self) -> bool {
        !self.faults.is_empty()
    }
}

/// One UNH..UNT message of a [`Report`]: what a CONTRL needs to name it (UCM) and to
/// count segment positions from its UNH. A report keeps one per message, so it is kept
/// small: the identifier and the group reference, which consecutive messages nearly
/// always repeat, are shared between summaries rather than copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageSummary {
    /// UNH 0062.
    pub reference: String,
    /// UNH S009.
    pub identifier: Arc<MessageIdentifier>,
    /// UNG 0048 of the enclosing group, if any.
    pub group_reference: Option<Arc<str>>,
    /// Where UNH is.
    pub header: SourcePosition,
    /// Segment number of UNT.
    pub trailer_segment: u32,
}

/// UNH S009, the message identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageIdentifier {
    /// 0065, e.g. `INVOIC`.
    pub message_type: String,
    /// 0052.
    pub version: String,
    /// 0054.
    pub release: String,
    /// 0051.
    pub agency: String,
    /// 0057.
    pub association_code: Option<String>,
}

impl MessageSummary {
    /// The summary of `message`, sharing the identifier and group reference of
    /// `previous` (the summary of the message before it) when they are the same.
    pub(crate) fn of(message: &crate::Message, previous: Option<&MessageSummary>) -> Self {
        let header = message
            .segments
            .first()
            .map(|s| s.position)
            .unwrap_or_default();
        let identifier = match previous {
            Some(p)
                if p.identifier.message_type == message.message_type
                    && p.identifier.version == message.version
                    && p.identifier.release == message.release
                    && p.identifier.agency == message.agency
                    && p.identifier.association_code == message.association_code =>
            {
                Arc::clone(&p.identifier)
            }
            _ => Arc::new(MessageIdentifier {
                message_type: message.message_type.clone(),
                version: message.version.clone(),
                release: message.release.clone(),
                agency: message.agency.clone(),
                association_code: message.association_code.clone(),
            }),
        };
        let group_reference = message.group_reference.as_deref().map(|group| {
            match previous.and_then(|p| p.group_reference.as_ref()) {
                Some(shared) if **shared == *group => Arc::clone(shared),
                _ => Arc::from(group),
            }
        });
        Self {
            reference: message.reference.clone(),
            identifier,
            group_reference,
            header,
            trailer_segment: message
                .segments
                .last()
                .map_or(header.segment, |s| s.position.segment),
        }
    }

    /// Does segment number `segment` lie inside this message (UNH and UNT included)?
    pub fn contains(&self, segment: u32) -> bool {
        (self.header.segment..=self.trailer_segment).contains(&segment)
    }
}
