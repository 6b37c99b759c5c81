//! The one decision "accept or reject this interchange", with every reason.
//!
//! The transform consumer and the operator CLI (`edihub edifact check|convert`) both call
//! [`evaluate`], so a partner onboarding team sees exactly the faults the hub would put in
//! an `EdiMessageRejected` event.
//!
//! Policy, in one place:
//! - any syntax or envelope defect ([`Interchange::parse_collecting`]) rejects the
//!   interchange, control-count defects included;
//! - every INVOIC message is mapped on its own, and all mapping errors of all messages are
//!   collected;
//! - a message of another type is an `unsupported-message-type` fault: this hub maps only
//!   INVOIC, and an interchange is accepted or rejected as a unit, so nothing is dropped
//!   silently;
//! - EN 16931 total rules are warnings inside each invoice, never faults.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::invoic::{self, CanonicalInvoice, MappingErrorKind};
use crate::{
    ElementPosition, Group, Interchange, InterchangeHeader, ParseErrorKind, SourcePosition,
};

/// What kind of fault: stable, machine-readable (serialised in kebab-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultClass {
    /// ISO 9735 syntax, character set or envelope defect.
    Syntax,
    /// An INVOIC message that cannot be mapped to the canonical invoice.
    Mapping,
    /// A message of a type this hub does not map (anything but INVOIC).
    UnsupportedMessageType,
}

impl FaultClass {
    /// The kebab-case name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::Mapping => "mapping",
            Self::UnsupportedMessageType => "unsupported-message-type",
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
    /// A message of this type (UNH 0065) is not mapped by the hub.
    UnsupportedMessageType(String),
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
    fn of(message: &crate::Message, previous: Option<&MessageSummary>) -> Self {
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

/// Parses, validates and maps one interchange, collecting every fault.
///
/// When another interchange follows UNZ (concatenated files are a real partner mistake),
/// the "data after UNZ" fault is followed by the faults of the next interchange too, with
/// byte offsets into the whole input and segment numbers counted on from the first one,
/// so that the sender learns everything in one round trip.
pub fn evaluate(input: &[u8]) -> Report {
    let mut invoices = Vec::new();
    let mut report = evaluate_each(input, &mut |invoice| invoices.push(invoice));
    report.invoices = invoices;
    report
}

/// [`evaluate`] with bounded memory: each invoice goes to `on_invoice` as soon as its
/// message is mapped and the report lists none, so a large interchange is never held as
/// segments or invoices all at once (the input itself, one message, and a short summary
/// per message are). The report decides: an invoice handed out belongs to an accepted
/// interchange only if [`Report::must_reject`] is false at the end, so a caller publishes
/// nothing before then (the transform consumer writes them in a transaction it commits
/// or rolls back).
pub fn evaluate_each(input: &[u8], on_invoice: &mut dyn FnMut(CanonicalInvoice)) -> Report {
    let mut report = evaluate_one(input, on_invoice);
    let mut base = SourcePosition::default();
    while let Some(next) = next_interchange(input, &report.faults, base) {
        let rest = evaluate_one(&input[next.offset..], on_invoice);
        // Positions in `rest` count from the start of the further interchange.
        let segment = |s: u32| s.saturating_add(next.segment.saturating_sub(1));
        let position = |p: SourcePosition| SourcePosition {
            segment: segment(p.segment),
            offset: p.offset + next.offset,
        };
        report.faults.extend(rest.faults.into_iter().map(|mut f| {
            f.position = f.position.map(position);
            f
        }));
        report
            .messages
            .extend(rest.messages.into_iter().map(|mut m| {
                m.header = position(m.header);
                m.trailer_segment = segment(m.trailer_segment);
                m
            }));
        report.groups.extend(rest.groups.into_iter().map(|mut g| {
            g.header = position(g.header);
            g.trailer_segment = segment(g.trailer_segment);
            g
        }));
        base = next;
    }
    report
}

/// Where a further interchange starts, if the last fault is data after UNZ that looks
/// like one (UNA or UNB after stray terminators or blanks).
fn next_interchange(
    input: &[u8],
    faults: &[Fault],
    after: SourcePosition,
) -> Option<SourcePosition> {
    let last = faults.last()?;
    let position = last.position?;
    if last.class != FaultClass::Syntax
        || last.message != crate::ParseErrorKind::TrailingData.to_string()
        || position.offset <= after.offset
    {
        return None;
    }
    let skip = input[position.offset..]
        .iter()
        .position(|b| !matches!(b, b'\'' | b' ' | b'\r' | b'\n' | b'\t'))?;
    let start = position.offset + skip;
    matches!(input.get(start..start + 3), Some(b"UNA" | b"UNB")).then_some(SourcePosition {
        segment: position.segment,
        offset: start,
    })
}

fn evaluate_one(input: &[u8], on_invoice: &mut dyn FnMut(CanonicalInvoice)) -> Report {
    let syntax = |e: crate::ParseError| Fault {
        class: FaultClass::Syntax,
        message: e.kind.to_string(),
        message_reference: None,
        position: Some(e.position),
        element: e.element,
        cause: Cause::Syntax(e.kind),
    };
    let mark = crate::syntax::read_preamble(input)
        .map(|p| p.delimiters.decimal_mark)
        .unwrap_or(b'.');
    // Mapped as each message closes; its segments are dropped right after.
    let mut mapping_faults: Vec<Fault> = Vec::new();
    let mut messages: Vec<MessageSummary> = Vec::new();
    let walked = Interchange::parse_streaming(input, &mut |message| {
        messages.push(MessageSummary::of(message, messages.last()));
        let unh = message.segments.first().map(|s| s.position);
        if message.message_type != "INVOIC" {
            mapping_faults.push(Fault {
                class: FaultClass::UnsupportedMessageType,
                message: format!(
                    "message type {} is not supported (this hub maps INVOIC only)",
                    message.message_type
                ),
                message_reference: Some(message.reference.clone()),
                position: unh,
                element: None,
                cause: Cause::UnsupportedMessageType(message.message_type.clone()),
            });
            return;
        }
        match invoic::map_message(message, mark) {
            Ok(invoice) => on_invoice(invoice),
            Err(errors) => mapping_faults.extend(errors.into_iter().map(|e| Fault {
                class: FaultClass::Mapping,
                message: e.kind.to_string(),
                message_reference: Some(message.reference.clone()),
                position: e.position.or(unh),
                element: e.element,
                cause: Cause::Mapping(e.kind),
            })),
        }
    });
    let (interchange, parse_faults) = match walked {
        Ok(walked) => walked,
        // Unreadable past some point: the syntax faults say why. Invoices mapped before
        // it were handed out already; the report rejects, so they go nowhere.
        Err(findings) => {
            return Report {
                header: InterchangeHeader::peek(input).ok(),
                faults: findings.into_iter().map(syntax).collect(),
                invoices: Vec::new(),
                messages: Vec::new(),
                groups: Vec::new(),
            };
        }
    };
    let mut faults: Vec<Fault> = parse_faults.into_iter().map(syntax).collect();
    faults.extend(mapping_faults);
    if messages.is_empty() {
        faults.push(Fault {
            class: FaultClass::Mapping,
            message: "the interchange holds no message".to_owned(),
            message_reference: None,
            position: None,
            element: None,
            cause: Cause::NoMessage,
        });
    }
    faults.sort_by_key(|f| f.position);
    Report {
        messages,
        groups: interchange.groups,
        header: Some(interchange.header),
        faults,
        invoices: Vec::new(),
    }
}
