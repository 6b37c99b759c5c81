use super::*;
use crate::accept::tests::placeholders;

#[test]
fn the_batched_statement_uses_every_parameter_it_binds() {
    let last = DELIVERY + insert::PARAMETERS - 1;
    assert_eq!(placeholders(&INSERT_MANY), (1..=last).collect::<Vec<_>>());
}
