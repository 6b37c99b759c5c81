//! One archived object checked against S3: fetched by its recorded version, hashed, its
//! lock read back, and the key's other versions looked at.

use super::report::{Check, ObjectCheck};
use super::sources::ObjectRow;
use crate::ArchiveStore;
use edihub_journal::sha256_hex;

/// An object as fetched, with what was found wrong with it.
pub(super) struct FetchedObject {
    pub check: ObjectCheck,
    /// `None` when S3 could not return the recorded version.
    pub bytes: Option<Vec<u8>>,
    pub checks: Vec<Check>,
}

pub(super) async fn fetch_and_check(store: &ArchiveStore, row: &ObjectRow) -> FetchedObject {
    let version = row.version_id.as_deref();
    let name = format!("object {} ({})", row.kind, row.object_key);
    let mut check = ObjectCheck {
        kind: row.kind.clone(),
        key: row.object_key.clone(),
        version_id: row.version_id.clone(),
        recorded_sha256: row.sha256.clone(),
        recorded_size: u64::try_from(row.size).unwrap_or_default(),
        recorded_retain_until: row.retain_until,
        actual_sha256: None,
        actual_size: None,
        retention_mode: None,
        retain_until: None,
    };
    let bytes = match store.get(&row.object_key, version).await {
        Ok(bytes) => bytes,
        Err(error) => {
            let reason = format!(
                "version {} cannot be fetched from S3: {error}",
                version.unwrap_or("-")
            );
            return FetchedObject {
                check,
                bytes: None,
                checks: vec![Check::failed(name, reason)],
            };
        }
    };
    let actual = sha256_hex(&bytes);
    check.actual_sha256 = Some(actual.clone());
    check.actual_size = Some(bytes.len() as u64);
    let mut checks = vec![digest_check(&name, row, &actual, bytes.len())];
    checks.push(retention_check(store, row, &mut check).await);
    checks.push(later_versions_check(store, row, &actual).await);
    FetchedObject {
        check,
        bytes: Some(bytes),
        checks,
    }
}

fn digest_check(name: &str, row: &ObjectRow, actual: &str, size: usize) -> Check {
    let mut problems = Vec::new();
    if actual != row.sha256 {
        problems.push(format!(
            "sha256 recorded {} but S3 version {} hashes to {actual}",
            row.sha256,
            row.version_id.as_deref().unwrap_or("-")
        ));
    }
    if i64::try_from(size).ok() != Some(row.size) {
        problems.push(format!("size recorded {} but S3 has {size}", row.size));
    }
    Check::from_problems(format!("{name}: digest"), problems)
}

/// Retention as S3 reports it: COMPLIANCE, and not before the recorded date.
async fn retention_check(store: &ArchiveStore, row: &ObjectRow, check: &mut ObjectCheck) -> Check {
    let name = format!("object {} ({}): retention", row.kind, row.object_key);
    let (mode, until) = match store
        .retention(&row.object_key, row.version_id.as_deref())
        .await
    {
        Ok(found) => found,
        Err(error) => return Check::failed(name, format!("HeadObject failed: {error}")),
    };
    check.retention_mode = mode.clone();
    check.retain_until = until;
    let mut problems = Vec::new();
    if mode.as_deref() != Some("COMPLIANCE") {
        problems.push(format!(
            "lock mode expected COMPLIANCE, found {}",
            mode.as_deref().unwrap_or("none")
        ));
    }
    match until {
        // S3 keeps the date to the second; the row keeps the receipt's microseconds.
        Some(until) if until.timestamp() >= row.retain_until.timestamp() => {}
        Some(until) => problems.push(format!(
            "locked until {} but recorded retain_until is {}",
            until.to_rfc3339(),
            row.retain_until.to_rfc3339()
        )),
        None => problems.push("no retain-until date".to_owned()),
    }
    Check::from_problems(name, problems)
}

/// A version stored under the key after the recorded one is something slipped in; one
/// with identical bytes is what a redelivered event's PUT leaves, and only noted.
async fn later_versions_check(store: &ArchiveStore, row: &ObjectRow, actual: &str) -> Check {
    let name = format!("object {} ({}): versions", row.kind, row.object_key);
    let later = match later_versions(store, row).await {
        Ok(later) => later,
        Err(reason) => return Check::failed(name, reason),
    };
    let mut problems = Vec::new();
    let mut identical = Vec::new();
    for version in later {
        match store.get(&row.object_key, Some(&version)).await {
            Ok(bytes) if sha256_hex(&bytes) == actual => identical.push(version),
            Ok(bytes) => problems.push(format!(
                "a newer version {version} (sha256 {}) lies under the key after the recorded \
                 version {}",
                sha256_hex(&bytes),
                row.version_id.as_deref().unwrap_or("-")
            )),
            Err(error) => problems.push(format!(
                "a newer version {version} lies under the key and cannot be read: {error}"
            )),
        }
    }
    match (problems.is_empty(), identical.is_empty()) {
        (false, _) => Check::failed(name, problems.join("; ")),
        (true, false) => Check::note(
            name,
            format!(
                "later identical version(s) {} (a redelivery's PUT)",
                identical.join(", ")
            ),
        ),
        (true, true) => Check::ok(name),
    }
}

/// The version ids S3 lists under the key before (newer than) the recorded one.
async fn later_versions(store: &ArchiveStore, row: &ObjectRow) -> Result<Vec<String>, String> {
    let listed = store
        .client()
        .list_object_versions()
        .bucket(store.bucket())
        .prefix(&row.object_key)
        .send()
        .await
        .map_err(|e| {
            format!(
                "ListObjectVersions failed: {}",
                aws_sdk_s3::error::DisplayErrorContext(&e)
            )
        })?;
    let mut versions: Vec<_> = listed
        .versions()
        .iter()
        .filter(|v| v.key() == Some(row.object_key.as_str()))
        .collect();
    // Newest first (the latest, then by time; stable for versions of the same second),
    // whatever order the server lists them in.
    versions.sort_by_key(|v| {
        (
            !v.is_latest().unwrap_or(false),
            std::cmp::Reverse(v.last_modified().map(|t| (t.secs(), t.subsec_nanos()))),
        )
    });
    let recorded = row.version_id.as_deref();
    let Some(position) = versions.iter().position(|v| v.version_id() == recorded) else {
        return Err(format!(
            "the recorded version {} is not among the key's versions",
            recorded.unwrap_or("-")
        ));
    };
    Ok(versions
        .iter()
        .take(position)
        .filter_map(|v| v.version_id().map(str::to_owned))
        .collect())
}
