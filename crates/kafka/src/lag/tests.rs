use super::*;

#[test]
fn lag_counts_from_the_position_to_the_high_watermark() {
    assert_eq!(lag(Some(7), 0, 10), 3);
    assert_eq!(lag(Some(10), 0, 10), 0);
}

#[test]
fn without_a_start_the_low_watermark_is_the_start() {
    assert_eq!(lag(None, 2, 10), 8);
    assert_eq!(position(Offset::Invalid), None);
    assert_eq!(position(Offset::Offset(-3)), None);
    assert_eq!(position(Offset::Offset(4)), Some(4));
}

#[test]
fn lag_is_never_negative() {
    // A position past a high watermark read a moment earlier.
    assert_eq!(lag(Some(12), 0, 10), 0);
}
