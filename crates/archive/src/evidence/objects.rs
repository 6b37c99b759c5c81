//! The objects of a message's evidence other than evidence.json: their bytes, keys and
//! digests, computed before anything is appended or stored (ADR 0006, "Crash safety").

use super::keys::{evidence_key, kinds};
use crate::evidence::EvidenceObject;
use edihub_journal::{MessageEvidence, StoredMdn, sha256_hex};

/// One object the archive stores for a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveObject {
    /// One of [`kinds`].
    pub kind: &'static str,
    pub key: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
    /// Lower-case hex SHA-256 of `bytes`.
    pub sha256: String,
}

impl ArchiveObject {
    pub fn new(kind: &'static str, key: String, content_type: &str, bytes: Vec<u8>) -> Self {
        Self {
            kind,
            key,
            content_type: content_type.to_owned(),
            sha256: sha256_hex(&bytes),
            bytes,
        }
    }

    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// How evidence.json lists it.
    pub fn describe(&self) -> EvidenceObject {
        EvidenceObject {
            kind: self.kind.to_owned(),
            key: self.key.clone(),
            content_type: self.content_type.clone(),
            sha256: self.sha256.clone(),
            size: self.size(),
        }
    }

    /// How the ledger entry names it.
    pub fn reference(&self) -> edihub_ledger::ObjectRef {
        edihub_ledger::ObjectRef {
            kind: self.kind.to_owned(),
            key: self.key.clone(),
            sha256: self.sha256.clone(),
            size: self.size(),
        }
    }
}

/// `mdn.eml`: the MDN's headers as `Name: value` lines in stored order, a blank line,
/// then its body, so the MDN reads as the MIME entity that was sent.
pub fn mdn_eml(mdn: &StoredMdn) -> Vec<u8> {
    let mut eml = Vec::with_capacity(mdn.body.len() + 512);
    for (name, value) in &mdn.headers {
        eml.extend_from_slice(name.as_bytes());
        eml.extend_from_slice(b": ");
        eml.extend_from_slice(value.as_bytes());
        eml.extend_from_slice(b"\r\n");
    }
    eml.extend_from_slice(b"\r\n");
    eml.extend_from_slice(&mdn.body);
    eml
}

/// Every object but evidence.json, in the fixed kind order; the absent ones (no signed
/// entity, no MDN) are left out.
pub fn message_objects(
    evidence: &MessageEvidence,
) -> Result<Vec<ArchiveObject>, serde_json::Error> {
    let key = |kind| evidence_key(kind, evidence.id, evidence.received_at);
    let mut objects = vec![
        ArchiveObject::new(
            kinds::PAYLOAD,
            key(kinds::PAYLOAD),
            "application/edifact",
            evidence.payload.clone(),
        ),
        ArchiveObject::new(
            kinds::REQUEST_BODY,
            key(kinds::REQUEST_BODY),
            &evidence.content_type,
            evidence.raw_body.clone(),
        ),
        ArchiveObject::new(
            kinds::REQUEST_HEADERS,
            key(kinds::REQUEST_HEADERS),
            "application/json",
            serde_json::to_vec_pretty(&evidence.as2_headers)?,
        ),
    ];
    if let Some(entity) = &evidence.signed_entity {
        objects.push(ArchiveObject::new(
            kinds::SIGNED_ENTITY,
            key(kinds::SIGNED_ENTITY),
            "message/rfc822",
            entity.clone(),
        ));
    }
    if let Some((mdn, _)) = &evidence.mdn {
        objects.push(ArchiveObject::new(
            kinds::MDN,
            key(kinds::MDN),
            "message/rfc822",
            mdn_eml(mdn),
        ));
    }
    Ok(objects)
}
