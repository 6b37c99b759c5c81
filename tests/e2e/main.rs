//! End-to-end tests against the real local stack (PostgreSQL, tansu, moto S3).

mod chaos;
mod gateway;
mod metrics;
mod outbox_admin;
mod path;
mod purge;
mod relay;
mod smime;
