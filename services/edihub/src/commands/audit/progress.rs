//! The progress bar of the long commands (`audit verify|export`, `outbox purge`): on stderr, and only when stderr is a terminal, so
//! that piped and `--json` output stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

pub(crate) struct Progress(Option<ProgressBar>);

impl Progress {
    /// Counting messages.
    pub(crate) fn on_terminal() -> Progress {
        Progress::counting("messages")
    }

    /// Counting `unit`s ("rows").
    pub(crate) fn counting(unit: &str) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {unit} {{eta}}"))
        {
            bar.set_style(style);
        }
        Progress(Some(bar))
    }

    pub(crate) fn update(&self, done: u64, total: u64) {
        if let Some(bar) = &self.0 {
            bar.set_length(total);
            bar.set_position(done);
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
