//! The chain itself: canonical entry bytes and the link hash. Pure.

use crate::{EntryFacts, ObjectRef, Position};
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// The previous hash of the first entry.
pub const GENESIS: [u8; 32] = [0; 32];

/// The entry as written: the field order here is the key order of the canonical bytes.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CanonicalEntry {
    pub seq: i64,
    pub message_id: Uuid,
    pub as2_from: String,
    pub as2_to: String,
    pub as2_message_id: String,
    pub received_at: String,
    pub chained_at: String,
    pub retain_until: String,
    pub objects: Vec<ObjectRef>,
}

/// RFC 3339 UTC with microseconds: PostgreSQL's `timestamptz` precision, so a time read
/// back from the database writes the same bytes again.
pub fn format_time(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// The entry's canonical bytes: one line of JSON, keys in a fixed order.
pub fn canonical(position: Position, facts: &EntryFacts) -> Vec<u8> {
    let entry = CanonicalEntry {
        seq: position.seq,
        message_id: facts.message_id,
        as2_from: facts.as2_from.clone(),
        as2_to: facts.as2_to.clone(),
        as2_message_id: facts.as2_message_id.clone(),
        received_at: format_time(facts.received_at),
        chained_at: format_time(position.chained_at),
        retain_until: format_time(facts.retain_until),
        objects: facts.objects.clone(),
    };
    // Serialising plain strings, integers and a UUID into a Vec cannot fail; an empty
    // line would never verify, so the impossible case stays visible.
    serde_json::to_vec(&entry).unwrap_or_default()
}

/// `SHA-256(prev || canonical)`.
pub fn chain_hash(prev: &[u8; 32], canonical: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(prev);
    hasher.update(canonical);
    hasher.finalize().into()
}

/// An entry's canonical bytes read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedEntry {
    pub position: Position,
    pub facts: EntryFacts,
}

/// Why canonical bytes do not read as an entry.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("not an entry: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{field} is not an RFC 3339 time: {source}")]
    Time {
        field: &'static str,
        #[source]
        source: chrono::ParseError,
    },
}

/// Reads canonical bytes back (the verifier's view of an entry).
pub fn parse_canonical(bytes: &[u8]) -> Result<ParsedEntry, ParseError> {
    let entry: CanonicalEntry = serde_json::from_slice(bytes)?;
    let time = |field: &'static str, text: &str| {
        DateTime::parse_from_rfc3339(text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|source| ParseError::Time { field, source })
    };
    Ok(ParsedEntry {
        position: Position {
            seq: entry.seq,
            chained_at: time("chained_at", &entry.chained_at)?,
        },
        facts: EntryFacts {
            message_id: entry.message_id,
            as2_from: entry.as2_from,
            as2_to: entry.as2_to,
            as2_message_id: entry.as2_message_id,
            received_at: time("received_at", &entry.received_at)?,
            retain_until: time("retain_until", &entry.retain_until)?,
            objects: entry.objects,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(secs: i64, micros: u32) -> DateTime<Utc> {
        Utc.timestamp_opt(secs, micros * 1000)
            .single()
            .expect("valid time")
    }

    fn facts(as2_from: &str) -> EntryFacts {
        EntryFacts {
            message_id: Uuid::from_u128(0x0193_0000_0000_7000_8000_0000_0000_0001),
            as2_from: as2_from.into(),
            as2_to: "HUB".into(),
            as2_message_id: "m1@partner".into(),
            received_at: at(1_764_806_400, 1),
            retain_until: at(2_080_425_600, 0),
            objects: vec![ObjectRef {
                kind: "payload".into(),
                key: "originals/2025/12/04/x.edi".into(),
                sha256: "ab".repeat(32),
                size: 42,
            }],
        }
    }

    fn position() -> Position {
        Position {
            seq: 7,
            chained_at: at(1_764_806_401, 123_456),
        }
    }

    #[test]
    fn canonical_is_one_line_with_keys_in_the_fixed_order() {
        let bytes = canonical(position(), &facts("PARTNER"));
        let expected = concat!(
            r#"{"seq":7,"message_id":"01930000-0000-7000-8000-000000000001","#,
            r#""as2_from":"PARTNER","as2_to":"HUB","as2_message_id":"m1@partner","#,
            r#""received_at":"2025-12-04T00:00:00.000001Z","#,
            r#""chained_at":"2025-12-04T00:00:01.123456Z","#,
            r#""retain_until":"2035-12-05T00:00:00.000000Z","#,
            r#""objects":[{"kind":"payload","key":"originals/2025/12/04/x.edi","#,
            r#""sha256":"abababababababababababababababababababababababababababababababab","#,
            r#""size":42}]}"#
        );
        assert_eq!(String::from_utf8(bytes).expect("utf-8"), expected);
    }

    #[test]
    fn strings_are_escaped_and_stay_on_one_line() {
        let bytes = canonical(position(), &facts("A\"B\\C\nD\u{1}"));
        let text = String::from_utf8(bytes.clone()).expect("utf-8");
        assert!(text.contains(r#""as2_from":"A\"B\\C\nD\u0001""#), "{text}");
        assert!(!bytes.contains(&b'\n'));
        let back = parse_canonical(&bytes).expect("parses");
        assert_eq!(back.facts.as2_from, "A\"B\\C\nD\u{1}");
    }

    #[test]
    fn parsing_gives_back_what_was_written() {
        let bytes = canonical(position(), &facts("PARTNER"));
        let back = parse_canonical(&bytes).expect("parses");
        assert_eq!(back.position, position());
        assert_eq!(back.facts, facts("PARTNER"));
        assert_eq!(canonical(back.position, &back.facts), bytes);
    }

    #[test]
    fn chain_hash_is_sha256_of_prev_then_canonical() {
        // `sha256sum` of 32 zero bytes followed by "abc".
        let expected = "365aa7d8f7f9402c4b9434502b4cc89ddb09fe50d7cd95b493b834c62d5a5370";
        assert_eq!(hex::encode(chain_hash(&GENESIS, b"abc")), expected);
        assert_ne!(chain_hash(&GENESIS, b"abc"), chain_hash(&[1; 32], b"abc"));
    }
}
