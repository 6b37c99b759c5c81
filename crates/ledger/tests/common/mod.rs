//! Shared by the ledger's integration tests: a fresh migrated database, journaled
//! messages to hang entries on, a sealing key, and an in-memory segment sink.
#![allow(dead_code)]

use chrono::{DateTime, Duration, DurationRound, TimeDelta, Utc};
use edihub_as2::Identity;
use edihub_config::{DatabaseSettings, Secret};
use edihub_ledger::{EntryFacts, ObjectRef, Position, SegmentSink, SinkError};
use openssl::asn1::Asn1Time;
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::rsa::Rsa;
use openssl::x509::{X509Builder, X509NameBuilder};
use sqlx::PgPool;
use std::sync::{Arc, Mutex};
use uuid::Uuid;

/// A fresh, migrated database, named like every test database so `deploy/test.sh`
/// drops it afterwards.
pub async fn fresh_database() -> PgPool {
    let base = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres:postgres@127.0.0.1:5432/edihub".into());
    let server = base.rsplit_once('/').map(|(s, _)| s).unwrap_or(&base);
    let suffix = Uuid::new_v4().simple().to_string()[..12].to_owned();
    let settings = DatabaseSettings {
        url: Secret::new(format!("{server}/edihub_test_{suffix}")),
        max_connections: 20,
    };
    edihub_db::create_and_migrate(&settings)
        .await
        .expect("create and migrate the test database (is PostgreSQL up?)");
    edihub_db::pool(&settings).expect("pool")
}

/// The current time as PostgreSQL keeps it.
pub fn now() -> DateTime<Utc> {
    Utc::now()
        .duration_trunc(TimeDelta::microseconds(1))
        .expect("truncate")
}

/// Journals a minimal message (the ledger's entries reference `edi_message`).
pub async fn message(pool: &PgPool) -> Uuid {
    let id = Uuid::now_v7();
    sqlx::query(
        "INSERT INTO edi_message (id, as2_from, as2_to, as2_message_id, content_type, \
         as2_headers, raw_body, payload, payload_sha256, payload_size, received_at) \
         VALUES ($1, 'PARTNER', 'HUB', $2, 'application/edifact', '{}', '', '', '', 0, now())",
    )
    .bind(id)
    .bind(format!("{id}@partner"))
    .execute(pool)
    .await
    .expect("insert edi_message");
    id
}

/// What the archive would say about `message_id`; `retain_days` sets retain_until.
pub fn facts(message_id: Uuid, position: Position, retain_days: i64) -> EntryFacts {
    EntryFacts {
        message_id,
        as2_from: "PARTNER".into(),
        as2_to: "HUB".into(),
        as2_message_id: format!("{message_id}@partner"),
        received_at: position.chained_at - Duration::seconds(1),
        retain_until: position.chained_at + Duration::days(retain_days),
        objects: vec![ObjectRef {
            kind: "evidence".into(),
            key: format!("evidence/{message_id}/evidence.json"),
            sha256: hex::encode([position.seq as u8; 32]),
            size: 10,
        }],
    }
}

/// Appends `message_id` with [`facts`].
pub async fn append(pool: &PgPool, message_id: Uuid, retain_days: i64) -> edihub_ledger::Appended {
    edihub_ledger::append(pool, message_id, |p| facts(message_id, p, retain_days))
        .await
        .expect("append")
}

pub async fn mark_stored(pool: &PgPool, message_id: Uuid) {
    let mut conn = pool.acquire().await.expect("connection");
    edihub_ledger::mark_stored(&mut conn, message_id)
        .await
        .expect("mark stored");
}

/// A self-signed RSA sealing identity.
pub fn identity(name: &str) -> Identity {
    let key = PKey::from_rsa(Rsa::generate(2048).expect("rsa")).expect("pkey");
    let mut subject = X509NameBuilder::new().expect("name");
    subject.append_entry_by_text("CN", name).expect("cn");
    let subject = subject.build();
    let mut cert = X509Builder::new().expect("builder");
    cert.set_version(2).expect("version");
    cert.set_subject_name(&subject).expect("subject");
    cert.set_issuer_name(&subject).expect("issuer");
    cert.set_pubkey(&key).expect("pubkey");
    cert.set_not_before(&Asn1Time::days_from_now(0).expect("time"))
        .expect("not before");
    cert.set_not_after(&Asn1Time::days_from_now(30).expect("time"))
        .expect("not after");
    cert.sign(&key, MessageDigest::sha256()).expect("sign");
    Identity {
        certificate: cert.build(),
        private_key: key,
    }
}

/// One PUT the sink received.
#[derive(Debug, Clone)]
pub struct Put {
    pub key: String,
    pub bytes: Vec<u8>,
    pub content_type: String,
    pub retain_until: DateTime<Utc>,
    pub version_id: String,
}

/// An in-memory bucket keeping every version; it can be told to fail PUTs of a key.
#[derive(Clone, Default)]
pub struct MemorySink {
    puts: Arc<Mutex<Vec<Put>>>,
    fail_suffix: Arc<Mutex<Option<String>>>,
}

impl MemorySink {
    pub fn puts(&self) -> Vec<Put> {
        self.puts.lock().expect("sink lock").clone()
    }

    /// The newest version under `key`.
    pub fn latest(&self, key: &str) -> Option<Put> {
        self.puts().into_iter().rev().find(|p| p.key == key)
    }

    pub fn versions(&self, key: &str) -> usize {
        self.puts().iter().filter(|p| p.key == key).count()
    }

    /// PUTs of keys ending with `suffix` fail from now on; `None` heals.
    pub fn fail_on(&self, suffix: Option<&str>) {
        *self.fail_suffix.lock().expect("sink lock") = suffix.map(str::to_owned);
    }
}

#[derive(Debug, thiserror::Error)]
#[error("injected failure")]
struct Injected;

impl SegmentSink for MemorySink {
    async fn put_locked(
        &self,
        key: &str,
        bytes: Vec<u8>,
        content_type: &str,
        retain_until: DateTime<Utc>,
    ) -> Result<Option<String>, SinkError> {
        let failing = self.fail_suffix.lock().expect("sink lock").clone();
        if failing.is_some_and(|suffix| key.ends_with(&suffix)) {
            return Err(SinkError(Box::new(Injected)));
        }
        let version_id = Uuid::new_v4().to_string();
        self.puts.lock().expect("sink lock").push(Put {
            key: key.to_owned(),
            bytes,
            content_type: content_type.to_owned(),
            retain_until,
            version_id: version_id.clone(),
        });
        Ok(Some(version_id))
    }
}
