//! Assembling a message's evidence: its objects, then evidence.json for the ledger
//! position it was given. The same inputs give the same bytes, so a redelivery rebuilds
//! evidence.json byte for byte.

use super::invoices::InvoiceNumbers;
use super::keys::{evidence_key, kinds};
use super::objects::{ArchiveObject, message_objects};
use super::pem::certificate_pem;
use super::remarks::remarks;
use crate::evidence::{
    DOCUMENT_VERSION, EvidenceDocument, EvidenceEncryption, EvidenceHub, EvidenceIds,
    EvidenceLedger, EvidenceMdn, EvidencePartner, EvidenceRetention, EvidenceSignature,
};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use chrono::{DateTime, Utc};
use edihub_journal::{MessageEvidence, SecurityFacts};
use edihub_ledger::{EntryFacts, Position};

#[derive(Debug, thiserror::Error)]
pub enum EvidenceError {
    #[error("request headers do not serialise: {0}")]
    Headers(#[from] serde_json::Error),
    #[error("the journaled signer certificate is not base64: {0}")]
    Certificate(#[from] base64::DecodeError),
}

/// Everything of a message's evidence that does not depend on its ledger position.
#[derive(Debug, Clone)]
pub struct EvidenceParts {
    facts: Facts,
    objects: Vec<ArchiveObject>,
    base: EvidenceDocument,
}

/// What the ledger entry says besides the objects.
#[derive(Debug, Clone)]
struct Facts {
    message_id: uuid::Uuid,
    as2_from: String,
    as2_to: String,
    as2_message_id: String,
    received_at: DateTime<Utc>,
    retain_until: DateTime<Utc>,
}

/// A message's evidence complete: every object, evidence.json last.
#[derive(Debug, Clone)]
pub struct EvidenceSet {
    pub document: EvidenceDocument,
    pub objects: Vec<ArchiveObject>,
    facts: Facts,
}

impl EvidenceParts {
    pub fn new(
        evidence: &MessageEvidence,
        invoices: &InvoiceNumbers,
        retain_until: DateTime<Utc>,
    ) -> Result<Self, EvidenceError> {
        let objects = message_objects(evidence)?;
        let security = evidence.security.as_ref();
        let base = EvidenceDocument {
            version: DOCUMENT_VERSION,
            ids: EvidenceIds {
                message_id: evidence.id,
                as2_message_id: evidence.as2_message_id.clone(),
                unb_reference: evidence.unb_reference.clone(),
                invoice_numbers: invoices.numbers.clone(),
            },
            partner: EvidencePartner {
                as2_name: evidence.as2_from.clone(),
                unb_sender: evidence.unb_sender.clone(),
            },
            hub: EvidenceHub {
                as2_name: evidence.as2_to.clone(),
                unb_recipient: evidence.unb_recipient.clone(),
            },
            received_at: evidence.received_at,
            signature: signature(security)?,
            encryption: security
                .and_then(|s| s.encryption.as_ref())
                .map(|e| EvidenceEncryption {
                    algorithm: e.algorithm.clone(),
                }),
            compressed: security.is_some_and(|s| s.compressed),
            mdn: mdn(evidence),
            objects: objects.iter().map(ArchiveObject::describe).collect(),
            ledger: EvidenceLedger {
                seq: 0,
                chained_at: evidence.received_at,
            },
            retention: EvidenceRetention {
                mode: "COMPLIANCE".into(),
                retain_until,
            },
            remarks: remarks(evidence, invoices),
        };
        let facts = Facts {
            message_id: evidence.id,
            as2_from: evidence.as2_from.clone(),
            as2_to: evidence.as2_to.clone(),
            as2_message_id: evidence.as2_message_id.clone(),
            received_at: evidence.received_at,
            retain_until,
        };
        Ok(Self {
            facts,
            objects,
            base,
        })
    }

    /// The evidence for ledger `position`: evidence.json records it.
    pub fn at(&self, position: Position) -> EvidenceSet {
        let mut document = self.base.clone();
        document.ledger = EvidenceLedger {
            seq: position.seq,
            chained_at: position.chained_at,
        };
        let mut objects = self.objects.clone();
        objects.push(ArchiveObject::new(
            kinds::EVIDENCE,
            evidence_key(
                kinds::EVIDENCE,
                self.facts.message_id,
                self.facts.received_at,
            ),
            "application/json",
            document_bytes(&document),
        ));
        EvidenceSet {
            document,
            objects,
            facts: self.facts.clone(),
        }
    }
}

impl EvidenceSet {
    /// The ledger entry's facts: every object, evidence.json included.
    pub fn entry_facts(&self) -> EntryFacts {
        EntryFacts {
            message_id: self.facts.message_id,
            as2_from: self.facts.as2_from.clone(),
            as2_to: self.facts.as2_to.clone(),
            as2_message_id: self.facts.as2_message_id.clone(),
            received_at: self.facts.received_at,
            retain_until: self.facts.retain_until,
            objects: self.objects.iter().map(ArchiveObject::reference).collect(),
        }
    }

    pub fn retain_until(&self) -> DateTime<Utc> {
        self.facts.retain_until
    }

    /// The ledger position evidence.json records.
    pub fn position(&self) -> Position {
        Position {
            seq: self.document.ledger.seq,
            chained_at: self.document.ledger.chained_at,
        }
    }

    /// The object of `kind`, when the message has one.
    pub fn object(&self, kind: &str) -> Option<&ArchiveObject> {
        self.objects.iter().find(|o| o.kind == kind)
    }
}

/// evidence.json's bytes: pretty JSON, fields in declaration order.
pub fn document_bytes(document: &EvidenceDocument) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(document)
        // Plain structs with string keys and no custom serialisers: serde_json cannot fail.
        .unwrap_or_else(|_| unreachable!("evidence.json serialisation is infallible"));
    bytes.push(b'\n');
    bytes
}

fn signature(
    security: Option<&SecurityFacts>,
) -> Result<Option<EvidenceSignature>, base64::DecodeError> {
    let Some(facts) = security.and_then(|s| s.signature.as_ref()) else {
        return Ok(None);
    };
    let der = BASE64.decode(&facts.certificate_der_b64)?;
    Ok(Some(EvidenceSignature {
        digest: facts.digest.clone(),
        verified_on_receipt: true,
        certificate_pem: certificate_pem(&der),
        certificate_sha256: facts.certificate_sha256.clone(),
    }))
}

fn mdn(evidence: &MessageEvidence) -> Option<EvidenceMdn> {
    let (mdn, created_at) = evidence.mdn.as_ref()?;
    let received_content_mic = match &evidence.security {
        Some(security) => security.mic.clone(),
        None => mic_in_body(&mdn.body).unwrap_or_default(),
    };
    Some(EvidenceMdn {
        mdn_message_id: mdn.mdn_message_id.clone(),
        disposition: mdn.disposition.clone(),
        received_content_mic,
        signed: mdn
            .content_type
            .to_ascii_lowercase()
            .starts_with("multipart/signed"),
        created_at: *created_at,
    })
}

/// The `Received-Content-MIC` field of an MDN's disposition part, for messages journaled
/// before the MIC was kept with the security facts.
fn mic_in_body(body: &[u8]) -> Option<String> {
    const FIELD: &str = "received-content-mic:";
    String::from_utf8_lossy(body).lines().find_map(|line| {
        let lower = line.to_ascii_lowercase();
        lower
            .starts_with(FIELD)
            .then(|| line[FIELD.len()..].trim().to_owned())
    })
}

#[cfg(test)]
mod tests;
