//! The published forms of what the parser reports (crates/events has no dependency on
//! the parser): faults, warnings, the charset policy and `EdiMessageParsed`.

use edihub_edifact::InterchangeHeader;
use edihub_edifact::charset::CharsetPolicy;
use edihub_edifact::check::{self, MessageOutput};
use edihub_events::{EdiMessageParsed, Fault, Warning};
use uuid::Uuid;

/// The published form of a fault.
pub fn to_event_fault(fault: &check::Fault) -> Fault {
    Fault {
        code: Some(fault.class.as_str().to_owned()),
        message_reference: fault.message_reference.clone(),
        message: fault.message.clone(),
        segment: fault.position.map(|p| p.segment),
        offset: fault.position.map(|p| p.offset as u64),
        element: fault.element.map(|e| e.element),
        component: fault.element.map(|e| e.component),
    }
}

/// The published form of a warning.
pub fn to_event_warning(warning: &check::Warning) -> Warning {
    Warning {
        code: warning.kind.as_str().to_owned(),
        message: warning.message.clone(),
        message_reference: warning.message_reference.clone(),
        segment: warning.position.map(|p| p.segment),
        offset: warning.position.map(|p| p.offset as u64),
        element: warning.element.map(|e| e.element),
        component: warning.element.map(|e| e.component),
        byte_offset: warning.byte_offset.map(|o| o as u64),
        syntax_identifier: warning.syntax_identifier.clone(),
    }
}

/// The parser's policy for the one an `EdiMessageReceived` carries (absent: tolerant).
pub fn charset_policy(published: Option<edihub_events::CharsetPolicy>) -> CharsetPolicy {
    match published.unwrap_or_default() {
        edihub_events::CharsetPolicy::Strict => CharsetPolicy::Strict,
        edihub_events::CharsetPolicy::Tolerant => CharsetPolicy::Tolerant,
    }
}

/// The `EdiMessageParsed` event of one message of the interchange `header` opens.
pub fn parsed_event(
    message_id: Uuid,
    header: &InterchangeHeader,
    output: &MessageOutput,
) -> Result<EdiMessageParsed, serde_json::Error> {
    Ok(EdiMessageParsed {
        message_id,
        message_reference: output.generic.reference.clone(),
        message_type: output.generic.message_type().to_owned(),
        unb_reference: header.control_reference.clone(),
        unb_sender: header.sender_id.clone(),
        unb_recipient: header.recipient_id.clone(),
        syntax_identifier: header.syntax_identifier.clone(),
        message: serde_json::to_value(&output.generic)?,
        acknowledgement: output
            .acknowledgement
            .as_ref()
            .map(serde_json::to_value)
            .transpose()?,
        warnings: output.warnings.iter().map(to_event_warning).collect(),
    })
}
