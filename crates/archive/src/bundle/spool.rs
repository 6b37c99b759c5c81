//! index.json and index.csv written to temporary files as the export goes, message by
//! message, and index.json signed as it is written: the export holds no message's entry
//! after its objects are in the tar, however long the period.
//!
//! index.json keeps the layout `BundleIndex` reads, with one message per line (an auditor
//! can grep it) and the fields known only at the end (segments, ledger head,
//! certificates) after the messages.

use super::BundleError;
use super::index::{CSV_HEADER, IndexCertificates, IndexMessage, IndexSegment, csv_rows};
use chrono::{DateTime, Utc};
use edihub_as2::crypto::DetachedSigner;
use edihub_as2::{Identity, MicAlg};
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Seek, Write};

/// index.json's fields before its messages.
#[derive(Serialize)]
pub(super) struct IndexHead<'a> {
    pub version: u32,
    pub exported_at: DateTime<Utc>,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub partner: Option<&'a str>,
}

/// index.json's fields after its messages.
#[derive(Serialize)]
pub(super) struct IndexTail<'a> {
    pub segments: &'a [IndexSegment],
    pub ledger_head: Option<&'a IndexSegment>,
    pub certificates: &'a IndexCertificates,
}

/// The two index files being written.
pub(super) struct IndexSpool {
    json: BufWriter<Signing<File>>,
    csv: BufWriter<File>,
    messages: u64,
}

/// The finished files, rewound, and index.json's signature.
pub(super) struct SpooledIndex {
    pub json: File,
    pub signature: Vec<u8>,
    pub csv: File,
}

impl IndexSpool {
    /// Starts both files; index.json is signed by `sealing` at `now_unix`.
    pub fn new(
        head: &IndexHead<'_>,
        sealing: &Identity,
        now_unix: i64,
    ) -> Result<Self, BundleError> {
        let signer =
            DetachedSigner::new(sealing, MicAlg::Sha256, now_unix).map_err(BundleError::Seal)?;
        let mut json = BufWriter::new(Signing {
            file: tempfile::tempfile()?,
            signer,
        });
        let head = serde_json::to_string(head).map_err(BundleError::Index)?;
        // `head` is one JSON object: it is reopened to add the messages' array.
        let open = head.strip_suffix('}').unwrap_or(&head);
        write!(json, "{open},\"messages\":[")?;
        let mut csv = BufWriter::new(tempfile::tempfile()?);
        csv.write_all(CSV_HEADER.as_bytes())?;
        Ok(IndexSpool {
            json,
            csv,
            messages: 0,
        })
    }

    /// Adds one message to both files.
    pub fn push(&mut self, message: &IndexMessage) -> Result<(), BundleError> {
        let separator = if self.messages == 0 { "\n" } else { ",\n" };
        self.json.write_all(separator.as_bytes())?;
        serde_json::to_writer(&mut self.json, message).map_err(BundleError::Index)?;
        self.csv.write_all(csv_rows(message).as_bytes())?;
        self.messages += 1;
        Ok(())
    }

    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// Closes index.json with `tail`, signs it and rewinds both files.
    pub fn finish(mut self, tail: &IndexTail<'_>) -> Result<SpooledIndex, BundleError> {
        let tail = serde_json::to_string(tail).map_err(BundleError::Index)?;
        // `tail` is one JSON object: its fields continue index.json's.
        let fields = tail.strip_prefix('{').unwrap_or(&tail);
        write!(self.json, "\n],{fields}\n")?;
        let Signing { mut file, signer } = self.json.into_inner().map_err(|e| e.into_error())?;
        let signature = signer.finish().map_err(BundleError::Seal)?;
        file.rewind()?;
        let mut csv = self.csv.into_inner().map_err(|e| e.into_error())?;
        csv.rewind()?;
        Ok(SpooledIndex {
            json: file,
            signature,
            csv,
        })
    }
}

/// A file whose every byte written is also signed.
struct Signing<W> {
    file: W,
    signer: DetachedSigner,
}

impl<W: Write> Write for Signing<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.file.write(bytes)?;
        self.signer
            .update(&bytes[..written])
            .map_err(std::io::Error::other)?;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests;
