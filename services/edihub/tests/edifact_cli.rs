//! `edihub edifact check|convert` as an operator runs them: output and exit status.

use std::process::Command;

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/edifact/invoic-eancom-d96a.edi"
);

fn edihub(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_edihub"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run edihub")
}

#[test]
fn check_accepts_a_sound_file_and_rejects_a_broken_one() {
    let ok = edihub(&["edifact", "check", SAMPLE]);
    assert!(ok.status.success());
    assert!(String::from_utf8_lossy(&ok.stdout).contains("accepted: 1 invoice(s)"));

    let dir = std::env::temp_dir().join(format!("edihub-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.edi");
    let text = std::fs::read_to_string(SAMPLE)
        .unwrap()
        .replace("UNT+34+1", "UNT+3+1")
        .replace("UNZ+1+EH000001", "UNZ+2+EH000001");
    std::fs::write(&broken, &text).unwrap();
    let bad = edihub(&["edifact", "check", broken.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    let out = String::from_utf8_lossy(&bad.stdout);
    let unt = text.find("UNT+3+").unwrap();
    let unz = text.find("UNZ+2").unwrap();
    assert!(
        out.contains(&format!("segment 35 (byte {unt}): [syntax] UNT declares 3")),
        "{out}"
    );
    assert!(
        out.contains(&format!("segment 36 (byte {unz}): [syntax] UNZ declares 2")),
        "{out}"
    );
    assert!(out.contains("rejected: 2 fault(s)"), "{out}");

    let convert = edihub(&["edifact", "convert", broken.to_str().unwrap()]);
    assert_eq!(convert.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&convert.stderr).contains("rejected"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn convert_prints_one_canonical_invoice_per_message() {
    let out = edihub(&["edifact", "convert", SAMPLE]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let invoices: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(invoices.len(), 1);
    assert_eq!(invoices[0]["invoice_number"], "INV-2026-0001");
    assert_eq!(invoices[0]["totals"]["amount_due"], "267.75");
    assert_eq!(invoices[0]["sources"]["BT-1"]["segment"], 3);
}

fn fixture(name: &str) -> String {
    format!(
        "{}/../../fixtures/edifact/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn check_charset_tolerant_warns_where_strict_rejects() {
    let file = fixture("charset-unoa-lower-case.edi");
    let tolerant = edihub(&["edifact", "check", &file]);
    let out = String::from_utf8_lossy(&tolerant.stdout);
    assert!(tolerant.status.success(), "{out}");
    assert!(out.contains(": warning: segment "), "{out}");
    assert!(out.contains("[charset] byte 0x"), "{out}");
    assert!(out.contains("syntax identifier UNOA"), "{out}");

    let strict = edihub(&["edifact", "check", "--charset", "strict", &file]);
    let out = String::from_utf8_lossy(&strict.stdout);
    assert_eq!(strict.status.code(), Some(1), "{out}");
    assert!(out.contains("[syntax]"), "{out}");

    let unknown = edihub(&["edifact", "check", "--charset", "lenient", &file]);
    assert_eq!(unknown.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown charset policy"));
}

#[test]
fn check_accepts_a_desadv_with_no_invoice() {
    let out = edihub(&["edifact", "check", &fixture("desadv-eancom-d96a.edi")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("accepted: 0 invoice(s), 1 message(s)"),
        "{text}"
    );
}
