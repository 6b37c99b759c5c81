//! How many refusals of unauthenticated requests are written to `as2_refusal`. Anyone
//! can send requests that are refused, and each record is a database write: without a
//! budget, a flood of junk turns into a flood of INSERTs. Refusals of requests whose
//! signature verified are always recorded (they are rare and worth an operator's look).

use std::sync::Mutex;
use std::time::Instant;

/// A token bucket: `per_second` records on average, bursts of up to `burst`.
pub(crate) struct RefusalBudget {
    per_second: f64,
    burst: f64,
    state: Mutex<Bucket>,
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RefusalBudget {
    pub(crate) fn new(per_second: u32, burst: u32) -> Self {
        Self {
            per_second: f64::from(per_second),
            burst: f64::from(burst.max(1)),
            state: Mutex::new(Bucket {
                tokens: f64::from(burst.max(1)),
                at: Instant::now(),
            }),
        }
    }

    /// Whether one more refusal may be recorded at `now`.
    pub(crate) fn take(&self, now: Instant) -> bool {
        let mut bucket = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * self.per_second).min(self.burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests;
