//! The bundle as a tar file, written one entry at a time: the writer holds no more than
//! the entry it is given, or one chunk of an entry it is streamed.

use super::BundleError;
use futures::{Stream, StreamExt};
use sha2::{Digest, Sha256};
use std::io::{Read as _, Write};

/// A tar archive being written; entries are regular files, read-only, owned by nobody
/// in particular, all dated when the bundle was made.
pub struct BundleWriter<W: Write> {
    tar: tar::Builder<Counting<W>>,
    mtime: u64,
    entries: u64,
    bytes: u64,
}

/// What a streamed entry held, computed as it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Streamed {
    /// Lowercase hex, as `edihub_journal::sha256_hex`.
    pub sha256: String,
    pub size: u64,
}

impl<W: Write> BundleWriter<W> {
    pub fn new(out: W, made_at_unix: i64) -> Self {
        BundleWriter {
            tar: tar::Builder::new(Counting { out, written: 0 }),
            mtime: u64::try_from(made_at_unix).unwrap_or_default(),
            entries: 0,
            bytes: 0,
        }
    }

    /// Appends `bytes` as the file `path` (relative, `/`-separated: an S3 key).
    pub fn append(&mut self, path: &str, bytes: &[u8]) -> std::io::Result<()> {
        let mut header = self.header(bytes.len() as u64);
        // `append_data` writes a GNU long-name entry for paths over 100 bytes.
        self.tar.append_data(&mut header, path, bytes)?;
        self.entries += 1;
        self.bytes += bytes.len() as u64;
        Ok(())
    }

    /// Appends the whole of `file` (a spool file of the export's, rewound) as `path`.
    pub fn append_file(&mut self, path: &str, file: std::fs::File) -> std::io::Result<()> {
        let size = file.metadata()?.len();
        let mut header = self.header(size);
        // `take`: the header declares `size`, so no byte past it may reach the tar.
        self.tar.append_data(&mut header, path, file.take(size))?;
        self.entries += 1;
        self.bytes += size;
        Ok(())
    }

    /// Appends the file `path` of `size` bytes from `body`, chunk by chunk as it yields
    /// them. A body that yields more or fewer than `size` bytes, or fails, is an error:
    /// the header already declared `size`, so the tar written so far is unusable and the
    /// caller must abandon it.
    pub async fn append_stream<S, B, E>(
        &mut self,
        path: &str,
        size: u64,
        body: S,
    ) -> Result<Streamed, BundleError>
    where
        S: Stream<Item = Result<B, E>>,
        B: AsRef<[u8]>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let mut header = self.header(size);
        // With no data, `append_data` writes only the header (after a GNU long-name
        // entry when the path needs one) and no padding; the data follows below.
        self.tar.append_data(&mut header, path, std::io::empty())?;
        let mut body = std::pin::pin!(body);
        let mut hasher = Sha256::new();
        let mut written = 0u64;
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| BundleError::Body {
                key: path.to_owned(),
                source: Box::new(e),
            })?;
            let chunk = chunk.as_ref();
            // Checked before writing: not one byte past the declared size reaches the tar.
            if chunk.len() as u64 > size - written {
                return Err(BundleError::BodyTooLong {
                    key: path.to_owned(),
                    declared: size,
                });
            }
            self.tar.get_mut().write_all(chunk)?;
            hasher.update(chunk);
            written += chunk.len() as u64;
        }
        if written < size {
            return Err(BundleError::BodyTooShort {
                key: path.to_owned(),
                declared: size,
                found: written,
            });
        }
        pad_to_block(self.tar.get_mut(), size)?;
        self.entries += 1;
        self.bytes += size;
        Ok(Streamed {
            sha256: hex::encode(hasher.finalize()),
            size,
        })
    }

    /// Files and content bytes written so far.
    pub fn written(&self) -> (u64, u64) {
        (self.entries, self.bytes)
    }

    /// Writes the end-of-archive blocks, pads the file to a whole 10240-byte record as
    /// tar(1) does (GNU `tar --delete` misreads a file that ends mid-record), and returns
    /// the output.
    pub fn finish(self) -> std::io::Result<W> {
        const RECORD: u64 = 20 * 512;
        let mut counted = self.tar.into_inner()?;
        let padding = (RECORD - counted.written % RECORD) % RECORD;
        counted.write_all(&vec![0; padding as usize])?;
        Ok(counted.out)
    }

    fn header(&self, size: u64) -> tar::Header {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(size);
        header.set_mode(0o444);
        header.set_mtime(self.mtime);
        header
    }
}

/// The output, and how many bytes went to it.
struct Counting<W> {
    out: W,
    written: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(bytes)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Zeroes up to the next 512-byte block, as the tar crate pads what it writes itself.
fn pad_to_block(out: &mut impl Write, size: u64) -> std::io::Result<()> {
    const BLOCK: u64 = 512;
    let remaining = (BLOCK - size % BLOCK) % BLOCK;
    out.write_all(&[0; BLOCK as usize][..remaining as usize])
}

#[cfg(test)]
mod tests;
