use super::*;

#[test]
fn backoff_grows_and_is_capped() {
    let settings = RelaySettings {
        base_backoff_ms: 100,
        max_backoff_ms: 1000,
        ..RelaySettings::default()
    };
    for _ in 0..50 {
        let first = backoff(&settings, 1).as_millis();
        assert!((50..=100).contains(&first), "{first}");
        let third = backoff(&settings, 3).as_millis();
        assert!((200..=400).contains(&third), "{third}");
        let capped = backoff(&settings, 30).as_millis();
        assert!((500..=1000).contains(&capped), "{capped}");
    }
}

#[test]
fn the_claim_statements_write_in_the_batch_size_and_the_quoted_channel() {
    let statements = claim_statements(20, "it's");
    assert!(
        statements.starts_with("BEGIN; SET LOCAL synchronous_commit = off;"),
        "{statements}"
    );
    assert!(statements.contains("LIMIT 20"), "{statements}");
    assert!(statements.contains("o.channel = 'it''s'"), "{statements}");
    assert!(
        !statements.contains('$'),
        "a placeholder is left: {statements}"
    );
}

#[test]
fn the_marks_name_every_sent_row_and_commit() {
    assert_eq!(mark_sent_and_commit(&[]), "COMMIT");
    let statements = mark_sent_and_commit(&[7, 12, 9000000000]);
    assert!(
        statements.contains("WHERE seq = ANY('{7,12,9000000000}'::bigint[]); COMMIT"),
        "{statements}"
    );
}

#[test]
fn only_a_lost_connection_is_claimed_again_on_a_fresh_one() {
    let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
    assert!(is_connection_lost(&sqlx::Error::Io(reset)));
    assert!(!is_connection_lost(&sqlx::Error::RowNotFound));
    assert!(!is_connection_lost(&sqlx::Error::PoolTimedOut));
}
