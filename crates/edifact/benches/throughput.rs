//! Parse + validate + map throughput of `check::evaluate_each` (the transform consumer's
//! code path: each invoice is handed out, and here dropped, as its message is mapped),
//! single-threaded, i.e. per core, printed next to pydifact's parse-only
//! throughput on the same files in the same run. Not a test: figures depend on the
//! machine. Run with
//!
//!     cargo bench -p edihub-edifact --bench throughput
//!
//! Inputs: the sound INVOIC files of the public corpus plus the project's own sample
//! (read in place), and a synthetic interchange built by repeating the sample's message
//! with fresh references (`EDIHUB_BENCH_MB`, default 4 MB). pydifact runs from the venv
//! `${EDIHUB_VENV:-$HOME/.cache/edihub/venv}`; without it only our figures are printed.
//! Target (DESIGN.md): 100+ MB/s per core. Runs with mimalloc, the services' allocator
//! (glibc's malloc costs about a quarter of the throughput). First it streams a 100 MB interchange
//! (`EDIHUB_BENCH_STREAM_MB`) through `evaluate_each` and prints the peak memory the
//! evaluation added, next to the input's size.
//!
//! Next to the INVOIC path, in the same run and on the same inputs: the hub's full path
//! `evaluate_each_with` (mapping and the generic rendering of every message), and the
//! two per-message steps on their own over the same streaming read, so that the
//! rendering's cost can be set against the mapping's (target: no slower): read only,
//! read + INVOIC mapping, read + generic rendering, read + rendering + JSON; and
//! `evaluate_with` on the same clean inputs under both charset policies.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use edihub_edifact::charset::CharsetPolicy;
use edihub_edifact::check::{Options, evaluate, evaluate_each, evaluate_each_with, evaluate_with};
use edihub_edifact::generic::GenericMessage;
use edihub_edifact::{Interchange, Message, invoic};

// The allocator the services (transform consumer, `edihub edifact`) run with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CORPUS_INVOIC: &[&str] = &[
    "Koha__BLSINV337023.CEI",
    "underware.Edifact__D96A_INVOIC.txt",
    "bots-plugins__to_json_invoice__invoic01.edi",
    "pydifact__invoice1.edi",
    "smooks-edi-cartridge__edg_invoic.txt",
    "EdiFabric__Eancom_INVOIC_D01BEAN3.txt",
];

const MIN_TIME: Duration = Duration::from_secs(1);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The sample's message repeated until the interchange is `target` bytes or more.
fn synthetic(target: usize) -> (Vec<u8>, usize) {
    let sample = std::fs::read_to_string(root().join("fixtures/edifact/invoic-eancom-d96a.edi"))
        .expect("project sample");
    let start = sample.find("UNH+").expect("UNH");
    let end = sample.find("UNZ+").expect("UNZ");
    let (head, message) = (&sample[..start], &sample[start..end]);
    let mut out = String::with_capacity(target + 4096);
    out.push_str(head);
    let mut n = 0usize;
    while out.len() < target {
        n += 1;
        out.push_str(
            &message
                .replacen("UNH+1+", &format!("UNH+{n}+"), 1)
                .replacen("UNT+34+1'", &format!("UNT+34+{n}'"), 1),
        );
    }
    out.push_str(&format!("UNZ+{n}+EH000001'\n"));
    (out.into_bytes(), n)
}

/// Best time of repeated `evaluate` runs over all inputs (at least MIN_TIME in total),
/// and the invoices one pass yields.
fn measure(inputs: &[Vec<u8>]) -> (Duration, usize) {
    let mut invoices = 0;
    for input in inputs {
        let report = evaluate(input);
        assert!(
            !report.must_reject(),
            "bench input rejected: {:?}",
            report.faults
        );
        invoices += report.invoices.len();
    }
    let mut best = Duration::MAX;
    let started = Instant::now();
    while started.elapsed() < MIN_TIME || best == Duration::MAX {
        let t = Instant::now();
        for input in inputs {
            let mut invoices = 0usize;
            let report = evaluate_each(std::hint::black_box(input), &mut |invoice| {
                std::hint::black_box(invoice);
                invoices += 1;
            });
            std::hint::black_box((report, invoices));
        }
        best = best.min(t.elapsed());
    }
    (best, invoices)
}

/// Best time of repeated runs of `f` over all inputs (at least MIN_TIME in total).
fn best_of(inputs: &[Vec<u8>], f: &mut dyn FnMut(&[u8])) -> Duration {
    let mut best = Duration::MAX;
    let started = Instant::now();
    while started.elapsed() < MIN_TIME || best == Duration::MAX {
        let t = Instant::now();
        for input in inputs {
            f(std::hint::black_box(input));
        }
        best = best.min(t.elapsed());
    }
    best
}

/// The streaming read of `input` with `step` applied to each message.
fn read_with(input: &[u8], step: &mut dyn FnMut(&Message)) {
    let walked = Interchange::parse_streaming(input, step);
    std::hint::black_box(walked.is_ok());
}

/// The generic rendering next to the INVOIC mapping, each over the same streaming read.
fn generic_figures(inputs: &[Vec<u8>], bytes: usize) {
    let mark = b'.';
    let read = best_of(inputs, &mut |i| {
        read_with(i, &mut |m| {
            std::hint::black_box(m);
        })
    });
    let map = best_of(inputs, &mut |i| {
        read_with(i, &mut |m| {
            drop(std::hint::black_box(invoic::map_message(m, mark)))
        })
    });
    let render = best_of(inputs, &mut |i| {
        read_with(i, &mut |m| {
            drop(std::hint::black_box(GenericMessage::of(m)))
        })
    });
    let json = best_of(inputs, &mut |i| {
        read_with(i, &mut |m| {
            let text = serde_json::to_vec(&GenericMessage::of(m));
            drop(std::hint::black_box(text));
        })
    });
    let full = best_of(inputs, &mut |i| {
        let report = evaluate_each_with(i, &Options::default(), &mut |m| {
            drop(std::hint::black_box(m))
        });
        drop(std::hint::black_box(report));
    });
    let policy = |charset| {
        let options = Options { charset };
        best_of(inputs, &mut |i| {
            drop(std::hint::black_box(evaluate_with(i, &options)));
        })
    };
    let (strict, tolerant) = (
        policy(CharsetPolicy::Strict),
        policy(CharsetPolicy::Tolerant),
    );
    let line = |label: &str, t: Duration| {
        let extra = t.saturating_sub(read);
        println!(
            "  {label:<34} {:8.1} MB/s  (step alone: {:8.1} MB/s)",
            mb_per_s(bytes, t),
            if extra.is_zero() {
                f64::INFINITY
            } else {
                mb_per_s(bytes, extra)
            }
        );
    };
    println!(
        "  {:<34} {:8.1} MB/s",
        "read only (parse_streaming):",
        mb_per_s(bytes, read)
    );
    line("read + INVOIC mapping:", map);
    line("read + generic rendering:", render);
    line("read + generic rendering + JSON:", json);
    println!(
        "  {:<34} {:8.1} MB/s",
        "evaluate_each_with (map + render):",
        mb_per_s(bytes, full)
    );
    println!(
        "  evaluate_with, clean input:        {:8.1} MB/s strict, {:8.1} MB/s tolerant",
        mb_per_s(bytes, strict),
        mb_per_s(bytes, tolerant)
    );
}

fn mb_per_s(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / 1e6 / time.as_secs_f64()
}

/// pydifact's best parse time per file, summed; `None` when the venv is absent.
fn pydifact(files: &[PathBuf]) -> Option<(Duration, usize)> {
    let venv = std::env::var_os("EDIHUB_VENV")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/edihub/venv")))?;
    let python = venv.join("bin/python");
    if !python.exists() {
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/pydifact_throughput.py");
    let out = Command::new(python)
        .arg(script)
        .arg("1.0")
        .args(files)
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("pydifact failed: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let mut total = Duration::ZERO;
    let mut bytes = 0;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let f: Vec<&str> = line.split('\t').collect();
        bytes += f[1].parse::<usize>().ok()?;
        total += Duration::from_secs_f64(f[2].parse().ok()?);
    }
    Some((total, bytes))
}

fn report(label: &str, files: &[PathBuf], inputs: &[Vec<u8>]) {
    let bytes: usize = inputs.iter().map(Vec::len).sum();
    let (time, invoices) = measure(inputs);
    println!(
        "{label}: {} file(s), {:.2} MB, {invoices} invoices",
        inputs.len(),
        bytes as f64 / 1e6
    );
    println!(
        "  edihub-edifact parse+validate+map: {:8.1} MB/s  {:10.0} invoices/s  (1 core, best of runs over >= {}s)",
        mb_per_s(bytes, time),
        invoices as f64 / time.as_secs_f64(),
        MIN_TIME.as_secs()
    );
    match pydifact(files) {
        Some((time, py_bytes)) => println!(
            "  pydifact parse only (same files):  {:8.2} MB/s  -> ratio {:.0}x",
            mb_per_s(py_bytes, time),
            mb_per_s(bytes, measure(inputs).0) / mb_per_s(py_bytes, time)
        ),
        None => println!("  pydifact: venv not found, no reference figure"),
    }
    generic_figures(inputs, bytes);
}

fn main() {
    // `cargo bench` passes --bench; nothing else to parse.
    // First, while the process's peak memory is still only its own.
    streaming_memory();
    let corpus = root().join("../shared/fixtures/edifact/public");
    let mut files: Vec<PathBuf> = vec![root().join("fixtures/edifact/invoic-eancom-d96a.edi")];
    if corpus.is_dir() {
        files.extend(CORPUS_INVOIC.iter().map(|n| corpus.join(n)));
    } else {
        println!("corpus {} absent: project sample only", corpus.display());
    }
    let inputs: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("read input"))
        .collect();
    report("corpus INVOIC", &files, &inputs);

    let mb: usize = std::env::var("EDIHUB_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    let (big, messages) = synthetic(mb * 1_000_000);
    let path = std::env::temp_dir().join(format!("edihub-bench-{}.edi", std::process::id()));
    std::fs::write(&path, &big).expect("write synthetic interchange");
    report(
        &format!("synthetic interchange ({messages} messages)"),
        std::slice::from_ref(&path),
        &[big],
    );
    std::fs::remove_file(&path).ok();
}

/// Peak resident memory of this process so far (Linux `VmHWM`), in bytes.
fn peak_rss() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A 100 MB interchange through `evaluate_each` (what the transform consumer and `edihub
/// edifact check` run): how much memory the evaluation adds on top of the input, next
/// to the input's size. Bounded means: about one message and a short summary per
/// message, not a multiple of the input.
fn streaming_memory() {
    let mb: usize = std::env::var("EDIHUB_BENCH_STREAM_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let (big, messages) = synthetic(mb * 1_000_000);
    let before = peak_rss();
    let started = Instant::now();
    let mut invoices = 0usize;
    let report = edihub_edifact::check::evaluate_each(&big, &mut |_| invoices += 1);
    let time = started.elapsed();
    let after = peak_rss();
    assert!(!report.must_reject(), "the synthetic interchange is sound");
    assert_eq!(invoices, messages);
    println!(
        "streaming ({} MB, {messages} messages, evaluate_each):",
        big.len() / 1_000_000
    );
    println!(
        "  {:>8.1} MB/s, {invoices} invoices handed out one by one",
        mb_per_s(big.len(), time)
    );
    match (before, after) {
        (Some(before), Some(after)) => println!(
            "  peak memory added by the evaluation: {:.1} MB (input {:.1} MB; peak RSS {:.1} MB)",
            after.saturating_sub(before) as f64 / 1e6,
            big.len() as f64 / 1e6,
            after as f64 / 1e6
        ),
        _ => println!("  peak memory: /proc/self/status not readable here"),
    }
}
