use super::*;

#[test]
fn outcomes_read_back_as_written() {
    for outcome in [Outcome::Started, Outcome::Ok, Outcome::Failed] {
        assert_eq!(Outcome::parse(outcome.as_str()), outcome);
    }
    // The JSON the log lists is the column's word.
    assert_eq!(serde_json::to_value(Outcome::Failed).unwrap(), "failed");
}

#[test]
fn a_started_access_names_no_message_yet() {
    let access = AccessRecord::started("alice", commands::SEARCH, serde_json::json!({}));
    assert_eq!(access.outcome, Outcome::Started);
    assert!(access.message_ids.is_empty() && access.result.is_none());
}
