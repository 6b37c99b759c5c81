//! The MDN as sent (mdn.eml) read back, and its `Received-Content-MIC` recomputed over
//! what the partner signed (RFC 4130 section 7.3.1).

use super::report::Check;
use crate::evidence::EvidenceDocument;
use edihub_as2::{Certificate, Mic};

const NAME: &str = "MDN MIC";

/// Checks mdn.eml's MIC against the signed content (signed messages) or the payload
/// (unsigned, unencrypted ones), and against evidence.json. `hub_certificates` verify a
/// signed MDN.
pub(crate) fn check_mdn(
    document: &EvidenceDocument,
    mdn: Option<&[u8]>,
    signed_content: Option<&[u8]>,
    payload: Option<&[u8]>,
    hub_certificates: &[Certificate],
) -> Check {
    let Some(recorded) = &document.mdn else {
        return match mdn {
            Some(_) => Check::failed(NAME, "evidence.json names no MDN but an mdn object exists"),
            None => Check::note(NAME, "no MDN was kept for this message"),
        };
    };
    let Some(mdn) = mdn else {
        return Check::failed(
            NAME,
            "evidence.json names an MDN but no mdn object can be read",
        );
    };
    let mic = match read_mic(mdn, hub_certificates) {
        Ok(mic) => mic,
        Err(reason) => return Check::failed(NAME, reason),
    };
    let mut problems = Vec::new();
    if Mic::parse(&recorded.received_content_mic).ok().as_ref() != Some(&mic) {
        problems.push(format!(
            "mdn.eml says {} but evidence.json says {}",
            mic.header_value(),
            recorded.received_content_mic
        ));
    }
    let covered = match (document.signature.is_some(), signed_content, payload) {
        (true, Some(content), _) => Some(content),
        (true, None, _) => {
            problems.push("the signed content could not be verified to recompute the MIC".into());
            None
        }
        (false, _, _) if document.encryption.is_some() => {
            return failed_or_note(
                problems,
                "encrypted but unsigned: the MIC covers the decrypted entity, which is not kept",
            );
        }
        (false, _, Some(payload)) => Some(payload),
        (false, _, None) => {
            problems.push("the payload could not be read to recompute the MIC".into());
            None
        }
    };
    if let Some(bytes) = covered {
        let expected = Mic::compute(mic.alg, bytes);
        if expected != mic {
            problems.push(format!(
                "Received-Content-MIC is {} but the {} hashes to {}",
                mic.header_value(),
                if document.signature.is_some() {
                    "signed content"
                } else {
                    "payload"
                },
                expected.header_value()
            ));
        }
    }
    Check::from_problems(NAME, problems)
}

/// A failure naming `problems`, or, without any, a note saying `why` the check could not
/// go further.
fn failed_or_note(problems: Vec<String>, why: &str) -> Check {
    if problems.is_empty() {
        Check::note(NAME, why)
    } else {
        Check::from_problems(NAME, problems)
    }
}

/// The MIC mdn.eml returns: its headers, a blank line, then the body.
fn read_mic(mdn: &[u8], hub_certificates: &[Certificate]) -> Result<Mic, String> {
    let (content_type, body) =
        split_message(mdn).ok_or("mdn.eml has no Content-Type header or no blank line")?;
    let read = edihub_as2::read_mdn(&content_type, body, hub_certificates)
        .map_err(|e| format!("mdn.eml does not read as an MDN: {e}"))?;
    read.report
        .received_content_mic
        .ok_or_else(|| "the MDN carries no Received-Content-MIC".to_owned())
}

/// The Content-Type (unfolded) and the body of a header block, blank line, body.
fn split_message(message: &[u8]) -> Option<(String, &[u8])> {
    let (head, body) = match find(message, b"\r\n\r\n") {
        Some(at) => (&message[..at], &message[at + 4..]),
        None => {
            let at = find(message, b"\n\n")?;
            (&message[..at], &message[at + 2..])
        }
    };
    let head = String::from_utf8_lossy(head).replace("\r\n", "\n");
    let mut content_type: Option<String> = None;
    let mut in_content_type = false;
    for line in head.split('\n') {
        if line.starts_with([' ', '\t']) {
            if in_content_type && let Some(value) = content_type.as_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
            continue;
        }
        in_content_type = false;
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-type")
        {
            content_type = Some(value.trim().to_owned());
            in_content_type = true;
        }
    }
    Some((content_type?, body))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests;
