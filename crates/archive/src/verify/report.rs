//! What a check found, in a form both the CLI's text and its `--json` print.

use crate::evidence::EvidenceDocument;
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

/// One check's outcome. A note is something an auditor should know that is not a fault
/// (an unsigned message has no signature to re-verify; an entry not sealed yet).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", content = "reason", rename_all = "lowercase")]
pub enum Verdict {
    Ok,
    Failed(String),
    Note(String),
}

/// A named check and its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    pub name: String,
    #[serde(flatten)]
    pub verdict: Verdict,
}

impl Check {
    pub fn ok(name: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            verdict: Verdict::Ok,
        }
    }

    pub fn failed(name: impl Into<String>, reason: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            verdict: Verdict::Failed(reason.into()),
        }
    }

    pub fn note(name: impl Into<String>, reason: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            verdict: Verdict::Note(reason.into()),
        }
    }

    /// `Ok` when `problems` is empty, else one failure naming them all.
    pub fn from_problems(name: impl Into<String>, problems: Vec<String>) -> Check {
        if problems.is_empty() {
            Check::ok(name)
        } else {
            Check::failed(name, problems.join("; "))
        }
    }

    pub fn is_failed(&self) -> bool {
        matches!(self.verdict, Verdict::Failed(_))
    }
}

/// One archived object as recorded and as S3 holds it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObjectCheck {
    pub kind: String,
    pub key: String,
    pub version_id: Option<String>,
    /// What `archive_object` records.
    pub recorded_sha256: String,
    pub recorded_size: u64,
    pub recorded_retain_until: DateTime<Utc>,
    /// What the fetched bytes hash to; `None` when they could not be fetched.
    pub actual_sha256: Option<String>,
    pub actual_size: Option<u64>,
    /// Retention as S3's HeadObject reports it.
    pub retention_mode: Option<String>,
    pub retain_until: Option<DateTime<Utc>>,
}

/// Where a message stands in the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerPlace {
    pub seq: i64,
    pub chained_at: Option<DateTime<Utc>>,
    /// The sealed segment that holds it, `(first_seq, last_seq)`; `None` not sealed yet.
    pub segment: Option<(i64, i64)>,
}

/// Every check on one message.
#[derive(Debug, Clone, Serialize)]
pub struct MessageCheck {
    pub message_id: Uuid,
    /// evidence.json as parsed, when it could be fetched and read.
    pub evidence: Option<EvidenceDocument>,
    pub objects: Vec<ObjectCheck>,
    pub ledger: Option<LedgerPlace>,
    /// The signer's certificate subject, when the signature re-verified.
    pub signer: Option<String>,
    pub checks: Vec<Check>,
}

impl MessageCheck {
    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.is_failed())
    }

    /// No check failed (notes allowed).
    pub fn passed(&self) -> bool {
        self.failures().next().is_none()
    }

    /// Each failed check as one line naming the message.
    pub fn discrepancies(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter_map(|c| match &c.verdict {
                Verdict::Failed(reason) => {
                    Some(format!("message {}: {}: {reason}", self.message_id, c.name))
                }
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Check;

    #[test]
    fn a_check_prints_as_name_verdict_and_reason() {
        let failed = serde_json::to_value(Check::failed("MDN MIC", "differs")).expect("json");
        assert_eq!(
            failed,
            serde_json::json!({"name": "MDN MIC", "verdict": "failed", "reason": "differs"})
        );
        let ok = serde_json::to_value(Check::ok("evidence.json")).expect("json");
        assert_eq!(
            ok,
            serde_json::json!({"name": "evidence.json", "verdict": "ok"})
        );
    }
}
