//! Acknowledgements partners send to the hub: CONTRL (ISO 9735-1 syntax and service
//! report) and APERAK (application error and acknowledgement), decoded into what they
//! acknowledge, so that outbound delivery can match them to the interchanges it sent
//! (by UNB reference, then group and message references).
//!
//! # What is read
//!
//! - CONTRL, `D:3` (syntax 1 to 3) and `4:1` (syntax 4), whose elements sit at the same
//!   positions: `UCI` (the acknowledged interchange, its action and interchange-level
//!   error), `UCF` (a group), `UCM` (a message), `UCS` (a segment, counted from UNH = 1)
//!   and `UCD` (a data element, S011). See `contrl` for the rules.
//! - APERAK (D.93A to D.01B and EANCOM): `BGM` (document name, number, message
//!   function), `DTM`, `RFF` (what the APERAK answers, by qualifier), `ERC` with its
//!   `FTX` texts and `RFF` references. See `aperak` for the rules.
//!
//! Decoding is tolerant of optional and unknown content (old 0083 codes, segments this
//! reader does not know) and strict where meaning would be lost: a CONTRL without UCI,
//! an unknown action code, a UCS outside a UCM, a position that is not a number.
//!
//! # Layout
//!
//! - this file: the decoded form ([`ReceivedAcknowledgement`]) and [`read`];
//! - `levels`: what the CONTRL says about groups and messages;
//! - `reported`: errors, references, texts and dates as the acknowledgement carries them;
//! - `codes`: the code lists (0083, 0085, 1225, 4343) read into [`Action`] and meanings;
//! - `error`: [`ReadError`];
//! - `fields`: reading values out of segments;
//! - `contrl` and `aperak`: one decoder per message type.

mod aperak;
mod codes;
mod contrl;
mod error;
mod fields;
mod levels;
mod reported;

pub use error::{ReadError, ReadErrorKind};
pub use levels::{AcknowledgedGroup, AcknowledgedMessage, Party};
pub use reported::{DateTime, Document, ErroneousElement, Reference, ReportedError, Text};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Message, SourcePosition};

/// What one inbound CONTRL or APERAK message acknowledges.
///
/// A CONTRL fills `interchange_reference`, the parties, `groups` and `messages`; an
/// APERAK fills `document` and `references`. Both put their top-level errors (UCI's, or
/// every ERC) in `errors`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReceivedAcknowledgement {
    /// UNH 0065 of the acknowledging message: `CONTRL` or `APERAK`.
    pub message_type: String,
    /// UNH 0062 of the acknowledging message.
    pub message_reference: String,
    /// Where the acknowledging message's UNH is, in the interchange that carried it.
    pub position: SourcePosition,
    /// The verdict on the whole subject: for a CONTRL, UCI's action, made
    /// `partially-accepted` when UCI accepts and a group or message says otherwise; for
    /// an APERAK, from BGM's message function (see `aperak`).
    pub action: Action,
    /// CONTRL UCI 0020: UNB 0020 of the acknowledged interchange.
    pub interchange_reference: Option<String>,
    /// CONTRL UCI S002: the acknowledged interchange's sender, as it named itself.
    pub interchange_sender: Option<Party>,
    /// CONTRL UCI S003: the acknowledged interchange's recipient.
    pub interchange_recipient: Option<Party>,
    /// Errors at the top level: UCI's (CONTRL), or every ERC group (APERAK).
    #[serde(default)]
    pub errors: Vec<ReportedError>,
    /// CONTRL UCF: the groups reported on, in order.
    #[serde(default)]
    pub groups: Vec<AcknowledgedGroup>,
    /// CONTRL UCM: the messages reported on, in order, grouped ones included.
    #[serde(default)]
    pub messages: Vec<AcknowledgedMessage>,
    /// APERAK BGM, with the message's own DTM and FTX.
    pub document: Option<Document>,
    /// APERAK RFF (segment group 1): what the APERAK answers, by qualifier, e.g. `ACW`
    /// (reference to the previous message).
    #[serde(default)]
    pub references: Vec<Reference>,
}

impl ReceivedAcknowledgement {
    /// The value of the first top-level reference with `qualifier` (RFF 1153), e.g.
    /// `ACW`.
    pub fn reference(&self, qualifier: &str) -> Option<&str> {
        self.references
            .iter()
            .find(|r| r.qualifier == qualifier)
            .and_then(|r| r.value.as_deref())
    }
}

/// What an acknowledgement says about the subject (interchange, group or message).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// CONTRL 0083 = 7 (and the withdrawn 1) with nothing below rejected; APERAK
    /// accepted (1225 = 29, 44, ...).
    Accepted,
    /// CONTRL 0083 = 4 (and the withdrawn 6); APERAK not accepted (1225 = 27, ...).
    Rejected,
    /// CONTRL 0083 = 8 (and the withdrawn 5): received, verdict still to come.
    Received,
    /// CONTRL 0083 = 7 with a group or message below rejected (and the withdrawn 2 and
    /// 3).
    PartiallyAccepted,
}

impl Action {
    /// The kebab-case name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accepted => "accepted",
            Self::Rejected => "rejected",
            Self::Received => "received",
            Self::PartiallyAccepted => "partially-accepted",
        }
    }
}

impl From<crate::contrl::Action> for Action {
    fn from(action: crate::contrl::Action) -> Self {
        match action {
            crate::contrl::Action::Accepted => Self::Accepted,
            crate::contrl::Action::Rejected => Self::Rejected,
        }
    }
}

/// Decodes `message`, whose type is CONTRL or APERAK. `None` for any other type.
pub fn read(message: &Message) -> Option<Result<ReceivedAcknowledgement, ReadError>> {
    match message.message_type.as_str() {
        "CONTRL" => Some(contrl::read(message)),
        "APERAK" => Some(aperak::read(message)),
        _ => None,
    }
}

/// The acknowledgement of `message` with nothing decoded yet: the decoders fill it.
fn empty(message: &Message, action: Action) -> ReceivedAcknowledgement {
    ReceivedAcknowledgement {
        message_type: message.message_type.clone(),
        message_reference: message.reference.clone(),
        position: unh_position(message),
        action,
        interchange_reference: None,
        interchange_sender: None,
        interchange_recipient: None,
        errors: Vec::new(),
        groups: Vec::new(),
        messages: Vec::new(),
        document: None,
        references: Vec::new(),
    }
}

fn unh_position(message: &Message) -> SourcePosition {
    message
        .segments
        .first()
        .map(|s| s.position)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
