//! The bundle as a tar file, written one entry at a time: the writer holds no more than
//! the entry it is given.

use std::io::Write;

/// A tar archive being written; entries are regular files, read-only, owned by nobody
/// in particular, all dated when the bundle was made.
pub struct BundleWriter<W: Write> {
    tar: tar::Builder<W>,
    mtime: u64,
    entries: u64,
    bytes: u64,
}

impl<W: Write> BundleWriter<W> {
    pub fn new(out: W, made_at_unix: i64) -> Self {
        BundleWriter {
            tar: tar::Builder::new(out),
            mtime: u64::try_from(made_at_unix).unwrap_or_default(),
            entries: 0,
            bytes: 0,
        }
    }

    /// Appends `bytes` as the file `path` (relative, `/`-separated: an S3 key).
    pub fn append(&mut self, path: &str, bytes: &[u8]) -> std::io::Result<()> {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(bytes.len() as u64);
        header.set_mode(0o444);
        header.set_mtime(self.mtime);
        // `append_data` writes a GNU long-name entry for paths over 100 bytes.
        self.tar.append_data(&mut header, path, bytes)?;
        self.entries += 1;
        self.bytes += bytes.len() as u64;
        Ok(())
    }

    /// Files and content bytes written so far.
    pub fn written(&self) -> (u64, u64) {
        (self.entries, self.bytes)
    }

    /// Writes the end-of-archive blocks and returns the output.
    pub fn finish(self) -> std::io::Result<W> {
        self.tar.into_inner()
    }
}
