//! Issue 17's goals, measured against an earlier run on the same machine: a run saves
//! its figures with EDIHUB_BENCH_SAVE=FILE, and a later one given
//! EDIHUB_BENCH_BASELINE=FILE prints each goal's ratio to it and whether it is met.
//! Interleave the builds (before, after, before, after) and compare neighbours.

use crate::report::Phase;
use crate::steady::Steady;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// What a goal compares: a CPU row (by its label) or the end-to-end rate.
enum Measure {
    Cpu(&'static str),
    EndToEnd,
}

/// (what, how it is measured, the ratio to the baseline that meets it).
const GOALS: [(&str, Measure, Ratio); 6] = [
    (
        "PostgreSQL CPU per message",
        Measure::Cpu("PostgreSQL, whole server"),
        Ratio::AtMost(0.5),
    ),
    (
        "  its backends for this hub",
        Measure::Cpu("  of it, this database's backends"),
        Ratio::AtMost(0.5),
    ),
    (
        "relay CPU per message",
        Measure::Cpu("outbox-relay"),
        Ratio::AtMost(0.25),
    ),
    (
        "transform consumer CPU",
        Measure::Cpu("transform-consumer"),
        Ratio::AtMost(0.5),
    ),
    (
        "archive consumer CPU",
        Measure::Cpu("archive-consumer"),
        Ratio::AtMost(0.5),
    ),
    (
        "end-to-end messages/s",
        Measure::EndToEnd,
        Ratio::AtLeast(1.5),
    ),
];

#[derive(Clone, Copy)]
enum Ratio {
    AtMost(f64),
    AtLeast(f64),
}

impl Ratio {
    fn met(self, ratio: f64) -> bool {
        match self {
            Ratio::AtMost(goal) => ratio <= goal,
            Ratio::AtLeast(goal) => ratio >= goal,
        }
    }

    fn describe(self) -> String {
        match self {
            Ratio::AtMost(goal) => format!("<= {goal}x"),
            Ratio::AtLeast(goal) => format!(">= {goal}x"),
        }
    }
}

/// One run's figures, by phase name.
#[derive(Serialize, Deserialize, Default)]
pub struct Figures {
    phases: BTreeMap<String, PhaseFigures>,
    /// The relay alone at a steady rate: CPU ms per event of its process.
    #[serde(default)]
    steady_relay_ms_per_event: Option<f64>,
}

#[derive(Serialize, Deserialize)]
struct PhaseFigures {
    end_to_end: f64,
    /// CPU ms per accepted message, by row label.
    cpu_ms: BTreeMap<String, f64>,
}

impl Figures {
    /// `phases` with the end-to-end rates their reports printed.
    pub fn of(phases: &[Phase], rates: &[f64], steady: &Steady) -> Self {
        let phases = phases.iter().zip(rates).map(|(phase, &end_to_end)| {
            let messages = phase.accepted().max(1) as f64;
            let cpu_ms = (phase.spent.rows.iter())
                .filter_map(|(label, t)| Some((label.clone(), t.as_ref()?.as_secs_f64())))
                .map(|(label, seconds)| (label, seconds * 1e3 / messages))
                .collect();
            let figures = PhaseFigures { end_to_end, cpu_ms };
            (phase.name.to_owned(), figures)
        });
        Self {
            phases: phases.collect(),
            steady_relay_ms_per_event: steady.ms_per_event("outbox-relay"),
        }
    }

    pub fn save(&self, path: &Path) {
        let json = serde_json::to_vec_pretty(self).expect("figures as JSON");
        std::fs::write(path, json).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("figures saved to {}", path.display());
    }

    pub fn load(path: &Path) -> Self {
        let json = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_slice(&json).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn value(&self, phase: &str, measure: &Measure) -> Option<f64> {
        let figures = self.phases.get(phase)?;
        match measure {
            Measure::Cpu(label) => figures.cpu_ms.get(*label).copied(),
            Measure::EndToEnd => Some(figures.end_to_end),
        }
    }

    /// Each goal per phase: this run, the baseline, their ratio and whether it is met.
    pub fn print_goals(&self, baseline: &Figures, baseline_path: &Path) {
        println!(
            "Goals against the baseline {} (ms per message; a ratio is this run / baseline):",
            baseline_path.display()
        );
        for phase in self.phases.keys() {
            println!("  {phase}:");
            for (what, measure, goal) in &GOALS {
                let (Some(now), Some(then)) =
                    (self.value(phase, measure), baseline.value(phase, measure))
                else {
                    println!("    {what:<30} not measured in both runs");
                    continue;
                };
                print_goal(what, now, then, *goal);
            }
        }
        println!("  relay alone at a steady rate:");
        match (
            self.steady_relay_ms_per_event,
            baseline.steady_relay_ms_per_event,
        ) {
            (Some(now), Some(then)) => {
                print_goal("relay CPU per event", now, then, Ratio::AtMost(0.25))
            }
            _ => println!(
                "    {:<30} not measured in both runs",
                "relay CPU per event"
            ),
        }
    }
}

fn print_goal(what: &str, now: f64, then: f64, goal: Ratio) {
    let ratio = now / then.max(f64::EPSILON);
    let verdict = if goal.met(ratio) { "met" } else { "NOT met" };
    println!(
        "    {what:<30} {now:>9.3} vs {then:>9.3}  {ratio:>5.2}x  (goal {}: {verdict})",
        goal.describe()
    );
}
