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
