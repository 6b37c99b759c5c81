//! The auditor's commands run as an operator would: `edihub audit seal`, `export` and
//! offline `verify`, each a process of its own, with `sha256sum` of the bundle as the
//! reference for reading it.

use crate::child::{Measured, run_measured};
use chrono::{DateTime, SecondsFormat, Utc};
use std::path::Path;
use std::process::Command;

/// `edihub` with `config` as its only configuration (the settings file wins over the
/// stack's environment, as for the services).
fn edihub(config: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(edihub_tests::service_binary("edihub"));
    for (variable, _) in edihub_config::ENV_OVERRIDES {
        command.env_remove(variable);
    }
    command
        .args(args)
        .env("EDIHUB_CONFIG", config)
        .env("EDIHUB_AUDITOR", "audit_archive bench")
        .env("RUST_LOG", "warn")
        .env("NO_COLOR", "1");
    command
}

/// Runs `what`; panics with its output when it failed: a failed step makes the figures
/// after it meaningless.
fn succeeded(what: &str, measured: Measured) -> Measured {
    assert!(
        measured.succeeded,
        "{what} failed:\n{}\n{}",
        measured.stdout, measured.stderr
    );
    measured
}

/// Seals the entries the archive consumer has not sealed yet.
pub fn seal(config: &Path, dir: &Path) -> Measured {
    let command = edihub(config, &["audit", "seal"]);
    succeeded("edihub audit seal", run_measured(command, dir, "seal"))
}

/// Exports `[from, to)` to `bundle`; returns the run and the messages it exported.
pub fn export(
    config: &Path,
    dir: &Path,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    bundle: &Path,
) -> (Measured, u64) {
    let time = |t: DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Micros, true);
    let (from, to) = (time(from), time(to));
    let output = bundle.to_string_lossy();
    let args = [
        "audit", "export", "--from", &from, "--to", &to, "--output", &output, "--json",
    ];
    let name = format!("export-{}", file_stem(bundle));
    let measured = succeeded(
        "edihub audit export",
        run_measured(edihub(config, &args), dir, &name),
    );
    let summary: serde_json::Value =
        serde_json::from_str(&measured.stdout).expect("export --json prints its summary");
    let messages = summary["messages"].as_u64().expect("summary.messages");
    (measured, messages)
}

/// Verifies `bundle` offline against the hub's sealing certificate; panics unless every
/// check passed.
pub fn verify_offline(config: &Path, dir: &Path, bundle: &Path) -> Measured {
    let certificate = edihub_tests::fixture_path("as2/hub.crt");
    let args = [
        "audit",
        "verify",
        &bundle.to_string_lossy(),
        "--sealing-certificate",
        &certificate.to_string_lossy(),
        "--json",
    ];
    let name = format!("verify-{}", file_stem(bundle));
    succeeded(
        "edihub audit verify (offline)",
        run_measured(edihub(config, &args), dir, &name),
    )
}

/// `sha256sum` of the bundle: reading and hashing it, nothing else.
pub fn sha256sum(dir: &Path, bundle: &Path) -> Measured {
    let mut command = Command::new("sha256sum");
    command.arg(bundle);
    succeeded("sha256sum", run_measured(command, dir, "sha256sum"))
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map_or("bundle".into(), |s| s.to_string_lossy().into_owned())
}
