use super::*;

/// The numbers of the `$n` placeholders in `sql`, sorted and without repeats.
pub(crate) fn placeholders(sql: &str) -> Vec<usize> {
    let mut numbers: Vec<usize> = sql
        .split('$')
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

#[test]
fn the_statement_uses_every_parameter_it_binds() {
    let last = DELIVERY + insert::PARAMETERS - 1;
    assert_eq!(placeholders(&ACCEPT), (1..=last).collect::<Vec<_>>());
}
