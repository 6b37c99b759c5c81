//! End-to-end tests against the real local stack (PostgreSQL, tansu, moto S3).

mod acknowledgement;
mod async_mdn;
mod audit_evidence;
mod audit_verify;
mod async_mdn_tls;
mod certificates;
mod chaos;
mod evidence_capture;
mod folding;
mod gateway;
mod journal;
mod large;
mod limits;
mod message_types;
mod metrics;
mod outbound;
mod outbox_admin;
mod partners;
mod path;
mod private_broker;
mod purge;
mod relay;
mod replay;
mod smime;
mod ssrf;
mod transport;
