//! End-to-end tests against the real local stack (PostgreSQL, tansu, moto S3).

mod gateway;
mod outbox_admin;
mod path;
mod relay;
mod smime;
