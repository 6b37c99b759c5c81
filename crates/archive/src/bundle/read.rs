//! A bundle read back: its tar file listed once (each file's path and where its bytes
//! lie), then each file read on demand, so a check holds one message's files at a time.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Where a file's bytes lie in the tar file.
#[derive(Debug, Clone, Copy)]
struct Located {
    offset: u64,
    size: u64,
}

/// An opened bundle.
pub struct Bundle {
    file: File,
    files: BTreeMap<String, Located>,
    /// Paths that occur more than once (tar keeps the last; a check says so).
    duplicates: Vec<String>,
}

impl Bundle {
    /// Lists the tar file at `path`: regular files only, `./` prefixes dropped (a bundle
    /// unpacked and packed again with `tar -cf x.tar -C dir .` reads the same).
    pub fn open(path: &Path) -> std::io::Result<Bundle> {
        let mut files = BTreeMap::new();
        let mut duplicates = Vec::new();
        let mut archive = tar::Archive::new(File::open(path)?);
        for entry in archive.entries()? {
            let entry = entry?;
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let name = normalise(&entry.path()?.to_string_lossy());
            let located = Located {
                offset: entry.raw_file_position(),
                size: entry.size(),
            };
            if files.insert(name.clone(), located).is_some() {
                duplicates.push(name);
            }
        }
        Ok(Bundle {
            file: File::open(path)?,
            files,
            duplicates,
        })
    }

    /// Every file's path, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    pub fn duplicates(&self) -> &[String] {
        &self.duplicates
    }

    /// The bytes of `path`; `None` when the bundle has no such file.
    pub fn read(&self, path: &str) -> std::io::Result<Option<Vec<u8>>> {
        let Some(located) = self.files.get(path) else {
            return Ok(None);
        };
        let mut file = &self.file;
        file.seek(SeekFrom::Start(located.offset))?;
        let mut bytes = Vec::with_capacity(usize::try_from(located.size).unwrap_or(0));
        file.take(located.size).read_to_end(&mut bytes)?;
        if (bytes.len() as u64) < located.size {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("{path}: the tar file ends inside it"),
            ));
        }
        Ok(Some(bytes))
    }
}

fn normalise(path: &str) -> String {
    let mut path = path;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    path.to_owned()
}
