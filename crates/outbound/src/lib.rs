//! Outbound AS2 (issue 16): the messages the hub sends to partners.
//!
//! [`OutboundStore`] owns the `outbound_message` table. [`OutboundStore::queue`] writes
//! a message, its delivery row on the outbox channel [`CHANNEL`] and its first
//! `OutboundStatusChanged` event in one transaction; every later change of state (by
//! the sender, `cancel` or `resend`) writes its event in the transaction of the change,
//! under the message's id as aggregate, so subscribers see a message's changes in order.
//!
//! A [`Relay`](edihub_outbox::Relay) for [`CHANNEL`] with an [`OutboundSender`] as its
//! publisher builds each message as its partnership's outbound settings say, POSTs it
//! and judges the answer ([`verdict`]): a synchronous MDN ends it `delivered` or
//! `failed`, an asynchronous one leaves it `sent`. Transport errors and 5xx answers are
//! retried after the partnership's backoff; after the last attempt the message is `failed`.
//!
//! An asynchronous MDN arriving at the gateway is recognised, read and judged by
//! [`inbound_mdn`] and recorded by [`OutboundStore::receive_mdn`]; a message whose MDN
//! does not come within its partnership's `mdn_timeout_ms` is sent again, then failed,
//! by a [`TimeoutSweep`].
//!
//! Sources: `edihub outbound send`; the CONTRLs of partnerships with outbound
//! settings, queued by the transform consumer with [`queue_in`] in its own transaction;
//! and `OutboundRequested` events on `edi.outbound.requested`, queued by
//! [`OutboundRequests`] (run by the outbox relay) with inbox dedup, or rejected with an
//! `OutboundRequestRejected` event.
//!
//! The CONTRLs and APERAKs partners send back are matched to the interchanges they
//! answer by [`record_acknowledgement`] (the transform consumer calls it for each one it
//! reads), which records them beside the AS2 state with an `OutboundAcknowledged` event.

mod acknowledgements;
mod build;
mod delivery;
pub mod inbound_mdn;
mod outcome;
mod post;
mod requests;
mod sender;
mod settings;
pub mod stats;
mod store;
mod timeouts;
pub mod verdict;

pub use acknowledgements::{
    Acknowledgement, AcknowledgementSource, acknowledgements, record_acknowledgement,
};
pub use build::{BuildError, Built, build_message, message_id};
pub use delivery::{
    DELIVERY_AGGREGATE_TYPE, DELIVERY_EVENT_TYPE, OutboundDelivery, delivery_event,
};
pub use edihub_events::OutboundState;
pub use post::PostError;
pub use requests::{
    ClaimCheckError, ClaimChecks, OutboundRequests, REQUEST_AGGREGATE_TYPE, REQUEST_SOURCE,
    RequestError, RequestSettings,
};
pub use sender::OutboundSender;
pub use settings::SenderSettings;
pub use store::{
    Filter, NewOutbound, OutboundMessage, OutboundStore, StoreError, queue_in, status_event,
};
pub use timeouts::{SweepReport, TimeoutSweep};

/// The outbox channel of delivery rows (the outbox's CHECK names it too: migration
/// 20261204000015).
pub const CHANNEL: &str = "as2-outbound";

/// `aggregate_type` of the `OutboundStatusChanged` events.
pub const AGGREGATE_TYPE: &str = "OutboundMessage";
