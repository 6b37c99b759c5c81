//! Outbox rows for the benchmarks: events of a real event's size, and old SENT rows for
//! a purge to find and purge.

/// A payload of the size of a real `EdiMessageReceived` (about 500 bytes).
pub fn sample_payload(i: usize) -> serde_json::Value {
    serde_json::json!({
        "message_id": format!("01a23705-45d1-73f2-a9e3-{i:012}"),
        "as2_from": "ACME-SUPPLIER", "as2_to": "EDIHUB",
        "as2_message_id": format!("bench-{i}@acme-supplier"),
        "unb_reference": "EH000001", "unb_sender": "5412345000013", "unb_recipient": "4012345000094",
        "content_type": "application/edifact", "received_at": "2026-12-02T13:50:22.16191Z",
        "payload": { "reference": format!("edihub:edi_message:01a23705-45d1-73f2-a9e3-{i:012}"),
                     "sha256": "7d09766a7eef0805c5f98bbd70e1f56bdab8d14c24ead30319252c15ae1b96e1",
                     "size": 837 }
    })
}

/// `rows` old SENT rows, as a purge finds them: created and sent two days ago, two per
/// aggregate. Written before a run's new rows, they come first in `seq` order, as old
/// rows do.
pub async fn fill_old_sent(pool: &sqlx::PgPool, topic: &str, rows: usize) {
    sqlx::query(
        "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload,
                             headers, status, created_at, sent_at, attempts)
         SELECT gen_random_uuid(), 'EdiMessage', 'old-' || (g / 2), 'EdiMessageReceived', $1,
                $2, '{}', 'SENT', now() - interval '2 days', now() - interval '2 days', 1
         FROM generate_series(0, $3 - 1) AS g",
    )
    .bind(topic)
    .bind(sample_payload(0))
    .bind(rows as i64)
    .execute(pool)
    .await
    .expect("fill old SENT rows");
}

/// Purges the `rows` old rows [`fill_old_sent`] wrote (a day's cutoff), at most
/// `max_rate` rows/s, in chunks of 1,000 when paced so that its work is spread evenly;
/// returns how long it took.
pub async fn purge_old_sent(
    app: &crate::TestApp,
    rows: usize,
    max_rate: Option<u32>,
) -> std::time::Duration {
    let options = edihub_outbox::purge::PurgeOptions {
        cutoff: chrono::Utc::now() - chrono::Duration::days(1),
        chunk_size: if max_rate.is_some() { 1_000 } else { 10_000 },
        dry_run: false,
        max_rows_per_second: max_rate,
    };
    let started = std::time::Instant::now();
    let report = edihub_outbox::purge::purge_sent(&app.pool, &app.store, options, &|_, _| {})
        .await
        .expect("purge");
    assert_eq!(report.rows_deleted, rows, "every old row purged");
    started.elapsed()
}

/// What runs beside the load a bench measures.
#[derive(Debug, Clone, Copy)]
pub enum Beside {
    Nothing,
    Purge,
    /// A purge paced to this many rows per second.
    PacedPurge(u32),
}

impl Beside {
    /// The three, twice, in turn: what a bench interleaves.
    pub fn rounds(paced: u32) -> [Beside; 6] {
        let one = [Beside::Nothing, Beside::Purge, Beside::PacedPurge(paced)];
        [one[0], one[1], one[2], one[0], one[1], one[2]]
    }

    pub fn label(self) -> String {
        match self {
            Beside::Nothing => "alone".to_owned(),
            Beside::Purge => "with purge".to_owned(),
            Beside::PacedPurge(rate) => format!("with purge at {rate}/s"),
        }
    }

    /// `None`: no purge; `Some(max_rate)`: a purge, at most `max_rate` rows/s.
    pub fn purge(self) -> Option<Option<u32>> {
        match self {
            Beside::Nothing => None,
            Beside::Purge => Some(None),
            Beside::PacedPurge(rate) => Some(Some(rate)),
        }
    }
}
