//! End-to-end tests against the real local stack (PostgreSQL, tansu, moto S3).

mod gateway;
mod path;
mod relay;
