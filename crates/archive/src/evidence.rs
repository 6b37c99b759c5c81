//! A message's audit evidence: the objects the archive stores for it and `evidence.json`,
//! which describes them (`docs/adr/0006-audit-evidence-and-ledger.md`, `docs/audit.md`).

mod document;

pub use document::{
    DOCUMENT_VERSION, EvidenceDocument, EvidenceEncryption, EvidenceHub, EvidenceIds,
    EvidenceLedger, EvidenceMdn, EvidenceObject, EvidencePartner, EvidenceRetention,
    EvidenceSignature,
};
