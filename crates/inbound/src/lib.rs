//! The gateway's decision on one inbound AS2 request, as a pure step.
//!
//! `POST /as2` reads a request, hands it to [`decide`], journals what comes back and
//! answers. Everything in between is decided here, on values alone: which of the hub's
//! identities and which partnership the message names, whether its asynchronous MDN URL
//! is allowed, the security layers (decrypt, verify, decompress), and the MDN to store
//! and send. There are no sockets, no database and no clock: the caller passes the
//! directory snapshot, `now` and the ids, so every disposition is tested on bytes alone
//! (`tests/decide.rs`).
//!
//! Module map, in the order a request meets them:
//! - [`request`]: the header section's size and the AS2 headers, checked before
//!   anything else is done.
//! - [`receipt`]: where the MDN goes (in the response, or POSTed to an allowed URL).
//! - [`decision`]: accept, with the payload and the MDN, or refuse, with the
//!   disposition and its error MDN.
//! - [`mdn`]: the MDN itself, signed when the partner asked for a signed receipt.
//! - [`replay`]: the warning MDN for signed content accepted before under another
//!   Message-ID.

pub mod decision;
pub mod mdn;
pub mod receipt;
pub mod replay;
pub mod request;

pub use decision::{Accepted, DecideError, Decision, Layers, Policy, Refused, Request, decide};
pub use mdn::{Mdn, REPORTING_UA};
pub use receipt::{ReceiptDelivery, receipt_delivery};
pub use replay::replay_mdn;
pub use request::{RequestError, read_headers};
