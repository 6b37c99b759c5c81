//! One S3 object version into the bundle, checked against what the database recorded of
//! it: streamed chunk by chunk (memory: one chunk), or held whole where the export must
//! read it (evidence.json).
//!
//! An object S3 will not serve is a problem of the export, left out; one that fails or
//! changes size once its tar header is written ends the export (the tar would be wrong).

use super::BundleError;
use super::write::{BundleWriter, Streamed};
use crate::verify::digest::digest_differences;
use crate::{ArchiveStore, StoreError};
use edihub_journal::sha256_hex;
use std::io::Write;

/// An object version as the database records it; `name` is how problems call it.
pub(super) struct Recorded<'a> {
    pub name: &'a str,
    pub key: &'a str,
    pub version_id: Option<&'a str>,
    pub sha256: &'a str,
    pub size: u64,
}

/// Streams the object into `writer`; `None` (and a problem) when S3 does not serve it.
pub(super) async fn copy_streamed<W: Write>(
    store: &ArchiveStore,
    object: &Recorded<'_>,
    writer: &mut BundleWriter<W>,
    problems: &mut Vec<String>,
) -> Result<Option<Streamed>, BundleError> {
    let stream = match store.get_stream(object.key, object.version_id).await {
        Ok(stream) => stream,
        Err(error) => {
            problems.push(not_fetched(object, &error));
            return Ok(None);
        }
    };
    let size = stream.size;
    let streamed = writer
        .append_stream(object.key, size, stream.chunks())
        .await?;
    check(object, &streamed, problems);
    Ok(Some(streamed))
}

/// Fetches the object whole, writes it and returns it with its bytes; `None` (and a
/// problem) when S3 does not serve it.
pub(super) async fn copy_buffered<W: Write>(
    store: &ArchiveStore,
    object: &Recorded<'_>,
    writer: &mut BundleWriter<W>,
    problems: &mut Vec<String>,
) -> Result<Option<(Streamed, Vec<u8>)>, BundleError> {
    let bytes = match store.get(object.key, object.version_id).await {
        Ok(bytes) => bytes,
        Err(error) => {
            problems.push(not_fetched(object, &error));
            return Ok(None);
        }
    };
    let written = Streamed {
        sha256: sha256_hex(&bytes),
        size: bytes.len() as u64,
    };
    check(object, &written, problems);
    writer.append(object.key, &bytes)?;
    Ok(Some((written, bytes)))
}

fn not_fetched(object: &Recorded<'_>, error: &StoreError) -> String {
    format!(
        "{}: version {} cannot be fetched from S3, left out: {error}",
        object.name,
        object.version_id.unwrap_or("-")
    )
}

fn check(object: &Recorded<'_>, found: &Streamed, problems: &mut Vec<String>) {
    for difference in digest_differences(object.sha256, object.size, &found.sha256, found.size) {
        problems.push(format!("{}: {difference} (recorded, S3)", object.name));
    }
}
