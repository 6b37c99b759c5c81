//! What the caller chooses ([`Options`]) and what it gets per message ([`MessageOutput`]).

use serde::{Deserialize, Serialize};

use crate::charset::CharsetPolicy;
use crate::generic::GenericMessage;
use crate::invoic::CanonicalInvoice;
use crate::received::ReceivedAcknowledgement;

/// How to evaluate an interchange; per partnership in the hub (serde, so that it can sit
/// in a partnership's settings; absent fields take their defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// What a byte outside the declared repertoire is (default: tolerant).
    pub charset: CharsetPolicy,
}

/// One message, as [`super::evaluate_each_with`] hands it out when its UNT is read.
///
/// Like the invoices of [`super::evaluate_each`], a message belongs to an accepted
/// interchange only if the final report does not reject.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageOutput {
    /// The lossless rendering of the message, whatever its type.
    pub generic: GenericMessage,
    /// The canonical invoice, for an INVOIC that mapped.
    pub invoice: Option<CanonicalInvoice>,
    /// What a CONTRL or APERAK acknowledges, when it could be read.
    pub acknowledgement: Option<ReceivedAcknowledgement>,
    /// The charset warnings found since the previous message: in this message's
    /// segments, and in the UNB or UNG read before it. Each warning of the report goes
    /// with exactly one message, so events that carry these lose none (past
    /// [`crate::charset::CharsetWarnings::LIMIT`] the report only counts them).
    pub warnings: Vec<super::Warning>,
}
