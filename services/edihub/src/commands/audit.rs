//! `edihub audit`: the auditor's tools on the archive: one original fetched back, one
//! message's evidence checked, a period verified against the signed ledger, sealing now.

mod fetch;
mod inputs;
mod progress;
mod render;
mod seal;
mod show;
mod verify;

pub use fetch::audit_fetch;
pub use seal::audit_seal;
pub use show::audit_show;
pub use verify::{VerifyArgs, audit_verify};
