//! The CLI's commands, one file each (the dead-letter, partner and EDIFACT tools have
//! their own modules beside this one).

pub(crate) mod audit;
mod message;
mod send;
mod setup;

pub(crate) use audit::progress::Progress;
pub use audit::{AccessArgs, HoldArgs, SearchArgs, audit_access, audit_hold, audit_search};
pub use audit::{ExportArgs, audit_export};
pub use audit::{VerifyArgs, audit_fetch, audit_seal, audit_show, audit_verify};
pub use message::{events, message_key, show_message};
pub use send::{SendArgs, send};
pub use setup::{init, migrate};
