//! The load: signed and encrypted INVOIC messages, each a distinct document, posted in
//! a closed loop (C at a time, the next when one is answered) or an open loop (one
//! every 1/R s, whatever the answers do).

use edihub_as2::{
    Certificate, Encryption, Identity, MicAlg, PlainMessageSpec, SecureMessage, SecureMessageSpec,
    build_secure_message,
};
use edihub_tests::{PARTNER, fixture};
use futures::StreamExt as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One message ready to post: built before the clock starts, since the client's RSA
/// work is not the hub's.
pub struct Prepared {
    /// The AS2 Message-ID, as the journal stores it (no angle brackets).
    pub id: String,
    message: SecureMessage,
}

/// What happened to one POST.
pub struct Posted {
    pub id: String,
    /// When it was sent (open loop: when it was due), as microseconds since the Unix
    /// epoch, comparable with PostgreSQL's `now()` on this machine.
    pub sent_at_us: i64,
    /// Until the MDN was read.
    pub mdn_latency: Duration,
    /// Why it was not accepted, if it was not.
    pub failure: Option<String>,
}

/// The partner's keys and the hub's certificate, for building and checking.
pub struct Partner {
    identity: Identity,
    hub_cert: Arc<Certificate>,
}

impl Partner {
    pub fn load() -> Partner {
        let hub_cert = edihub_as2::certificates_from_pem(&fixture("as2/hub.crt"))
            .expect("hub certificate")
            .remove(0);
        let identity =
            Identity::from_pem(&fixture("as2/partner-a.crt"), &fixture("as2/partner-a.key"))
                .expect("partner identity");
        Partner {
            identity,
            hub_cert: Arc::new(hub_cert),
        }
    }

    /// Messages `first..first + count`, each its own interchange (the same signed
    /// content twice would be answered as a replay, and not journaled again).
    pub fn prepare(&self, first: usize, count: usize, run: &str) -> Vec<Prepared> {
        let now = chrono::Utc::now().timestamp();
        (first..first + count)
            .map(|n| {
                let id = format!("wp-{n}-{run}@acme");
                let payload = edihub_tests::numbered_invoic(n);
                let message = build_secure_message(&SecureMessageSpec {
                    plain: PlainMessageSpec {
                        as2_from: PARTNER,
                        as2_to: edihub_tests::HUB,
                        message_id: &id,
                        subject: "whole path",
                        content_type: "application/edifact",
                        payload: &payload,
                        request_mdn_to: Some("as2@acme.example"),
                        request_signed_mdn: Some(MicAlg::Sha256),
                    },
                    compress: false,
                    sign: Some((&self.identity, MicAlg::Sha256)),
                    encrypt: Some((self.hub_cert.as_ref(), Encryption::Aes256Cbc)),
                    boundary: &format!("----=_wp_{n}"),
                    now_unix: now,
                })
                .expect("build message");
                Prepared { id, message }
            })
            .collect()
    }
}

/// Posts to the gateway and checks the signed MDN.
#[derive(Clone)]
pub struct Sender {
    http: reqwest::Client,
    url: String,
    hub_cert: Arc<Certificate>,
    /// `Instant` and wall clock read together: wall times without a clock step mid-run.
    epoch: (Instant, i64),
}

impl Sender {
    pub fn new(url: &str, partner: &Partner) -> Sender {
        Sender {
            http: edihub_tests::http_client(),
            url: url.to_owned(),
            hub_cert: Arc::clone(&partner.hub_cert),
            epoch: (Instant::now(), chrono::Utc::now().timestamp_micros()),
        }
    }

    fn wall_us(&self, at: Instant) -> i64 {
        let (instant, wall) = self.epoch;
        wall + at.saturating_duration_since(instant).as_micros() as i64
    }

    /// Closed loop: `concurrency` in flight, the next sent when one is answered.
    pub async fn closed(&self, messages: Vec<Prepared>, concurrency: usize) -> Vec<Posted> {
        futures::stream::iter(messages)
            .map(|m| self.post(m, Instant::now()))
            .buffer_unordered(concurrency.max(1))
            .collect()
            .await
    }

    /// Open loop: message `i` sent at `start + i / rate`, each on a task of its own, so
    /// a slow answer delays no later message. Latency counts from when a message was
    /// due, so a generator that falls behind cannot hide the wait.
    pub async fn open(&self, messages: Vec<Prepared>, rate: f64) -> Vec<Posted> {
        let start = Instant::now();
        let mut tasks = Vec::with_capacity(messages.len());
        for (i, message) in messages.into_iter().enumerate() {
            let due = start + Duration::from_secs_f64(i as f64 / rate.max(f64::MIN_POSITIVE));
            // The schedule is the load itself, not a wait for a condition.
            tokio::time::sleep_until(due.into()).await;
            let sender = self.clone();
            tasks.push(tokio::spawn(async move { sender.post(message, due).await }));
        }
        let mut posted = Vec::with_capacity(tasks.len());
        for task in tasks {
            posted.push(task.await.expect("sender task"));
        }
        posted
    }

    async fn post(&self, prepared: Prepared, due: Instant) -> Posted {
        let Prepared { id, message } = prepared;
        let failure = self.post_and_check(&id, message).await.err();
        Posted {
            sent_at_us: self.wall_us(due),
            mdn_latency: due.elapsed(),
            id,
            failure,
        }
    }

    async fn post_and_check(&self, id: &str, secure: SecureMessage) -> Result<(), String> {
        let mut request = self.http.post(&self.url);
        for (name, value) in &secure.message.headers {
            request = request.header(name, value);
        }
        let response = request
            .body(secure.message.body)
            .send()
            .await
            .map_err(|e| format!("{id}: POST: {e}"))?;
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let body = response.bytes().await.map_err(|e| format!("{id}: {e}"))?;
        if status != 200 {
            return Err(format!("{id}: HTTP {status}"));
        }
        let mdn = edihub_as2::read_mdn(
            &content_type,
            &body,
            std::slice::from_ref(self.hub_cert.as_ref()),
        )
        .map_err(|e| format!("{id}: MDN: {e}"))?;
        if mdn.report.disposition != edihub_as2::Disposition::Processed {
            return Err(format!("{id}: {:?}", mdn.report.disposition));
        }
        if mdn.report.received_content_mic.as_ref() != Some(&secure.expected_mic) {
            return Err(format!("{id}: MIC differs"));
        }
        Ok(())
    }
}
