//! Cross-check with pydifact (PyPI), an independent EDIFACT reader: on every corpus file
//! and every project fixture (fixtures/edifact) both can read, the two must agree on
//! every segment tag and every element value.
//!
//! pydifact runs in the venv that `bash deploy/stack.sh up` creates
//! (`${EDIHUB_VENV:-$HOME/.cache/edihub/venv}`); the test fails, saying so, when it is
//! absent. Known differences that are normalised, not hidden:
//! - pydifact returns the UNA service string advice as a segment; it is skipped;
//! - pydifact does not split syntax-4 repetitions (`CUX+3*1` stays `3*1`), so our
//!   occurrences of a repeated element are joined again with the repetition separator;
//! - pydifact drops trailing empty components (`PRI+AAA:9.95::::'`), which ISO 9735
//!   treats as absent anyway, so they are dropped on both sides.

use std::path::PathBuf;
use std::process::Command;

use edihub_edifact::Segment;

fn corpus_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/edifact/public"
    ))
}

fn project_fixtures_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/edifact"
    ))
}

fn venv_python() -> PathBuf {
    let venv = std::env::var_os("EDIHUB_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/edihub/venv")
        });
    venv.join("bin/python")
}

/// Drops trailing empty components, keeping at least one per element.
fn trimmed(mut elements: Vec<Vec<String>>) -> Vec<Vec<String>> {
    for components in &mut elements {
        while components.len() > 1 && components.last().is_some_and(String::is_empty) {
            components.pop();
        }
    }
    elements
}

/// Our reading of one segment in pydifact's shape: elements as lists of components.
fn as_pydifact(segment: &Segment, repetition: Option<u8>) -> Vec<Vec<String>> {
    let Some(separator) = repetition.filter(|_| segment.has_repetitions()) else {
        return trimmed(segment.to_vecs());
    };
    let separator = char::from(separator).to_string();
    let joined = (0..segment.element_count())
        .map(|i| {
            let joined: Vec<String> = segment
                .occurrences(i)
                .map(|c| c.iter().collect::<Vec<_>>().join(":"))
                .collect();
            joined
                .join(&separator)
                .split(':')
                .map(str::to_owned)
                .collect()
        })
        .collect();
    trimmed(joined)
}

#[test]
fn segments_and_elements_agree_with_pydifact() {
    let dir = corpus_dir();
    assert!(
        dir.is_dir(),
        "the public EDIFACT corpus {} is absent: this test needs ../shared/fixtures beside the checkout",
        dir.display()
    );
    let python = venv_python();
    assert!(
        python.exists(),
        "pydifact venv not found at {} (set EDIHUB_VENV or run `bash deploy/stack.sh up`)",
        python.display()
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_none_or(|e| e != "tsv"))
        .collect();
    let project = std::fs::read_dir(project_fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "edi"));
    files.extend(project);
    files.sort();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pydifact_segments.py");
    let output = Command::new(&python)
        .arg(script)
        .args(&files)
        .output()
        .expect("run pydifact");
    assert!(
        output.status.success(),
        "pydifact script failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );

    let mut compared = Vec::new();
    let mut skipped = Vec::new();
    let mut mismatches = Vec::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let path = PathBuf::from(record["file"].as_str().unwrap());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let ours = edihub_edifact::segments(&bytes);
        let (delimiters, ours) = match (ours, record.get("segments")) {
            (Ok(ours), Some(_)) => ours,
            (ours, _) => {
                let why = match (ours, record.get("error")) {
                    (Err(e), _) => format!("ours: {e}"),
                    (_, Some(e)) => format!("pydifact: {e}"),
                    _ => unreachable!(),
                };
                skipped.push(format!("{name} ({why})"));
                continue;
            }
        };
        let theirs: Vec<(String, Vec<Vec<String>>)> = record["segments"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s[0] != "UNA")
            .map(|s| serde_json::from_value(s.clone()).unwrap())
            .collect();
        if theirs.len() != ours.len() {
            mismatches.push(format!(
                "{name}: pydifact reads {} segments, we read {}",
                theirs.len(),
                ours.len()
            ));
            continue;
        }
        for (segment, (tag, elements)) in ours.iter().zip(&theirs) {
            let mine = as_pydifact(&segment, delimiters.repetition);
            if segment.tag != tag || mine != trimmed(elements.clone()) {
                mismatches.push(format!(
                    "{name} segment {} (byte {}): ours {} {:?}, pydifact {tag} {elements:?}",
                    segment.position.segment, segment.position.offset, segment.tag, mine
                ));
            }
        }
        compared.push(name);
    }
    eprintln!(
        "compared {} files with pydifact; skipped {}: {skipped:#?}",
        compared.len(),
        skipped.len()
    );
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    // The comparison must not pass vacuously: most of the corpus and every sound
    // project fixture are readable by both.
    assert!(compared.len() >= 30, "only {compared:?} compared");
}
