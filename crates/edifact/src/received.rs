//! Acknowledgements partners send to the hub: CONTRL (ISO 9735-1 syntax and service
//! report) and APERAK (application error and acknowledgement), decoded into what they
//! acknowledge, so that outbound delivery can match them to the interchanges it sent.

use serde::{Deserialize, Serialize};

use crate::{Message, SourcePosition};

/// What one inbound CONTRL or APERAK message acknowledges.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReceivedAcknowledgement {
    /// UNH 0065 of the acknowledging message: `CONTRL` or `APERAK`.
    pub message_type: String,
}

/// Why a CONTRL or APERAK message could not be read as an acknowledgement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ReadError {
    pub message: String,
    pub position: Option<SourcePosition>,
    pub element: Option<crate::ElementPosition>,
}

/// Decodes `message`, whose type is CONTRL or APERAK. `None` for any other type.
pub fn read(message: &Message) -> Option<Result<ReceivedAcknowledgement, ReadError>> {
    match message.message_type.as_str() {
        "CONTRL" | "APERAK" => Some(Ok(ReceivedAcknowledgement {
            message_type: message.message_type.clone(),
        })),
        _ => None,
    }
}
