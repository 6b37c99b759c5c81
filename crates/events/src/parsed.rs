//! `EdiMessageParsed`: every message of an accepted interchange, whatever its type, as a
//! lossless rendering of its segments; and the warnings that ride on the events.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Payload of `EdiMessageParsed` on `edi.message.parsed`.
///
/// Published for each UNH..UNT message of an interchange the hub accepted, in input
/// order, in the same transaction as the acceptance: downstream teams can consume types
/// the hub does not map yet (DESADV, ORDERS, ...). An INVOIC also gets its
/// `InvoiceTransformed`; a CONTRL or APERAK also has `acknowledgement`. Nothing is
/// published here for a rejected interchange (its `EdiMessageRejected` says why).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EdiMessageParsed {
    /// The hub's id of the interchange (the received message).
    pub message_id: Uuid,
    /// UNH 0062.
    pub message_reference: String,
    /// UNH S009/0065, e.g. `DESADV`.
    pub message_type: String,
    /// UNB 0020 of the interchange.
    pub unb_reference: String,
    /// UNB S002/0004 and S003/0010.
    pub unb_sender: String,
    pub unb_recipient: String,
    /// UNB S001/0001, e.g. `UNOC`: the repertoire the values were declared in.
    pub syntax_identifier: String,
    /// The message: identifier, group reference and every segment with its position and
    /// its elements as lists of components (decoded values, empty ones kept). Its schema
    /// is docs/schema/generic-message.json.
    #[schemars(schema_with = "generic_message_ref")]
    pub message: serde_json::Value,
    /// For a CONTRL or APERAK: what it acknowledges (interchange, group and message
    /// references, action, errors). Its schema is docs/schema/received-acknowledgement.json.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "received_acknowledgement_ref")]
    pub acknowledgement: Option<serde_json::Value>,
    /// What the charset policy let through in this message, and in the UNB or UNG read
    /// before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

fn generic_message_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "$ref": "generic-message.json" })
}

fn received_acknowledgement_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "anyOf": [{ "$ref": "received-acknowledgement.json" }, { "type": "null" }] })
}

/// Something the sender got wrong that did not reject the interchange, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Warning {
    /// Machine-readable: `charset` (a value outside the declared repertoire, read as
    /// ISO 8859-1) or `charset-omitted` (more such values than the event lists).
    pub code: String,
    /// Human-readable description.
    pub message: String,
    /// UNH 0062 of the message the value is in; absent for UNB and UNG.
    #[serde(default)]
    pub message_reference: Option<String>,
    /// 1-based segment number in the interchange, when known.
    pub segment: Option<u32>,
    /// Byte offset of that segment in the interchange, when known.
    pub offset: Option<u64>,
    /// 1-based data element and component position in that segment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<u32>,
    /// Byte offset in the interchange of the value's first byte outside the repertoire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
    /// The syntax identifier UNB declared, e.g. `UNOA`.
    pub syntax_identifier: String,
}

/// How strictly a partnership's interchanges are held to the repertoire their UNB
/// declares: `strict`, a byte outside it is a fault; `tolerant` (the default), a byte
/// printable in ISO 8859-1 is read so and warned about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CharsetPolicy {
    Strict,
    #[default]
    Tolerant,
}
