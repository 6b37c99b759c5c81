//! The streamed entry against what a tar reader finds, and bodies of the wrong size.

use super::{BundleError, BundleWriter, Streamed};
use std::io::Read;

type Chunk = Result<Vec<u8>, std::io::Error>;

fn chunks(parts: &[&[u8]]) -> impl futures::Stream<Item = Chunk> {
    futures::stream::iter(parts.iter().map(|p| Ok(p.to_vec())).collect::<Vec<Chunk>>())
}

/// Every entry of a tar: its path and its bytes.
fn entries(tar: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut archive = tar::Archive::new(tar);
    let mut found = Vec::new();
    for entry in archive.entries().expect("entries") {
        let mut entry = entry.expect("entry");
        let path = entry.path().expect("path").to_string_lossy().into_owned();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).expect("read");
        found.push((path, bytes));
    }
    found
}

#[tokio::test]
async fn streamed_chunks_are_the_entry_and_a_long_path_is_kept() {
    let long = format!("evidence/2026/12/04/{}/payload.edi", "k".repeat(150));
    let body: Vec<u8> = (0..1300u32).map(|i| (i % 251) as u8).collect();
    let mut writer = BundleWriter::new(Vec::new(), 1_764_806_400);
    let streamed = writer
        .append_stream(
            &long,
            1300,
            chunks(&[&body[..1], &body[1..700], &[], &body[700..]]),
        )
        .await
        .expect("stream");
    assert_eq!(
        streamed,
        Streamed {
            sha256: edihub_journal::sha256_hex(&body),
            size: 1300
        }
    );
    writer
        .append_stream("short/empty", 0, chunks(&[]))
        .await
        .expect("stream an empty body");
    writer.append("index.json", b"{}\n").expect("append after");
    assert_eq!(writer.written(), (3, 1303));
    let tar = writer.finish().expect("finish");
    assert_eq!(
        entries(&tar),
        [
            (long, body),
            ("short/empty".to_owned(), Vec::new()),
            ("index.json".to_owned(), b"{}\n".to_vec()),
        ]
    );
    // Whole 10240-byte records, as tar(1) writes them.
    assert_eq!(tar.len() % 10240, 0, "{} bytes", tar.len());
}

#[tokio::test]
async fn a_body_shorter_than_declared_fails_naming_the_key() {
    let mut writer = BundleWriter::new(Vec::new(), 0);
    let error = writer
        .append_stream("originals/a.edi", 10, chunks(&[b"abc", b"def"]))
        .await
        .expect_err("short body");
    assert!(
        matches!(&error, BundleError::BodyTooShort { key, declared: 10, found: 6 } if key == "originals/a.edi"),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "originals/a.edi: S3 declared 10 bytes but sent 6"
    );
    assert_eq!(writer.written(), (0, 0));
}

#[tokio::test]
async fn a_body_longer_than_declared_fails_before_writing_past_it() {
    let mut writer = BundleWriter::new(Vec::new(), 0);
    let error = writer
        .append_stream("originals/b.edi", 4, chunks(&[b"abc", b"de"]))
        .await
        .expect_err("long body");
    assert!(
        matches!(&error, BundleError::BodyTooLong { key, declared: 4 } if key == "originals/b.edi"),
        "{error}"
    );
    assert_eq!(writer.written(), (0, 0));
    // The header block and the three bytes that fit; nothing of the chunk that did not.
    let tar = writer.finish().expect("finish");
    assert_eq!(&tar[512..515], b"abc");
    assert!(tar[515..].iter().all(|b| *b == 0));
}

#[tokio::test]
async fn a_body_that_fails_midway_fails_naming_the_key() {
    let mut writer = BundleWriter::new(Vec::new(), 0);
    let body = futures::stream::iter(vec![
        Ok(b"abc".to_vec()),
        Err(std::io::Error::other("connection reset")),
    ]);
    let error = writer
        .append_stream("originals/c.edi", 6, body)
        .await
        .expect_err("failing body");
    assert_eq!(
        error.to_string(),
        "originals/c.edi: reading the object from S3 failed midway: connection reset"
    );
}
