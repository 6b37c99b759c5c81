//! The auditor's export bundle (`edihub audit export`, `edihub audit verify FILE`): a tar
//! file holding a period's evidence objects under their S3 keys, the ledger segments
//! that seal them, the certificates to check them with, an index and a README that says
//! how to check it all with standard tools.
//!
//! [`export_bundle`] reads S3 by the version ids the database records, one object at a
//! time, and writes each as one tar entry; [`verify_bundle`] checks a bundle offline,
//! with the same checks on bytes as the online verification (`crate::verify`) and the
//! ledger's own (`edihub_ledger::verify`).
//!
//! A truncated bundle (its last segments and messages cut off) is detected against
//! index.json, which names the last segment exported and its signed head, and against
//! each evidence.json, whose ledger position must lie in a segment of the bundle. The
//! index is signed with the sealing key (index.json.p7s), so a bundle cut and its index
//! rewritten to match fails that signature; rewriting both takes the sealing key itself,
//! which only a signed head the auditor holds apart from the bundle can expose.

mod chain;
mod copy;
mod export;
mod index;
mod message;
mod read;
mod readme;
mod signature;
mod spool;
mod verify;
mod write;

pub use export::{ExportRequest, ExportSummary, export_bundle};
pub use index::{
    BundleFacts, BundleIndex, INDEX_VERSION, IndexCertificates, IndexMessage, IndexObject,
    IndexSegment, index_csv,
};
pub use read::Bundle;
pub use readme::readme;
pub use verify::{BundleMessage, BundleReport, OfflineAnchors, verify_bundle};
pub use write::{BundleWriter, Streamed};

/// The bundle's own files (the objects and segments keep their S3 keys).
pub mod paths {
    pub const README: &str = "README.txt";
    pub const INDEX_JSON: &str = "index.json";
    /// The sealing key's detached CMS signature (DER) over index.json's exact bytes.
    pub const INDEX_SIGNATURE: &str = "index.json.p7s";
    pub const INDEX_CSV: &str = "index.csv";
    pub const SEALING_CERTIFICATE: &str = "certificates/sealing.pem";
    pub const HUB_CERTIFICATES: &str = "certificates/hub/";
    pub const PARTNER_CERTIFICATES: &str = "certificates/partners/";
    pub const SEGMENTS: &str = "ledger/segments/";
}

/// Why an export or a check could not run (what it finds wrong is a discrepancy).
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("bundle file: {0}")]
    Io(#[from] std::io::Error),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Ledger(#[from] edihub_ledger::LedgerError),
    #[error("index.json: {0}")]
    Index(#[source] serde_json::Error),
    /// The sealing identity could not sign index.json (or give its certificate).
    #[error("the sealing key: {0}")]
    Seal(#[source] edihub_as2::As2Error),
    #[error("the bundle has no index.json: is it an edihub audit bundle?")]
    NoIndex,
    /// The object could not be read to its end after its tar header was written.
    #[error("{key}: reading the object from S3 failed midway: {source}")]
    Body {
        key: String,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("{key}: S3 declared {declared} bytes but sent more")]
    BodyTooLong { key: String, declared: u64 },
    #[error("{key}: S3 declared {declared} bytes but sent {found}")]
    BodyTooShort {
        key: String,
        declared: u64,
        found: u64,
    },
}

#[cfg(test)]
mod tests;
