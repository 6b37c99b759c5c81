use super::RefusalBudget;
use std::time::{Duration, Instant};

#[test]
fn a_burst_is_recorded_then_only_the_rate() {
    let budget = RefusalBudget::new(10, 5);
    let start = Instant::now();
    let burst = (0..20).filter(|_| budget.take(start)).count();
    assert_eq!(burst, 5);
    let later = start + Duration::from_millis(500);
    let refilled = (0..20).filter(|_| budget.take(later)).count();
    assert_eq!(refilled, 5, "half a second at 10/s");
    let much_later = start + Duration::from_secs(60);
    let capped = (0..20).filter(|_| budget.take(much_later)).count();
    assert_eq!(capped, 5, "never more than the burst");
}
