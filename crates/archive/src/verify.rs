//! Checking the archive: one message's evidence (`edihub audit show`) and a period's
//! objects and ledger segments (`edihub audit verify`).
//!
//! Every check reads what S3 holds (by the version ids recorded when it was stored) and
//! what the signed segments say, and compares the database with them, never the other
//! way round: a database row that differs from a signed segment or from an object is
//! reported as a discrepancy, naming the message or position, the object's key, what was
//! expected and what was found.
//!
//! The checks on bytes alone (the partner's signature, the MDN's MIC, a digest against a
//! claim: `signature`, `mdn`, `digest`) are shared with the offline check of an export
//! bundle (`crate::bundle`), which has bytes from a tar file instead of S3.

pub(crate) mod chain;
pub(crate) mod consistency;
pub(crate) mod digest;
mod entry;
pub(crate) mod mdn;
mod message;
mod objects;
mod period;
mod report;
pub(crate) mod segments;
pub(crate) mod signature;
pub(crate) mod sources;
mod unrecorded;

pub use message::{CheckContext, check_message};
pub use period::{Anchors, PeriodReport, PeriodSummary, verify_period};
pub use report::{Check, LedgerPlace, MessageCheck, ObjectCheck, Verdict};

/// Why a check could not run at all (as opposed to a discrepancy it found).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Ledger(#[from] edihub_ledger::LedgerError),
    #[error("no archive record and no ledger entry for message {0}")]
    Unknown(uuid::Uuid),
}
