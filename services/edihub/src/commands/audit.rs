//! `edihub audit`: the auditor's tools on the archive: one original fetched back, one
//! message's evidence checked, a period verified against the signed ledger, sealing now;
//! searching the archive, legal holds, and the access log every look is recorded in
//! (`access.rs`).

mod access;
mod export;
mod fetch;
mod hold;
mod inputs;
mod offline;
pub(crate) mod progress;
mod render;
mod seal;
mod search;
mod show;
mod verify;

pub use access::{AccessArgs, audit_access};
pub use export::{ExportArgs, audit_export};
pub use fetch::audit_fetch;
pub use hold::{HoldArgs, audit_hold};
pub use seal::audit_seal;
pub use search::{SearchArgs, audit_search};
pub use show::audit_show;
pub use verify::{VerifyArgs, audit_verify};
