use super::*;
use axum::http::HeaderValue;

fn limits(max_bytes: usize, grace_ms: u64, min_bytes_per_second: u64) -> BodyLimits {
    BodyLimits {
        max_bytes,
        grace: Duration::from_millis(grace_ms),
        min_bytes_per_second,
    }
}

#[test]
fn the_deadline_grows_by_a_second_per_minimum_rate_received() {
    let limits = limits(1 << 20, 2_000, 1_000);
    assert_eq!(limits.allowed(0), Duration::from_millis(2_000));
    assert_eq!(limits.allowed(500), Duration::from_millis(2_500));
    assert_eq!(limits.allowed(10_000), Duration::from_millis(12_000));
    // No minimum rate: the grace alone.
    assert_eq!(
        super::BodyLimits {
            min_bytes_per_second: 0,
            ..limits
        }
        .allowed(10_000),
        Duration::from_millis(2_000)
    );
}

#[test]
fn a_declared_length_over_the_limit_is_refused_before_reading() {
    let limits = limits(10, 1_000, 1_000);
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_LENGTH, HeaderValue::from_static("11"));
    assert!(matches!(
        limits.check_declared(&headers),
        Err(BodyError::TooLarge { limit: 10 })
    ));
    headers.insert(CONTENT_LENGTH, HeaderValue::from_static("10"));
    assert_eq!(limits.check_declared(&headers).ok(), Some(Some(10)));
}

#[tokio::test]
async fn a_body_over_the_limit_without_a_declared_length_is_cut_off() {
    let limits = limits(10, 1_000, 1_000);
    let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(Bytes::from_static(b"123456")),
        Ok(Bytes::from_static(b"789012")),
    ];
    let body = Body::from_stream(futures::stream::iter(chunks));
    assert!(matches!(
        limits.read(body, None).await,
        Err(BodyError::TooLarge { .. })
    ));
}

#[tokio::test]
async fn a_stalled_body_is_too_slow_after_the_grace() {
    let limits = limits(1 << 20, 50, 1_000);
    let stalled = futures::stream::pending::<Result<Bytes, std::io::Error>>();
    let read = limits.read(Body::from_stream(stalled), None).await;
    assert!(
        matches!(read, Err(BodyError::TooSlow { received: 0, .. })),
        "{read:?}"
    );
}
