//! What the S3 server does alone, measured in the same run: locked PUTs made as the
//! archive consumer makes them (one message's objects at once), and GETs one after the
//! other as the export makes them. Divided by the objects a message has, each rate is
//! the ceiling the server sets on the hub's.

use chrono::{DateTime, Utc};
use edihub_archive::ArchiveStore;
use futures::StreamExt as _;
use sqlx::PgPool;
use std::time::Instant;

/// The archive's objects per message and their mean size, from what was archived.
pub struct Shape {
    pub objects_per_message: f64,
    pub mean_size: usize,
}

pub async fn shape(pool: &PgPool, started: DateTime<Utc>) -> Shape {
    let (objects, messages, bytes): (i64, i64, f64) = sqlx::query_as(
        "SELECT count(*), count(DISTINCT o.message_id), coalesce(avg(o.size), 0)::float8
           FROM archive_object o JOIN edi_message m ON m.id = o.message_id
          WHERE m.received_at >= $1",
    )
    .bind(started)
    .fetch_one(pool)
    .await
    .expect("archive shape");
    Shape {
        objects_per_message: objects as f64 / messages.max(1) as f64,
        mean_size: bytes as usize,
    }
}

/// The server's rates: locked PUTs/s, GETs/s.
pub struct S3Rates {
    pub puts: f64,
    pub put_concurrency: usize,
    pub gets: f64,
}

/// `count` objects of the mean size PUT (locked, a day) then read back one at a time.
pub async fn measure(store: &ArchiveStore, shape: &Shape, count: usize) -> S3Rates {
    let put_concurrency = shape.objects_per_message.round().max(1.0) as usize;
    let body = vec![b'x'; shape.mean_size.max(1)];
    let until = Utc::now() + chrono::Duration::days(1);
    let keys: Vec<String> = (0..count).map(|i| format!("bench-reference/{i}")).collect();
    let start = Instant::now();
    let put: Vec<Option<String>> = futures::stream::iter(&keys)
        .map(|key| async {
            store
                .put_locked_as(key, body.clone(), "application/octet-stream", until)
                .await
                .expect("reference PUT")
        })
        .buffered(put_concurrency)
        .collect()
        .await;
    let puts = count as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    for (key, version) in keys.iter().zip(&put) {
        store
            .get(key, version.as_deref())
            .await
            .expect("reference GET");
    }
    let gets = count as f64 / start.elapsed().as_secs_f64();
    S3Rates {
        puts,
        put_concurrency,
        gets,
    }
}
