//! A message's audit evidence: the objects the archive stores for it and `evidence.json`,
//! which describes them (`docs/adr/0006-audit-evidence-and-ledger.md`, `docs/audit.md`).
//! Building it is pure: the archive's handler does the I/O.

mod build;
mod document;
mod invoices;
mod keys;
mod objects;
mod pem;
mod remarks;

pub use build::{EvidenceError, EvidenceParts, EvidenceSet, document_bytes};
pub use document::{
    DOCUMENT_VERSION, EvidenceDocument, EvidenceEncryption, EvidenceHub, EvidenceIds,
    EvidenceLedger, EvidenceMdn, EvidenceObject, EvidencePartner, EvidenceRetention,
    EvidenceSignature,
};
pub use invoices::{InvoiceNumbers, charset_policy, invoice_numbers};
pub use keys::{evidence_key, evidence_prefix, file_name, kinds};
pub use objects::{ArchiveObject, mdn_eml, message_objects};
pub use pem::certificate_pem;
