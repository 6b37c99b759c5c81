//! Where each evidence object lives: deterministic keys by receipt date and message id
//! (ADR 0006's table), so a redelivery writes the same bytes to the same keys.

use chrono::{DateTime, Utc};
use uuid::Uuid;

/// The kinds of object a message has, in the fixed order evidence.json and the ledger
/// entry list them.
pub mod kinds {
    pub const PAYLOAD: &str = "payload";
    pub const REQUEST_BODY: &str = "request-body";
    pub const REQUEST_HEADERS: &str = "request-headers";
    pub const SIGNED_ENTITY: &str = "signed-entity";
    pub const MDN: &str = "mdn";
    pub const EVIDENCE: &str = "evidence";
}

/// `evidence/Y/M/D/<id>/`: the folder of a message's evidence objects.
pub fn evidence_prefix(message_id: Uuid, received_at: DateTime<Utc>) -> String {
    format!("evidence/{}/{message_id}/", received_at.format("%Y/%m/%d"))
}

/// The file name of each evidence kind under [`evidence_prefix`] (the payload keeps
/// `originals/...`, see [`crate::object_key`]).
pub fn file_name(kind: &str) -> Option<&'static str> {
    Some(match kind {
        kinds::REQUEST_BODY => "request-body.bin",
        kinds::REQUEST_HEADERS => "request-headers.json",
        kinds::SIGNED_ENTITY => "signed-entity.eml",
        kinds::MDN => "mdn.eml",
        kinds::EVIDENCE => "evidence.json",
        _ => return None,
    })
}

/// The key of `kind`'s object of a message.
pub fn evidence_key(kind: &str, message_id: Uuid, received_at: DateTime<Utc>) -> String {
    match file_name(kind) {
        Some(file) => format!("{}{file}", evidence_prefix(message_id, received_at)),
        None => crate::object_key(message_id, received_at),
    }
}
